"""Signed integer value ranges, shared by implied-assumptions and nonnegative-division.

Each integer value gets an interval ``(lo, hi)`` from its definition and its operands' intervals
(definitions come before uses in pre-order, a ``for`` op before its body; computed on demand,
see ``Ranges``), which holds for every element
of the tile, in the signed reading of its type. Anything not understood gets the full range of
its type, so every answer is sound: an interval is only narrowed by a fact the IR states.
Arithmetic that could wrap (the interval leaves the type's range) also falls back to the full
range; ``overflow`` flags are not used to narrow.
"""
from __future__ import annotations

from typing import Dict, Optional, Set, Tuple

from ...ir import Bounded, DenseElements, Function, Operation, Value, decode_elements
from ..util import enum_name, preorder

Interval = Tuple[int, int]

_WIDTHS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}


def int_bounds(v: Value) -> Optional[Interval]:
    """The signed range of ``v``'s integer element type; None for i1, floats, pointers, views."""
    elem = getattr(v.type, "element", v.type)
    w = _WIDTHS.get(getattr(elem, "name", ""))
    if w is None:
        return None
    return -(1 << (w - 1)), (1 << (w - 1)) - 1


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def _one_int(value: DenseElements):
    """The one stored element of an i1/i8/i16/i32/i64 constant as decode_elements reads it
    (signed; i1 as 0 or 1), or None (more elements, another type)."""
    name = getattr(value.element, "name", None)
    if name not in ("i1", "i8", "i16", "i32", "i64") or not value.stores_one_element():
        return None
    if name == "i1":
        return int(value.data[0] != 0)
    return int.from_bytes(value.data, "little", signed=True)


#: The ops a transfer function below reads (``_visit`` and ``_binary``): any other op leaves
#: every interval as it is, so the forward pass does not visit it.
_NARROWING_OPS = frozenset({"constant", "get_tile_block_id", "get_num_tile_blocks", "assume", "iota", "reshape",
                            "broadcast", "permute", "for", "exti", "select", "addi", "subi", "muli", "mini", "maxi",
                            "divi", "remi"})


class Ranges:
    """Intervals of one function's integer values.

    ``use_assumes``: narrow by ``assume bounded<lb, ub>`` (the program asserts it, so relying on it
    is sound). implied-assumptions passes False so that it asks what the value's *definition*
    guarantees, not what some assumption already states.

    Computed on demand: asking for a value visits the ops it is computed from (its definition,
    their operands' definitions, ...) with an explicit stack, definitions before users, and
    each op at most once. A value's interval depends only on its definition and its operands'
    intervals, so this gives what one forward pass over the whole function gives, for the values
    a rule asks about (most rules ask about a few).
    """

    def __init__(self, f: Function, use_assumes: bool = True):
        self.use_assumes = use_assumes
        self.producer: Dict[int, Operation] = {}
        self._ranges: Dict[int, Interval] = {}
        self._definer: Dict[int, Operation] = {}  # vid -> the op whose visit sets it (results, a loop's iv)
        self._visited: Set[int] = set()           # id() of the ops visited
        producer = self.producer
        for op in preorder(f):
            for r in op.results:
                producer[r.vid] = op
            if op.name == "for" and op.regions and op.regions[0].blocks and op.regions[0].blocks[0].arguments:
                self._definer[op.regions[0].blocks[0].arguments[0].vid] = op
        self._definer.update(producer)

    def of(self, v: Value) -> Optional[Interval]:
        """``(lo, hi)`` for an integer value (full type range when nothing is known), else None."""
        full = int_bounds(v)
        if full is None:
            return None
        known = self._ranges.get(v.vid)
        if known is None:
            self._visit_definitions(v.vid)
            known = self._ranges.get(v.vid, full)
        return known

    def nonnegative(self, v: Value) -> bool:
        r = self.of(v)
        return r is not None and r[0] >= 0

    def _visit_definitions(self, vid: int) -> None:
        """Visit the op defining ``vid`` after the ops defining its operands, transitively (a
        depth-first walk in post-order with an explicit stack: chains of ops can be long)."""
        definer, visited = self._definer, self._visited
        first = definer.get(vid)
        if first is None or id(first) in visited:
            return
        stack = [(first, False)]
        open_ops: Set[int] = set()  # ops whose operands' definitions are being visited
        while stack:
            op, operands_done = stack.pop()
            if id(op) in visited:
                continue
            if operands_done:
                visited.add(id(op))
                open_ops.discard(id(op))
                if op.name in _NARROWING_OPS:  # what no transfer function reads keeps its type's range
                    self._visit(op)
                continue
            if id(op) in open_ops:
                continue  # it reads itself, through its operands: only in malformed IR
            open_ops.add(id(op))
            stack.append((op, True))
            for v in op.operands:
                d = definer.get(v.vid)
                if d is not None and id(d) not in visited and id(d) not in open_ops:
                    stack.append((d, False))

    def _known(self, v: Value) -> Optional[Interval]:
        """``of`` for a value whose definition was already visited (the transfer functions)."""
        full = int_bounds(v)
        if full is None:
            return None
        return self._ranges.get(v.vid, full)

    # --- transfer functions ------------------------------------------------------------------
    def _set(self, v: Value, lo: int, hi: int) -> None:
        full = int_bounds(v)
        if full is None or lo > hi:
            return
        if lo < full[0] or hi > full[1]:
            return  # may wrap: nothing known beyond the type's range
        self._ranges[v.vid] = (lo, hi)

    def _visit(self, op: Operation) -> None:
        name = op.name
        res = op.results
        if name == "constant" and len(res) == 1 and int_bounds(res[0]) is not None:
            value = op.attributes.get("value")
            if isinstance(value, DenseElements):
                one = _one_int(value)
                if one is not None:  # a splat, the common case: no numpy (importing it costs more)
                    self._set(res[0], one, one)
                    return
                elems = decode_elements(value.data, value.element)
                if len(elems):
                    self._set(res[0], int(elems.min()), int(elems.max()))
        elif name == "get_tile_block_id":
            for r in res:  # block ids count from 0
                b = int_bounds(r)
                if b:
                    self._set(r, 0, b[1])
        elif name == "get_num_tile_blocks":
            for r in res:  # a grid has at least one block along each axis
                b = int_bounds(r)
                if b:
                    self._set(r, 1, b[1])
        elif name == "assume" and res and op.operands:
            bounds = self._known(op.operands[0])
            if bounds is None:
                return
            lo, hi = bounds
            p = op.attributes.get("predicate")
            if self.use_assumes and isinstance(p, Bounded):
                lo = max(lo, p.lb) if p.lb is not None else lo
                hi = min(hi, p.ub) if p.ub is not None else hi
            self._set(res[0], lo, hi)
        elif name == "iota" and len(res) == 1 and int_bounds(res[0]) is not None:
            n = getattr(res[0].type, "num_elements", 0)
            if n >= 1:  # 0, 1, ..., n - 1 (an iota is 1-D)
                self._set(res[0], 0, n - 1)
        elif name in ("reshape", "broadcast", "permute") and len(res) == 1 and len(op.operands) == 1 \
                and int_bounds(res[0]) is not None:
            bounds = self._known(op.operands[0])  # every element is a copy of one of the operand's
            if bounds is not None:
                self._set(res[0], *bounds)
        elif name == "for":
            self._for(op)
        elif len(res) == 1 and len(op.operands) >= 2 and int_bounds(res[0]) is not None:
            self._binary(op)
        elif name == "exti" and res and op.operands and int_bounds(res[0]) is not None:
            bounds = self._known(op.operands[0])
            if bounds is not None and (enum_name(op.attributes.get("signedness")) == "signed" or bounds[0] >= 0):
                self._set(res[0], *bounds)  # zero-extension keeps a non-negative value too
            elif bounds is not None:
                width = getattr(getattr(op.operands[0].type, "element", None), "width", 0)
                if width:
                    self._set(res[0], 0, (1 << width) - 1)

    def _for(self, op: Operation) -> None:
        """The induction variable of a signed-compare loop runs over lb, lb+step, ... < ub."""
        if op.attributes.get("unsignedCmp") or len(op.operands) < 3 or not op.regions:
            return
        blocks = op.regions[0].blocks
        if not blocks or not blocks[0].arguments:
            return
        lb, ub, step = (self._known(v) for v in op.operands[:3])
        if lb is None or ub is None or step is None or step[0] < 1:
            return
        self._set(blocks[0].arguments[0], lb[0], max(lb[0], ub[1] - 1))

    def _binary(self, op: Operation) -> None:
        a, b = self._known(op.operands[0]), self._known(op.operands[1])
        out = op.results[0]
        name = op.name
        if name == "select":
            t, f = self._known(op.operands[1]), self._known(op.operands[2]) if len(op.operands) > 2 else None
            # a condition the intervals decide picks one operand: cuTile Python's floor-modulo fix-up
            # select(r != 0 & (r < 0 ^ b < 0), r + b, r) is then r's range, not the union with r + b,
            # whose bound may pass the type's (b a product of extents) and leave the result unknown
            decided = known_bool(self, op.operands[0]) if f is not None else None
            if decided is not None:
                chosen = t if decided else f
                if chosen is not None:
                    self._set(out, *chosen)
            elif t is not None and f is not None:
                self._set(out, min(t[0], f[0]), max(t[1], f[1]))
            return
        if a is None or b is None:
            return
        signed = enum_name(op.attributes.get("signedness")) == "signed"
        if name == "addi":
            self._set(out, a[0] + b[0], a[1] + b[1])
        elif name == "subi":
            self._set(out, a[0] - b[1], a[1] - b[0])
        elif name == "muli":
            products = [x * y for x in a for y in b]
            self._set(out, min(products), max(products))
        elif name == "mini" and signed:
            self._set(out, min(a[0], b[0]), min(a[1], b[1]))
        elif name == "maxi" and signed:
            self._set(out, max(a[0], b[0]), max(a[1], b[1]))
        elif name == "divi" and signed and a[0] >= 0 and b[0] >= 0:
            d_lo, d_hi = max(b[0], 1), max(b[1], 1)  # division by zero is undefined: not a case
            if enum_name(op.attributes.get("rounding")) == "positive_inf":
                self._set(out, _ceil_div(a[0], d_hi), _ceil_div(a[1], d_lo))
            else:  # zero and negative_inf agree on non-negative operands
                self._set(out, a[0] // d_hi, a[1] // d_lo)
        elif name == "remi" and signed and a[0] >= 0:
            # a truncating remainder takes the dividend's sign, whatever the divisor's
            self._set(out, 0, a[1])


def known_bool(ranges: Ranges, v: Value, depth: int = 0) -> Optional[bool]:
    """The value of an ``i1`` scalar/tile when value ranges decide it for every element, else None.
    Understands i1 constants, ``cmpi`` on integer intervals and ``andi``/``ori``/``xori`` of i1."""
    if depth > 32:
        return None
    op = ranges.producer.get(v.vid)
    if op is None:
        return None
    if op.name == "constant":
        value = op.attributes.get("value")
        if isinstance(value, DenseElements) and value.element.name == "i1":
            elems = decode_elements(value.data, value.element)
            if len(elems) and all(bool(x) == bool(elems[0]) for x in elems):
                return bool(elems[0])
        return None
    if op.name in ("andi", "ori", "xori") and len(op.operands) == 2:
        x, y = (known_bool(ranges, o, depth + 1) for o in op.operands)
        if op.name == "andi":
            return False if False in (x, y) else (True if x is True and y is True else None)
        if op.name == "ori":
            return True if True in (x, y) else (False if x is False and y is False else None)
        return None if x is None or y is None else x != y
    if op.name == "cmpi" and len(op.operands) == 2:
        a, b = ranges.of(op.operands[0]), ranges.of(op.operands[1])
        if a is None or b is None:
            return None
        if enum_name(op.attributes.get("signedness")) != "signed" and (a[0] < 0 or b[0] < 0):
            return None  # the unsigned reading of a possibly negative value is not this interval
        return _compare(str(enum_name(op.attributes.get("comparison_predicate"))), a, b)
    return None


def _compare(pred: str, a: Interval, b: Interval) -> Optional[bool]:
    if pred == "less_than":
        return True if a[1] < b[0] else (False if a[0] >= b[1] else None)
    if pred == "less_than_or_equal":
        return True if a[1] <= b[0] else (False if a[0] > b[1] else None)
    if pred == "greater_than":
        return _compare("less_than", b, a)
    if pred == "greater_than_or_equal":
        return _compare("less_than_or_equal", b, a)
    if pred in ("equal", "not_equal"):
        disjoint = a[1] < b[0] or b[1] < a[0]
        same_point = a[0] == a[1] == b[0] == b[1]
        eq = False if disjoint else (True if same_point else None)
        return eq if pred == "equal" or eq is None else not eq
    return None
