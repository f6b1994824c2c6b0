"""What the proof step's refuted (or undecided) queries add to a function's roots: the model
(``detail.counterexample``), both cones as expressions, and the roots a refuted pair explains
(its cones; floor modulo by the divisor of a floor division) listed under it."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Tuple

from ..check import FunctionCheck
from ..graph import input_op_id
from ..report.result import Difference
from . import wording
from .pair_findings import MEMORY_OPS
from .expressions import counterexample_text, expression


def with_counterexamples(diffs: List[Difference], check: FunctionCheck, ltext, rtext) -> List[Difference]:
    """A root at a pair whose query was ``sat``, or at an op of that query's cones, carries the
    model (``detail.counterexample``). The root at the refuted pair itself says it in values:
    both sides' expressions and the model (``cdiv(L%arg16, 128) -> (R%arg2 + 128 - 1) / 128,
    which differ for L%arg16 = R%arg2 = 2147483584: left 16777216, right -16777215``); its
    category is ``arith`` when the two cones are computed by different ops (a ceil-division
    written by hand), else it stays what changed (a compare's predicate is an ``attribute``)."""
    left_of, right_of, at_pair = _proofs_by_op(check)
    refuted: List[Tuple[int, Any]] = []  # (index in the output, proof) of the roots at refuted pairs
    out: List[Difference] = []
    for d in diffs:
        cex = (left_of.get(d.left.op_id) if d.left else None) or (right_of.get(d.right.op_id) if d.right else None)
        p = _proof_at(d, at_pair)
        if p is None and cex is None and d.detail.get("kind") == "replaced" and d.left and d.right \
                and "reaches" not in d.detail:  # (a formula's root says its values already)
            d = _replacement_in_values(d, check, ltext, rtext)
        elif cex is not None or p is not None:
            d = _with_model(d, cex, p, check, ltext, rtext)
            if p is not None:
                refuted.append((len(out), p))
        out.append(d)
    return _fold_floor_modulo(_fold_into_refuted(out, refuted), check)


def _proofs_by_op(check: FunctionCheck) -> Tuple[Dict[str, Any], Dict[str, Any], Dict[Tuple[str, str], Any]]:
    """(left op id -> model, right op id -> model, (left, right) op ids -> proof) of the refuted
    queries (every op of their cones), and of the undecided ones whose cones are known."""
    left_of: Dict[str, Any] = {}
    right_of: Dict[str, Any] = {}
    at_pair: Dict[Tuple[str, str], Any] = {}
    for p in check.proofs:
        if p.outcome.status == "different":
            for nid in {p.left} | p.outcome.cone_left:
                left_of.setdefault(input_op_id(nid), p.outcome.counterexample)
            for nid in {p.right} | p.outcome.cone_right:
                right_of.setdefault(input_op_id(nid), p.outcome.counterexample)
            at_pair.setdefault((input_op_id(p.left), input_op_id(p.right)), p)
        elif p.outcome.status == "undecided" and (p.outcome.cone_left or p.outcome.cone_right):
            # no model, but the cones are known: the root says both expressions, and what its
            # cones hold is listed under it, the same whichever way z3's work budget falls
            at_pair.setdefault((input_op_id(p.left), input_op_id(p.right)), p)
    return left_of, right_of, at_pair


def _proof_at(d: Difference, at_pair: Dict[Tuple[str, str], Any]) -> Any:
    """The refuted (or undecided) query at ``d``'s pair, or, for a replacement at a user's
    operand, the slot's query whose cones hold both ops; None if there is none."""
    if not (d.left and d.right):
        return None
    p = at_pair.get((d.left.op_id, d.right.op_id))
    if p is None:
        left_id, right_id = d.left.op_id, d.right.op_id
        p = next((q for q in at_pair.values() if q.slot is not None
                  and left_id in {input_op_id(n) for n in q.outcome.cone_left}
                  and right_id in {input_op_id(n) for n in q.outcome.cone_right}), None)
    return p


def _with_model(d: Difference, cex, p, check: FunctionCheck, ltext, rtext) -> Difference:
    """``d`` with the model (``detail.counterexample``) and, at a query's pair, both cones in values."""
    detail = dict(d.detail)
    if cex is not None:
        detail["counterexample"] = dict(cex)
    category, message = d.category, d.message
    if p is not None:
        category, message = _in_values(d, p, check, ltext, rtext)
    return replace(d, category=category, message=message, detail=detail)


def _divisor_remainders(ix, nid: str, depth: int = 3) -> set:
    """Node ids of the divisors of the ``remi`` ops within ``depth`` producers of op ``nid``."""
    found, frontier = set(), [nid]
    for _ in range(depth):
        nxt = []
        for n in frontier:
            op = ix.ops.get(n)
            if op is None:
                continue
            for _k, v in enumerate(op.operands):
                src = ix.producer.get(v.vid)
                if src is None:
                    continue
                prod = ix.ops.get(src[0])
                if prod is not None and prod.name == "remi" and len(prod.operands) == 2:
                    d = ix.producer.get(prod.operands[1].vid)
                    if d is not None:
                        found.add(d[0])
                nxt.append(src[0])
        frontier = nxt
    return found


def _fold_floor_modulo(diffs: List[Difference], check: FunctionCheck) -> List[Difference]:
    """One cause, one root: floor division by a divisor ``g`` against truncation (a root at the
    ``divi`` pair) and, at another op, floor modulo by that same ``g`` (the left's sign fix-up
    ``select`` of a ``remi``) against a plain ``remi`` by its counterpart: both follow from one
    fact, that ``g`` may be negative; the second is listed under the first."""
    if "divi" not in {op.name for op in check.L.ops.values()}:
        return diffs  # no division on the left: no floor division to fold into (nothing to index)
    by_left = {input_op_id(nid): nid for nid in check.L.ops}
    by_right = {input_op_id(nid): nid for nid in check.R.ops}
    divisions = _floor_divisions(diffs, check, by_left, by_right)
    if not divisions:
        return diffs
    owner = _floor_modulo_owners(diffs, divisions, check, by_left, by_right)
    out = []
    for k, d in enumerate(diffs):
        if k in owner:
            continue
        mine = [diffs[j] for j, at in owner.items() if at == k]
        out.append(_with_floor_modulo(d, mine) if mine else d)
    return out


def _floor_divisions(diffs: List[Difference], check: FunctionCheck, by_left, by_right) -> List[Tuple[int, str, str]]:
    """(index, left divisor, right divisor) of each root at a ``divi`` pair that floors on the
    left and truncates on the right, its divisor paired."""
    L, R, l2r = check.L, check.R, check.l2r
    divisions = []
    for k, d in enumerate(diffs):
        ln = by_left.get(d.left.op_id) if d.left else None
        rn = by_right.get(d.right.op_id) if d.right else None
        a, b = (L.ops.get(ln), R.ops.get(rn)) if ln and rn else (None, None)
        if a is not None and b is not None and a.name == b.name == "divi" and len(a.operands) == 2 and \
                _rounding(a) == "negative_inf" and _rounding(b) == "zero":
            g = L.producer.get(a.operands[1].vid)
            if g is not None and l2r.get(g[0]) is not None:
                divisions.append((k, g[0], l2r[g[0]]))
    return divisions


def _floor_modulo_owners(diffs: List[Difference], divisions, check: FunctionCheck, by_left,
                         by_right) -> Dict[int, int]:
    """Index of a root -> index of the floor division it follows from (a remainder by the same
    divisor within a few producers on both sides)."""
    owner: Dict[int, int] = {}
    for k, d in enumerate(diffs):
        if d.category in ("specialization", "signature", "hints") or not (d.left and d.right) or \
                any(k == at for at, _, _ in divisions):
            continue
        ln, rn = by_left.get(d.left.op_id), by_right.get(d.right.op_id)
        if ln is None or rn is None:
            continue
        gl, gr = _divisor_remainders(check.L, ln), _divisor_remainders(check.R, rn)
        for at, g_left, g_right in divisions:
            if g_left in gl and g_right in gr:
                owner[k] = at
                break
    return owner


def _with_floor_modulo(d: Difference, mine: List[Difference]) -> Difference:
    """The floor division's root ``d`` with the floor modulo roots ``mine`` listed under it. (Each
    root at a ``divi`` pair is folded into once: the classifier's words for it name the op, so
    the floor-division clause is never there yet.)"""
    left_ids = [m.left.op_id for m in mine if m.left]  # (every one of them has both sides)
    right_ids = [m.right.op_id for m in mine if m.right]
    return replace(d, category="arith", message=wording.floor_modulo_follows(wording.floor_division(d.message), left_ids),
                   affected=tuple(sorted(set(d.affected) | set(left_ids) | {a for m in mine for a in m.affected})),
                   affected_right=tuple(sorted(set(d.affected_right) | set(right_ids) |
                                               {a for m in mine for a in m.affected_right})))


def _rounding(op) -> str:
    r = op.attributes.get("rounding")
    return getattr(r, "name", r) or "zero"


def _fold_into_refuted(diffs: List[Difference], refuted) -> List[Difference]:
    """One cause, one root: a root whose ops all lie in the cones of a refuted (or undecided)
    pair (the hand ceil-division's ``addi``/``subi`` feeding the ``divi`` whose rounding
    differs) is that pair's difference, listed under it (``affected``), not a root of its own;
    the pair's root shows both cones as expressions. Assumptions and
    the calling convention stay roots of their own."""
    if not refuted:
        return diffs
    folded: Dict[int, Tuple[set, set]] = {}
    owner_of: Dict[int, int] = {}
    for k, d in enumerate(diffs):
        if any(k == at for at, _ in refuted) or d.category in ("specialization", "signature", "hints"):
            continue
        for at, p in refuted:
            inside_l = {input_op_id(n) for n in {p.left} | p.outcome.cone_left}
            inside_r = {input_op_id(n) for n in {p.right} | p.outcome.cone_right}
            if (d.left or d.right) and (d.left is None or d.left.op_id in inside_l) and \
                    (d.right is None or d.right.op_id in inside_r):
                owner_of[k] = at
                fl, fr = folded.setdefault(at, (set(), set()))
                fl.update(([d.left.op_id] if d.left else []) + list(d.affected))
                fr.update(([d.right.op_id] if d.right else []) + list(d.affected_right))
                break
    out = []
    for k, d in enumerate(diffs):
        if k in owner_of:
            continue
        if k in folded:
            fl, fr = folded[k]
            d = replace(d, affected=tuple(sorted(set(d.affected) | fl)),
                        affected_right=tuple(sorted(set(d.affected_right) | fr)))
        out.append(d)
    return out


def _replacement_in_values(d: Difference, check: FunctionCheck, ltext, rtext) -> Difference:
    """A replacement (a left and a right component feeding one slot) with both values as
    expressions: ``addf lhs: exp (f0/o29) -> exp2 (f0/o61): exp(-L%reshape) -> exp2(...)``."""
    L, R = check.L, check.R
    assert d.left is not None and d.right is not None  # a replacement has both sides
    left_id, right_id = d.left.op_id, d.right.op_id
    ln = next((n for n in L.ops if input_op_id(n) == left_id), None)
    rn = next((n for n in R.ops if input_op_id(n) == right_id), None)
    a, b = (L.ops.get(ln), R.ops.get(rn)) if ln is not None and rn is not None else (None, None)
    if a is None or b is None or len(a.results) != 1 or len(b.results) != 1:
        return d
    le = expression(L, a.results[0].vid, "L", lambda vid: ltext.names.get(vid, "%?"))
    re_ = expression(R, b.results[0].vid, "R", lambda vid: rtext.names.get(vid, "%?"))
    return replace(d, message=f"{d.message}: {le} -> {re_}")


def _in_values(d: Difference, p, check: FunctionCheck, ltext, rtext):
    """(category, message) of a root at a refuted (or undecided) pair: both cones as
    expressions (in the message only: ``detail`` names no value)."""
    L, R = check.L, check.R
    a, b = L.ops.get(p.left), R.ops.get(p.right)
    if a is None or b is None:
        return d.category, d.message
    if p.slot is None and a.name == b.name == "constant":
        return d.category, d.message  # the message says both values already (the model is in detail)
    if p.slot is None:
        x, y = a.results[0], b.results[0]
    else:
        x, y = a.operands[p.slot], b.operands[p.slot]
    lname = lambda vid: ltext.names.get(vid, "%?")  # noqa: E731
    rname = lambda vid: rtext.names.get(vid, "%?")  # noqa: E731
    le, re_ = expression(L, x.vid, "L", lname), expression(R, y.vid, "R", rname)
    right_of = {L.arg_index[l]: R.arg_index[r] for l, r in check.l2r.items() if l in L.arg_index and r in R.arg_index}
    if p.outcome.status == "different":
        why = "which differ for " + counterexample_text(p.outcome.counterexample, right_of.get)
    else:
        why = "not decided within the proof's work budget"
    restructured = any(n not in check.l2r for n in p.outcome.cone_left) or \
        any(n not in check.r2l for n in p.outcome.cone_right)
    # a changed constant stays a constant difference; a rounding or a view-slot replacement
    # whose cones are computed by other ops is an arithmetic one
    at_memory_op = (d.detail.get("slot") or {}).get("user") in MEMORY_OPS or \
        (d.detail.get("right_op") in MEMORY_OPS and d.detail.get("left_op") in MEMORY_OPS)
    category = "arith" if restructured and (d.category == "attribute" or (d.category == "memory" and not at_memory_op)) \
        else d.category
    return category, f"{d.message}: {le} -> {re_}, {why}"
