"""What an entry function expects, read from the IR alone: which arguments are arrays, which
scalars feed which array's shape or stride, which scalars are free (a Python constant, a loop
bound, an epsilon), and the constraints the kernel states about them (static sizes and strides
in tensor_view types, ``assume`` div_by / bounded predicates, tile shapes of the views built on
each array).

Roles are inferred from use, not from argument positions: a pointer argument is an array whose
rank is that of the tensor view made from it; an integer argument that reaches a
``make_tensor_view`` shape or stride slot (directly or through ``assume``/``exti``/``trunci``)
stands for that size or stride, wherever it sits in the signature (the cuTile Python convention
puts them right after the pointer, cuTile Rust ports may share one size between several arrays or
pass a size as a stride). A pointer no tensor view uses (pointer-tile gathers) is taken as a 1-D
array; when two integer arguments that no view claims follow it they are taken as its size and
stride (the cuTile Python convention); when its pointer-tile accesses are masked by a comparison
with one free integer argument (``offsets < n``) that argument is its size; otherwise it is a bare
pointer whose extent is guessed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

from tileir_diff.dialect.access import POINTER_ACCESS, VIEW_ACCESS
from tileir_diff.dialect.traits import MAKES_VIEW, ops_with
from tileir_diff.ir import Bounded, DivBy, Function, Module, Value
from tileir_diff.ir.types import PartitionViewType, PointerType, ScalarType, TileType

from tileir_diff.interp import dtypes as dt
from tileir_diff.interp.errors import InterpreterError
from tileir_diff.interp.machine import entry_function
from tileir_diff.launch.abi import array_words

DEFAULT_TILE = 16
_VIEW_MAKERS = ops_with(MAKES_VIEW)
# ops whose result carries the value of their first operand (for following an argument to a slot)
_SAME_VALUE = ("assume", "exti", "trunci")


@dataclass
class ArgFacts:
    divisor: int = 1
    lower: Optional[int] = None
    upper: Optional[int] = None

    def merged(self, other: "ArgFacts") -> "ArgFacts":
        div = self.divisor * other.divisor // gcd(self.divisor, other.divisor)
        lows = [x for x in (self.lower, other.lower) if x is not None]
        ups = [x for x in (self.upper, other.upper) if x is not None]
        return ArgFacts(div, max(lows) if lows else None, min(ups) if ups else None)


@dataclass
class ArraySpec:
    pointer_arg: int
    elem: str
    ndim: int
    index_elem: Optional[str]  # element type of the size/stride args (None: no such args)
    static_shape: Tuple[Optional[int], ...]
    static_strides: Tuple[Optional[int], ...]
    shape_facts: Tuple[ArgFacts, ...]
    stride_facts: Tuple[ArgFacts, ...]
    tile_hint: Tuple[int, ...]  # extent worth covering per dim: largest tile (times constant index + 1)
    pointer_only: bool = False  # no tensor view: accessed through pointer tiles only
    shape_args: Tuple[Optional[int], ...] = ()   # entry argument feeding each size (None: static/computed)
    stride_args: Tuple[Optional[int], ...] = ()  # entry argument feeding each stride
    computed_strides: bool = False  # a dynamic stride is computed in the kernel: pass a contiguous array
    guessed_extent: bool = False    # a bare pointer: nothing in the IR says how large the array is
    pointer_divisor: int = 1        # assume div_by on the pointer: the base address's alignment
    sized_by_mask: bool = False     # a raw pointer whose size is the argument its mask compares with

    def key(self):
        return ("array", self.elem, self.ndim)


@dataclass
class ScalarSpec:
    arg: int
    elem: str
    facts: ArgFacts
    used: bool = True

    def key(self):
        return ("scalar", self.elem)

    @property
    def kind(self) -> str:
        return "bool" if self.elem == "i1" else ("float" if dt.is_float(self.elem) else "int")


Item = Union[ArraySpec, ScalarSpec]


@dataclass
class Layout:
    entry: str
    items: List[Item]
    block_axes: Tuple[bool, bool, bool]  # which get_tile_block_id axes the kernel reads
    arg_types: List[str] = field(default_factory=list)
    # entry argument -> the ("shape" | "stride", array index, dim) slots it feeds
    slots: Dict[int, List[Tuple[str, int, int]]] = field(default_factory=dict)

    @property
    def arrays(self) -> List[ArraySpec]:
        return [i for i in self.items if isinstance(i, ArraySpec)]

    @property
    def scalars(self) -> List[ScalarSpec]:
        """The free scalars: arguments that are neither a pointer nor a size/stride of an array."""
        return [i for i in self.items if isinstance(i, ScalarSpec)]

    def describe(self) -> str:
        parts = []
        for it in self.items:
            if isinstance(it, ArraySpec):
                parts.append(f"{it.elem}[{it.ndim}d]")
            else:
                parts.append(it.elem)
        return f"@{self.entry}(" + ", ".join(parts) + ")"


def infer_layout(module: Module, entry: Optional[str] = None) -> Layout:
    f = entry_function(module, entry)
    scan = _Scan(f.arguments)
    for op in f.walk():
        scan.note(op)
    args = _ArgumentKinds(f)
    pointers = args.pointers()
    claimed = {a for v in scan.views.values() for a in v.shape_args + v.stride_args if a is not None}
    slots: Dict[int, List[Tuple[str, int, int]]] = {}
    arrays: Dict[int, ArraySpec] = {}
    for k, p in enumerate(pointers):
        arrays[p] = _array_spec(k, p, scan, args, claimed, slots)
    _size_masked_pointers(f, scan, args, pointers, arrays, slots)
    _tie_unread_conventional_words(scan, args, pointers, arrays, slots)
    return Layout(f.name, _items(args, arrays, slots, scan), _block_axes(f, scan.block_ids),
                  [str(a.type) for a in args.args], slots)


@dataclass
class _ViewWords:
    """The tensor view made from a pointer argument: its static type and the arguments in its slots."""
    rank: int
    shape: Tuple[Optional[int], ...]
    strides: Tuple[Optional[int], ...]
    shape_args: Tuple[Optional[int], ...]   # entry argument in each size slot (None: static/computed)
    stride_args: Tuple[Optional[int], ...]  # entry argument in each stride slot
    computed: bool  # a dynamic stride is not an entry argument


class _ArgumentKinds:
    """The entry arguments by type: pointers, integer scalars (all must be scalar tiles)."""

    def __init__(self, f: Function) -> None:
        self.args = list(f.arguments)
        self.types: List[TileType] = []
        for i, a in enumerate(self.args):
            if not isinstance(a.type, TileType) or a.type.shape:
                raise InterpreterError(f"@{f.name}: argument {i} of type {a.type} is not a scalar tile")
            self.types.append(a.type)

    def is_pointer(self, i: int) -> bool:
        return isinstance(self.types[i].element, PointerType)

    def is_int(self, i: int) -> bool:
        if i >= len(self.args):
            return False
        return not self.is_pointer(i) and getattr(self.types[i].element, "name", "") in dt.INT_DTYPES

    def pointers(self) -> List[int]:
        return [i for i in range(len(self.args)) if self.is_pointer(i)]

    def elem(self, i: int) -> str:
        return dt.name_of(self.types[i].element)

    def pointee(self, i: int) -> str:
        """The element type of pointer argument ``i``."""
        ptr = self.types[i].element
        assert isinstance(ptr, PointerType)  # only called for is_pointer(i)
        return dt.name_of(ptr.pointee)


class _Scan:
    """One walk over the entry function: which value is which argument, what ``assume`` states
    about each argument, the tensor views made from pointers, the largest tile per array dim,
    which arguments and block ids are read."""

    def __init__(self, args: Sequence[Value]) -> None:
        self.arg_of: Dict[int, int] = {a.vid: i for i, a in enumerate(args)}
        self.facts: Dict[int, ArgFacts] = {i: ArgFacts() for i in range(len(args))}
        self.views: Dict[int, _ViewWords] = {}  # pointer arg -> its tensor view
        self.tv_of: Dict[int, int] = {}   # tensor view vid -> pointer arg
        self.tiles: Dict[int, Dict[int, int]] = {}  # pointer arg -> dim -> largest tile extent
        self.used: Set[int] = set()
        self.block_ids: Dict[int, int] = {}  # get_tile_block_id result vid -> axis
        self.largest_tile = DEFAULT_TILE
        self.consts: Dict[int, int] = {}  # integer scalar constant vid -> value
        self.pviews: Dict[int, tuple] = {}  # partition view vid -> (pointer arg, view type)

    def note(self, op) -> None:
        self._note_tile_extent(op)
        if self._follow_same_value(op):
            return  # a use through assume/exti/trunci counts where the result is used
        for v in op.operands:
            self.used.add(self.arg_of.get(v.vid, -1))
        if op.name == "make_tensor_view" and op.operands and op.operands[0].vid in self.arg_of:
            self._note_tensor_view(op)
        elif op.name in _VIEW_MAKERS and op.operands and op.operands[0].vid in self.tv_of:
            self._note_partition_view(op)
        elif _is_int_scalar_constant(op):
            self.consts[op.results[0].vid] = int(op.attributes["value"].to_numpy().reshape(-1)[0])
        elif op.name in VIEW_ACCESS:
            self._note_view_access(op)
        elif op.name == "get_tile_block_id":
            for k, r in enumerate(op.results):
                self.block_ids[r.vid] = k

    def _note_tile_extent(self, op) -> None:
        for r in op.results:
            if isinstance(r.type, TileType) and r.type.shape:
                self.largest_tile = max(self.largest_tile, max(r.type.shape))

    def _follow_same_value(self, op) -> bool:
        """An op whose result is its first operand's value (an argument's): the result stands for
        that argument, and an ``assume`` adds its facts."""
        if not (op.name in _SAME_VALUE and op.operands and op.operands[0].vid in self.arg_of):
            return False
        i = self.arg_of[op.operands[0].vid]
        self.arg_of[op.results[0].vid] = i
        if op.name == "assume":
            p = op.attributes.get("predicate")
            if isinstance(p, DivBy) and p.every is None:
                self.facts[i] = self.facts[i].merged(ArgFacts(int(p.divisor)))
            elif isinstance(p, Bounded):
                self.facts[i] = self.facts[i].merged(ArgFacts(1, p.lb, p.ub))
        return True

    def _note_tensor_view(self, op) -> None:
        p = self.arg_of[op.operands[0].vid]
        t = op.results[0].type
        nshape = sum(1 for d in t.shape if d is None)
        dyn = op.operands[1:]
        dyn_shape = iter(self.arg_of.get(v.vid) for v in dyn[:nshape])
        dyn_strides = iter(self.arg_of.get(v.vid) for v in dyn[nshape:])
        shape_args = tuple([None if d is not None else next(dyn_shape) for d in t.shape])
        stride_args = tuple([None if s is not None else next(dyn_strides) for s in t.strides])
        computed = any(a is None and s is None for a, s in zip(stride_args, t.strides))
        self.views.setdefault(p, _ViewWords(len(t.shape), tuple(t.shape), tuple(t.strides),
                                            shape_args, stride_args, computed))
        self.tv_of[op.results[0].vid] = p

    def _widen_tile(self, p: int, dim: int, extent: int) -> None:
        dims = self.tiles.setdefault(p, {})
        dims[dim] = max(dims.get(dim, 0), extent)

    def _note_partition_view(self, op) -> None:
        p = self.tv_of[op.operands[0].vid]
        t = op.results[0].type
        self.pviews[op.results[0].vid] = (p, t)
        dm = tuple(getattr(t, "dim_map", ()) or range(len(t.tile_shape)))
        for d, n in enumerate(t.tile_shape):
            self._widen_tile(p, dm[d] if d < len(dm) else d, int(n))

    def _note_view_access(self, op) -> None:
        """A constant view index k (a statically unrolled chunk) needs (k + 1) tiles of extent."""
        view = operand_group(op, VIEW_ACCESS[op.name].address)
        if not view or view[0].vid not in self.pviews:
            return
        p, t = self.pviews[view[0].vid]
        dm = tuple(getattr(t, "dim_map", ()) or range(len(t.tile_shape)))
        for d, v in enumerate(operand_group(op, "index")[:len(t.tile_shape)]):
            if v.vid in self.consts and isinstance(t, PartitionViewType):
                self._widen_tile(p, dm[d], (self.consts[v.vid] + 1) * int(t.tile_shape[d]))


def _is_int_scalar_constant(op) -> bool:
    if op.name != "constant" or not op.results:
        return False
    t = op.results[0].type
    return isinstance(t, TileType) and not t.shape and isinstance(t.element, ScalarType) \
        and t.element.name in dt.INT_DTYPES


def _block_axes(f, block_ids: Dict[int, int]) -> Tuple[bool, bool, bool]:
    """Which get_tile_block_id axes the kernel reads."""
    used_vids = {v.vid for op in f.walk() for v in op.operands}
    axes = [False, False, False]
    for vid, k in block_ids.items():
        if vid in used_vids:
            axes[k] = True
    return (axes[0], axes[1], axes[2])


def _add_slots(slots, k: int, shape_args, stride_args) -> None:
    for d, a in enumerate(shape_args):
        if a is not None:
            slots.setdefault(a, []).append(("shape", k, d))
    for d, a in enumerate(stride_args):
        if a is not None:
            slots.setdefault(a, []).append(("stride", k, d))


def _array_spec(k: int, p: int, scan: _Scan, args: _ArgumentKinds, claimed: set, slots) -> ArraySpec:
    """The array at pointer argument ``p`` (the ``k``-th pointer): from its tensor view, or a 1-D
    pointer-tile array sized by the cuTile Python convention's words after it, or a bare pointer."""
    elem = args.pointee(p)
    v = scan.views.get(p)
    if v is not None:
        ndim = v.rank
        shape_args, stride_args = v.shape_args, v.stride_args
        static_shape, static_strides = v.shape, v.strides
        pointer_only = guessed = False
    else:
        ndim = 1
        nxt = [q for q, _ in _conventional_words(p, 1)]  # a 1-D array's size, then its stride
        if all(args.is_int(q) and q not in claimed for q in nxt):
            shape_args, stride_args = (nxt[0],), (nxt[1],)  # the cuTile Python convention
            claimed.update(nxt)
            guessed = False
        else:
            shape_args, stride_args = (None,), (None,)
            guessed = True
        static_shape, static_strides = (None,), (None,)
        pointer_only = True
    _add_slots(slots, k, shape_args, stride_args)
    meta = [a for a in shape_args + stride_args if a is not None]
    facts = scan.facts
    return ArraySpec(
        p, elem, ndim, args.elem(meta[0]) if meta else None,
        tuple(static_shape), tuple(static_strides),
        tuple(facts[a] if a is not None else ArgFacts() for a in shape_args),
        tuple(facts[a] if a is not None else ArgFacts() for a in stride_args),
        tuple(scan.tiles.get(p, {}).get(d, scan.largest_tile) for d in range(ndim)),
        pointer_only=pointer_only, shape_args=shape_args, stride_args=stride_args,
        computed_strides=bool(v and v.computed), guessed_extent=guessed, pointer_divisor=facts[p].divisor)


def _size_masked_pointers(f, scan: _Scan, args: _ArgumentKinds, pointers, arrays, slots) -> None:
    """A bare pointer read or written through pointer tiles whose mask compares against one free
    integer argument (offsets < n): n is that array's size (a cuTile Rust raw-pointer kernel)."""
    for p, k, n in _masked_sizes(f, scan.arg_of, pointers, slots, args.is_int):
        spec = arrays[p]
        if not spec.guessed_extent:
            continue
        # the mask bounds every access: the array need not cover whole tiles
        spec.shape_args, spec.guessed_extent, spec.index_elem = (n,), False, args.elem(n)
        spec.pointer_only = False
        spec.sized_by_mask = True
        spec.shape_facts = (scan.facts[n],)
        slots.setdefault(n, []).append(("shape", k, 0))


def _tie_unread_conventional_words(scan: _Scan, args: _ArgumentKinds, pointers, arrays, slots) -> None:
    """Size/stride arguments in their cuTile Python places that the kernel never reads (a stride
    that the view type makes static, say) are still that size/stride: they get its value."""
    for k, p in enumerate(pointers):
        spec = arrays[p]
        if spec.pointer_only:
            continue
        for q, (kind, d) in _conventional_words(p, spec.ndim):
            if q in pointers:
                break
            taken = spec.shape_args[d] if kind == "shape" else spec.stride_args[d]
            if args.is_int(q) and q not in slots and q not in scan.used and taken is None:
                slots[q] = [(kind, k, d)]


def _items(args: _ArgumentKinds, arrays, slots, scan: _Scan) -> List[Item]:
    """The signature in order: arrays at their pointers, then every argument that is no array's
    size or stride as a free scalar."""
    items: List[Item] = []
    for i in range(len(args.args)):
        if i in arrays:
            items.append(arrays[i])
        elif i not in slots:
            items.append(ScalarSpec(i, args.elem(i), scan.facts[i], used=i in scan.used))
    return items


def _conventional_words(pointer: int, ndim: int) -> List[Tuple[int, Tuple[str, int]]]:
    """(entry argument, ("shape" | "stride", dim)) where the cuTile Python calling convention
    (tileir_diff.launch.abi.array_words) puts the sizes and strides of the array at ``pointer``."""
    return [(pointer + k, word) for k, word in enumerate(array_words(ndim)) if word[0] != "ptr"]


_PTR_OPS = {n: a.address for n, a in POINTER_ACCESS.items()}  # memory op -> its pointer operand group
_PASS = ("broadcast", "reshape", "exti", "trunci", "assume", "permute")


def operand_group(op, name: str):
    """The operands of ``op`` in its operand group ``name`` (the dialect's table, segments)."""
    from tileir_diff.dialect.ops import OPS_BY_NAME
    d = OPS_BY_NAME[op.name]
    start = 0
    if op.segments:
        for od, n in zip(d.operands, op.segments):
            if od.name == name:
                return list(op.operands[start:start + n])
            start += n
        return []
    fixed = [o for o in d.operands if o.arity == "single"]
    for od in d.operands:
        n = 1 if od.arity == "single" else len(op.operands) - len(fixed)
        if od.name == name:
            return list(op.operands[start:start + n])
        start += n
    return []


def _masked_sizes(f, arg_of, pointers, slots, is_int_arg):
    """(pointer arg, array index, size arg) for bare pointers masked by ``offsets < size``."""
    prod = {}
    for op in f.walk():
        for r in op.results:
            prod[r.vid] = op

    def root(v, through):
        seen = 0
        while v.vid not in arg_of and seen < 64:
            op = prod.get(v.vid)
            if op is None or op.name not in through or not op.operands:
                return None
            v, seen = op.operands[0], seen + 1
        return arg_of.get(v.vid)

    def bounds(v, depth=0):
        op = prod.get(v.vid)
        if op is None or depth > 16:
            return set()
        if op.name == "cmpi":
            out = set()
            for o in op.operands:
                a = root(o, _PASS)
                if a is not None and is_int_arg(a):
                    out.add(a)
            return out
        if op.name in ("andi", "broadcast", "reshape", "permute"):
            return set().union(*(bounds(o, depth + 1) for o in op.operands))
        return set()

    found = {}
    for op in f.walk():
        if op.name not in _PTR_OPS:
            continue
        ptr = operand_group(op, _PTR_OPS[op.name])
        mask = operand_group(op, "mask")
        if not ptr or not mask:
            continue
        p = root(ptr[0], _PASS + ("offset", "ptr_to_ptr"))
        if p is None or p not in pointers:
            continue
        cands = {a for a in bounds(mask[0]) if a not in slots and a not in pointers}
        if len(cands) == 1:
            found.setdefault(p, set()).update(cands)
    out = []
    for k, p in enumerate(pointers):
        if len(found.get(p, ())) == 1:
            out.append((p, k, next(iter(found[p]))))
    return out
