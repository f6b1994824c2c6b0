"""assume-chains: a chain of ``assume`` ops compared as the set of facts it states."""
from __future__ import annotations

from typing import Dict, List, Tuple

from ...ir import Bounded, DivBy, Function, Operation, Value
from ..rule import Rule, register
from ..util import drop_unused, map_functions, max_vid, use_counts
from ._scoped import scoped_rewrite


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
        if any(q != p and _implies(q, p) for q in preds):
            continue  # a weaker fact next to a stronger one
        keep.append(i)
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
    fresh = [max_vid(f)]
    # assumed vid -> (base value, reduced fact set, predicate -> the op that first stated it)
    facts: Dict[int, Tuple[Value, Tuple[object, ...], Dict[object, Operation]]] = {}
    rewrites = 0

    def visit(new: Operation, table: Dict[tuple, Value], subst: Dict[int, Value]):
        nonlocal rewrites
        if new.name != "assume" or len(new.operands) != 1 or len(new.results) != 1:
            return None
        operand, result = new.operands[0], new.results[0]
        pred = new.attributes.get("predicate")
        base_value, below, who = facts.get(operand.vid, (operand, (), {}))
        who = dict(who)
        who.setdefault(pred, new)
        full = _reduce(below + (pred,))
        facts[result.vid] = (base_value, full, who)
        base = base_value.vid
        if (base, full) in table:  # the same facts on the same base already stated here
            subst[result.vid] = table[(base, full)]
            rewrites += 1
            return []
        built = _build(base_value, full, who, new, table, fresh)
        if len(built) == 1 and built[0].operands[0].vid == operand.vid and \
                built[0].attributes.get("predicate") == pred:
            return None  # already canonical: keep the op itself
        rewrites += 1
        return built

    before = use_counts(f)
    first_fresh = fresh[0] + 1
    rewritten = scoped_rewrite(f, visit)
    if rewritten is f:
        return f, rewrites
    had_users = {vid for vid, n in before.items() if n > 0}
    return _drop_orphaned(rewritten, had_users, first_fresh), rewrites


def _drop_orphaned(f: Function, had_users, first_fresh: int) -> Function:
    """Remove assumes whose only users were the assumes folded into a later set (their facts live
    on in it). An assume that had no user in the input stays: it still states its facts."""
    return drop_unused(f, lambda op: op.name == "assume" and len(op.results) == 1
                       and (op.results[0].vid in had_users or op.results[0].vid >= first_fresh))


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
