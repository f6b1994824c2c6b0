"""What an entry function expects, read from the IR alone: which arguments form an array
(pointer, shape..., strides... in the cutile_python_v2 layout) and which are scalars, plus the
constraints the kernel states about them (static sizes and strides in tensor_view types,
``assume`` div_by / bounded predicates, tile shapes of the views built on each array).

A pointer's rank is the rank of the tensor view made from it. A pointer no tensor view uses
(pointer-tile gathers) is taken as a 1-D array when two integer arguments follow it, else as a
bare pointer to a 1-D array; this is a heuristic, stated in docs/interpreter.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

from tileir_diff.ir import Bounded, DivBy, Module
from tileir_diff.ir.types import PartitionViewType, PointerType, StridedViewType, TileType

from tileir_diff.interp import dtypes as dt
from tileir_diff.interp.errors import InterpreterError

DEFAULT_TILE = 16


@dataclass
class ArgFacts:
    divisor: int = 1
    lower: Optional[int] = None
    upper: Optional[int] = None


@dataclass
class ArraySpec:
    pointer_arg: int
    elem: str
    ndim: int
    index_elem: Optional[str]  # element type of the shape/stride args (None: bare pointer)
    static_shape: Tuple[Optional[int], ...]
    static_strides: Tuple[Optional[int], ...]
    shape_facts: Tuple[ArgFacts, ...]
    stride_facts: Tuple[ArgFacts, ...]
    tile_hint: Tuple[int, ...]  # extent worth covering per dim: largest tile (times constant index + 1)
    pointer_only: bool = False  # no tensor view: accessed through pointer tiles only

    @property
    def arg_count(self) -> int:
        return 1 + (2 * self.ndim if self.index_elem else 0)

    def key(self):
        return ("array", self.elem, self.ndim)


@dataclass
class ScalarSpec:
    arg: int
    elem: str
    facts: ArgFacts

    @property
    def arg_count(self) -> int:
        return 1

    def key(self):
        return ("scalar", self.elem)


Item = Union[ArraySpec, ScalarSpec]


@dataclass
class Layout:
    entry: str
    items: List[Item]
    block_axes: Tuple[bool, bool, bool]  # which get_tile_block_id axes the kernel reads
    arg_types: List[str] = field(default_factory=list)

    @property
    def arrays(self) -> List[ArraySpec]:
        return [i for i in self.items if isinstance(i, ArraySpec)]

    @property
    def scalars(self) -> List[ScalarSpec]:
        return [i for i in self.items if isinstance(i, ScalarSpec)]

    def describe(self) -> str:
        parts = []
        for it in self.items:
            if isinstance(it, ArraySpec):
                parts.append(f"{it.elem}[{it.ndim}d]")
            else:
                parts.append(it.elem)
        return f"@{self.entry}(" + ", ".join(parts) + ")"


def _entry(module: Module, name: Optional[str]):
    if name is not None:
        return module.function(name)
    entries = [f for f in module.functions if f.is_entry]
    if len(entries) != 1:
        raise InterpreterError(f"module has {len(entries)} entries; name one")
    return entries[0]


def infer_layout(module: Module, entry: Optional[str] = None) -> Layout:
    f = _entry(module, entry)
    args = list(f.arguments)
    arg_of: Dict[int, int] = {a.vid: i for i, a in enumerate(args)}
    facts: Dict[int, ArgFacts] = {i: ArgFacts() for i in range(len(args))}
    views: Dict[int, dict] = {}  # pointer arg -> {rank, shape, strides, shape_args, stride_args}
    tv_of: Dict[int, int] = {}   # tensor view vid -> pointer arg
    tiles: Dict[int, Dict[int, int]] = {}  # pointer arg -> dim -> largest tile extent
    used = set()
    axes = [False, False, False]
    block_ids: Dict[int, int] = {}
    largest_tile = DEFAULT_TILE
    consts: Dict[int, int] = {}
    pviews: Dict[int, tuple] = {}
    for op in f.walk():
        for r in op.results:
            if isinstance(r.type, TileType) and r.type.shape:
                largest_tile = max(largest_tile, max(r.type.shape))
        for v in op.operands:
            used.add(v.vid)
        if op.name == "assume" and op.operands and op.operands[0].vid in arg_of:
            i = arg_of[op.operands[0].vid]
            arg_of[op.results[0].vid] = i
            p = op.attributes.get("predicate")
            if isinstance(p, DivBy) and p.every is None:
                facts[i].divisor = max(facts[i].divisor, p.divisor)
            elif isinstance(p, Bounded):
                facts[i].lower, facts[i].upper = p.lb, p.ub
        elif op.name == "make_tensor_view" and op.operands and op.operands[0].vid in arg_of:
            p = arg_of[op.operands[0].vid]
            t = op.results[0].type
            nshape = sum(1 for d in t.shape if d is None)
            dyn = op.operands[1:]
            shape_args = [arg_of.get(v.vid) for v in dyn[:nshape]]
            stride_args = [arg_of.get(v.vid) for v in dyn[nshape:]]
            views.setdefault(p, {"rank": len(t.shape), "shape": tuple(t.shape), "strides": tuple(t.strides),
                                 "shape_args": shape_args, "stride_args": stride_args})
            tv_of[op.results[0].vid] = p
        elif op.name in ("make_partition_view", "make_strided_view", "make_gather_scatter_view") \
                and op.operands and op.operands[0].vid in tv_of:
            p = tv_of[op.operands[0].vid]
            t = op.results[0].type
            pviews[op.results[0].vid] = (p, t)
            dm = tuple(getattr(t, "dim_map", ()) or range(len(t.tile_shape)))
            for d, n in enumerate(t.tile_shape):
                m = dm[d] if d < len(dm) else d
                tiles.setdefault(p, {})[m] = max(tiles.get(p, {}).get(m, 0), int(n))
        elif op.name == "constant" and op.results and isinstance(op.results[0].type, TileType) \
                and not op.results[0].type.shape and op.results[0].type.element.name in dt.INT_DTYPES:
            consts[op.results[0].vid] = int(op.attributes["value"].to_numpy().reshape(-1)[0])
        elif op.name in ("load_view_tko", "store_view_tko", "atomic_red_view_tko"):
            # a constant view index k (a statically unrolled chunk) needs (k + 1) tiles of extent
            view = op.operands[1] if op.name == "store_view_tko" else op.operands[0]
            if view.vid in pviews:
                p, t = pviews[view.vid]
                first = 2 if op.name == "store_view_tko" else 1
                dm = tuple(getattr(t, "dim_map", ()) or range(len(t.tile_shape)))
                for d, v in enumerate(op.operands[first:first + len(t.tile_shape)]):
                    if v.vid in consts and isinstance(t, PartitionViewType):
                        extent = (consts[v.vid] + 1) * int(t.tile_shape[d])
                        tiles.setdefault(p, {})[dm[d]] = max(tiles.get(p, {}).get(dm[d], 0), extent)
        elif op.name == "get_tile_block_id":
            for k, r in enumerate(op.results):
                block_ids[r.vid] = k
    for vid, k in block_ids.items():
        if vid in used:
            axes[k] = True

    def is_int_arg(i):
        return (i < len(args) and isinstance(args[i].type, TileType) and not args[i].type.shape
                and not isinstance(args[i].type.element, PointerType)
                and getattr(args[i].type.element, "name", "") in dt.INT_DTYPES)

    items: List[Item] = []
    i = 0
    while i < len(args):
        t = args[i].type
        if not isinstance(t, TileType) or t.shape:
            raise InterpreterError(f"@{f.name}: argument {i} of type {t} is not a scalar tile")
        if isinstance(t.element, PointerType):
            elem = dt.name_of(t.element.pointee)
            v = views.get(i)
            ndim = v["rank"] if v is not None else 1  # no tensor view: a 1-D array (heuristic)
            has_meta = all(is_int_arg(i + 1 + k) for k in range(2 * ndim))
            if not has_meta:
                items.append(ArraySpec(i, elem, ndim, None, (None,) * ndim, (None,) * ndim,
                                       (ArgFacts(),) * ndim, (ArgFacts(),) * ndim, (largest_tile,) * ndim,
                                       pointer_only=True))
                i += 1
                continue
            shape_pos = [i + 1 + d for d in range(ndim)]
            stride_pos = [i + 1 + ndim + d for d in range(ndim)]
            static_shape = v["shape"] if v else (None,) * ndim
            static_strides = v["strides"] if v else (None,) * ndim
            items.append(ArraySpec(
                i, elem, ndim, dt.name_of(args[i + 1].type.element), tuple(static_shape), tuple(static_strides),
                tuple(facts[k] for k in shape_pos), tuple(facts[k] for k in stride_pos),
                tuple(tiles.get(i, {}).get(d, largest_tile) for d in range(ndim)), pointer_only=v is None))
            i += 1 + 2 * ndim
        else:
            items.append(ScalarSpec(i, dt.name_of(t.element), facts[i]))
            i += 1
    return Layout(f.name, items, tuple(axes), [str(a.type) for a in args])
