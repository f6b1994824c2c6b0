"""disjoint-loop-stores: a store order carried through a loop, dropped where the stores of
distinct iterations write distinct tiles of one view (a stated precondition, not an equivalence)."""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from ...ir import Block, Function, Operation, Region, Value
from ...ir.types import TokenType
from ..rule import Rule, register
from ..util import enum_name, group_span, has_trait, map_functions, ops_of, rewrite_function, use_counts, with_fields
from ._constants import uniform_bits

#: The private attribute a store gets when this rule drops its loop-carried order. Private keys
#: are invisible to the structural keys and the classifier's attribute comparison, but the
#: trusted checker compares attributes bit for bit: a store marked on one side only is a
#: violation that a root must cover (compare/loop_orders.py reports it as a specialization).
MARK = "_unordered_across_iterations"
MARK_VALUE = "disjoint-loop-stores"

#: Ops that map distinct values to distinct values when their other operand does not change
#: within one run of the loop (x + c, x - c, c - x, x ^ c: bijections modulo 2^w).
_SHIFTING = frozenset({"addi", "subi", "xori"})
#: Ops of one operand that keep distinct values distinct (a narrowing trunci does not).
_INJECTIVE_UNARY = frozenset({"assume", "negi", "exti"})


class _Loop:
    """What the rule needs to know about one ``for`` op: its body's values and their producers."""

    def __init__(self, op: Operation, outer: Dict[int, Operation]):
        self.op = op
        self.outer = outer  # the function's producers (constants defined before the loop)
        self.body: Block = op.regions[0].blocks[0]
        self.iv = self.body.arguments[0]
        self.inner: Set[int] = {a.vid for a in self.body.arguments}
        self.producer: Dict[int, Operation] = {}
        for inner in ops_of(self.body):
            for r in inner.results:
                self.inner.add(r.vid)
                self.producer[r.vid] = inner

    def invariant(self, v: Value, depth: int = 0) -> bool:
        """``v`` keeps one value during one run of the loop: defined outside its body, or a pure
        op of the body (no regions) on such values."""
        if v.vid not in self.inner:
            return True
        p = self.producer.get(v.vid)
        if p is None or depth > 32 or p.regions or not has_trait(p, "pure"):
            return False
        return all(self.invariant(x, depth + 1) for x in p.operands)

    def injective(self, v: Value, depth: int = 0) -> bool:
        """Distinct iterations give ``v`` distinct values: ``v`` is the induction variable taken
        through bijections of Z/2^w (adding, subtracting or xoring a loop-invariant value,
        negating, multiplying by an odd constant) and widening ``exti``."""
        if v.vid == self.iv.vid:
            return True
        p = self.producer.get(v.vid)
        if p is None or depth > 32 or len(p.results) != 1:
            return False
        if p.name in _INJECTIVE_UNARY and len(p.operands) == 1:
            return self.injective(p.operands[0], depth + 1)
        if len(p.operands) != 2:
            return False
        a, b = p.operands
        if p.name in _SHIFTING:
            return (self.injective(a, depth + 1) and self.invariant(b)) or \
                (self.injective(b, depth + 1) and self.invariant(a))
        if p.name == "muli":
            return (self.injective(a, depth + 1) and _odd(self.producer_of(b))) or \
                (self.injective(b, depth + 1) and _odd(self.producer_of(a)))
        return False

    def producer_of(self, v: Value) -> Optional[Operation]:
        return self.producer.get(v.vid) or self.outer.get(v.vid)


def _odd(op: Optional[Operation]) -> bool:
    bits = uniform_bits(op)
    return bits is not None and bits & 1 == 1


def _is_token(v: Value) -> bool:
    return isinstance(v.type, TokenType)


def droppable_positions(loop: Operation, uses, producers: Dict[int, Operation], version) -> List[int]:
    """The ``initValues`` positions of ``loop`` whose token orders only the stores of one
    ``store_view_tko`` across iterations, to tiles that differ in every iteration."""
    if loop.name != "for" or len(loop.regions) != 1 or len(loop.regions[0].blocks) != 1:
        return []
    init = group_span(loop, "initValues", version)
    step = group_span(loop, "step", version)
    if init is None or step is None or uniform_bits(producers.get(loop.operands[step[0]].vid)) != 1:
        return []  # a step other than the constant 1: iterations might repeat an index
    info = _Loop(loop, producers)
    ops = info.body.operations
    if not ops or ops[-1].name != "continue" or len(ops[-1].operands) != init[1] or _exits_early(ops[:-1]):
        return []  # an early continue (in an if) could carry another token into the next iteration
    out = []
    for p in range(init[1]):
        carried = info.body.arguments[1 + p]
        if not _is_token(carried) or uses[loop.results[p].vid] or uses[carried.vid] != 1:
            continue
        store = next((op for op in ops if any(v.vid == carried.vid for v in op.operands)), None)
        if store is None or not _orders_only(store, carried, ops[-1].operands[p], uses, version):
            continue
        view = group_span(store, "view", version)
        index = group_span(store, "index", version)
        if view is None or index is None or not info.invariant(store.operands[view[0]]):
            continue
        if any(info.injective(v) for v in store.operands[index[0]:index[0] + index[1]]):
            out.append(p)
    return out


def _exits_early(ops) -> bool:
    """Whether an op of the loop body (nested ifs included, nested loops not: their own
    terminators) ends an iteration or the loop before the body's last op."""
    for op in ops:
        if op.name in ("continue", "break", "return"):
            return True
        if op.regions and op.name not in ("for", "loop") and \
                any(_exits_early(b.operations) for r in op.regions for b in r.blocks):
            return True
    return False


def _orders_only(store: Operation, carried: Value, yielded: Value, uses, version) -> bool:
    """``store`` is a weak ``store_view_tko`` whose token operand is the carried token and whose
    result token is used only as the value carried into the next iteration."""
    if store.name != "store_view_tko" or enum_name(store.attributes.get("memory_ordering_semantics")) \
            not in (None, "weak"):
        return False
    token = group_span(store, "token", version)
    if token is None or token[1] != 1 or store.operands[token[0]].vid != carried.vid:
        return False
    return len(store.results) == 1 and store.results[0].vid == yielded.vid and uses[yielded.vid] == 1


def _without_positions(loop: Operation, drop: List[int], version) -> Operation:
    """``loop`` without the carried values at ``drop``; the store that took such a token takes
    the initial token instead and is marked."""
    init = group_span(loop, "initValues", version)
    assert init is not None
    start = init[0]
    body = loop.regions[0].blocks[0]
    gone = set(drop)
    replacement = {body.arguments[1 + p].vid: loop.operands[start + p] for p in drop}
    new_ops = []
    for op in body.operations[:-1]:
        if any(v.vid in replacement for v in op.operands):
            op = with_fields(op, operands=tuple(replacement.get(v.vid, v) for v in op.operands),
                             attributes={**op.attributes, MARK: MARK_VALUE})
        new_ops.append(op)
    last = body.operations[-1]
    kept = tuple(v for i, v in enumerate(last.operands) if i not in gone)
    new_ops.append(with_fields(last, operands=kept, segments=(len(kept),) if last.segments else ()))
    args = (body.arguments[0],) + tuple(a for i, a in enumerate(body.arguments[1:]) if i not in gone)
    operands = loop.operands[:start] + tuple(v for i, v in enumerate(loop.operands[start:]) if i not in gone)
    segments = loop.segments[:-1] + (loop.segments[-1] - len(gone),)
    return loop.replace(operands=operands, segments=segments,
                        results=tuple(r for i, r in enumerate(loop.results) if i not in gone),
                        regions=(Region((Block(args, tuple(new_ops)),)),))


@register
class DisjointLoopStores(Rule):
    """Absorbs: a token carried through a ``for`` loop only to order one store across
    iterations (cuTile Python threads the store's token through ``iter_values`` and
    ``continue``: the store to dx in iteration k waits for the one in iteration k-1) against
    stores that take a token from before the loop (cuTile Rust's stores through a
    ``PartitionMut``). The loop's token value, its block argument, its result and the yielded
    token are dropped; the store takes the loop's initial token; and the store is marked, so that
    the engine reports the dropped order as a ``specialization`` root when only one side had
    it (compare/loop_orders.py: the side without the order assumes more).

    Why meaning is kept, under a precondition: the carried token is read by that one store
    alone, its result only carries it into the next iteration, the loop's token result is
    unused, the store is ``weak``, its view is the same in every iteration, the step is the
    constant 1 (so iterations have distinct induction values), and one tile index is the
    induction variable through bijections of Z/2^w (``+``, ``-``, ``^`` a loop-invariant value,
    ``negi``, ``*`` an odd constant, ``exti``, ``assume``): every iteration writes another
    tile, so the order orders nothing but writes to distinct tiles, and no read, store or later
    op waits on it. Distinct tiles of one view are distinct memory only when the view's strides
    do not make them overlap (a stride of 0, or interleaved strides): that is the precondition,
    stated in the root, not proven here (the cuTile Rust C ABI rejects outputs whose strides
    make elements overlap: rust_kernels/src/descriptor.rs, ``overlaps_itself``). Every store
    stays ordered after the loop's initial token, as the chain ordered it.

    Never touches: a carried token that another op reads (a load of dx ordered by it, a second
    store, a ``join_tokens``), a token that also feeds an op after the loop, a store whose tile
    index does not change every iteration (the same tile every iteration, ``iv // 2``, ``2 *
    iv``), a store through a view made inside the loop from values the loop changes, stores
    with another memory ordering, a step that is not the constant 1, a body that ends an iteration
    early (a ``continue`` inside an ``if`` may carry another token), ``loop`` (while) loops.
    """
    name = "disjoint-loop-stores"
    mutant = ("a loop-carried store order where the tile index does not depend on the loop's induction "
              "variable, is iv // 2, a load of the array is ordered by the token, or the token feeds an op "
              "after the loop")
    acts_on = frozenset({"for"})

    def apply(self, module):
        version = module.version

        def per_function(f: Function):
            if not any(_is_token(v) for op in ops_of(f.body) if op.name == "for" for v in op.results):
                return f, 0
            uses = use_counts(f)
            producers = {r.vid: op for op in ops_of(f.body) for r in op.results}
            count = 0

            def fn(op, subst):
                nonlocal count
                if op.name != "for":
                    return None
                drop = droppable_positions(op, uses, producers, version)
                if not drop:
                    return None
                count += len(drop)
                return [_without_positions(op, drop, version)]

            nf = rewrite_function(f, fn)
            return nf, count

        return map_functions(module, per_function)
