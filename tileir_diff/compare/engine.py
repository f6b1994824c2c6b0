"""The diff engine: normalize both modules, build graphs, match, classify, decide the verdict.

Verdicts: ``identical`` (equal after renaming only: the run with no optional rule has no
difference), ``equivalent`` (equal after the enabled rules; ``rules_applied`` says which ran and
how many rewrites each made on both sides), ``different`` (root differences listed), ``unknown``
(a limit was hit; ``reason`` names it). The normalized run goes first; the renaming-only run is
needed only to tell identical from equivalent when some rule rewrote something.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..gc_pause import gc_paused
from ..check import FunctionCheck, ProofOptions, check_module_level, covered
from ..check import smt
from ..graph import FunctionGraph, input_op_id
from ..ir import Module
from ..match import LimitExceeded, Limits, match_functions
from ..match.arguments import align_with_ties
from ..normalize import normalize, one_sided_declines, select_rules, tag_origins
from ..normalize.util import count_ops
from ..normalize.canon import attr_key, attr_text
from ..normalize.keys import clear_caches as clear_key_caches
from .classify import (MEMORY_OPS, Classifier, checker_roots, pin_roots, tie_arguments, tie_roots,
                       to_differences)
from .describe import FunctionText
from .folds import FoldContext, apply_folds
from .expressions import counterexample_text, expression
from .pins import Pin, apply_pins, find_pins
from ..report.result import DeferredLines, DiffResult, Difference, FunctionPair, MatchStats, OpRef, PairSummary
from .specialization import never_holding_assumptions, strip_assumptions
from .verdict import RunFacts, VerdictInputs, decide, follow_up


class _Run:
    """One pass of the pipeline under one rule set."""

    def __init__(self, differences, functions, mapping, stats, counts, limits_hit, pins=(), proofs=None):
        self.proofs: List[dict] = proofs or []
        self.differences: List[Difference] = differences
        self.functions: List[dict] = functions
        self.mapping: List[Tuple[str, str, str]] = mapping
        self.stats: dict = stats
        self.counts: Dict[str, int] = counts
        self.limits_hit: List[str] = limits_hit
        self.pins: List[Pin] = list(pins)  # found on this run (pinned=None) or applied (pinned given)
        # side -> op id -> the rule under which the op left the normalized module
        self.absorbed: Dict[str, Dict[str, str]] = {"left": {}, "right": {}}


def pair_functions(left: Module, right: Module) -> Tuple[List[Tuple[int, int]], List[int], List[int]]:
    """Entries paired by name when the names agree, else by position (frontends mangle names
    differently). Returns (pairs, left-only indices, right-only indices)."""
    ln = [f.name for f in left.functions]
    rn = [f.name for f in right.functions]
    pairs, used_r = [], set()
    for i, n in enumerate(ln):
        if n in rn and rn.index(n) not in used_r:
            pairs.append((i, rn.index(n)))
            used_r.add(rn.index(n))
    rest_l = [i for i in range(len(ln)) if i not in {p[0] for p in pairs}]
    rest_r = [j for j in range(len(rn)) if j not in used_r]
    for i, j in zip(rest_l, rest_r):
        pairs.append((i, j))
    pairs.sort()
    return pairs, rest_l[len(rest_r):], rest_r[len(rest_l):]


def _run(left: Module, right: Module, ltexts, rtexts, rules: Optional[Sequence[str]], disable: Iterable[str],
         limits: Limits, deadline: float, pinned: Optional[List[Pin]] = None,
         facts_from: Optional[Tuple[Module, Module]] = None, launch: Sequence = ()) -> _Run:
    """One pass. ``pinned``: the pins already applied to ``left``/``right`` (reported as roots);
    None: look for pins (returned in ``_Run.pins``, for the caller to apply and run again).
    ``facts_from``/``launch``: the proof step's facts (check 8)."""
    t0 = time.perf_counter()
    # a rule whose precondition fails on one function of a pair is applied to neither
    keep_l, keep_r = one_sided_declines(left, right, pair_functions(left, right)[0], rules, disable)
    absorbed_l: Dict[str, str] = {}
    absorbed_r: Dict[str, str] = {}
    nl, cl = normalize(left, rules, disable, keep=keep_l, absorbed=absorbed_l)
    nr, cr = normalize(right, rules, disable, keep=keep_r, absorbed=absorbed_r)
    counts = {k: cl.get(k, 0) + cr.get(k, 0) for k in dict.fromkeys(list(cl) + list(cr))}
    t_norm = time.perf_counter() - t0
    pairs, only_l, only_r = pair_functions(nl, nr)
    diffs: List[Difference] = []
    functions, mapping, limits_hit = [], [], []
    found_pins: List[Pin] = []
    stats = {"normalize_s": round(t_norm, 4), "functions": []}
    proving = "smt-equivalence" in (rules or ())
    proofs: List[dict] = []
    if proving and not smt.installed():
        stats["smt"] = smt.skipped_reason()
    for i, j in pairs:
        lf, rf = nl.functions[i], nr.functions[j]
        fname = lf.name if lf.name == rf.name else f"{lf.name}/{rf.name}"
        t1 = time.perf_counter()
        L, R = FunctionGraph(lf, i), FunctionGraph(rf, j)
        # one scalar on one side for several arguments of the other: a stated assumption (a
        # specialization root below); the tied arguments are read as the one they must equal
        ties = align_with_ties(L, R)[1]
        if ties:
            lf, rf = tie_arguments(lf, L, ties, "left"), tie_arguments(rf, R, ties, "right")
            L, R = FunctionGraph(lf, i), FunctionGraph(rf, j)
        t_graph = time.perf_counter() - t1
        ctx = match_functions(L, R, limits, deadline)
        limits_hit.extend(ctx.limits_hit)
        if pinned is None:
            found_pins.extend(find_pins(L, R, ctx.mapping, i))
        cls = Classifier(L, R, ctx.mapping, ltexts[i], rtexts[j], nl.version, nr.version,
                         commutative="commutative-operands" in (rules or ()), unpaired=(ctx.lfree, ctx.rfree))
        cls.pinned = {(p.side, p.argument) for p in pinned or () if p.function == i}
        roots = apply_folds("final", FoldContext(cls), cls.run() + tie_roots(cls, ties) +
                            pin_roots(cls, [p for p in pinned or () if p.function == i]))
        # The trusted checker decides: every violation of the mapping must be a reported root
        # (or, for cascades, listed under one); what is not becomes a root of its own.
        fl, fr = (facts_from[0].functions[i], facts_from[1].functions[j]) if facts_from else \
            (left.functions[i], right.functions[j])
        proof = ProofOptions(limits.smt_timeout_s, (fl, fr), tuple(launch)) if proving else None
        check = FunctionCheck(lf, i, rf, j, ctx.mapping.l2r, left.functions[i], right.functions[j], proof)
        violations = check.run()
        if check.proofs:
            roots = _absorb_proven(roots, check, cls)
            proofs.extend(_proof_record(p, fname) for p in check.proofs)
            n = len({(p.left, p.right) for p in check.proofs if p.left in check.discharged_left})
            if n:
                counts["smt-equivalence"] = counts.get("smt-equivalence", 0) + n
        open_violations = covered(violations, *_root_sets(roots))
        if any(r.category == "signature" for r in roots):
            # arguments shifted by an inserted or removed one: the signature root names the cause
            open_violations = [v for v in open_violations if v.kind != "signature"]
        unverifiable = [v for v in open_violations if v.kind == "unverifiable"]
        if unverifiable:
            limits_hit.append(f"checker could not verify @{fname}: {unverifiable[0].message}")
        roots.extend(checker_roots(cls, [v for v in open_violations if v.kind != "unverifiable"], roots))
        roots = apply_folds("checked", FoldContext(cls), roots)
        fdiffs = _with_counterexamples(to_differences(cls, roots, fname), check, ltexts[i], rtexts[j])
        fdiffs.extend(_function_level(lf, rf, i, j, fname))
        diffs.extend(fdiffs)
        ul = len(L.order) - len(ctx.mapping.l2r)  # every pair holds one node of each side
        ur = len(R.order) - len(ctx.mapping.r2l)
        lnodes, rnodes = L.nodes, R.nodes
        arguments = sorted([lnodes[l].arg_index, rnodes[r].arg_index] for l, r in ctx.mapping.l2r.items()
                           if lnodes[l].kind == "arg" and rnodes[r].kind == "arg"
                           and (lnodes[l].users or rnodes[r].users))  # two unused ones pair by position
        functions.append({"left": lf.name, "right": rf.name, "verdict": "different" if fdiffs else "same",
                          "matched": len(ctx.mapping), "unmatched_left": ul, "unmatched_right": ur,
                          "arguments": arguments,
                          "tied_arguments": [_tie_json(t, lnodes if t.side == "left" else rnodes) for t in ties]})
        lnodes, rnodes, stage = L.nodes, R.nodes, ctx.mapping.stage
        for l, r in ctx.mapping.l2r.items():
            if lnodes[l].kind == "op" and rnodes[r].kind == "op":
                mapping.append((input_op_id(l), input_op_id(r), stage[l]))
        stats["functions"].append({"left": lf.name, "right": rf.name, "nodes_left": len(L), "nodes_right": len(R),
                                   "graph_s": round(t_graph, 4), **ctx.stats})
    for v in check_module_level(nl, nr, pairs):
        if v.left is None and v.right is None:  # module globals
            diffs.append(Difference("structure", v.message, None, None, nl.functions[0].name if nl.functions else ""))
            continue
        if v.left is None or v.right is None or any(d.left and d.left.op_id == v.left for d in diffs):
            continue  # entries on one side only are reported below; entry hints above
        i, j = int(v.left[1:]), int(v.right[1:])
        fname = nl.functions[i].name
        diffs.append(Difference("structure", v.message, OpRef(f"f{i}", f"entry @{fname}", None),
                                OpRef(f"f{j}", f"entry @{nr.functions[j].name}", None), fname))
    for i in only_l:
        diffs.append(Difference("structure", f"entry @{nl.functions[i].name} only on the left",
                                OpRef(f"f{i}", f"entry @{nl.functions[i].name}", None), None, nl.functions[i].name))
    for j in only_r:
        diffs.append(Difference("structure", f"entry @{nr.functions[j].name} only on the right",
                                None, OpRef(f"f{j}", f"entry @{nr.functions[j].name}", None), nr.functions[j].name))
    if proofs:
        stats["smt_queries"] = len(proofs)
        stats["smt_s"] = round(sum(p["seconds"] for p in proofs), 4)
    run = _Run(diffs, functions, mapping, stats, counts, limits_hit, found_pins if pinned is None else pinned,
               proofs)
    run.absorbed = {"left": absorbed_l, "right": absorbed_r}
    return run


def _absorb_proven(roots, check: FunctionCheck, cls=None):
    """The classifier's roots less those at ops the checker's proofs discharged (check 8), and
    less one-sided roots whose ops only feed discharged ops (a tile-count view the proof read:
    the checker re-adds any of their violations it still sees uncovered)."""
    dl, dr = check.discharged_left, check.discharged_right
    out = [r for r in roots
           if not ((r.left or r.right) and all((a is None or a in dl) and (b is None or b in dr)
                                               for a, b in {(r.left, r.right)} | r.also))]
    if cls is None or not (dl or dr):
        return out
    kept = []
    for r in out:
        if r.kind in ("only_left", "only_right") and not r.also and (r.left is None) != (r.right is None) \
                and r.category not in ("specialization", "signature", "hints"):
            side_l = r.left is not None
            g, done = (cls.L, dl) if side_l else (cls.R, dr)
            nodes = {r.left if side_l else r.right} | (r.affected_left if side_l else r.affected_right)
            if all(g.nodes[n].kind == "op" and g.nodes[n].users and
                   all(u in nodes or u in done for u, _, _ in g.nodes[n].users) for n in nodes):
                continue
        kept.append(r)
    return kept


def _proof_record(p, fname: str) -> dict:
    o = p.outcome
    rec = {"function": fname, "left": input_op_id(p.left), "right": input_op_id(p.right),
           "of": "results" if p.slot is None else f"operand {p.slot}", "status": o.status,
           "seconds": round(o.seconds, 4)}
    if o.status == "equal":
        rec["rule"] = "smt-equivalence"
        rec["assumptions"] = list(o.facts)
    if o.counterexample:
        rec["counterexample"] = dict(o.counterexample)
    if o.note:
        rec["note"] = o.note
    return rec


def _with_counterexamples(diffs: List[Difference], check: FunctionCheck, ltext, rtext) -> List[Difference]:
    """A root at a pair whose query was ``sat``, or at an op of that query's cones, carries the
    model (``detail.counterexample``). The root at the refuted pair itself says it in values:
    both sides' expressions and the model (``cdiv(L%arg16, 128) -> (R%arg2 + 128 - 1) / 128,
    which differ for L%arg16 = R%arg2 = 2147483584: left 16777216, right -16777215``); its
    category is ``arith`` when the two cones are computed by different ops (a ceil-division
    written by hand), else it stays what changed (a compare's predicate is an ``attribute``)."""
    left_of, right_of, at_pair = {}, {}, {}
    refuted = []  # (index in the output, proof) of the roots at refuted pairs
    for p in check.proofs:
        if p.outcome.status == "different":
            for nid in {p.left} | p.outcome.cone_left:
                left_of.setdefault(input_op_id(nid), p.outcome.counterexample)
            for nid in {p.right} | p.outcome.cone_right:
                right_of.setdefault(input_op_id(nid), p.outcome.counterexample)
            at_pair.setdefault((input_op_id(p.left), input_op_id(p.right)), p)
        elif p.outcome.status == "undecided" and (p.outcome.cone_left or p.outcome.cone_right):
            # no model, but the cones are known: the root says both expressions, and what its
            # cones hold is listed under it, the same whichever way z3's time budget falls
            at_pair.setdefault((input_op_id(p.left), input_op_id(p.right)), p)
    out = []
    for d in diffs:
        cex = (left_of.get(d.left.op_id) if d.left else None) or (right_of.get(d.right.op_id) if d.right else None)
        p = at_pair.get((d.left.op_id, d.right.op_id)) if d.left and d.right else None
        if p is None and d.left and d.right:  # a replacement at a user's operand: the slot's proof
            p = next((q for q in at_pair.values() if q.slot is not None
                      and d.left.op_id in {input_op_id(n) for n in q.outcome.cone_left}
                      and d.right.op_id in {input_op_id(n) for n in q.outcome.cone_right}), None)
        if p is None and cex is None and d.detail.get("kind") == "replaced" and d.left and d.right \
                and "reaches" not in d.detail:  # (a formula's root says its values already)
            d = _replacement_in_values(d, check, ltext, rtext)
        elif cex is not None or p is not None:
            detail = dict(d.detail)
            if cex is not None:
                detail["counterexample"] = dict(cex)
            category, message = d.category, d.message
            if p is not None:
                category, message = _in_values(d, p, check, ltext, rtext)
            d = replace(d, category=category, message=message, detail=detail)
            if p is not None:
                refuted.append((len(out), p))
        out.append(d)
    return _fold_floor_modulo(_fold_into_refuted(out, refuted), check)


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
    L, R, l2r = check.L, check.R, check.l2r
    by_left = {}
    for nid, _op in L.ops.items():
        by_left[input_op_id(nid)] = nid
    by_right = {input_op_id(nid): nid for nid in R.ops}
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
    if not divisions:
        return diffs
    owner: Dict[int, int] = {}
    for k, d in enumerate(diffs):
        if d.category in ("specialization", "signature", "hints") or not (d.left and d.right) or \
                any(k == at for at, _, _ in divisions):
            continue
        ln, rn = by_left.get(d.left.op_id), by_right.get(d.right.op_id)
        if ln is None or rn is None:
            continue
        gl, gr = _divisor_remainders(L, ln), _divisor_remainders(R, rn)
        for at, g_left, g_right in divisions:
            if g_left in gl and g_right in gr:
                owner[k] = at
                break
    out = []
    for k, d in enumerate(diffs):
        if k in owner:
            continue
        mine = [diffs[j] for j, at in owner.items() if at == k]
        if mine and not d.message.startswith("floor division"):
            d = replace(d, category="arith",
                        message=f"floor division against truncation where the divisor may be negative: {d.message}")
        if mine:
            d = replace(d, message=d.message + "; the floor modulo by the same divisor against a truncating "
                        "remainder follows from it (" + ", ".join(f"{m.left.op_id}" for m in mine) + ")",
                        affected=tuple(sorted(set(d.affected) | {m.left.op_id for m in mine} |
                                              {a for m in mine for a in m.affected})),
                        affected_right=tuple(sorted(set(d.affected_right) | {m.right.op_id for m in mine} |
                                                    {a for m in mine for a in m.affected_right})))
        out.append(d)
    return out


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
    ln = next((n for n in L.ops if input_op_id(n) == d.left.op_id), None)
    rn = next((n for n in R.ops if input_op_id(n) == d.right.op_id), None)
    a, b = L.ops.get(ln), R.ops.get(rn)
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
        why = "not decided within the proof's time budget"
    restructured = any(n not in check.l2r for n in p.outcome.cone_left) or \
        any(n not in check.r2l for n in p.outcome.cone_right)
    # a changed constant stays a constant difference; a rounding or a view-slot replacement
    # whose cones are computed by other ops is an arithmetic one
    at_memory_op = (d.detail.get("slot") or {}).get("user") in MEMORY_OPS or \
        (d.detail.get("right_op") in MEMORY_OPS and d.detail.get("left_op") in MEMORY_OPS)
    category = "arith" if restructured and (d.category == "attribute" or (d.category == "memory" and not at_memory_op)) \
        else d.category
    return category, f"{d.message}: {le} -> {re_}, {why}"


def _tie_json(t, nodes) -> dict:
    """A tie as data: the argument, and the one it must equal or the value the other side fixes."""
    out = {"side": t.side, "argument": nodes[t.tied].arg_index}
    if t.kept is None:
        out["static"] = int(t.via)
    else:
        out["equals"] = nodes[t.kept].arg_index
    return out


def _root_sets(roots):
    """(own left, own right, listed left, listed right) node ids of the classifier's roots."""
    own_l = {r.left for r in roots if r.left} | {a for r in roots for a, _ in r.also if a}
    own_r = {r.right for r in roots if r.right} | {b for r in roots for _, b in r.also if b}
    listed_l, listed_r = set(own_l), set(own_r)
    for r in roots:
        listed_l |= r.affected_left
        listed_r |= r.affected_right
    return own_l, own_r, listed_l, listed_r


def _function_level(lf, rf, i, j, fname) -> List[Difference]:
    """Differences of the entry itself (hints); arguments are graph nodes and handled there."""
    out = []
    if attr_key(lf.hints) != attr_key(rf.hints):
        out.append(Difference("hints", f"entry optimization_hints {attr_text(lf.hints)} -> {attr_text(rf.hints)}",
                              OpRef(f"f{i}", f"entry @{lf.name}", None), OpRef(f"f{j}", f"entry @{rf.name}", None),
                              fname))
    return out


def _diff_key(d: Difference):
    return (d.category, d.left.op_id if d.left else None, d.right.op_id if d.right else None)


def compute_diff(left: Module, right: Module, *, rules: Optional[Sequence[str]] = None, disable: Iterable[str] = (),
                 limits=None, left_source: Optional[str] = None, right_source: Optional[str] = None,
                 with_summary: bool = True, with_lines: bool = True, launch: Sequence[str] = ()) -> DiffResult:
    """Diff two modules (see the module docstring for the verdicts). ``launch``: facts of the
    launch both kernels run under, for the proof step (``smt.launch_fact``: e.g.
    ``"grid.x == cdiv(arg11, 128) * cdiv(arg12, 128)"``, or ``(text, origin)``: where it is declared
    and checked, as the proof reports it); each one a proof uses is reported."""
    facts = tuple(smt.launch_fact(t) if isinstance(t, str) else smt.launch_fact(*t) for t in launch)
    if not isinstance(left, Module) or not isinstance(right, Module):
        raise TypeError("compute_diff takes two tileir_diff.ir.Module objects (use tileir_diff.diff() for paths/bytes)")
    # The pipeline builds many long-lived objects and no garbage cycles: see gc_pause.
    with gc_paused():
        try:
            return _compute_diff(left, right, rules=rules, disable=disable, limits=limits, left_source=left_source,
                                 right_source=right_source, with_summary=with_summary, with_lines=with_lines,
                                 launch=facts)
        finally:
            clear_key_caches()


def _compute_diff(left: Module, right: Module, *, rules, disable, limits, left_source, right_source,
                  with_summary: bool, with_lines: bool, launch=()) -> DiffResult:
    limits = Limits.coerce(limits)
    disable = list(disable or ())
    chosen = [r.name for r in select_rules(rules, disable)]  # validates names
    t0 = time.perf_counter()
    deadline = t0 + limits.time_budget_s
    tl, tr = tag_origins(left), tag_origins(right)
    lines_l, lines_r = _LazyLines(left), _LazyLines(right)
    ltexts = [FunctionText(f, i, lines_l.by_id) for i, f in enumerate(left.functions)]
    rtexts = [FunctionText(f, i, lines_r.by_id) for i, f in enumerate(right.functions)]
    lsrc = left_source or left.source or "<left>"
    rsrc = right_source or right.source or "<right>"

    verdict, reason = None, None
    rules_applied: Dict[str, int] = {}
    try:
        run = _run(tl, tr, ltexts, rtexts, chosen, (), limits, deadline, launch=launch)
        if run.pins and not run.limits_hit:
            # constants the other side takes as arguments: read them as those constants, once
            tl, tr = apply_pins(tl, tr, run.pins)
            run = _run(tl, tr, ltexts, rtexts, chosen, (), limits, deadline, pinned=run.pins, launch=launch)
        first = _facts(run)
        inputs = VerdictInputs(first)
        then = follow_up(first)
        if then == "bare":
            # the same computation under other assumptions? proven on the kernels without them
            # the proof step keeps both sides' assumptions as facts: they are listed as roots
            bare = _run(strip_assumptions(tl), strip_assumptions(tr), ltexts, rtexts, chosen, (), limits,
                        deadline, pinned=run.pins, facts_from=(tl, tr), launch=launch)
            inputs = VerdictInputs(first, bare=_facts(bare),
                                   never_holding=(never_holding_assumptions(tl), never_holding_assumptions(tr)))
        elif then == "raw":
            raw = _run(tl, tr, ltexts, rtexts, [], (), limits, deadline, launch=launch)
            inputs = VerdictInputs(first, raw=_facts(raw))
        decided = decide(inputs)
        verdict, reason, rules_applied = decided.verdict, decided.reason, dict(decided.rules_applied)
        if decided.from_raw:
            run = raw
        run.differences = list(decided.differences)
        if decided.rule_hints:
            optional_off = [n for n in _all_optional() if n not in chosen]
            if optional_off:
                _add_rule_hints(run, tl, tr, ltexts, rtexts, chosen, optional_off, limits, deadline, launch)
    except LimitExceeded as e:
        verdict, reason = "unknown", str(e)
        run = _Run([], [], [], {}, {}, [str(e)])

    stats = dict(run.stats)
    stats.update({"ops_left": count_ops(left), "ops_right": count_ops(right),
                  "limits_hit": run.limits_hit, "seconds": round(time.perf_counter() - t0, 4),
                  "rules_enabled": chosen, "rule_counts": run.counts})
    summary = _summary(left, right) if with_summary else {}
    # Printed on first use of result.left_lines/right_lines (HTML and JSON reports), not here.
    llines, rlines = (DeferredLines(lines_l.lines), DeferredLines(lines_r.lines)) if with_lines else ([], [])
    return DiffResult(verdict=verdict, differences=run.differences if verdict in ("different", "specialized") else [],
                      rules_applied=rules_applied, summary=PairSummary.from_dict(summary), left_source=lsrc,
                      right_source=rsrc, functions=tuple(FunctionPair.from_dict(f) for f in run.functions),
                      mapping=run.mapping, stats=MatchStats.from_dict(stats), reason=reason,
                      left_lines=llines, right_lines=rlines,
                      rules_disabled=[n for n in _all_optional() if n not in chosen],
                      proofs=run.proofs if verdict != "unknown" else [],
                      absorbed_by={side: dict(sorted(ops.items())) for side, ops in run.absorbed.items()})


def _facts(run: _Run) -> RunFacts:
    return RunFacts(tuple(run.differences), tuple(run.limits_hit), run.counts)


def _all_optional() -> List[str]:
    from ..normalize import REGISTRY
    return [n for n, r in REGISTRY.items() if r.optional]


def _add_rule_hints(run: _Run, tl, tr, ltexts, rtexts, chosen, off, limits, deadline, launch=()) -> None:
    """For each rule switched off: which differences would it absorb if enabled."""
    for name in off:
        other = _run(tl, tr, ltexts, rtexts, chosen + [name], (), limits, deadline, launch=launch)
        if other.limits_hit:
            continue
        remaining = {_diff_key(d) for d in other.differences}
        run.differences = [d if _diff_key(d) in remaining or d.rule_hint else
                           replace(d, rule_hint=name)
                           for d in run.differences]


def _summary(left: Module, right: Module) -> dict:
    try:
        from ..summary import summarize_pair
    except ImportError:
        return {}
    return summarize_pair(left, right)


class _LazyLines:
    """The printed module (op id, line) pairs, printed once on first use (reports and op texts)."""

    def __init__(self, module: Module):
        self.module = module
        self._lines = None
        self._by_id = None

    def lines(self):
        if self._lines is None:
            try:
                from ..text.printer import print_module_lines
                self._lines = [tuple(x) for x in print_module_lines(self.module)]
            except Exception:  # the printer is another stage; reports then lack the side-by-side text
                self._lines = []
        return self._lines

    def by_id(self):
        if self._by_id is None:
            self._by_id = {}
            for oid, line in self.lines():
                if oid is not None and oid not in self._by_id:
                    self._by_id[oid] = line
        return self._by_id
