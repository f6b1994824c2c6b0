"""The proof step's encoding: two integer/boolean (or small bit-exact float) expression cones as
one SMT query, asked of z3.

Trusted, like the checker that imports it: it reads only the IR and the op table. What an op
computes comes from its row's ``semantics`` (``dialect/spec.py``), each encoded by its own
``Encoder`` in ``ENCODERS`` (bit-vector and integer encodings); its signedness, overflow flags,
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
the list of facts the proof used. ``sat``: the model is a counterexample. ``unknown`` (the work
budget of the proof, ``DEFAULT_RLIMIT`` of z3's resource units, spent): undecided, never absorbed.
The budget is work, not time, so that load on the machine cannot change an answer; a wall-clock
safety net far above it (``DEFAULT_TIMEOUT_S``) ends a proof on a machine too slow or overloaded,
and the diff is then ``unknown``, never ``different`` or ``equivalent``.

Every term lives in the ``ConeEncoder``'s own z3 context (``new_context``), never z3's global
one: encoders in different threads share nothing, and the same queries give the same models.
"""
from __future__ import annotations

import struct
import threading
from dataclasses import field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.traits import ZERO_SIGN_BLIND
from ..ir import Function, Operation, TileType, Value
from ..dialect.access import VIEW_ACCESS
from ..ir.types import GatherScatterViewType, PartitionViewType, PointerType, TensorViewType
from ..ir.attributes import Bounded, DenseElements, DivBy, IntegerAttr
from ..ir.types import ScalarType
from ..ir.record import record
from .smt_common import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_S, index_space_extent, skipped_reason  # noqa: F401

#: The z3 module, imported by ``available()`` (every path to a query calls it first): importing
#: it costs more than diffing a small kernel, and most diffs never reach the proof step. None
#: when z3-solver (a dependency, pyproject.toml) is missing: the proof step says it was skipped.
_NOT_IMPORTED = object()
z3: Any = _NOT_IMPORTED

#: DEFAULT_RLIMIT: the work budget of one proof (smt_common.py).
#: The most of a proof's work budget its integer-encoding attempt may spend. That encoding
#: decides fast or not at all: its largest decided query over the port table and the corpora
#: (``scripts/smt_work.py``, tests/corpus/{rust,independent,third_party_style}) spent 27 k
#: units, while undecided ones (nonlinear integer arithmetic: z3 counts few units there, ~0.3 M
#: a second) ran to 7.5 M units and 27 s on one independent matmul pair. 1 M is 37 times the
#: largest decided one; what it leaves goes to the bit-vector attempt.
INTEGER_RLIMIT = 1_000_000
#: DEFAULT_TIMEOUT_S: the wall-clock safety net of one proof (smt_common.py).
#: Ops expanded per side and query before the cone is given up as too large (undecided).
MAX_CONE_OPS = 400
#: A counterexample's inputs are made small (``_CounterexampleSearch.small_model``): bounds tried in turn
#: on every input's signed value, each search limited by z3's resource count (deterministic;
#: 500k units: about 0.1 s of z3 on a 2026 server core, per bound, when a search gives up).
SMALL_MODEL_BOUNDS = (16, 1 << 10, 1 << 20)
SMALL_MODEL_RLIMIT = 500_000
#: Concrete inputs a float query is evaluated at before z3 searches for one
#: (``_CounterexampleSearch.probe``): probe k sets the i-th free variable to entry (i + k) of its
#: kind's row, and memory at byte address x to the value of the (x + k)-th entry of the
#: address's row (the same address, the same value). Each is only evaluated (z3's simplifier on
#: numerals: no search, no work budget spent), so a failed probe costs about one substitution.
PROBE_FLOATS = (1.0, -1.5, 0.5, 3.0, 0.25, -2.0)
PROBE_INTS = (1, 2, 3, 0, 5, 7)
PROBES = 4
#: A sign lemma is not tried with less work left than this (a query needs a few hundred units).
_MIN_LEMMA_RLIMIT = 1_000
#: z3's timer and the clock read after it may disagree by this much (seconds).
_TIMER_SLACK_S = 0.05

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


def new_context():
    """A z3 context of its own (None without z3). z3 contexts are not thread-safe and z3's
    global one is shared by every thread of the process: the proof step never uses it. Python's
    cycle collector may free a term in whichever thread it runs, so reference counts of this
    context may be decremented from other threads (z3's concurrent dec-ref mode)."""
    if not available():
        return None
    ctx = z3.Context()
    z3.Z3_enable_concurrent_dec_ref(ctx.ref())
    return ctx


class Unsupported(Exception):
    """The cone holds something the encoding cannot express exactly; the pair stays unproven."""


class _TimeLimit(Exception):
    """z3 stopped on the wall-clock safety net (``timeout``), not on its work budget."""


@record(frozen=False)
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
    #: the wall-clock safety net ran out before the work budget (status ``undecided``): the
    #: answer depends on the machine's speed, so no verdict may rest on it (the checker makes
    #: the diff ``unknown``)
    time_limit: bool = False
    #: inputs (variable name -> integer) where the integer encoding differs but does not
    #: decide, one with small values first; prove() evaluates the bit-vector encoding there
    #: (never a result by itself)
    candidates: List[Dict[str, int]] = field(default_factory=list)
    #: the memory reads the cones expanded: (array, element type) -> (left op id, right op id),
    #: None on a side that reads nothing there. An ``equal`` proof holds only if each read
    #: on both sides sees memory in the same state: the checker checks that (placement, token
    #: order) before it accepts the proof
    reads: Dict[Tuple[str, str], Tuple[Optional[str], Optional[str]]] = field(default_factory=dict)


def _enum(op: Operation, enum_kind: str, default=None):
    """The value of the op's attribute declared with enum ``enum_kind`` (by the op table)."""
    d = OPS_BY_NAME[op.name]
    for a in d.attrs:
        if a.kind == "enum" and a.enum == enum_kind:
            v = op.attributes.get(a.name, a.default)
            return getattr(v, "name", v) if v is not None else default
    return default


#: A pointer is read as its 64-bit address (``offset`` and the memory reads compute on it).
_POINTER = ScalarType("i64")


def _elem(t) -> Optional[ScalarType]:
    if isinstance(t, TileType) and isinstance(t.element, ScalarType):
        return t.element
    if isinstance(t, TileType) and isinstance(t.element, PointerType):
        return _POINTER
    return None


def _scalar(t) -> ScalarType:
    """The element type of a value the encoding has already accepted (a tile of scalars)."""
    et = _elem(t)
    if et is None:
        raise Unsupported(f"a value of type {t}")
    return et


def _num(t) -> int:
    return t.num_elements if isinstance(t, TileType) else 1


class _Side:
    """One function's values as z3 terms, each at an element **position**: per dim of the value,
    the root dim whose position indexes it (an int) or None (a unit dim, read at 0). The root is
    read at its own position (dim d at root dim d); ``broadcast`` and a ``reshape`` that only
    inserts or drops unit dims read their source at the position they map it to, so an (8, 1)
    row index and a (1, 256) column index meet in an (8, 256) cone at the same element."""

    def __init__(self, enc: "ConeEncoder", f: Function, index, name: str, shared: Callable[[str, int], Optional[str]]):
        self.enc, self.f, self.index, self.name, self.shared = enc, f, index, name, shared
        self.cache: Dict[Tuple[int, Tuple], object] = {}
        self.defined: List[object] = []
        self.exact: List[object] = []   # integer mode: no step leaves its width (else not exact)
        self.assumes: List[str] = []
        self.cone: set = set()
        self.root_vid: Optional[int] = None
        #: (node id, dividend, divisor) of each signed division or remainder the cone expands:
        #: where floor and truncation part, so where a lemma on the signs may decide the query
        self.divisions: List[Tuple[str, Any, Any]] = []
        #: the position the value being encoded is read at (see the class docstring)
        self.pos: Tuple[Optional[int], ...] = tuple(range(len(enc.shape or ())))
        #: (array, element type) -> node id of the one memory read of that array the cone expands
        self.reads: Dict[Tuple[str, str], str] = {}
        #: node ids whose overflow flags this encoding reads as cleared (``ConeEncoder.unflagged``)
        self.unflagged: frozenset = frozenset()

    def value(self, v: Value):
        key = (v.vid, self._key(v))
        if key in self.cache:
            return self.cache[key]
        saved = self.pos
        if not key[1]:
            self.pos = ()
        try:
            term = self._value(v)
        finally:
            self.pos = saved
        self.cache[key] = term
        return term

    def value_at(self, v: Value, pos: Tuple[Optional[int], ...]):
        """``v`` at position ``pos`` (the dims of ``v``, each a root dim or None)."""
        saved = self.pos
        self.pos = pos
        try:
            return self.value(v)
        finally:
            self.pos = saved

    def _key(self, v: Value) -> Tuple[Optional[int], ...]:
        """The position ``v`` is read at: () for a one-element value, else the current one,
        which must fit its shape (each dim the size of its root dim, a unit dim None)."""
        t = v.type
        if not isinstance(t, TileType) or t.num_elements == 1:
            return ()
        shape = self.enc.shape or ()
        ok = len(self.pos) == t.rank and all(
            (t.shape[d] == 1) if k is None else (k < len(shape) and t.shape[d] == shape[k])
            for d, k in enumerate(self.pos))
        if not ok:
            raise Unsupported(f"a value of shape {t.shape} in a cone of shape {self.enc.shape}")
        return self.pos

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
        if ENCODERS[sem].divides and _enum(op, "Signedness", "signed") == "signed":
            self.divisions.append((nid, self.value(op.operands[0]), self.value(op.operands[1])))
        return term

    def _root_leaf(self, v: Value):
        if v.vid == self.root_vid:
            raise Unsupported("the value under proof is not an op the encoding expands")
        return None

    def _leaf(self, nid: str, res: int, v: Value):
        name = self.shared(nid, res)
        if name is None:
            name = f"{self.name}:{nid}#{res}"
        key = self._key(v)
        if key and (key != tuple(range(len(key))) or getattr(v.type, "shape", None) != self.enc.shape):
            # an element of a tile at a position other than the root's own: one variable per
            # position (two positions that happen to coincide get two variables: never a
            # false equality, at worst a proof missed)
            name += "@" + ",".join("_" if k is None else str(k) for k in key)
        leaf = self.enc.var(name, v.type)
        self._loop_facts(nid, leaf)
        return leaf

    def _loop_facts(self, nid: str, iv) -> None:
        """The induction variable of a ``for`` (block argument 0 of its body) lies below the
        upper bound (the loop's compare, signed unless ``unsignedCmp``) in every iteration that
        runs, and at or above the lower bound when the step is the constant 1 (it then never
        wraps): a fact of every value the body computes."""
        head, sep, tail = nid.rpartition("/r0/a")
        loop = self.index.ops.get(head) if sep and tail == "0" else None
        if loop is None or loop.name != "for" or len(loop.operands) < 3:
            return
        # the bounds are facts here, not part of the value: what their encoding records (the cone,
        # definedness, assumes, divisions, cached terms) is put back as it was
        saved = (dict(self.cache), set(self.cone), list(self.defined), list(self.exact), list(self.assumes),
                 list(self.divisions))
        try:
            lb, ub, step = (self.value_at(x, ()) for x in loop.operands[:3])
        except (Unsupported, _Leaf):
            return
        finally:  # in place: an encoder under way may hold these very lists
            cache, cone, defined, exact, assumes, divisions = saved
            self.cache.clear()
            self.cache.update(cache)
            self.cone.clear()
            self.cone.update(cone)
            self.defined[:], self.exact[:], self.assumes[:], self.divisions[:] = defined, exact, assumes, divisions
        unsigned = bool(loop.attributes.get("unsignedCmp"))
        ints = self.enc.ints
        if unsigned and ints:
            return
        below = z3.ULT(iv, ub) if unsigned else iv < ub
        self.enc._fact(f"{self.name} for {head}: loopIdx < upper bound (IR fact: the body runs only then)", below)
        if z3.is_true(z3.simplify(step == 1)):
            above = z3.ULE(lb, iv) if unsigned else lb <= iv
            self.enc._fact(f"{self.name} for {head}: loopIdx >= lower bound (IR fact: step 1)", above)

    def _op(self, op: Operation, sem: str, res: int, v: Value, et: ScalarType):
        """The term of result ``res`` of ``op`` by the encoder of its semantics (``ENCODERS``)."""
        encoder = ENCODERS.get(sem)
        if encoder is None:
            raise _Leaf()
        ops = [self.value(x) for x in op.operands] if encoder.reads_operands else []
        if encoder.integer_result and not et.is_int:
            raise _Leaf()
        at = _At(self, op, res, v, et, ops)
        return (encoder.ints or encoder.bits)(at) if self.enc.ints else encoder.bits(at)


class _At:
    """One op under encoding, as every encoder sees it: the side (its cache, its ``defined``
    obligations), the op, the result asked for and its element type, the operands' terms (when
    the encoder reads them), and the attributes it is configured by, read through the enum each
    is declared with in the op table."""

    def __init__(self, side: _Side, op: Operation, res: int, v: Value, et: ScalarType, ops: List[Any]):
        self.side, self.enc, self.op, self.res, self.v, self.et, self.ops = side, side.enc, op, res, v, et, ops
        self.ctx = side.enc.ctx
        self.defined = side.defined

    @property
    def signed(self) -> bool:
        return _enum(self.op, "Signedness", "signed") == "signed"

    @property
    def overflow(self) -> str:
        if self.side.unflagged and self.side.index.producer[self.v.vid][0] in self.side.unflagged:
            return "none"  # a flag the pair differs in, reported as a specialization of its own
        return _enum(self.op, "IntegerOverflow", "none")

    @property
    def nsw(self) -> bool:
        return self.overflow in ("no_signed_wrap", "no_wrap")

    @property
    def nuw(self) -> bool:
        return self.overflow in ("no_unsigned_wrap", "no_wrap")

    def rounding(self, default: str) -> str:
        return _enum(self.op, "RoundingMode", default)

    def operand_width(self, k: int = 0) -> int:
        return _scalar(self.op.operands[k].type).width

    # --- the integer encoding's helpers (values as their signed reading; i1 as 0 or 1) --------
    def fit(self, r, width: Optional[int] = None):
        """``r``, with the obligation that it lies within ``width`` bits: a definedness
        condition when the op carries an overflow flag, else an exactness one (the integer
        encoding equals the bit-vector one only where every exactness obligation holds)."""
        a, b = _range(self.et.width if width is None else width)
        ovf = self.overflow
        (self.defined if ovf != "none" else self.side.exact).append(z3.And(r >= a, r <= b))
        if ovf in ("no_unsigned_wrap", "no_wrap"):
            raise _Leaf()  # an unsigned no-wrap flag: the bit-vector encoding states it
        return r

    @staticmethod
    def unsigned(x, width: int):
        return x if width == 1 else z3.If(x < 0, x + (1 << width), x)

    @staticmethod
    def signed_of(x, width: int):
        return x if width == 1 else z3.If(x > (1 << (width - 1)) - 1, x - (1 << width), x)

    def b01(self, c):
        return z3.If(c, z3.IntVal(1, self.ctx), z3.IntVal(0, self.ctx))


@record
class Encoder:
    """What one ``semantics`` of the op table computes, in the proof step's encodings.

    ``bits``: the bit-vector encoding (floats: z3's IEEE theory); ``ints``: the integer encoding
    (None: ``bits`` serves both; the structural encoders build their terms through the encoder,
    which knows the mode). ``reads_operands``: the operands are expanded before the encoder runs
    (else it reads what it needs itself: a broadcast's source only when it has one element).
    ``integer_result``: a result that is not an integer makes the op a leaf. ``divides``: a
    signed one is a division whose operands' signs may split the query (``_sign_lemmas``).
    Every encoder returns a term or raises ``_Leaf`` (this op, as configured, is a variable) or
    ``Unsupported`` (the query cannot be posed exactly)."""
    bits: Callable[[_At], Any]
    ints: Optional[Callable[[_At], Any]] = None
    reads_operands: bool = True
    integer_result: bool = False
    divides: bool = False


# --- structural semantics (the same in both encodings) --------------------------------------
def _block_id(at: _At):
    return at.enc.block_var("bid", "xyz"[at.res])


def _num_blocks(at: _At):
    return at.enc.block_var("grid", "xyz"[at.res])


def _constant(at: _At):
    return at.enc.constant(at.op.attributes.get("value"), at.v.type)


def _iota(at: _At):
    t = at.v.type
    if not (isinstance(t, TileType) and t.rank == 1):
        raise _Leaf()
    if t.num_elements == 1:
        return at.enc.constant(IntegerAttr(0, at.et), t)
    return at.enc.position(t, at.side.pos[0])


def _splat(at: _At):
    """``broadcast``/``reshape``: the source element at the position the op maps the result's
    to (a one-element source at any; a broadcast's unit dims at 0; a reshape only where it
    inserts or drops unit dims, else a leaf)."""
    src = at.op.operands[0]
    if _num(src.type) == 1:
        return at.side.value_at(src, ())
    st, rt = src.type, at.v.type
    if not (isinstance(st, TileType) and isinstance(rt, TileType)):
        raise _Leaf()
    pos = layout_position(at.op.name, st.shape, rt.shape, at.side.pos)
    if pos is None:
        raise _Leaf()
    return at.side.value_at(src, pos)


def layout_position(name: str, src: Tuple[int, ...], res: Tuple[int, ...],
                    pos: Tuple[Optional[int], ...]) -> Optional[Tuple[Optional[int], ...]]:
    """The position of the source element a ``broadcast`` or ``reshape`` copies to the result
    element at ``pos`` (None: not a layout this encoding follows)."""
    if len(pos) != len(res):
        return None
    if name == "broadcast":
        if len(src) != len(res) or any(a != b and a != 1 for a, b in zip(src, res)):
            return None
        return tuple(p if a == b else None for a, b, p in zip(src, res, pos))
    if name == "reshape":
        src_dims = [d for d, n in enumerate(src) if n != 1]
        res_dims = [d for d, n in enumerate(res) if n != 1]
        if [src[d] for d in src_dims] != [res[d] for d in res_dims]:
            return None
        out: List[Optional[int]] = [None] * len(src)
        for a, b in zip(src_dims, res_dims):
            out[a] = pos[b]
        return tuple(out)
    return None


def _assume(at: _At):
    side, op = at.side, at.op
    x = side.value(op.operands[0])
    p = op.attributes.get("predicate")
    fact = at.enc.predicate(p, x, op.operands[0].type)
    if fact is None:  # a fact the encoding cannot state: never read as the identity
        raise Unsupported(f"assume {_predicate_text(p)}")
    side.defined.append(fact)
    side.assumes.append(f"{side.name} {op.origin or '?'}: assume {_predicate_text(p)} "
                        f"(in the cone: where it fails, that side is undefined)")
    return x


def _index_space(at: _At):
    """Result ``res`` of ``get_index_space_shape`` of a partition view: cdiv(extent, tile) of
    the tensor dim the view maps it to, the extent a static dim of the tensor view's type or
    its dynamic shape operand. Defined only for an extent >= 0 (a tile count of a negative
    extent is not one the interpreter or the hardware gives a meaning to). Any other view,
    or a view not built in this function, is a leaf."""
    found = index_space_extent(at.side.index, at.op, at.res)
    if found is None:
        raise _Leaf()
    x, tile = found
    # the views whose types the count reads (tile shape, dim map, static extents) are the cone's
    # too: a view only this count reads is then covered by the proof like the count itself
    index, view = at.side.index, at.op.operands[0]
    for _ in range(2):  # the partition view, then its tensor view
        src = index.producer.get(view.vid)
        if src is None or src[0] not in index.ops:
            break
        at.side.cone.add(src[0])
        view = index.ops[src[0]].operands[0]
    v, et, ctx, ints = at.v, at.et, at.ctx, at.enc.ints
    if isinstance(x, int):
        extent = at.enc.constant(IntegerAttr(x, et), v.type)
    elif x.type != v.type:
        raise _Leaf()
    else:
        extent = at.side.value(x)
    zero = z3.IntVal(0, ctx) if ints else z3.BitVecVal(0, et.width, ctx)
    at.defined.append(extent >= zero)
    if ints:
        return _ceil_div_int(extent, z3.IntVal(tile, ctx))
    b = z3.BitVecVal(tile, et.width, ctx)
    return z3.If(z3.SRem(extent, b) != 0, extent / b + 1, extent / b)


# --- memory reads: a value of memory at a byte address (the bit-vector encoding only) --------
_PADDINGS = ("zero", "neg_zero", "nan", "pos_inf", "neg_inf")
#: coordinates of a view access are computed exactly in this many bits (an index of 64 bits
#: times a tile size, plus a position, never overflows it)
_COORD_BITS = 128


def _offset(at: _At):
    """``offset``: the pointer plus the offset (read as signed) times the pointee's size in
    bytes, in 64-bit arithmetic (a wrapped address is the same address)."""
    if at.enc.ints:
        raise _Leaf()
    ptr, off = at.ops
    pointee = getattr(getattr(at.op.operands[0].type, "element", None), "pointee", None)
    if not isinstance(pointee, ScalarType) or pointee.width % 8:
        raise _Leaf()
    return ptr + z3.SignExt(64 - off.size(), off) * z3.BitVecVal(pointee.width // 8, 64, at.ctx)


def _group(op: Operation, name: str) -> List[Value]:
    """The operands of ``op``'s operand group ``name`` (by the op table and its segments)."""
    names = [o.name for o in OPS_BY_NAME[op.name].operands]
    if len(op.segments) != len(names) or name not in names:
        raise _Leaf()
    i = names.index(name)
    start = sum(op.segments[:i])
    return list(op.operands[start:start + op.segments[i]])


def _array_of(side: "_Side", v: Value) -> str:
    """The entry argument (its shared name, ``arg<k>``) a pointer derives from through
    ``assume``, one-element ``broadcast``/``reshape`` and ``offset`` (its base)."""
    for _ in range(16):
        nid, _res = side.index.producer[v.vid]
        op = side.index.ops.get(nid)
        if op is None:
            name = side.shared(nid, 0)
            if name is None or not name.startswith("arg"):
                raise Unsupported("a memory read through a pointer that no paired entry argument gives")
            return name
        if op.name in ("assume", "offset") or (op.name in ("broadcast", "reshape") and _num(op.operands[0].type) == 1):
            v = op.operands[0]
            continue
        break
    raise Unsupported("a memory read through a pointer that no paired entry argument gives")


def _memory_read(at: _At):
    """A load's tile (result 0) at the element position: where the access is in bounds (a view)
    or its mask holds (a pointer tile), the memory value at its byte address, ``mem(address)``
    (``ConeEncoder.memory``); elsewhere the padding (a view's padding value, a pointer load's
    padding operand; without one an unspecified value of this side alone). Only weak loads the
    mapping leaves unpaired are expanded: a paired load is the pair's shared leaf."""
    side, op = at.side, at.op
    nid = side.index.producer[at.v.vid][0]
    if at.res != 0 or side.shared(nid, 0) is not None or _enum(op, "MemoryOrderingSemantics") != "weak":
        raise _Leaf()
    if at.enc.ints:
        raise Unsupported("a memory read in the integer encoding")
    if op.name in VIEW_ACCESS:
        array, address, inside, padding = _view_read(at)
    else:
        array, address, inside, padding = _pointer_read(at, nid)
    key = (array, at.et.name)
    if side.reads.setdefault(key, nid) != nid:
        raise Unsupported(f"two reads of {array} as {at.et.name} in one cone")
    side.cone.add(nid)
    return z3.If(inside, at.enc.memory(array, at.et)(address), padding)


def _pointer_read(at: _At, nid: str):
    side, op = at.side, at.op
    (source,) = _group(op, "source")
    masks, pads = _group(op, "mask"), _group(op, "paddingValue")
    address = side.value(source)
    inside = side.value(masks[0]) == 1 if masks else z3.BoolVal(True, at.ctx)
    padding = side.value(pads[0]) if pads else _unspecified(at, nid)
    return _array_of(side, source), address, inside, padding


def _unspecified(at: _At, nid: str):
    """A value the IR leaves unspecified (a masked-off lane without padding): a variable of this
    side alone, per position."""
    pos = ",".join("_" if k is None else str(k) for k in at.side._key(at.v))
    return at.enc.var(f"{at.side.name}:{nid}#unspecified@{pos}", at.v.type)


def _view_read(at: _At):
    """(array, byte address, in bounds, padding) of a ``load_view_tko`` element through a
    partition or gather/scatter view of a ``make_tensor_view`` of this function. Coordinates
    (interpreter semantics, docs/interpreter.md): a partition index i along tile dim d covers
    tensor dim dim_map[d] at i * tile[d] + position; a gather view's sparse dim takes the index
    tile's element (signed), its other dims a start offset; view indices are unsigned. In bounds:
    0 <= coordinate < extent in every dim. Address: base + sum(coordinate * stride) * element
    size, mod 2^64; a view whose index type is narrower than 64 bits is undefined where an
    in-bounds element's offset does not fit it."""
    side = at.side
    view_v = at.op.operands[0]
    vt, tv_id, tv, tt, tile, index, dim_map = _view_chain(at)
    extents, strides, width = _tensor_view_dims(side, tv, tt)
    coords = _view_coordinates(at, vt, tile, index, dim_map, len(tt.shape))
    inside, offset = _view_offset(at, coords, extents, strides, width)
    et = tt.element
    if not isinstance(et, ScalarType) or et.width % 8 or et != at.et:
        raise _Leaf()
    base = side.value_at(tv.operands[0], ())
    address = base + offset * z3.BitVecVal(et.width // 8, 64, at.ctx)
    side.cone.update({tv_id, side.index.producer[view_v.vid][0]})
    return _array_of(side, tv.operands[0]), address, inside, _padding(at, vt.padding)


def _view_chain(at: _At):
    """(view type, tensor view node id, tensor view op, its type, tile shape, index operands,
    dim map) of the load ``at``: a partition or gather/scatter view, made in this function, of
    a ``make_tensor_view`` of it, that the encoding models (no ``inbounds`` hint, a padding it
    knows, an index per tile dim, a dim map that is a permutation). Else the load is a leaf."""
    side, op = at.side, at.op
    view_v = op.operands[0]
    src = side.index.producer.get(view_v.vid)
    vop = side.index.ops.get(src[0]) if src else None
    vt = view_v.type
    if vop is None or vop.name not in ("make_partition_view", "make_gather_scatter_view") \
            or vop.results[src[1]].type != vt or not isinstance(vt, (PartitionViewType, GatherScatterViewType)):
        raise _Leaf()
    src = side.index.producer.get(vop.operands[0].vid)
    tv = side.index.ops.get(src[0]) if src else None
    tt = vop.operands[0].type
    if tv is None or tv.name != "make_tensor_view" or not isinstance(tt, TensorViewType) or tv.results[0].type != tt:
        raise _Leaf()
    if any(op.attributes.get("inbounds") or ()) or vt.padding not in (None, *_PADDINGS):
        raise _Leaf()
    tile = tuple(vt.tile_shape)
    index = _group(op, "index")
    if getattr(at.v.type, "shape", None) != tile or len(index) != len(tile):
        raise _Leaf()
    rank = len(tt.shape)
    dim_map = tuple(getattr(vt, "dim_map", ()) or range(len(tile)))
    if sorted(dim_map) != list(range(rank)) or len(dim_map) != len(tile):
        raise _Leaf()
    return vt, src[0], tv, tt, tile, index, dim_map


def _view_coordinates(at: _At, vt, tile: Tuple[int, ...], index: List[Value], dim_map, rank: int) -> List[Any]:
    """The tensor coordinate of the element, per tensor dim, as ``_COORD_BITS``-bit terms: a
    partition index times the tile size plus the position, a gather view's sparse index
    (signed), a gather view's start offset plus the position."""
    side = at.side
    pos = side._key(at.v) or (None,) * len(tile)
    coords: List[Any] = [None] * rank
    W, ctx = _COORD_BITS, at.ctx
    for d, n in enumerate(tile):
        k = pos[d]
        p = z3.BitVecVal(0, W, ctx) if k is None else z3.ZeroExt(W - 64, at.enc.position_var(k, 64))
        if isinstance(vt, GatherScatterViewType) and d == vt.sparse_dim:
            ix = index[d]
            if not (isinstance(ix.type, TileType) and ix.type.shape == (n,)):
                raise _Leaf()
            x = side.value_at(ix, (pos[d],)) if n != 1 else side.value_at(ix, ())
            coords[dim_map[d]] = z3.SignExt(W - x.size(), x)
        else:
            x = side.value_at(index[d], ())
            step = n if isinstance(vt, PartitionViewType) else 1
            coords[dim_map[d]] = z3.ZeroExt(W - x.size(), x) * z3.BitVecVal(step, W, ctx) + p
    return coords


def _view_offset(at: _At, coords: List[Any], extents: List[Any], strides: List[Any], width: int):
    """(in bounds, element offset mod 2^64) of the coordinates; where the view's index type is
    narrower than 64 bits, the side is undefined where an in-bounds offset does not fit it."""
    W, ctx = _COORD_BITS, at.ctx
    inside = z3.And(*[z3.And(c >= 0, c < z3.SignExt(W - e.size(), e)) for c, e in zip(coords, extents)])
    offset = sum((z3.Extract(63, 0, c) * z3.SignExt(64 - s.size(), s) for c, s in zip(coords, strides)),
                 z3.BitVecVal(0, 64, ctx))
    if width < 64:
        exact = sum((c * z3.SignExt(W - s.size(), s) for c, s in zip(coords, strides)), z3.BitVecVal(0, W, ctx))
        lo, hi = _range(width)
        at.side.defined.append(z3.Implies(inside, z3.And(exact >= lo, exact <= hi)))
    return inside, offset


def _tensor_view_dims(side: "_Side", tv: Operation, tt: TensorViewType):
    """([extent], [stride], index width) of a ``make_tensor_view``: static ones from its type,
    dynamic ones from its operands (after the base: the dynamic shape, then the dynamic
    strides); the index width is the dynamic operands' (32 when every one is static)."""
    dyn = list(tv.operands[1:])
    widths = {_scalar(x.type).width for x in dyn}
    if len(widths) > 1 or sum(1 for x in (*tt.shape, *tt.strides) if x is None) != len(dyn):
        raise _Leaf()
    width = widths.pop() if widths else 32
    out: List[List[Any]] = [[], []]
    k = 0
    for i, dims in enumerate((tt.shape, tt.strides)):
        for x in dims:
            if x is None:
                out[i].append(side.value_at(dyn[k], ()))
                k += 1
            else:
                out[i].append(z3.BitVecVal(x, width, side.enc.ctx))
    return out[0], out[1], width


def _padding(at: _At, padding: Optional[str]):
    """A view's padding value as a term of the loaded element type (None: an unspecified value)."""
    et, ctx = at.et, at.ctx
    if padding is None:
        return _unspecified(at, at.side.index.producer[at.v.vid][0])
    if et.is_int:
        if padding not in ("zero", "neg_zero"):
            raise _Leaf()
        return z3.BitVecVal(0, et.width, ctx)
    sort = at.enc.sort(at.v.type)
    return {"zero": lambda: z3.fpPlusZero(sort), "neg_zero": lambda: z3.fpMinusZero(sort),
            "nan": lambda: z3.fpNaN(sort), "pos_inf": lambda: z3.fpPlusInfinity(sort),
            "neg_inf": lambda: z3.fpMinusInfinity(sort)}[padding]()


def _select(at: _At):
    c, t, f = at.ops
    return z3.If(c == 1, t, f)


# --- float.*: bit-exact IEEE arithmetic (the bit-vector encoding only) ----------------------
def _float_binary(make: Callable):
    def encode(at: _At):
        if at.op.attributes.get("flush_to_zero"):
            raise _Leaf()  # denormal flushing is not modelled
        mode = _ROUNDING.get(at.rounding("nearest_even"))
        if mode is None:
            raise _Leaf()
        rm = {"RNE": z3.RNE, "RTZ": z3.RTZ, "RTN": z3.RTN, "RTP": z3.RTP}[mode](at.ctx)
        a, b = at.ops
        return make()(rm, a, b, at.ctx)
    return encode


def _float_cmp(at: _At):
    """``cmpf``: the IEEE relation on non-NaN operands (+0 == -0); ``ordered`` is false and
    ``unordered`` true where either operand is NaN."""
    a, b = at.ops
    if not isinstance(a, z3.FPRef):
        raise _Leaf()
    ctx = at.ctx  # every z3 call given the query's own context (never z3's global one)
    table = {"equal": z3.fpEQ, "not_equal": lambda x, y, ctx: z3.Not(z3.fpEQ(x, y, ctx), ctx),
             "less_than": z3.fpLT, "less_than_or_equal": z3.fpLEQ, "greater_than": z3.fpGT,
             "greater_than_or_equal": z3.fpGEQ}
    pred, ordering = _enum(at.op, "ComparisonPredicate"), _enum(at.op, "ComparisonOrdering")
    if pred not in table or ordering not in ("ordered", "unordered"):
        raise _Leaf()
    nan = z3.Or(z3.fpIsNaN(a, ctx), z3.fpIsNaN(b, ctx))
    rel = table[pred](a, b, ctx)
    holds = z3.And(z3.Not(nan, ctx), rel) if ordering == "ordered" else z3.Or(nan, rel)
    return z3.If(holds, z3.BitVecVal(1, 1, a.ctx), z3.BitVecVal(0, 1, a.ctx))


def zero_sign_blind(op: Operation) -> bool:
    """Whether ``op`` gives the same result for -0.0 and +0.0: its row has the trait
    ``zero_sign_blind`` (``exp``/``exp2``: both exactly 1.0) and it is written at rounding full
    (the default) without flush-to-zero."""
    d = OPS_BY_NAME.get(op.name)
    return d is not None and ZERO_SIGN_BLIND in d.traits and not op.attributes.get("flush_to_zero") \
        and _enum(op, "RoundingMode", "full") == "full"


def _float_neg(at: _At):
    if at.op.attributes.get("flush_to_zero"):
        raise _Leaf()
    return z3.fpNeg(at.ops[0], at.ctx)


# --- int.*: the bit-vector encoding, then the integer one -----------------------------------
def _bits_add(at: _At):
    a, b = at.ops
    if at.nsw:
        at.defined.extend([z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)])
    if at.nuw:
        at.defined.append(z3.BVAddNoOverflow(a, b, False))
    return a + b


def _bits_sub(at: _At):
    a, b = at.ops
    if at.nsw:
        at.defined.extend([z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)])
    if at.nuw:
        at.defined.append(z3.BVSubNoUnderflow(a, b, False))
    return a - b


def _bits_mul(at: _At):
    a, b = at.ops
    if at.nsw:
        at.defined.extend([z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)])
    if at.nuw:
        at.defined.append(z3.BVMulNoOverflow(a, b, False))
    return a * b


def _ints_arith(what: str):
    def encode(at: _At):
        a, b = at.ops
        if at.et.width == 1:
            raise _Leaf()
        return at.fit({"add": a + b, "sub": a - b, "mul": a * b}[what])
    return encode


def _bits_bitwise(what: str):
    def encode(at: _At):
        a, b = at.ops
        return {"and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b}[what]()
    return encode


def _ints_bitwise(what: str):
    def encode(at: _At):
        if at.et.width != 1:
            raise Unsupported("a bitwise op in the integer encoding")
        a, b = at.ops
        return at.b01({"and": z3.And(a == 1, b == 1), "or": z3.Or(a == 1, b == 1),
                       "xor": z3.Xor(a == 1, b == 1)}[what])
    return encode


def _bits_min_max(what: str):
    def encode(at: _At):
        a, b = at.ops
        lt = (a < b) if at.signed else z3.ULT(a, b)
        return z3.If(lt, a, b) if what == "min" else z3.If(lt, b, a)
    return encode


def _ints_min_max(what: str):
    def encode(at: _At):
        a, b = at.ops
        w = at.et.width
        a2, b2 = (a, b) if at.signed else (at.unsigned(a, w), at.unsigned(b, w))
        lt = a2 < b2
        return z3.If(lt, a, b) if what == "min" else z3.If(lt, b, a)
    return encode


def _bits_division(what: str):
    def encode(at: _At):
        a, b = at.ops
        w, signed = a.size(), at.signed
        at.defined.append(b != 0)
        if signed:
            at.defined.append(z3.Not(z3.And(a == z3.BitVecVal(1 << (w - 1), w, a.ctx),
                                             b == z3.BitVecVal(-1, w, a.ctx))))
        if what == "rem":
            return z3.SRem(a, b) if signed else z3.URem(a, b)
        rounding = at.rounding("zero")
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
    return encode


def _ints_division(what: str):
    def encode(at: _At):
        a, b = at.ops
        w = at.et.width
        if w == 1:
            raise _Leaf()
        at.defined.append(b != 0)
        if not at.signed:
            ua, ub = at.unsigned(a, w), at.unsigned(b, w)
            rounding = at.rounding("zero")
            q = ua / ub  # z3's integer division floors for a positive divisor
            if what == "rem":
                return at.signed_of(ua % ub, w)
            if rounding in ("zero", "negative_inf"):
                return at.signed_of(q, w)
            if rounding == "positive_inf":
                return at.signed_of(z3.If(ua % ub != 0, q + 1, q), w)
            raise _Leaf()
        lo, _ = _range(w)
        at.defined.append(z3.Not(z3.And(a == lo, b == -1)))
        floor = _floor_div_int(a, b)
        trunc = z3.If(a >= 0, z3.If(b > 0, a / b, -(a / (-b))), z3.If(b > 0, -((-a) / b), (-a) / (-b)))
        if what == "rem":
            return z3.If(a >= 0, a % b, -((-a) % b))  # the sign of the dividend (z3's % is >= 0)
        rounding = at.rounding("zero")
        if rounding == "zero":
            return trunc
        if rounding == "negative_inf":
            return floor
        if rounding == "positive_inf":
            return _ceil_div_int(a, b)
        raise _Leaf()
    return encode


def _bits_shift_defined(at: _At) -> None:
    a, b = at.ops
    w = a.size()
    at.defined.append(z3.ULT(b, z3.BitVecVal(w, w, b.ctx)))


def _bits_shl(at: _At):
    _bits_shift_defined(at)
    a, b = at.ops
    r = a << b
    if at.nsw:
        at.defined.append((r >> b) == a)
    if at.nuw:
        at.defined.append(z3.LShR(r, b) == a)
    return r


def _bits_shr(at: _At):
    _bits_shift_defined(at)
    a, b = at.ops
    return (a >> b) if at.signed else z3.LShR(a, b)


def _ints_shift(at: _At):
    raise Unsupported("a shift in the integer encoding")


def _bits_neg(at: _At):
    (a,) = at.ops
    if at.nsw:
        at.defined.append(a != z3.BitVecVal(1 << (a.size() - 1), a.size(), a.ctx))
    return -a


def _ints_neg(at: _At):
    (a,) = at.ops
    return at.fit(-a)


def _bits_abs(at: _At):
    (a,) = at.ops
    return z3.If(a < 0, -a, a)


def _ints_abs(at: _At):
    (a,) = at.ops
    return at.fit(z3.If(a < 0, -a, a))


def _bits_cmp(at: _At):
    a, b = at.ops
    if not isinstance(a, z3.BitVecRef):
        raise _Leaf()
    pred, signed = _enum(at.op, "ComparisonPredicate"), at.signed
    table = {"equal": lambda: a == b, "not_equal": lambda: a != b,
             "less_than": lambda: (a < b) if signed else z3.ULT(a, b),
             "less_than_or_equal": lambda: (a <= b) if signed else z3.ULE(a, b),
             "greater_than": lambda: (a > b) if signed else z3.UGT(a, b),
             "greater_than_or_equal": lambda: (a >= b) if signed else z3.UGE(a, b)}
    if pred not in table:
        raise _Leaf()
    return z3.If(table[pred](), z3.BitVecVal(1, 1, a.ctx), z3.BitVecVal(0, 1, a.ctx))


def _ints_cmp(at: _At):
    a, b = at.ops
    if not at.signed:
        fw = at.operand_width()
        a, b = at.unsigned(a, fw), at.unsigned(b, fw)
    pred = _enum(at.op, "ComparisonPredicate")
    table = {"equal": lambda: a == b, "not_equal": lambda: a != b, "less_than": lambda: a < b,
             "less_than_or_equal": lambda: a <= b, "greater_than": lambda: a > b,
             "greater_than_or_equal": lambda: a >= b}
    if pred not in table:
        raise _Leaf()
    return at.b01(table[pred]())


def _bits_ext(at: _At):
    (a,) = at.ops
    return (z3.SignExt if at.signed else z3.ZeroExt)(at.et.width - a.size(), a)


def _ints_ext(at: _At):
    (a,) = at.ops
    fw = at.operand_width()
    if fw == 1:
        return z3.If(a == 1, z3.IntVal(-1 if at.signed else 1, at.ctx), z3.IntVal(0, at.ctx))
    return a if at.signed else at.unsigned(a, fw)


def _bits_trunc(at: _At):
    (a,) = at.ops
    to = at.et.width
    r = z3.Extract(to - 1, 0, a)
    if at.nsw:
        at.defined.append(z3.SignExt(a.size() - to, r) == a)
    if at.nuw:
        at.defined.append(z3.ZeroExt(a.size() - to, r) == a)
    return r


def _ints_trunc(at: _At):
    (a,) = at.ops
    if at.et.width == 1:
        raise _Leaf()
    return at.fit(a)


def _integer(bits: Callable, ints: Callable, **kw) -> Encoder:
    return Encoder(bits, ints, integer_result=True, **kw)


#: The encoder of each ``semantics`` of the op table (dialect/spec.py; tests/check/test_smt.py
#: checks the two agree both ways). An op whose semantics is not here is a leaf.
ENCODERS: Dict[str, Encoder] = {
    "block_id": Encoder(_block_id),
    "num_blocks": Encoder(_num_blocks),
    "constant": Encoder(_constant),
    "iota": Encoder(_iota, reads_operands=False),
    "splat": Encoder(_splat, reads_operands=False),
    "assume": Encoder(_assume, reads_operands=False),
    "index_space": Encoder(_index_space, reads_operands=False),
    "select": Encoder(_select),
    "ptr.offset": Encoder(_offset),
    "memory.read": Encoder(_memory_read, reads_operands=False),
    "float.add": Encoder(_float_binary(lambda: z3.fpAdd)),
    "float.sub": Encoder(_float_binary(lambda: z3.fpSub)),
    "float.mul": Encoder(_float_binary(lambda: z3.fpMul)),
    "float.div": Encoder(_float_binary(lambda: z3.fpDiv)),
    "float.neg": Encoder(_float_neg),
    "float.cmp": Encoder(_float_cmp),
    "int.add": _integer(_bits_add, _ints_arith("add")),
    "int.sub": _integer(_bits_sub, _ints_arith("sub")),
    "int.mul": _integer(_bits_mul, _ints_arith("mul")),
    "int.and": _integer(_bits_bitwise("and"), _ints_bitwise("and")),
    "int.or": _integer(_bits_bitwise("or"), _ints_bitwise("or")),
    "int.xor": _integer(_bits_bitwise("xor"), _ints_bitwise("xor")),
    "int.min": _integer(_bits_min_max("min"), _ints_min_max("min")),
    "int.max": _integer(_bits_min_max("max"), _ints_min_max("max")),
    "int.div": _integer(_bits_division("div"), _ints_division("div"), divides=True),
    "int.rem": _integer(_bits_division("rem"), _ints_division("rem"), divides=True),
    "int.shl": _integer(_bits_shl, _ints_shift),
    "int.shr": _integer(_bits_shr, _ints_shift),
    "int.neg": _integer(_bits_neg, _ints_neg),
    "int.abs": _integer(_bits_abs, _ints_abs),
    # a compare's result is i1 whatever its operands; its encoders check the operands themselves
    "int.cmp": Encoder(_bits_cmp, _ints_cmp),
    "int.ext": _integer(_bits_ext, _ints_ext),
    "int.trunc": _integer(_bits_trunc, _ints_trunc),
}


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
                 rlimit: int = DEFAULT_RLIMIT, right_argument: Callable[[int], Optional[int]] = lambda k: k):
        self.left, self.right = left, right
        self.right_argument = right_argument
        self.shared_left, self.shared_right = shared_left, shared_right
        self.entry_facts = list(entry_facts)
        self.launch = list(launch)
        self._premise: Optional[Value] = None
        self._zero_sign_free = False
        self._probing = False  # prove(): try PROBES before z3 searches (float values)
        self.timeout_s = timeout_s  # the wall-clock safety net of one prove()
        self.rlimit = rlimit  # the work budget of one prove(), in z3's resource units
        self._time_end = float("inf")  # prove()'s safety-net deadline (perf_counter)
        self._spent = 0  # z3 resource units spent by this encoder's queries so far
        self.shape: Optional[Tuple[int, ...]] = None
        self.ints = False  # the integer mode (see _Side._ideal), tried when bit-vectors time out
        #: this encoder's own z3 context: every term, sort and solver of its queries lives in it
        #: (never z3's global one), so encoders in different threads share no solver state, and
        #: the same queries in the same order give the same models in any process
        #: (made on first use: a query the quick probe decides needs none, see ``prove``)
        self._ctx: Any = None
        #: the queries the quick probe decided that z3 has not yet been asked (``_replay``)
        self._unplayed: List[Tuple[Any, ...]] = []
        self._vars: Dict[Tuple[str, Any, str], Any] = {}
        self._facts: List[Tuple[str, object]] = []
        self._positions: Dict[int, Dict[int, Any]] = {}
        #: (left, right) node ids whose overflow flags the encoding reads as cleared: pairs that
        #: differ only in a flag, each reported as a specialization of its own (never proven)
        self.unflagged: Tuple[frozenset, frozenset] = (frozenset(), frozenset())
        self.search = _CounterexampleSearch(self)

    @property
    def ctx(self):
        """This encoder's own z3 context (``new_context``), made on first use."""
        ctx = self._ctx
        if ctx is None:
            ctx = self._ctx = new_context()
        return ctx

    def close(self) -> None:
        """Drop every z3 object this encoder holds, its context last, so that the context's
        native memory (tens of MB after a hard query) is freed now rather than by Python's
        cycle collector: the encoder and its counterexample search refer to each other, and the
        collector's full passes are rare in a process holding many objects (the mutation
        engine's workers piled up dozens of finished contexts and reached 6-12 GB). The encoder cannot
        pose queries afterwards (ProofStep.run closes it when its proofs are done)."""
        self._vars.clear()
        self._facts.clear()
        self._positions.clear()
        self._unplayed.clear()
        self._premise = None
        self._ctx = None

    def _fact(self, name: str, fact) -> None:
        if not any(n == name for n, _ in self._facts):
            self._facts.append((name, fact))

    # --- variables and facts ----------------------------------------------------------------
    def sort(self, t):
        et = _elem(t)
        if et.is_int:
            return z3.IntSort(self.ctx) if self.ints else z3.BitVecSort(et.width, self.ctx)
        return z3.FPSort(*_FP_SORTS[et.name], ctx=self.ctx)

    def var(self, name: str, t):
        sort = self.sort(t)
        et = _scalar(t)
        key = (name, self.ints, et.name)  # (a sort's text would go through z3's shared printer)
        if key not in self._vars:
            self._vars[key] = z3.Const(name, sort)
        v = self._vars[key]
        if self.ints:
            lo, hi = (0, 1) if et.width == 1 else _range(et.width)
            self._fact(f"{name.split(':')[0]} is an {et.name} (IR fact)", z3.And(v >= lo, v <= hi))
        if name.startswith("arg"):
            self._arg_facts(name, v)
        return v

    def block_var(self, base: str, dim: str):
        ctx = self.ctx
        make = (lambda n: z3.Int(n, ctx)) if self.ints else (lambda n: z3.BitVec(n, 32, ctx))
        bid, grid = make(f"bid.{dim}"), make(f"grid.{dim}")
        self._fact(f"0 <= bid.{dim} < grid.{dim} <= 2^31 - 1 (IR fact: tile block ids and grid sizes)",
                   z3.And(bid >= 0, bid < grid, grid <= (1 << 31) - 1) if self.ints else z3.And(bid >= 0, bid < grid))
        return bid if base == "bid" else grid

    def position(self, t: TileType, dim: Optional[int] = 0):
        """The element position along root dim ``dim`` as an integer of ``t``'s element width
        (None: 0). One variable per width, the widths tied to each other: the same position."""
        w = _scalar(t).width
        if dim is None:
            return z3.IntVal(0, self.ctx) if self.ints else z3.BitVecVal(0, w, self.ctx)
        return self.position_var(dim, w)

    def position_var(self, dim: int, w: int):
        shape = self.shape or (1,)
        n = shape[dim]
        label = "pos" if len(shape) == 1 else f"pos{dim}"
        p = z3.Int(f"{label}:{w}", self.ctx) if self.ints else z3.BitVec(f"{label}:{w}", w, self.ctx)
        widths = self._positions.setdefault(dim, {})
        # (the first width of a dim is named as before there were several)
        first = next(iter(widths), w)
        fact = f"0 <= {label}{'' if w == first else f':{w}'} < {n} (IR fact: the element position of an iota)"
        if self.ints:
            self._fact(fact, z3.And(p >= 0, p < n))
        elif n < (1 << w):  # (a position of more values than the width holds wraps: no bound)
            self._fact(fact, z3.And(z3.UGE(p, 0), z3.ULT(p, n)))
        for w2, q in sorted(widths.items()):
            if w2 == w:
                continue
            lo, hi = (q, p) if w2 < w else (p, q)
            name = f"{label}:{min(w, w2)} and {label}:{max(w, w2)} are one position (IR fact)"
            if self.ints:
                self._fact(name, lo == hi if n <= (1 << (min(w, w2) - 1)) else z3.BoolVal(True, self.ctx))
            else:
                self._fact(name, z3.Extract(lo.size() - 1, 0, hi) == lo)
        widths[w] = p
        return p

    def memory(self, array: str, et: ScalarType):
        """The values of memory read as ``et`` through ``array``'s accesses, a function of the
        64-bit byte address: one per (array, element type); the checker pairs the left's read
        with the right's (``Outcome.reads``) and checks that both see memory in the same state."""
        key = (f"mem:{array}:{et.name}", "fn", et.name)
        if key not in self._vars:
            self._vars[key] = z3.Function(key[0], z3.BitVecSort(64, self.ctx), self.sort(TileType((), et)))
        return self._vars[key]

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
            return z3.IntVal(bits - (1 << et.width) if et.width > 1 and bits >> (et.width - 1) else bits, self.ctx)
        if et.is_int:
            return z3.BitVecVal(bits, et.width, self.ctx)
        return z3.fpBVToFP(z3.BitVecVal(bits, et.width, self.ctx), self.sort(t), self.ctx)

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
                parts.append(x >= z3.BitVecVal(p.lb, w, x.ctx))
            if p.ub is not None:
                parts.append(x <= z3.BitVecVal(p.ub, w, x.ctx))
            return z3.And(*parts) if parts else None
        if isinstance(p, DivBy) and p.every is None and p.along is None and p.divisor > 0:
            return z3.SRem(x, z3.BitVecVal(p.divisor, w, x.ctx)) == 0
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
    def prove(self, vl: Value, vr: Value, premise: Optional[Value] = None, zero_sign_free: bool = False) -> Outcome:
        """Whether ``vl`` (left) and ``vr`` (right) are equal for every input the facts admit;
        with ``premise`` (a left i1 value of their shape: a memory op's mask), only at the
        elements where the premise holds (the others are never read or written); with
        ``zero_sign_free``, -0.0 and +0.0 count as equal (floats read only by an op that
        ``zero_sign_blind`` accepts).

        Bit-vectors first, with half the work budget; when z3 gives no answer there, the integer
        mode (nonlinear integer arithmetic is easier for z3 than 32-bit dividers) with the rest,
        valid only once a first query shows no step can leave its width under the facts. A cone
        that divides by a computed value takes the integer mode first. An input where the
        integer mode differs without deciding is evaluated in the bit-vector encoding, a
        counterexample only if that exact encoding differs there (``_CounterexampleSearch.confirm``).

        The budget is work (``rlimit``, z3's resource count), never time: the same answer on any
        machine under any load. Past the wall-clock safety net (``timeout_s``) the outcome is
        ``undecided`` with ``time_limit`` set, which no verdict may rest on.

        A float query whose cone the quick probe evaluates exactly (``_quick_probe``) gets the
        outcome the first attempt's probe would give, without z3; the z3 calls it stands for
        are made, in order, before this encoder next asks z3 anything (``_replay``), so every
        later query sees its context as it would have been."""
        if premise is None and not self.launch and _quick_allowed():
            t0 = _now()
            quick = _quick_probe(self, vl, vr)
            if quick is not None:
                quick.seconds = _now() - t0
                self._unplayed.append((vl, vr, zero_sign_free, self.unflagged, self.rlimit, self.timeout_s))
                return quick
        self._replay()
        self._premise, self._zero_sign_free = premise, zero_sign_free
        try:
            return self._prove(vl, vr)
        finally:
            self._premise, self._zero_sign_free = None, False

    def _replay(self) -> None:
        """Ask z3 the queries the quick probe decided, as ``prove`` would have asked them (the
        same encoder settings, in the same order), discarding the outcomes: z3's answers, models
        and work counts depend on what its context saw before, so a query after them must find
        the context as the z3 path would have left it."""
        pending, self._unplayed = self._unplayed, []
        if not pending:
            return
        saved = (self.unflagged, self.rlimit, self.timeout_s)
        try:
            for vl, vr, zero_sign_free, self.unflagged, self.rlimit, self.timeout_s in pending:
                self._premise, self._zero_sign_free = None, zero_sign_free
                try:
                    self._prove(vl, vr)
                finally:
                    self._premise, self._zero_sign_free = None, False
        finally:
            self.unflagged, self.rlimit, self.timeout_s = saved

    def _premise_term(self, L: "_Side"):
        """The premise as a z3 bool over the left side (None: no premise)."""
        return None if self._premise is None else L.value(self._premise) == 1

    def _prove(self, vl: Value, vr: Value) -> Outcome:
        t0 = _now()
        if not available():
            return Outcome("unsupported", note=skipped_reason())
        if vl.type != vr.type:
            return Outcome("unsupported", note="the two values have different types")
        self.shape = vl.type.shape if isinstance(vl.type, TileType) else None
        et = _elem(vl.type)
        if et is None or (not et.is_int and et.name not in _FP_SORTS):
            return Outcome("unsupported", note=f"a value of type {vl.type}")
        is_float = not et.is_int  # the integer mode has no floats: all the budget
        self._time_end = t0 + self.timeout_s
        self._probing = is_float  # z3 bit-blasts floats before any search: 0.12 s for one fma
        try:
            out = self._attempts(vl, vr, is_float)
        except _TimeLimit:
            out = Outcome("undecided", time_limit=True, note=(
                f"time limit (machine too slow/overloaded): z3 ran for the proof's wall-clock safety net of "
                f"{self.timeout_s:g} s before spending its work budget of {self.rlimit:,} resource units"))
        out.seconds = _now() - t0
        return out

    def _attempts(self, vl: Value, vr: Value, is_float: bool) -> Outcome:
        """prove()'s attempts in the two encodings, within ``self.rlimit`` units of z3's work."""
        decided = "decided in the integer encoding (every step proven to stay within its width)"
        start, budget = self._spent, self.rlimit
        out = self._attempt(vl, vr, False, budget if is_float else budget // 2, defer=not is_float)
        if out.status == "deferred":
            # a division by a computed divisor: nonlinear, where 32-bit dividers rarely finish;
            # the integer mode goes first, with most of the budget
            first = self._attempt(vl, vr, True, min(budget * 3 // 4, INTEGER_RLIMIT))
            confirmed = self.search.confirm_any(vl, vr, first.candidates)
            if first.status in ("equal", "different"):
                first.note = decided
                out = first
            elif confirmed is not None:
                out = confirmed
            else:
                out = self._attempt(vl, vr, False, max(1, budget - (self._spent - start)))
                if first.note:
                    out.note = f"{out.note}; integer encoding: {first.note}" if out.note else \
                        f"integer encoding: {first.note}"
        elif out.status == "undecided" and not is_float:
            second = self._attempt(vl, vr, True, min(max(1, budget - (self._spent - start)), INTEGER_RLIMIT))
            if second.status in ("equal", "different"):
                second.note = decided
                out = second
            else:
                if second.note:
                    out.note = f"{out.note}; integer encoding: {second.note}"
                out = self.search.confirm_any(vl, vr, second.candidates) or out
        return out

    def _sides(self, ints: bool) -> Tuple["_Side", "_Side"]:
        """Start a query in one encoding (integers or bit vectors): no facts yet, a fresh side each."""
        self.ints = ints
        self._facts = []
        self._positions = {}
        sides = (_Side(self, self.left.f, self.left, "left", self.shared_left),
                 _Side(self, self.right.f, self.right, "right", self.shared_right))
        sides[0].unflagged, sides[1].unflagged = self.unflagged
        return sides

    def _attempt(self, vl: Value, vr: Value, ints: bool, budget: int, defer: bool = False) -> Outcome:
        """One query in one encoding, within ``budget`` units of z3's work (the sign lemmas at
        most half of it). ``defer``: give up at once ("deferred") when a cone divides by a
        computed value (the caller then tries the integer mode first)."""
        L, R = self._sides(ints)
        try:
            a, b = L.root(vl), R.root(vr)
            cond = self._premise_term(L)
        except Unsupported as e:
            return Outcome("unsupported", note=str(e))
        except z3.Z3Exception as e:
            return Outcome("unsupported", note=f"encoding failed: {e}")
        if defer and any(not _numeral(d) for side in (L, R) for _, _, d in side.divisions):
            return Outcome("deferred")
        ignored = self._launch_facts()
        same = self._same(a, b)
        dl, dr = z3.And(*L.defined) if L.defined else z3.BoolVal(True, self.ctx), \
            z3.And(*R.defined) if R.defined else z3.BoolVal(True, self.ctx)
        out = Outcome("undecided", cone_left=set(L.cone), cone_right=set(R.cone))
        out.reads = {k: (L.reads.get(k), R.reads.get(k)) for k in sorted(set(L.reads) | set(R.reads))}
        if ignored:
            out.note = "launch fact ignored: " + "; ".join(ignored)
        used: List[str] = []
        w_end = self._spent + budget
        lemmas = self._sign_lemmas(L, R, self._spent + budget // 2)
        query = z3.Or(z3.And(dl, dr, z3.Not(same)), dl != dr)
        if cond is not None:  # only the elements the premise (a mask) lets through
            query = z3.And(cond, query)
        if self._probing and not ints:
            witness = self.search.probe(query, a, b, dl, dr)
            if witness is not None:
                out.status, out.counterexample = "different", witness
                return out
        if ints and (L.exact or R.exact):
            r, core = self._check(z3.Not(z3.And(*(L.exact + R.exact))), w_end)
            if r != z3.unsat:
                out.note = ("a step may leave its width under the facts" if r == z3.sat
                            else "no answer on whether a step leaves its width")
                # no answer in this encoding; an input where it differs may still be one where
                # the bit-vectors differ (prove() evaluates it there): a candidate
                r, _, m = self._check(query, w_end, model=True)
                if r == z3.sat:
                    out.candidates = self.search.candidates(query, m)
                return out
            used += core
        r, core, m = self._check(query, w_end, model=True)
        if r == z3.unsat:
            out.status = "equal"
            used += core
            # a lemma the proof used stands for the facts that proved it
            used += [f for name in used if name in lemmas for f in lemmas[name]]
            out.facts = sorted(set(used)) + sorted(set(L.assumes + R.assumes))
        elif r == z3.sat:
            out.status = "different"
            out.counterexample = _counterexample(self.search.small_model(query, m), a, b, dl, dr)
        else:
            out.note = "; ".join(x for x in (out.note, f"z3 gave no answer within its work budget of {budget:,} "
                                             "resource units") if x)
        return out

    def _launch_facts(self) -> List[str]:
        """Add the caller's launch facts; the reasons of those this encoding cannot state."""
        ignored = []
        for name, make in self.launch:
            try:
                self._fact(name, make(self))
            except (Unsupported, KeyError, ValueError) as e:
                ignored.append(str(e))
        return ignored

    def _same(self, a, b):
        """The two values are the same: equal numbers; floats bit-exact up to NaN payloads
        (both NaN, or equal with the same sign: +0 and -0 differ)."""
        if isinstance(a, z3.FPRef):
            ctx = self.ctx
            if self._zero_sign_free:  # fpEQ holds for -0.0 and +0.0
                return z3.Or(z3.And(z3.fpIsNaN(a, ctx), z3.fpIsNaN(b, ctx)), z3.fpEQ(a, b, ctx))
            return z3.Or(z3.And(z3.fpIsNaN(a, ctx), z3.fpIsNaN(b, ctx)),
                         z3.And(z3.fpEQ(a, b, ctx), z3.fpIsNegative(a, ctx) == z3.fpIsNegative(b, ctx)))
        return a == b

    def _sign_lemmas(self, L: "_Side", R: "_Side", w_end: int) -> Dict[str, List[str]]:
        """Lemmas on the signs of the signed divisions' operands (divisor >= 1, dividend >= 0),
        each proven from the facts alone, in a query of its own, and then added as a fact: floor
        and truncation agree where both hold, and the question split this way stays within
        reach of z3 where the whole one does not (a divisor ``min(tiles_m - first_m, 8)`` that
        is >= 1 only because of the launch grid: nonlinear). Sound: a lemma the facts imply
        adds nothing the facts do not say. Each lemma may spend half of what is left of the
        lemmas' work budget (up to ``w_end``, a total of ``_spent``). Returns lemma name -> the
        facts its proof used."""
        proven: Dict[str, List[str]] = {}
        seen = set()
        for side in (L, R):
            for nid, a, b in side.divisions:
                for what, term, fact in (("divisor", b, lambda t: t >= 1), ("dividend", a, lambda t: t >= 0)):
                    if _numeral(term) or term.get_id() in seen:
                        continue  # (a constant says its sign itself)
                    seen.add(term.get_id())
                    left = w_end - self._spent
                    if left < _MIN_LEMMA_RLIMIT:
                        return proven
                    goal = fact(term)
                    r, core = self._check(z3.Not(goal), self._spent + left // 2)
                    if r == z3.unsat:
                        name = (f"lemma: the {what} of {side.name} {nid} is {'>= 1' if what == 'divisor' else '>= 0'}"
                                f" (proven from the facts alone)")
                        proven[name] = core
                        self._fact(name, goal)
        return proven

    def _check(self, goal, w_end: int, model: bool = False):
        """(result, names of the facts in the unsat core[, model]) of facts + goal, within the
        work left before ``w_end`` (a total of ``_spent``; at least 1 unit)."""
        s = z3.Solver(ctx=self.ctx)
        labels = {}
        for i, (name, fact) in enumerate(self._facts):
            lab = z3.Bool(f"fact{i}", self.ctx)
            labels[f"fact{i}"] = name
            s.assert_and_track(fact, lab)
        s.add(goal)
        r = self._solve(s, w_end - self._spent)
        core = [labels[c.decl().name()] for c in s.unsat_core()] if r == z3.unsat else []
        if model:
            return r, core, (s.model() if r == z3.sat else None)
        return r, core

    def _solve(self, s, rlimit: int):
        """``s.check()`` within ``rlimit`` units of z3's work (deterministic: z3 counts the same
        units for the same query in a context that saw the same queries before, whatever the
        load) and the wall-clock safety net of the running prove(); the units it spent join
        ``_spent``. Raises ``_TimeLimit`` when the safety net, not the work budget, stopped it:
        z3 gives the same reason for both ("canceled"), so the clock tells them apart."""
        left_s = self._time_end - _now()
        if left_s <= 0:
            raise _TimeLimit()
        s.set("rlimit", max(1, int(rlimit)))  # (0 would mean no limit)
        if left_s != float("inf"):
            s.set("timeout", min(max(1, int(left_s * 1000) + 1), (1 << 31) - 1))  # (z3's is 32-bit, in ms)
        before = _rlimit_count(s)
        r = s.check()
        self._spent += _rlimit_count(s) - before
        if r == z3.unknown and _now() >= self._time_end - _TIMER_SLACK_S:
            raise _TimeLimit()
        return r


class _CounterexampleSearch:
    """The counterexamples of one ``ConeEncoder``: a model with small inputs, and the check of
    an integer-mode input in the exact (bit-vector) encoding. Its own object because it never
    decides equality: it only picks which of the inputs where the sides differ is reported (the
    same one in every run, within a fixed amount of z3's work), and it shares the encoder's
    facts, sides and work budget (``ConeEncoder._solve``)."""

    def __init__(self, enc: "ConeEncoder"):
        self.enc = enc

    def probe(self, query, a, b, dl, dr) -> Optional[Dict[str, object]]:
        """A counterexample of ``query`` (with the encoder's facts) found by evaluation alone:
        the first of ``PROBES`` concrete inputs where every fact holds and the query is true,
        as ``_counterexample``'s dict; None when none is. A genuine counterexample of the
        exact encoding (the very terms z3 would search, evaluated by z3's own simplifier), so
        it decides ``different`` as z3's model would; it never decides ``equal``. The same in
        every run: fixed inputs, no search."""
        enc = self.enc
        ctx = _probe_context()
        query, a, b, dl, dr = (t.translate(ctx) for t in (query, a, b, dl, dr))
        held: List[Any] = [f for _, f in enc._facts]
        facts = [f.translate(ctx) for f in held]
        whole = z3.And(*facts, query) if facts else query
        free = _free_constants(whole)
        if any(not (z3.is_bv(v) or z3.is_fp(v)) for v in free):
            return None
        for k in range(PROBES):
            subs = [(v, _probe_value(v.sort(), i + k, ctx)) for i, v in enumerate(free)]

            def at(term, subs=subs, k=k):
                t = z3.simplify(z3.substitute(term, *subs)) if subs else z3.simplify(term)
                return _fill_memory(t, k, ctx)
            if not z3.is_true(at(whole)):
                continue
            cex: Dict[str, object] = {v.decl().name().split(":")[0]: _py(x) for v, x in subs
                                      if _input_name(v.decl().name())}
            cex["left"] = _py(at(a)) if z3.is_true(at(dl)) else "undefined"
            cex["right"] = _py(at(b)) if z3.is_true(at(dr)) else "undefined"
            return dict(sorted(cex.items()))
        return None

    def candidates(self, query, model) -> List[Dict[str, int]]:
        """The integer encoding's inputs where the sides differ, for prove() to evaluate in the
        bit-vector encoding: a model with small inputs first, then ``model`` itself."""
        out = [{d.name(): x[d].as_long() for d in x.decls() if z3.is_int_value(x[d])}
               for x in (self.small_model(query, model), model)]
        return out[:1] if out[0] == out[1] else out

    def small_model(self, goal, model):
        """A model of the facts and ``goal`` whose inputs (``_input_name``) are all small, when
        one exists within a fixed amount of z3's work; else ``model``. Tries bounds of growing
        size on the signed value of every integer input. Any model of the query is a genuine
        counterexample; this one is easier to read (``bid.x=3``, not ``bid.x=2146435055``) and
        the same in every run: the work is bounded by z3's resource count (``rlimit``), never
        by the clock, so load on the machine cannot change which model comes back."""
        enc = self.enc
        inputs = [d() for d in model.decls()
                  if _input_name(d.name()) and d.arity() == 0 and (z3.is_bv(d()) or z3.is_int(d()))]
        if not inputs:
            return model
        s = z3.Solver(ctx=enc.ctx)
        for _, fact in enc._facts:
            s.add(fact)
        s.add(goal)
        for bound in SMALL_MODEL_BOUNDS:
            s.push()
            for x in inputs:
                s.add(x >= -bound, x <= bound)
            if enc._solve(s, SMALL_MODEL_RLIMIT) == z3.sat:
                return s.model()
            s.pop()
        return model

    def confirm_any(self, vl: Value, vr: Value, candidates: List[Dict[str, int]]) -> Optional[Outcome]:
        """The first of ``candidates`` that ``confirm`` confirms, as its outcome; None if none."""
        for values in candidates:
            out = self.confirm(vl, vr, values)
            if out is not None:
                return out
        return None

    def confirm(self, vl: Value, vr: Value, values: Dict[str, int]) -> Optional[Outcome]:
        """``different`` when the bit-vector encoding, evaluated at the input ``values`` (every
        variable set, to 0 where the input does not say: no search), satisfies every fact and
        differs there; None otherwise. A counterexample of the exact encoding, however found."""
        enc = self.enc
        L, R = enc._sides(ints=False)
        try:
            a, b = L.root(vl), R.root(vr)
            cond = enc._premise_term(L)
            for name, make in enc.launch:
                enc._fact(name, make(enc))
        except (Unsupported, KeyError, ValueError, z3.Z3Exception):
            return None
        dl = z3.And(*L.defined) if L.defined else z3.BoolVal(True, enc.ctx)
        dr = z3.And(*R.defined) if R.defined else z3.BoolVal(True, enc.ctx)
        facts = [f for _, f in enc._facts] + ([cond] if cond is not None else [])
        subs = []
        for v in _free_constants(z3.And(*facts, dl, dr, a == b)):
            if not z3.is_bv(v):
                return None
            w = v.size()
            subs.append((v, z3.BitVecVal(values.get(v.decl().name(), 0) % (1 << w), w, enc.ctx)))

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


def _counterexample(m, a, b, dl, dr) -> Dict[str, object]:
    """The inputs a reader can set (``_input_name``) and the two sides' values in model ``m``
    (``undefined`` for a side whose definedness fails there), by name."""
    cex: Dict[str, object] = {}
    for d in m.decls():
        if _input_name(d.name()):
            cex[d.name().split(":")[0]] = _py(m[d])
    cex["left"] = _py(m.eval(a, model_completion=True))
    cex["right"] = _py(m.eval(b, model_completion=True))
    if not z3.is_true(m.eval(dl, model_completion=True)):
        cex["left"] = "undefined"
    if not z3.is_true(m.eval(dr, model_completion=True)):
        cex["right"] = "undefined"
    return dict(sorted(cex.items()))


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


def _rlimit_count(s) -> int:
    """The resource units z3 has counted in ``s``'s context so far (``rlimit count``)."""
    return int(s.statistics().get_key_value("rlimit count"))


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
    bits = z3.simplify(z3.fpToIEEEBV(v, v.ctx)).as_long()
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

    from ..launch.facts import parse_fact

    # the bounded grammar first (length, nesting, term count, known names): a fact given through
    # the Python API gets the same one-line refusal as one from the command line, never a
    # RecursionError from a deeply nested text (LaunchFactSyntaxError is a ValueError)
    tree = parse_fact(text)
    W, LIM = 64, 1 << 62
    i32 = (-(1 << 31), (1 << 31) - 1)

    def fits(lo, hi):
        if lo < -LIM or hi > LIM:
            raise ValueError(f"launch fact {text!r}: a step may leave 64 bits")
        return lo, hi

    def make(enc: ConeEncoder):
        def val(n):
            if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
                return ((z3.IntVal(n.value, enc.ctx) if enc.ints else z3.BitVecVal(n.value, W, enc.ctx)),) + \
                    fits(n.value, n.value)
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


# --- the quick probe: the first probes of a small float cone, without z3 --------------------
#: Element types the quick probe evaluates: ``struct``'s format for each (IEEE binary16, 32, 64,
#: packed round-to-nearest-even; Python's floats are binary64). Rounding a binary64 result of
#: +, -, *, / or negation of two values of one of these formats to that format gives the
#: correctly rounded result (binary64 has more than twice their precision plus two bits), so
#: every step equals the IEEE operation z3's simplifier computes on numerals.
_QUICK_FORMATS = {"f16": ("<e", 2.0 ** -14), "f32": ("<f", 2.0 ** -126), "f64": ("<d", 2.0 ** -1022)}
#: The semantics the quick probe evaluates (the op table's ``semantics``; ENCODERS' encoders).
_QUICK_SEMANTICS = frozenset({"constant", "float.add", "float.sub", "float.mul", "float.div", "float.neg"})


class _NotQuick(Exception):
    """The quick probe does not decide this query: z3 is asked, as without it."""


def _quick_allowed() -> bool:
    """Whether z3 would be asked (installed, not hidden), without importing it."""
    return z3 is not None and (z3 is not _NOT_IMPORTED or installed())


def _quick_probe(enc: "ConeEncoder", vl: Value, vr: Value) -> Optional[Outcome]:
    """The outcome ``prove(vl, vr)`` gives when its first attempt's probe (``PROBES`` inputs,
    ``_CounterexampleSearch.probe``) shows the two values different, found without z3; None
    whenever that is not certain (then z3 is asked, as it always was).

    It decides only a cone it can evaluate exactly, as the encoding builds it (``_Side``): every
    value of the root's own tile type (one element position, no broadcasts), every op a leaf
    (no encoder, or no ``semantics``) or one of ``_QUICK_SEMANTICS`` at the default rounding
    without ``flush_to_zero``, a constant a splat; at most one leaf variable in all, which is
    not an input a reader sets (an entry argument, a block id: their facts are z3 terms) nor a
    loop's induction variable; no premise and no launch facts (``prove`` checks those). Every
    number on the way must be a finite, normal, nonzero value of its format (no NaN, infinity,
    signed zero or subnormal, where IEEE's special cases live); any other value stops it. Then
    the probe's query (the sides defined and not the same, bit for bit) holds exactly where the
    two numbers differ, and the counterexample is the two numbers, as ``_py`` reads them."""
    t = vl.type
    if t != vr.type or not isinstance(t, TileType) or not isinstance(t.element, ScalarType):
        return None
    fmt = _QUICK_FORMATS.get(t.element.name)
    if fmt is None:
        return None
    try:
        left = _QuickSide(enc.left, enc.shared_left, "left", t, fmt)
        right = _QuickSide(enc.right, enc.shared_right, "right", t, fmt)
        a, b = left.root(vl), right.root(vr)
        leaves = left.leaves | right.leaves
        if len(leaves) > 1:
            return None  # (the probe's order of several variables is z3's term order)
        for k in range(PROBES):
            x = PROBE_FLOATS[(0 + k) % len(PROBE_FLOATS)]  # the first variable's k-th probe value
            xl, xr = left.evaluate(a, x), right.evaluate(b, x)
            if xl != xr:
                return Outcome("different", counterexample={"left": xl, "right": xr},
                               cone_left=set(left.cone), cone_right=set(right.cone))
    except _NotQuick:
        return None
    return None  # every probe agrees: z3 searches


class _QuickSide:
    """One side of a quick probe: the cone as ``_Side`` expands it (the same ops in its cone,
    the same leaves by the same names), as a tree of ``(semantics, operands)`` / ``("leaf",)`` /
    ``("number", x)`` nodes; ``evaluate`` computes it at a value of the leaf."""

    def __init__(self, index, shared: Callable[[str, int], Optional[str]], name: str, t: TileType,
                 fmt: Tuple[str, float]):
        self.index, self.shared, self.name, self.t = index, shared, name, t
        self.pack, self.tiny = fmt
        self.cone: set = set()
        self.leaves: set = set()
        self.nodes: Dict[int, Tuple[Any, ...]] = {}
        self.root_vid: Optional[int] = None

    def root(self, v: Value) -> Tuple[Any, ...]:
        self.root_vid = v.vid
        return self.value(v)

    def value(self, v: Value) -> Tuple[Any, ...]:
        node = self.nodes.get(v.vid)
        if node is None:
            node = self.nodes[v.vid] = self._value(v)
        return node

    def _value(self, v: Value) -> Tuple[Any, ...]:
        if v.type != self.t:
            raise _NotQuick()
        nid, res = self.index.producer[v.vid]
        op = self.index.ops.get(nid)
        sem = OPS_BY_NAME[op.name].semantics if op is not None and op.name in OPS_BY_NAME else None
        if op is not None and sem is not None:
            if len(self.cone) >= MAX_CONE_OPS - 1:
                raise _NotQuick()
            if sem in ENCODERS:
                node = self._op(op, sem)
                self.cone.add(nid)
                return node
        # a leaf (``_Side._leaf``)
        if v.vid == self.root_vid:
            raise _NotQuick()
        name = self.shared(nid, res) or f"{self.name}:{nid}#{res}"
        if _input_name(name) or nid.rpartition("/r0/a")[1]:
            raise _NotQuick()  # facts of their own (entry arguments, loop bounds)
        self.leaves.add(name)
        return ("leaf",)

    def _op(self, op: Operation, sem: str) -> Tuple[Any, ...]:
        if sem not in _QUICK_SEMANTICS or op.attributes.get("flush_to_zero"):
            raise _NotQuick()
        if sem == "constant":
            value = op.attributes.get("value")
            if not isinstance(value, DenseElements) or not (value.is_splat or _num(value.type) == 1):
                raise _NotQuick()
            (x,) = struct.unpack(self.pack, value.first_bits().to_bytes(struct.calcsize(self.pack), "little"))
            return ("number", self._normal(x))
        if sem != "float.neg" and _enum(op, "RoundingMode", "nearest_even") != "nearest_even":
            raise _NotQuick()
        if len(op.operands) != (1 if sem == "float.neg" else 2):
            raise _NotQuick()
        return (sem, [self.value(x) for x in op.operands])

    def _normal(self, x: float) -> float:
        """``x`` if it is a finite, normal, nonzero value (else not quick)."""
        if not (self.tiny <= abs(x) < float("inf")):
            raise _NotQuick()
        return x

    def evaluate(self, node: Tuple[Any, ...], x: float) -> float:
        kind = node[0]
        if kind == "number":
            return node[1]
        if kind == "leaf":
            return x
        args = [self.evaluate(n, x) for n in node[1]]
        if kind == "float.neg":
            return -args[0]
        a, b = args
        exact = a + b if kind == "float.add" else a - b if kind == "float.sub" else a * b if kind == "float.mul" \
            else a / b
        try:
            (r,) = struct.unpack(self.pack, struct.pack(self.pack, exact))
        except OverflowError:
            raise _NotQuick() from None
        return self._normal(r)


def _probe_value(sort, k: int, ctx):
    """The k-th probe value of a variable of ``sort`` (``PROBE_FLOATS``/``PROBE_INTS``)."""
    if isinstance(sort, z3.FPSortRef):
        return z3.FPVal(PROBE_FLOATS[k % len(PROBE_FLOATS)], fps=sort, ctx=ctx)
    return z3.BitVecVal(PROBE_INTS[k % len(PROBE_INTS)] % (1 << sort.size()), sort.size(), ctx)


_PROBE_CONTEXTS = threading.local()


def _probe_context():
    """This thread's z3 context for probes. Not the encoder's: terms made there would change how
    z3 goes on to solve its later queries (other models, other unsat cores). One per thread, kept:
    a context costs 5-20 ms to make, and a probe only substitutes and simplifies ground terms,
    whose results (numerals, true/false) do not depend on what the context saw before."""
    ctx = getattr(_PROBE_CONTEXTS, "ctx", None)
    if ctx is None:
        ctx = _PROBE_CONTEXTS.ctx = new_context()
    return ctx


#: Rounds of ``_fill_memory``: a read whose address is itself read from memory (a gather) gets
#: its numeral address one round after the read it comes from.
_MEMORY_ROUNDS = 4


def _fill_memory(term, k: int, ctx):
    """``term`` (simplified) with each read of memory (an uninterpreted function of one
    numeral address) replaced by the probe value of that address: one value per address, so
    two reads of one address agree as they do in memory. Reads at an address that is not a
    numeral after ``_MEMORY_ROUNDS`` rounds stay (the probe then fails unless the term decides
    without them)."""
    for _ in range(_MEMORY_ROUNDS):
        filled = _fill_memory_once(term, k, ctx)
        if filled is None:
            break
        term = filled
    return term


def _fill_memory_once(term, k: int, ctx):
    """One round of ``_fill_memory``; None when no read has a numeral address."""
    reads, seen, stack = [], set(), [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if t.decl().kind() == z3.Z3_OP_UNINTERPRETED and t.num_args() == 1 and z3.is_bv_value(t.arg(0)):
            reads.append(t)
        else:
            stack.extend(t.children())
    if not reads:
        return None
    subs = [(t, _probe_value(t.sort(), t.arg(0).as_long() + k, ctx)) for t in reads]
    return z3.simplify(z3.substitute(term, *subs))


def _free_constants(term) -> list:
    """The uninterpreted constants of ``term``, each once, in first-visit order. Shared subterms
    are recognised by their AST id: z3.z3util.get_vars tells them apart by printing every
    subterm, which was most of a counterexample check's time on the GEMM port pairs."""
    seen: set = set()
    found: list = []
    stack = [term]
    while stack:
        t = stack.pop()
        key = t.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.append(t)
        else:
            stack.extend(reversed(t.children()))
    return found
