"""assume-chains: a chain of ``assume`` ops compared as the set of facts it states."""
from __future__ import annotations

from typing import Dict, List, Tuple

from ...ir import Bounded, DivBy, Function, Operation, Value
from ..rule import Rule, register
from ..util import drop_unused, has_trait, map_functions, max_vid, unused_cascade, use_counts_and
from ._scoped import scoped_rewrite

_ASSUME = frozenset({"assume"})


def _implies(p, q) -> bool:
    """Whether predicate ``p`` (a different predicate) already guarantees ``q``."""
    if isinstance(p, DivBy) and isinstance(q, DivBy):
        plain = p.every is None and p.along is None and q.every is None and q.along is None
        return plain and p.divisor % q.divisor == 0
    if isinstance(p, Bounded) and isinstance(q, Bounded):
        lb_ok = q.lb is None or (p.lb is not None and p.lb >= q.lb)
        ub_ok = q.ub is None or (p.ub is not None and p.ub <= q.ub)
        return lb_ok and ub_ok
    return False


def canonical_predicates(preds: List[object]) -> List[int]:
    """Indices into ``preds`` to keep (first occurrence of each fact not implied by another),
    in canonical order."""
    keep: List[int] = []
    for i, p in enumerate(preds):
        if any(preds[j] == p for j in range(i)):
            continue  # a repeat
        if any(_implies(q, p) and q != p for q in preds):  # (_implies first: cheaper than a record's !=)
            continue  # a weaker fact next to a stronger one
        keep.append(i)
    if len(keep) < 2:
        return keep  # (nothing to order: no repr to build)
    return sorted(keep, key=lambda i: (type(preds[i]).__name__, repr(preds[i])))


def _reduce(preds) -> Tuple[object, ...]:
    return tuple(preds[i] for i in canonical_predicates(list(preds)))


@register
class AssumeChains(Rule):
    """Absorbs: how ``assume`` ops on one value are chained, keeping for every assumed value the
    set of facts it carries. Each assume result is ``base`` (the first non-assume value down its
    chain) plus the facts of every assume on the way. Facts are reduced to a set: a repeated
    predicate is dropped (cuTile Python writes ``div_by<8>``, ``bounded<0, ?>``, ``div_by<8>`` on a
    stride; cuTile Rust ``bounded<0, ?>``, ``div_by<8>``), so is one implied by a stronger one in
    the same set (``div_by<8>`` next to ``div_by<16>``; ``bounded<0, ?>`` next to ``bounded<2, 9>``),
    and the rest is written as one chain in canonical order. Two assumed values with the same
    base and the same set become one value (scoped: only where the first dominates). Each
    rewritten assume keeps the op id of the op that first stated its fact.

    Why meaning is kept: ``assume`` returns its operand unchanged, so every assumed value equals
    its base; what the compiler may rely on at a use is the conjunction of the facts on the way,
    which does not depend on their order or repetition.

    Never touches: the set of facts a use sees: an intermediate value used elsewhere keeps its
    own (smaller) set, so ``div_by<8>`` then ``bounded<0, ?>`` with the first value also used by an
    ``addi`` stays different from ``bounded<0, ?>`` then ``div_by<8>``; predicates that differ in any
    parameter (``div_by<8>`` vs ``div_by<16>``, ``div_by<16, every 4 along 0>`` vs ``div_by<16>``);
    facts on different bases. A different set of facts stays a ``specialization`` difference.
    """
    name = "assume-chains"
    mutant = "div_by<8> in one file where the other states div_by<16> on the same stride stays different"
    acts_on = frozenset({"assume"})

    def apply(self, module):
        return map_functions(module, _canonical_chains)


def _canonical_chains(f: Function) -> Tuple[Function, int]:
    fresh: List[int] = []  # [the last value id used]; taken from the function on the first new value
    # assumed vid -> (base value, reduced fact set, predicate -> the op that first stated it)
    facts: Dict[int, Tuple[Value, Tuple[object, ...], Dict[object, Operation]]] = {}
    rewrites = 0
    top: List[int] = []  # the function's largest value id, once asked for

    def top_vid() -> int:
        if not top:
            top.append(max_vid(f))
        return top[0]

    def visit(new: Operation, table: Dict[tuple, Value], subst: Dict[int, Value]):
        nonlocal rewrites
        if new.name != "assume" or len(new.operands) != 1 or len(new.results) != 1:
            return None
        operand, result = new.operands[0], new.results[0]
        pred = new.attributes.get("predicate")
        chained = facts.get(operand.vid)
        if chained is None:  # the first fact on a value: one fact, already a canonical chain
            full = (pred,)
            facts[result.vid] = (operand, full, {pred: new})
            known = table.get((operand.vid, full))
            if known is not None:  # the same fact on the same value already stated here
                subst[result.vid] = known
                rewrites += 1
                return []
            table[(operand.vid, full)] = result
            return None
        base_value, below, who = chained
        who = dict(who)
        who.setdefault(pred, new)
        full = _reduce(below + (pred,))
        facts[result.vid] = (base_value, full, who)
        base = base_value.vid
        if (base, full) in table:  # the same facts on the same base already stated here
            subst[result.vid] = table[(base, full)]
            rewrites += 1
            return []
        if not fresh:
            fresh.append(top_vid())
        built = _build(base_value, full, who, new, table, fresh)
        if len(built) == 1 and built[0].operands[0].vid == operand.vid and \
                built[0].attributes.get("predicate") == pred:
            return None  # already canonical: keep the op itself
        rewrites += 1
        return built

    rewritten = scoped_rewrite(f, visit, only=_ASSUME)
    if rewritten is f:
        return f, rewrites
    before = live_use_counts(f)  # of the function as given (the walks only when it was rewritten)
    first_fresh = top_vid() + 1
    had_users = {vid for vid, n in before.items() if n > 0}
    out = _drop_orphaned(rewritten, had_users, first_fresh)
    return _drop_restated(out, facts), rewrites


def _drop_restated(f: Function, facts) -> Function:
    """Remove an unused assume whose facts a used assume on the same base already states (an
    unused assume tells no use anything; one that restates a used chain's facts is a spelling)."""
    uses = live_use_counts(f)
    used_sets: Dict[int, List[Tuple[object, ...]]] = {}
    for vid, (base, full, _) in facts.items():
        if uses.get(vid, 0) > 0:
            used_sets.setdefault(base.vid, []).append(full)

    def restated(op: Operation) -> bool:
        if op.name != "assume" or len(op.results) != 1 or uses.get(op.results[0].vid, 0) > 0:
            return False
        entry = facts.get(op.results[0].vid)
        if entry is None:
            return False
        base, full, _ = entry
        return any(all(p in s or any(_implies(q, p) for q in s) for p in full) for s in used_sets.get(base.vid, ()))
    return drop_unused(f, restated)


def live_use_counts(f: Function) -> Dict[int, int]:
    """Use counts that leave out uses by dead code (pure ops other than assumes, without regions,
    none of whose results is used, transitively): whether an assume has users must not depend on
    an unused op that dead-code removes later. A work list: removing a dead op can only leave its
    own operands' producers unused."""
    uses, candidates = use_counts_and(f, _dead_candidate)
    unused_cascade(candidates, uses)
    return uses


def _dead_candidate(op: Operation) -> bool:
    return op.name != "assume" and not op.regions and bool(op.results) and has_trait(op, "pure")


def _drop_orphaned(f: Function, had_users, first_fresh: int) -> Function:
    """Remove assumes whose only users were the assumes folded into a later set (their facts live
    on in it), with any dead op that uses one directly. An assume that had no (live) user in the
    input stays: it still states its facts."""
    dropped = set()

    def droppable(op: Operation) -> bool:
        if op.name == "assume" and len(op.results) == 1:
            if op.results[0].vid in had_users or op.results[0].vid >= first_fresh:
                dropped.add(op.results[0].vid)
                return True
            return False
        return _dead_candidate(op) and any(v.vid in had_users or v.vid >= first_fresh for v in op.operands)
    return drop_unused(f, droppable)


def _build(base_value: Value, full: Tuple[object, ...], who: Dict[object, Operation], current: Operation,
           table: Dict[tuple, Value], fresh: List[int]) -> List[Operation]:
    """Ops computing ``base`` with the facts ``full`` (canonical order), reusing prefixes in scope;
    the last op defines ``result`` and keeps the op id of the op it replaces (``current``); a new
    prefix op is tagged ``<op id of the op that stated its fact>~assume``."""
    base = base_value.vid
    result = current.results[0]
    ops: List[Operation] = []
    prev = base_value
    for k in range(1, len(full) + 1):
        key = (base, full[:k])
        if k < len(full) and key in table:
            prev = table[key]
            continue
        src = who[full[k - 1]]
        attrs = dict(current.attributes if k == len(full) else src.attributes)
        tag = current.origin if k == len(full) else src.origin
        if k == len(full):
            out = result
        else:
            fresh[0] += 1
            out = Value(fresh[0], result.type)
            tag = f"{tag}~assume" if tag else None
        attrs["predicate"] = full[k - 1]
        ops.append(Operation(src.name, (prev,), src.segments, (out,), attrs, (), src.location, tag))
        table[key] = out
        prev = out
    return ops
