"""The proof step's encoding: two integer/boolean (or small bit-exact float) expression cones as
one SMT query, asked of z3.

Trusted, like the checker that imports it: it reads only the IR and the op table. What an op
computes comes from its row's ``semantics`` (``dialect/spec.py``); its signedness, overflow flags,
division rounding and compare predicate from its own attributes, by the enum each attribute is
declared with. An op without ``semantics`` (a load, a view query, a loop), or with an attribute
value the encoding does not model (``ftz``, a rounding mode other than the four IEEE ones), is a
**leaf**: a variable. Leaves are shared between the sides only where the two values are the same
by construction or by the checker's own verdict on the mapping:

* entry argument k of the left is ``arg<k>``, and so is the right argument the mapping pairs with
  it (k itself unless the calling convention differs, which check 1 reports as a ``signature``
  violation that a calling-convention root must cover: a proof holds under that pairing);
* ``get_tile_block_id`` / ``get_num_tile_blocks`` results are ``bid.x`` ... / ``grid.x`` ...;
* the element position of an ``iota`` in a 1-D cone is ``pos``;
* a value produced by a mapped op (or a block argument of a mapped region op) is one variable
  named by the left node id; the checker verifies that pair on its own, so the two are equal
  whenever every pair checks (induction over the mapping);
* anything else is a fresh variable per side, which almost never proves anything.

Tiles are encoded element-wise: a cone whose values all have the root's shape (or one element,
broadcast) is a function of one element of each leaf, so equality for an arbitrary element is
equality of the tiles.

The query asks for an input where the sides differ: both defined with different values, or one
defined and the other not (``definedness``: a divisor of 0, ``INT_MIN / -1``, a shift by the width
or more, a wrap that an overflow flag excludes, an ``assume`` in the cone that fails). It holds
under **facts**, each named: IR facts (``0 <= bid.x < grid.x <= 2^31 - 1``, ``0 <= pos < n``),
``assume`` predicates on entry arguments at the top level of either entry (the kernel is undefined
when one fails), and facts the caller states (a launch grid). ``unsat``: equal; the unsat core is
the list of facts the proof used. ``sat``: the model is a counterexample. ``unknown`` (the time
budget per query): undecided, never absorbed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..dialect import OPS_BY_NAME
from ..ir import Function, Operation, TileType, Value
from ..ir.types import PartitionViewType, TensorViewType
from ..ir.attributes import Bounded, DenseElements, DivBy, IntegerAttr
from ..ir.types import ScalarType

#: The z3 module, imported by ``available()`` (every path to a query calls it first): importing
#: it costs more than diffing a small kernel, and most diffs never reach the proof step. None
#: when z3-solver (a dependency, pyproject.toml) is missing: the proof step says it was skipped.
_NOT_IMPORTED = object()
z3: Any = _NOT_IMPORTED

#: The default time budget of one query (seconds); ``Limits.smt_timeout_s`` overrides it.
DEFAULT_TIMEOUT_S = 2.0
#: Ops expanded per side and query before the cone is given up as too large (undecided).
MAX_CONE_OPS = 400

_FP_SORTS = {"f16": (5, 11), "bf16": (8, 8), "f32": (8, 24), "f64": (11, 53)}
_ROUNDING = {"nearest_even": "RNE", "zero": "RTZ", "negative_inf": "RTN", "positive_inf": "RTP"}


def available() -> bool:
    global z3
    if z3 is _NOT_IMPORTED:
        try:
            import z3 as module
        except ImportError:  # pragma: no cover - exercised by the test that hides the module
            module = None
        z3 = module
    return z3 is not None


def installed() -> bool:
    """Whether ``available()`` would find z3, without importing it while it has not been (the
    engine asks up front; only a query needs the module)."""
    if z3 is _NOT_IMPORTED:
        import importlib.util
        return importlib.util.find_spec("z3") is not None
    return z3 is not None


def skipped_reason() -> str:
    return "the SMT proof step was skipped: z3-solver is not installed (pip install z3-solver)"


class Unsupported(Exception):
    """The cone holds something the encoding cannot express exactly; the pair stays unproven."""


@dataclass
class Outcome:
    """``status``: equal, different, undecided, unsupported. ``facts``: the named facts an
    ``equal`` proof used (its unsat core). ``counterexample``: leaf name -> value, plus
    ``left``/``right`` (the two values) for ``different``. ``cone_left``/``cone_right``: the node
    ids of the ops each side's cone expanded (the proof covers them)."""
    status: str
    facts: List[str] = field(default_factory=list)
    counterexample: Dict[str, object] = field(default_factory=dict)
    cone_left: set = field(default_factory=set)
    cone_right: set = field(default_factory=set)
    seconds: float = 0.0
    note: str = ""
    #: an input (variable name -> integer) where the integer encoding differs but does not
    #: decide; prove() evaluates the bit-vector encoding there (never a result by itself)
    candidate: Dict[str, int] = field(default_factory=dict)


def _enum(op: Operation, enum_kind: str, default=None):
    """The value of the op's attribute declared with enum ``enum_kind`` (by the op table)."""
    d = OPS_BY_NAME[op.name]
    for a in d.attrs:
        if a.kind == "enum" and a.enum == enum_kind:
            v = op.attributes.get(a.name, a.default)
            return getattr(v, "name", v) if v is not None else default
    return default


def _elem(t) -> Optional[ScalarType]:
    if isinstance(t, TileType) and isinstance(t.element, ScalarType):
        return t.element
    return None


def _num(t) -> int:
    return t.num_elements if isinstance(t, TileType) else 1


class _Side:
    """One function's values as z3 terms."""

    def __init__(self, enc: "ConeEncoder", f: Function, index, name: str, shared: Callable[[str, int], Optional[str]]):
        self.enc, self.f, self.index, self.name, self.shared = enc, f, index, name, shared
        self.cache: Dict[int, object] = {}
        self.defined: List[object] = []
        self.exact: List[object] = []   # integer mode: no step leaves its width (else not exact)
        self.assumes: List[str] = []
        self.cone: set = set()
        self.root_vid: Optional[int] = None
        #: (node id, dividend, divisor) of each signed division or remainder the cone expands:
        #: where floor and truncation part, so where a lemma on the signs may decide the query
        self.divisions: List[Tuple[str, object, object]] = []

    def value(self, v: Value):
        if v.vid in self.cache:
            return self.cache[v.vid]
        term = self._value(v)
        self.cache[v.vid] = term
        return term

    def root(self, v: Value):
        """The value under proof: always expanded. As a leaf it would be named by the very pair
        whose equality is asked (circular)."""
        self.root_vid = v.vid
        return self.value(v)

    def _value(self, v: Value):
        et = _elem(v.type)
        if et is None or (not et.is_int and et.name not in _FP_SORTS):
            raise Unsupported(f"a value of type {v.type}")
        if self.enc.ints and not et.is_int:
            raise Unsupported("a float value in the integer encoding")
        if _num(v.type) != 1 and self.enc.shape is not None and v.type.shape != self.enc.shape:
            raise Unsupported(f"a value of shape {v.type.shape} in a cone of shape {self.enc.shape}")
        nid, res = self.index.producer[v.vid]
        op = self.index.ops.get(nid)
        sem = OPS_BY_NAME[op.name].semantics if op is not None and op.name in OPS_BY_NAME else None
        if op is None or sem is None:
            return self._root_leaf(v) or self._leaf(nid, res, v)
        if len(self.cone) >= MAX_CONE_OPS:
            raise Unsupported(f"a cone of more than {MAX_CONE_OPS} ops")
        try:
            term = self._op(op, sem, res, v, et)
        except _Leaf:
            return self._root_leaf(v) or self._leaf(nid, res, v)
        self.cone.add(nid)
        if sem in ("int.div", "int.rem") and _enum(op, "Signedness", "signed") == "signed":
            self.divisions.append((nid, self.cache[op.operands[0].vid], self.cache[op.operands[1].vid]))
        return term

    def _root_leaf(self, v: Value):
        if v.vid == self.root_vid:
            raise Unsupported("the value under proof is not an op the encoding expands")
        return None

    def _leaf(self, nid: str, res: int, v: Value):
        name = self.shared(nid, res)
        if name is None:
            name = f"{self.name}:{nid}#{res}"
        return self.enc.var(name, v.type)

    def _op(self, op: Operation, sem: str, res: int, v: Value, et: ScalarType):
        enc = self.enc
        ops = [self.value(x) for x in op.operands] if sem not in ("assume", "splat", "iota", "index_space") else None
        if sem == "block_id":
            return enc.block_var("bid", "xyz"[res])
        if sem == "num_blocks":
            return enc.block_var("grid", "xyz"[res])
        if sem == "constant":
            return enc.constant(op.attributes.get("value"), v.type)
        if sem == "iota":
            if not (isinstance(v.type, TileType) and v.type.rank == 1):
                raise _Leaf()
            return enc.position(v.type)
        if sem == "splat":
            src = op.operands[0]
            if _num(src.type) != 1:
                raise _Leaf()
            return self.value(src)
        if sem == "assume":
            x = self.value(op.operands[0])
            p = op.attributes.get("predicate")
            fact = enc.predicate(p, x, op.operands[0].type)
            if fact is None:  # a fact the encoding cannot state: never read as the identity
                raise Unsupported(f"assume {_predicate_text(p)}")
            if fact is not None:
                self.defined.append(fact)
                self.assumes.append(f"{self.name} {op.origin or '?'}: assume {_predicate_text(p)} "
                                    f"(in the cone: where it fails, that side is undefined)")
            return x
        if sem == "index_space":
            return self._index_space(op, res, v)
        if sem == "select":
            c, t, f = ops
            return z3.If(c == 1, t, f)
        kind, _, what = sem.partition(".")
        if kind == "float":
            return self._float(op, what, ops, et)
        if not et.is_int and what not in ("cmp",):
            raise _Leaf()
        if self.enc.ints:
            return self._ideal(op, what, ops, v)
        return self._int(op, what, ops, v)

    def _index_space(self, op: Operation, res: int, v: Value):
        """Result ``res`` of ``get_index_space_shape`` of a partition view: cdiv(extent, tile) of
        the tensor dim the view maps it to, the extent a static dim of the tensor view's type or
        its dynamic shape operand. Defined only for an extent >= 0 (a tile count of a negative
        extent is not one the interpreter or the hardware gives a meaning to). Any other view,
        or a view not built in this function, is a leaf."""
        found = index_space_extent(self.index, op, res)
        if found is None:
            raise _Leaf()
        x, tile = found
        et = _elem(v.type)
        if isinstance(x, int):
            extent = self.enc.constant(IntegerAttr(x, et), v.type)
        elif x.type != v.type:
            raise _Leaf()
        else:
            extent = self.value(x)
        zero = z3.IntVal(0) if self.enc.ints else z3.BitVecVal(0, et.width)
        self.defined.append(extent >= zero)
        if self.enc.ints:
            return _ceil_div_int(extent, z3.IntVal(tile))
        b = z3.BitVecVal(tile, et.width)
        return z3.If(z3.SRem(extent, b) != 0, extent / b + 1, extent / b)

    def _ideal(self, op, what, ops, v):
        """The integer mode: each value is its signed reading as a mathematical integer (i1: 0
        or 1); a step whose ideal result leaves its width adds an obligation (``exact``), so the
        encoding equals the bit-vector one wherever every obligation holds."""
        signed = _enum(op, "Signedness", "signed") == "signed"
        ovf = _enum(op, "IntegerOverflow", "none")
        flagged = ovf != "none"
        d = self.defined
        et = _elem(v.type)
        w = et.width
        lo, hi = _range(w)

        def fit(r, width=w):
            a, b = _range(width)
            cond = z3.And(r >= a, r <= b)
            (d if flagged else self.exact).append(cond)
            if ovf in ("no_unsigned_wrap", "no_wrap"):
                raise _Leaf()  # an unsigned no-wrap flag: the bit-vector encoding states it
            return r

        def u(x, width):
            return x if width == 1 else z3.If(x < 0, x + (1 << width), x)

        def s_(x, width):
            return x if width == 1 else z3.If(x > (1 << (width - 1)) - 1, x - (1 << width), x)

        def b01(c):
            return z3.If(c, z3.IntVal(1), z3.IntVal(0))

        if what in ("add", "sub", "mul"):
            a, b = ops
            if w == 1:
                raise _Leaf()
            return fit({"add": a + b, "sub": a - b, "mul": a * b}[what])
        if what in ("and", "or", "xor"):
            if w != 1:
                raise Unsupported("a bitwise op in the integer encoding")
            a, b = ops
            return b01({"and": z3.And(a == 1, b == 1), "or": z3.Or(a == 1, b == 1),
                        "xor": z3.Xor(a == 1, b == 1)}[what])
        if what in ("min", "max"):
            a, b = ops
            if not signed:
                a2, b2 = u(a, w), u(b, w)
            else:
                a2, b2 = a, b
            lt = a2 < b2
            return z3.If(lt, a, b) if what == "min" else z3.If(lt, b, a)
        if what in ("div", "rem"):
            a, b = ops
            if w == 1:
                raise _Leaf()
            d.append(b != 0)
            if not signed:
                ua, ub = u(a, w), u(b, w)
                rounding = _enum(op, "RoundingMode", "zero")
                q = ua / ub  # z3's integer division floors for a positive divisor
                if what == "rem":
                    return s_(ua % ub, w)
                if rounding in ("zero", "negative_inf"):
                    return s_(q, w)
                if rounding == "positive_inf":
                    return s_(z3.If(ua % ub != 0, q + 1, q), w)
                raise _Leaf()
            d.append(z3.Not(z3.And(a == lo, b == -1)))
            floor = _floor_div_int(a, b)
            trunc = z3.If(a >= 0, z3.If(b > 0, a / b, -(a / (-b))), z3.If(b > 0, -((-a) / b), (-a) / (-b)))
            if what == "rem":
                return z3.If(a >= 0, a % b, -((-a) % b))  # the sign of the dividend (z3's % is >= 0)
            rounding = _enum(op, "RoundingMode", "zero")
            if rounding == "zero":
                return trunc
            if rounding == "negative_inf":
                return floor
            if rounding == "positive_inf":
                return _ceil_div_int(a, b)
            raise _Leaf()
        if what in ("shl", "shr"):
            raise Unsupported("a shift in the integer encoding")
        if what == "neg":
            (a,) = ops
            return fit(-a)
        if what == "abs":
            (a,) = ops
            return fit(z3.If(a < 0, -a, a))
        if what == "cmp":
            a, b = ops
            fw = _elem(op.operands[0].type).width
            if not signed:
                a, b = u(a, fw), u(b, fw)
            pred = _enum(op, "ComparisonPredicate")
            table = {"equal": lambda: a == b, "not_equal": lambda: a != b, "less_than": lambda: a < b,
                     "less_than_or_equal": lambda: a <= b, "greater_than": lambda: a > b,
                     "greater_than_or_equal": lambda: a >= b}
            if pred not in table:
                raise _Leaf()
            return b01(table[pred]())
        if what == "ext":
            (a,) = ops
            fw = _elem(op.operands[0].type).width
            if fw == 1:
                return z3.If(a == 1, z3.IntVal(-1 if signed else 1), z3.IntVal(0))
            return a if signed else u(a, fw)
        if what == "trunc":
            (a,) = ops
            if w == 1:
                raise _Leaf()
            return fit(a)
        raise _Leaf()

    def _float(self, op, what, ops, et):
        if op.attributes.get("flush_to_zero"):
            raise _Leaf()  # denormal flushing is not modelled
        if what == "neg":
            return z3.fpNeg(ops[0])
        mode = _ROUNDING.get(_enum(op, "RoundingMode", "nearest_even"))
        if mode is None:
            raise _Leaf()
        rm = {"RNE": z3.RNE(), "RTZ": z3.RTZ(), "RTN": z3.RTN(), "RTP": z3.RTP()}[mode]
        a, b = ops
        return {"add": z3.fpAdd, "sub": z3.fpSub, "mul": z3.fpMul}[what](rm, a, b)

    def _int(self, op, what, ops, v):
        signed = _enum(op, "Signedness", "signed") == "signed"
        ovf = _enum(op, "IntegerOverflow", "none")
        nsw, nuw = ovf in ("no_signed_wrap", "no_wrap"), ovf in ("no_unsigned_wrap", "no_wrap")
        d = self.defined
        if what in ("add", "sub", "mul", "and", "or", "xor", "min", "max", "div", "rem", "shl", "shr"):
            a, b = ops
        if what == "add":
            if nsw:
                d += [z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)]
            if nuw:
                d.append(z3.BVAddNoOverflow(a, b, False))
            return a + b
        if what == "sub":
            if nsw:
                d += [z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)]
            if nuw:
                d.append(z3.BVSubNoUnderflow(a, b, False))
            return a - b
        if what == "mul":
            if nsw:
                d += [z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)]
            if nuw:
                d.append(z3.BVMulNoOverflow(a, b, False))
            return a * b
        if what == "and":
            return a & b
        if what == "or":
            return a | b
        if what == "xor":
            return a ^ b
        if what in ("min", "max"):
            lt = (a < b) if signed else z3.ULT(a, b)
            return z3.If(lt, a, b) if what == "min" else z3.If(lt, b, a)
        if what in ("div", "rem", "shl", "shr"):
            w = a.size()
        if what in ("div", "rem"):
            d.append(b != 0)
            if signed:
                d.append(z3.Not(z3.And(a == z3.BitVecVal(1 << (w - 1), w), b == z3.BitVecVal(-1, w))))
            if what == "rem":
                return z3.SRem(a, b) if signed else z3.URem(a, b)
            rounding = _enum(op, "RoundingMode", "zero")
            if not signed:
                q, r = z3.UDiv(a, b), z3.URem(a, b)
                if rounding in ("zero", "negative_inf"):
                    return q
                if rounding == "positive_inf":
                    return z3.If(r != 0, q + 1, q)
                raise _Leaf()
            q, r = a / b, z3.SRem(a, b)  # z3's signed bit-vector division truncates
            opposite = z3.Xor(a < 0, b < 0)
            if rounding == "zero":
                return q
            if rounding == "negative_inf":
                return z3.If(z3.And(r != 0, opposite), q - 1, q)
            if rounding == "positive_inf":
                return z3.If(z3.And(r != 0, z3.Not(opposite)), q + 1, q)
            raise _Leaf()
        if what in ("shl", "shr"):
            d.append(z3.ULT(b, z3.BitVecVal(w, w)))
            if what == "shr":
                return (a >> b) if signed else z3.LShR(a, b)
            r = a << b
            if nsw:
                d.append((r >> b) == a)
            if nuw:
                d.append(z3.LShR(r, b) == a)
            return r
        if what == "neg":
            (a,) = ops
            if nsw:
                d.append(a != z3.BitVecVal(1 << (a.size() - 1), a.size()))
            return -a
        if what == "abs":
            (a,) = ops
            return z3.If(a < 0, -a, a)
        if what == "cmp":
            a, b = ops
            if not isinstance(a, z3.BitVecRef):
                raise _Leaf()
            pred = _enum(op, "ComparisonPredicate")
            table = {"equal": lambda: a == b, "not_equal": lambda: a != b,
                     "less_than": lambda: (a < b) if signed else z3.ULT(a, b),
                     "less_than_or_equal": lambda: (a <= b) if signed else z3.ULE(a, b),
                     "greater_than": lambda: (a > b) if signed else z3.UGT(a, b),
                     "greater_than_or_equal": lambda: (a >= b) if signed else z3.UGE(a, b)}
            if pred not in table:
                raise _Leaf()
            return z3.If(table[pred](), z3.BitVecVal(1, 1), z3.BitVecVal(0, 1))
        to = _elem(v.type).width
        if what == "ext":
            (a,) = ops
            return (z3.SignExt if signed else z3.ZeroExt)(to - a.size(), a)
        if what == "trunc":
            (a,) = ops
            r = z3.Extract(to - 1, 0, a)
            if nsw:
                d.append(z3.SignExt(a.size() - to, r) == a)
            if nuw:
                d.append(z3.ZeroExt(a.size() - to, r) == a)
            return r
        raise _Leaf()


def index_space_extent(index, op: Operation, res: int):
    """(extent, tile) of result ``res`` of a ``get_index_space_shape`` whose view is a
    ``make_partition_view`` of a ``make_tensor_view`` of the same function: the extent of the
    tensor dim the view maps that dim to (an int for a static dim, else its dynamic shape
    operand, a Value) and the tile size along it. None for any other view."""
    src = index.producer.get(op.operands[0].vid)
    pv = index.ops.get(src[0]) if src else None
    # the view's type as its producer made it (an operand's own copy of the type must agree)
    pt = pv.results[src[1]].type if pv is not None and src[1] < len(pv.results) else None
    if pt != op.operands[0].type:
        return None
    if pv is None or pv.name != "make_partition_view" or not isinstance(pt, PartitionViewType) \
            or res >= len(pt.tile_shape) or len(pt.dim_map) != len(pt.tile_shape):
        return None
    src = index.producer.get(pv.operands[0].vid)
    tv = index.ops.get(src[0]) if src else None
    tt = pv.operands[0].type
    if tv is None or tv.name != "make_tensor_view" or not isinstance(tt, TensorViewType) or tv.results[0].type != tt:
        return None
    dim, tile = pt.dim_map[res], pt.tile_shape[res]
    if tile <= 0 or dim >= len(tt.shape):
        return None
    if tt.shape[dim] is not None:
        return tt.shape[dim], tile
    k = sum(1 for d in tt.shape[:dim] if d is None)  # the dynamic shape operands follow the base
    return tv.operands[1 + k], tile


class _Leaf(Exception):
    """This op, as configured, is encoded as a leaf variable."""


class ConeEncoder:
    """Poses "are these two values equal?" for one function pair.

    ``left``/``right``: the checker's per-function indexes (``ops``, ``producer``, ``f``);
    ``shared_left(nid, res)`` / ``shared_right``: the shared leaf name of a value produced by
    that node, or None; ``arg<k>`` is the left's entry argument k and the right argument
    ``right_argument(k)`` (the mapping's pairing; None: none). ``entry_facts``: the functions
    whose top-level ``assume``s on entry arguments are facts (the kernels as read). ``launch``:
    caller-stated facts, (name, function of the encoder returning a z3 bool)."""

    def __init__(self, left, right, shared_left, shared_right, *, entry_facts: Sequence[Function] = (),
                 launch: Sequence[Tuple[str, Callable]] = (), timeout_s: float = DEFAULT_TIMEOUT_S,
                 right_argument: Callable[[int], Optional[int]] = lambda k: k):
        self.left, self.right = left, right
        self.right_argument = right_argument
        self.shared_left, self.shared_right = shared_left, shared_right
        self.entry_facts = list(entry_facts)
        self.launch = list(launch)
        self.timeout_s = timeout_s
        self.shape: Optional[Tuple[int, ...]] = None
        self.ints = False  # the integer mode (see _Side._ideal), tried when bit-vectors time out
        self._vars: Dict[str, object] = {}
        self._facts: List[Tuple[str, object]] = []

    def _fact(self, name: str, fact) -> None:
        if not any(n == name for n, _ in self._facts):
            self._facts.append((name, fact))

    # --- variables and facts ----------------------------------------------------------------
    def sort(self, t):
        et = _elem(t)
        if et.is_int:
            return z3.IntSort() if self.ints else z3.BitVecSort(et.width)
        return z3.FPSort(*_FP_SORTS[et.name])

    def var(self, name: str, t):
        sort = self.sort(t)
        key = f"{name}:{sort}"
        if key not in self._vars:
            self._vars[key] = z3.Const(name, sort)
        v = self._vars[key]
        if self.ints:
            et = _elem(t)
            lo, hi = (0, 1) if et.width == 1 else _range(et.width)
            self._fact(f"{name.split(':')[0]} is an {et.name} (IR fact)", z3.And(v >= lo, v <= hi))
        if name.startswith("arg"):
            self._arg_facts(name, v)
        return v

    def block_var(self, base: str, dim: str):
        make = z3.Int if self.ints else (lambda n: z3.BitVec(n, 32))
        bid, grid = make(f"bid.{dim}"), make(f"grid.{dim}")
        self._fact(f"0 <= bid.{dim} < grid.{dim} <= 2^31 - 1 (IR fact: tile block ids and grid sizes)",
                   z3.And(bid >= 0, bid < grid, grid <= (1 << 31) - 1) if self.ints else z3.And(bid >= 0, bid < grid))
        return bid if base == "bid" else grid

    def position(self, t: TileType):
        w, n = _elem(t).width, t.shape[0]
        p = z3.Int(f"pos:{w}") if self.ints else z3.BitVec(f"pos:{w}", w)
        name = f"0 <= pos < {n} (IR fact: the element position of an iota)"
        self._fact(name, z3.And(p >= 0, p < n) if self.ints else z3.And(z3.UGE(p, 0), z3.ULT(p, n)))
        return p

    def constant(self, value, t):
        et = _elem(t)
        if isinstance(value, IntegerAttr):
            bits = value.value
        elif isinstance(value, DenseElements) and (value.is_splat or _num(value.type) == 1):
            bits = value.first_bits()
        else:
            raise _Leaf()
        if et.is_int and self.ints:
            bits &= (1 << et.width) - 1
            return z3.IntVal(bits - (1 << et.width) if et.width > 1 and bits >> (et.width - 1) else bits)
        if et.is_int:
            return z3.BitVecVal(bits, et.width)
        return z3.fpBVToFP(z3.BitVecVal(bits, et.width), self.sort(t))

    def predicate(self, p, x, t):
        """The fact an ``assume`` predicate states about ``x`` (None: nothing the encoding models)."""
        if self.ints and isinstance(x, z3.ArithRef):
            if isinstance(p, Bounded):
                parts = ([x >= p.lb] if p.lb is not None else []) + ([x <= p.ub] if p.ub is not None else [])
                return z3.And(*parts) if parts else None
            if isinstance(p, DivBy) and p.every is None and p.along is None and p.divisor > 0:
                return x % p.divisor == 0
            return None
        if not isinstance(x, z3.BitVecRef):
            return None
        w = x.size()
        if isinstance(p, Bounded):
            parts = []
            if p.lb is not None:
                parts.append(x >= z3.BitVecVal(p.lb, w))
            if p.ub is not None:
                parts.append(x <= z3.BitVecVal(p.ub, w))
            return z3.And(*parts) if parts else None
        if isinstance(p, DivBy) and p.every is None and p.along is None and p.divisor > 0:
            return z3.SRem(x, z3.BitVecVal(p.divisor, w)) == 0
        return None

    def _arg_facts(self, name: str, v) -> None:
        k = int(name[3:].split(":")[0])
        for side, f in zip(("left", "right"), self.entry_facts):
            at = k if side == "left" else self.right_argument(k)
            if f is None or at is None or at >= len(f.arguments):
                continue
            for text, fact in _entry_assumes(f, at, v, self):
                label = f"{name} {text} ({side} assume at the top level of @{f.name})"
                if not any(n == label for n, _ in self._facts):
                    self._facts.append((label, fact))

    # --- the query ----------------------------------------------------------------------------
    def prove(self, vl: Value, vr: Value) -> Outcome:
        """Bit-vectors first, with half the budget; when z3 gives no answer there, the integer
        mode (nonlinear integer arithmetic is easier for z3 than 32-bit dividers) with the rest,
        valid only once a first query shows no step can leave its width under the facts. A cone
        that divides by a computed value takes the integer mode first. An input where the
        integer mode differs without deciding is evaluated in the bit-vector encoding, a
        counterexample only if that exact encoding differs there (``_confirm``)."""
        import time
        t0 = time.perf_counter()
        if z3 is None:
            return Outcome("unsupported", note=skipped_reason())
        if vl.type != vr.type:
            return Outcome("unsupported", note="the two values have different types")
        self.shape = vl.type.shape if isinstance(vl.type, TileType) else None
        et = _elem(vl.type)
        if et is None or (not et.is_int and et.name not in _FP_SORTS):
            return Outcome("unsupported", note=f"a value of type {vl.type}")
        is_float = not et.is_int  # the integer mode has no floats: all the budget
        decided = "decided in the integer encoding (every step proven to stay within its width)"
        out = self._attempt(vl, vr, False, self.timeout_s if is_float else self.timeout_s / 2, defer=not is_float)
        if out.status == "deferred":
            # a division by a computed divisor: nonlinear, where 32-bit dividers rarely finish;
            # the integer mode goes first, with most of the budget
            first = self._attempt(vl, vr, True, self.timeout_s * 3 / 4)
            confirmed = self._confirm(vl, vr, first.candidate) if first.candidate else None
            if first.status in ("equal", "different"):
                first.note = decided
                out = first
            elif confirmed is not None:
                out = confirmed
            else:
                rest = max(0.001, self.timeout_s - (time.perf_counter() - t0))
                out = self._attempt(vl, vr, False, rest)
                if first.note:
                    out.note = f"{out.note}; integer encoding: {first.note}" if out.note else \
                        f"integer encoding: {first.note}"
        elif out.status == "undecided" and not is_float:
            rest = max(0.001, self.timeout_s - (time.perf_counter() - t0))
            second = self._attempt(vl, vr, True, rest)
            if second.status in ("equal", "different"):
                second.note = decided
                out = second
            else:
                if second.note:
                    out.note = f"{out.note}; integer encoding: {second.note}"
                if second.candidate:
                    out = self._confirm(vl, vr, second.candidate) or out
        out.seconds = time.perf_counter() - t0
        return out

    def _sides(self, ints: bool) -> Tuple["_Side", "_Side"]:
        """Start a query in one encoding (integers or bit vectors): no facts yet, a fresh side each."""
        self.ints = ints
        self._facts = []
        return (_Side(self, self.left.f, self.left, "left", self.shared_left),
                _Side(self, self.right.f, self.right, "right", self.shared_right))

    def _confirm(self, vl: Value, vr: Value, values: Dict[str, int]) -> Optional[Outcome]:
        """``different`` when the bit-vector encoding, evaluated at the input ``values`` (every
        variable set, to 0 where the input does not say: no search), satisfies every fact and
        differs there; None otherwise. A counterexample of the exact encoding, however found."""
        from z3.z3util import get_vars
        L, R = self._sides(ints=False)
        try:
            a, b = L.root(vl), R.root(vr)
            for name, make in self.launch:
                self._fact(name, make(self))
        except (Unsupported, KeyError, ValueError, z3.Z3Exception):
            return None
        dl = z3.And(*L.defined) if L.defined else z3.BoolVal(True)
        dr = z3.And(*R.defined) if R.defined else z3.BoolVal(True)
        facts = [f for _, f in self._facts]
        subs = []
        for v in get_vars(z3.And(*facts, dl, dr, a == b)):
            if not z3.is_bv(v):
                return None
            w = v.size()
            subs.append((v, z3.BitVecVal(values.get(v.decl().name(), 0) % (1 << w), w)))

        def at(term):
            return z3.simplify(z3.substitute(term, *subs)) if subs else z3.simplify(term)
        if not all(z3.is_true(at(f)) for f in facts):
            return None
        l_def, r_def = z3.is_true(at(dl)), z3.is_true(at(dr))
        av, bv = at(a), at(b)
        if not (z3.is_bv_value(av) and z3.is_bv_value(bv)):
            return None
        if l_def == r_def and (not l_def or av.as_long() == bv.as_long()):
            return None
        cex = {v.decl().name().split(":")[0]: _py(at(v)) for v, _ in subs if _input_name(v.decl().name())}
        cex["left"] = _py(av) if l_def else "undefined"
        cex["right"] = _py(bv) if r_def else "undefined"
        return Outcome("different", counterexample=dict(sorted(cex.items())), cone_left=set(L.cone),
                       cone_right=set(R.cone),
                       note="found in the integer encoding, checked in the bit-vector one")

    def _attempt(self, vl: Value, vr: Value, ints: bool, budget_s: float, defer: bool = False) -> Outcome:
        """One query in one encoding. ``defer``: give up at once ("deferred") when a cone divides
        by a computed value (the caller then tries the integer mode first)."""
        L, R = self._sides(ints)
        try:
            a, b = L.root(vl), R.root(vr)
        except Unsupported as e:
            return Outcome("unsupported", note=str(e))
        except z3.Z3Exception as e:
            return Outcome("unsupported", note=f"encoding failed: {e}")
        if defer and any(not _numeral(d) for side in (L, R) for _, _, d in side.divisions):
            return Outcome("deferred")
        ignored = []
        for name, make in self.launch:
            try:
                self._fact(name, make(self))
            except (Unsupported, KeyError, ValueError) as e:
                ignored.append(str(e))
        if isinstance(a, z3.FPRef):
            same = z3.Or(z3.And(z3.fpIsNaN(a), z3.fpIsNaN(b)),
                         z3.And(z3.fpEQ(a, b), z3.fpIsNegative(a) == z3.fpIsNegative(b)))
        else:
            same = a == b
        dl, dr = z3.And(*L.defined) if L.defined else z3.BoolVal(True), \
            z3.And(*R.defined) if R.defined else z3.BoolVal(True)
        out = Outcome("undecided", cone_left=set(L.cone), cone_right=set(R.cone))
        if ignored:
            out.note = "launch fact ignored: " + "; ".join(ignored)
        used: List[str] = []
        t_end = _now() + budget_s
        lemmas = self._sign_lemmas(L, R, _now() + budget_s / 2)
        query = z3.Or(z3.And(dl, dr, z3.Not(same)), dl != dr)
        if ints and (L.exact or R.exact):
            r, core = self._check(z3.Not(z3.And(*(L.exact + R.exact))), t_end)
            if r != z3.unsat:
                out.note = ("a step may leave its width under the facts" if r == z3.sat
                            else "no answer on whether a step leaves its width")
                # no answer in this encoding; an input where it differs may still be one where
                # the bit-vectors differ (prove() evaluates it there): a candidate
                r, _, m = self._check(query, t_end, model=True)
                if r == z3.sat:
                    out.candidate = {d.name(): m[d].as_long() for d in m.decls() if z3.is_int_value(m[d])}
                return out
            used += core
        r, core, m = self._check(query, t_end, model=True)
        if r == z3.unsat:
            out.status = "equal"
            used += core
            # a lemma the proof used stands for the facts that proved it
            used += [f for name in used if name in lemmas for f in lemmas[name]]
            out.facts = sorted(set(used)) + sorted(set(L.assumes + R.assumes))
        elif r == z3.sat:
            out.status = "different"
            cex = {}
            for d in m.decls():
                if _input_name(d.name()):
                    cex[d.name().split(":")[0]] = _py(m[d])
            cex["left"] = _py(m.eval(a, model_completion=True))
            cex["right"] = _py(m.eval(b, model_completion=True))
            if not z3.is_true(m.eval(dl, model_completion=True)):
                cex["left"] = "undefined"
            if not z3.is_true(m.eval(dr, model_completion=True)):
                cex["right"] = "undefined"
            out.counterexample = dict(sorted(cex.items()))
        else:
            out.note = "; ".join(x for x in (out.note, f"z3 gave no answer within {self.timeout_s:g} s") if x)
        return out

    def _sign_lemmas(self, L: "_Side", R: "_Side", t_end: float) -> Dict[str, List[str]]:
        """Lemmas on the signs of the signed divisions' operands (divisor >= 1, dividend >= 0),
        each proven from the facts alone, in a query of its own, and then added as a fact: floor
        and truncation agree where both hold, and the question split this way stays within
        reach of z3 where the whole one does not (a divisor ``min(tiles_m - first_m, 8)`` that
        is >= 1 only because of the launch grid: nonlinear). Sound: a lemma the facts imply
        adds nothing the facts do not say. Returns lemma name -> the facts its proof used."""
        proven: Dict[str, List[str]] = {}
        seen = set()
        for side in (L, R):
            for nid, a, b in side.divisions:
                for what, term, fact in (("divisor", b, lambda t: t >= 1), ("dividend", a, lambda t: t >= 0)):
                    if _numeral(term) or term.get_id() in seen:
                        continue  # (a constant says its sign itself)
                    seen.add(term.get_id())
                    left = t_end - _now()
                    if left <= 0.01:
                        return proven
                    goal = fact(term)
                    r, core = self._check(z3.Not(goal), min(t_end, _now() + left / 2))
                    if r == z3.unsat:
                        name = (f"lemma: the {what} of {side.name} {nid} is {'>= 1' if what == 'divisor' else '>= 0'}"
                                f" (proven from the facts alone)")
                        proven[name] = core
                        self._fact(name, goal)
        return proven

    def _check(self, goal, t_end: float, model: bool = False):
        """(result, names of the facts in the unsat core[, model]) of facts + goal."""
        s = z3.Solver()
        s.set("timeout", max(1, int((t_end - _now()) * 1000)))
        labels = {}
        for i, (name, fact) in enumerate(self._facts):
            lab = z3.Bool(f"fact{i}")
            labels[str(lab)] = name
            s.assert_and_track(fact, lab)
        s.add(goal)
        r = s.check()
        core = [labels[str(c)] for c in s.unsat_core()] if r == z3.unsat else []
        if model:
            return r, core, (s.model() if r == z3.sat else None)
        return r, core


def _numeral(t) -> bool:
    """Whether a term simplifies to a number (``z3.is_const`` is also true of a variable)."""
    t = z3.simplify(t)
    return z3.is_int_value(t) or z3.is_bv_value(t)


def _floor_div_int(a, b):
    """Floor division of mathematical integers (z3's ``/`` floors for a positive divisor). One
    construction for the IR's ``divi`` and a launch fact's ``//``: z3 then sees the same term
    where both say the same thing (a division it would otherwise have to prove equal)."""
    return z3.If(b > 0, a / b, (-a) / (-b))


def _ceil_div_int(a, b):
    """Ceiling division of mathematical integers; shared like ``_floor_div_int`` (``divi``
    rounding up, ``get_index_space_shape``, a launch fact's ``cdiv``)."""
    return -z3.If(b > 0, (-a) / b, a / (-b))


def _now() -> float:
    import time
    return time.perf_counter()


def _range(width: int) -> Tuple[int, int]:
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def _py(v):
    """A model value as a plain number: bit-vectors signed, floats as Python floats."""
    if z3.is_int_value(v):
        return v.as_long()
    if isinstance(v, z3.BitVecNumRef):
        n, w = v.as_long(), v.size()
        return n - (1 << w) if w > 1 and n >> (w - 1) else n
    if z3.is_fp_value(v):
        if v.isNaN():
            return "nan"
        if v.isInf():
            return "-inf" if v.isNegative() else "inf"
        if v.isZero():
            return -0.0 if v.isNegative() else 0.0
        return _fp_number(v)
    return str(v)


def _fp_number(v) -> object:
    """A finite z3 float numeral as a Python float, through its IEEE bits (z3's own text form
    differs between versions: ``m*(2**e)``, ``FPVal(p/q, FPSort(8, 24))``)."""
    import struct
    bits = z3.simplify(z3.fpToIEEEBV(v)).as_long()
    layout = {(5, 11): (">H", ">e", 0), (8, 24): (">I", ">f", 0), (11, 53): (">Q", ">d", 0),
              (8, 8): (">I", ">f", 16)}.get((v.ebits(), v.sbits()))
    if layout is None:
        return str(v)
    raw, fmt, shift = layout
    return struct.unpack(fmt, struct.pack(raw, bits << shift))[0]


def _input_name(name: str) -> bool:
    """Model variables a reader can set: entry arguments, block ids, grid sizes, positions
    (not the internal leaves named by node id)."""
    return name.startswith(("arg", "bid.", "grid.", "pos"))


def _entry_assumes(f: Function, k: int, v, enc: ConeEncoder):
    """(text, fact) for each top-level assume of ``f`` on entry argument ``k`` (through chains).
    Only for entries whose body holds no early ``return`` (then every top-level op runs)."""
    if any(op.name == "return" for top in f.body.operations if top.regions for op in top.walk()):
        return
    names = {f.arguments[k].vid}
    for op in f.body.operations:
        if op.name == "assume" and op.operands and op.operands[0].vid in names:
            names.add(op.results[0].vid)
            p = op.attributes.get("predicate")
            fact = enc.predicate(p, v, f.arguments[k].type)
            if fact is not None:
                yield _predicate_text(p), fact


def _predicate_text(p) -> str:
    if isinstance(p, Bounded):
        lo = "?" if p.lb is None else p.lb
        hi = "?" if p.ub is None else p.ub
        return f"bounded<{lo}, {hi}>"
    if isinstance(p, DivBy):
        return f"div_by<{p.divisor}>"
    return str(p)


def launch_fact(text: str, origin: Optional[str] = None) -> Tuple[str, Callable]:
    """A caller-stated fact, e.g. ``grid.x == cdiv(arg11, 128) * cdiv(arg12, 128)``, as
    (name, encoder -> z3 bool). Names: ``arg<k>`` (entry argument k of at most 32 bits, read as
    a signed integer), ``bid.x``/``grid.x`` (and y, z); integers; ``+ - * // %`` (floor
    division and modulo, positive divisor), ``cdiv``, ``min``, ``max``; one comparison. It is
    evaluated on 64-bit vectors, and refused (ValueError) unless interval bounds show that no
    step can leave 64 bits, so the encoded fact says exactly what the text says. ``origin``: where
    the fact comes from, in its name (the suite's: declared in analysis.json, checked against both
    launchers)."""
    import ast

    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"launch fact {text!r}: {e.msg}") from None
    W, LIM = 64, 1 << 62
    i32 = (-(1 << 31), (1 << 31) - 1)

    def fits(lo, hi):
        if lo < -LIM or hi > LIM:
            raise ValueError(f"launch fact {text!r}: a step may leave 64 bits")
        return lo, hi

    def make(enc: ConeEncoder):
        def val(n):
            if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
                return ((z3.IntVal(n.value) if enc.ints else z3.BitVecVal(n.value, W)),) + fits(n.value, n.value)
            if isinstance(n, ast.Name) and n.id.startswith("arg") and n.id[3:].isdigit():
                k = int(n.id[3:])
                args = enc.left.f.arguments
                et = _elem(args[k].type) if k < len(args) else None
                if et is None or not et.is_int or et.width > 32:
                    raise ValueError(f"launch fact {text!r}: argument {k} is not an integer of at most 32 bits")
                x = enc.var(n.id, args[k].type)
                return ((x if enc.ints else z3.SignExt(W - x.size(), x)),) + i32
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("bid", "grid") \
                    and n.attr in ("x", "y", "z"):
                x = enc.block_var(n.value.id, n.attr)
                return ((x if enc.ints else z3.SignExt(W - 32, x)),) + i32
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
                a, lo, hi = val(n.operand)
                return (-a,) + fits(-hi, -lo)
            if isinstance(n, ast.BinOp):
                (a, alo, ahi), (b, blo, bhi) = val(n.left), val(n.right)
                if isinstance(n.op, ast.Add):
                    return (a + b,) + fits(alo + blo, ahi + bhi)
                if isinstance(n.op, ast.Sub):
                    return (a - b,) + fits(alo - bhi, ahi - blo)
                if isinstance(n.op, ast.Mult):
                    c = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
                    return (a * b,) + fits(min(c), max(c))
                if isinstance(n.op, (ast.FloorDiv, ast.Mod)) and blo > 0 and enc.ints:
                    # z3's integer division and modulo floor for a positive divisor
                    bounds = (min(alo // blo, alo // bhi), max(ahi // blo, ahi // bhi)) \
                        if isinstance(n.op, ast.FloorDiv) else (0, bhi - 1)
                    return (_floor_div_int(a, b) if isinstance(n.op, ast.FloorDiv) else (a % b),) + fits(*bounds)
                if isinstance(n.op, (ast.FloorDiv, ast.Mod)) and blo > 0:
                    q = a / b
                    r = z3.SRem(a, b)
                    fq = z3.If(z3.And(r != 0, a < 0), q - 1, q)
                    if isinstance(n.op, ast.FloorDiv):
                        return (fq,) + fits(min(alo // blo, alo // bhi), max(ahi // blo, ahi // bhi))
                    return (a - fq * b,) + fits(0, bhi - 1)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.keywords and len(n.args) == 2:
                (a, alo, ahi), (b, blo, bhi) = val(n.args[0]), val(n.args[1])
                if n.func.id == "cdiv" and blo > 0 and enc.ints:
                    # monotone in each operand: the extremes are at the corners
                    c = [-((-x) // y) for x in (alo, ahi) for y in (blo, bhi)]
                    return (_ceil_div_int(a, b),) + fits(min(c), max(c))
                if n.func.id == "cdiv" and blo > 0:
                    return val(ast.BinOp(ast.BinOp(ast.BinOp(n.args[0], ast.Add(), n.args[1]), ast.Sub(),
                                                   ast.Constant(1)), ast.FloorDiv(), n.args[1]))
                if n.func.id == "min":
                    return (z3.If(a < b, a, b), min(alo, blo), min(ahi, bhi))
                if n.func.id == "max":
                    return (z3.If(a < b, b, a), max(alo, blo), max(ahi, bhi))
            raise ValueError(f"launch fact {text!r}: unsupported {ast.dump(n)[:40]}")

        if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1):
            raise ValueError(f"launch fact {text!r}: expected one comparison")
        a, b = val(tree.left)[0], val(tree.comparators[0])[0]
        cmp = {ast.Eq: lambda: a == b, ast.Lt: lambda: a < b, ast.LtE: lambda: a <= b,
               ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b}.get(type(tree.ops[0]))
        if cmp is None:
            raise ValueError(f"launch fact {text!r}: unsupported comparison")
        return cmp()

    return f"{text} (launch fact {origin or 'stated by the caller'})", make
