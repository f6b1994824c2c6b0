"""The passes of one engine run (engine._run), each a function over small frozen objects:
normalize both modules; per entry pair the graphs (with argument ties), the match (in the
engine), classification, the trusted check with its proofs, the roots as differences with
counterexamples and folds, the pair's record, mapping rows and figures; the module-level
differences last."""
from __future__ import annotations

import time
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..check import FunctionCheck, ProofOptions, check_module_level, covered
from ..graph import FunctionGraph, input_op_id
from ..ir import Function, Module
from ..match import Limits, MatchBudget
from ..match.alignment import Alignment, align
from ..normalize import normalize, one_sided_declines
from ..normalize.canon import attr_key, attr_text
from ..record import record
from ..report.result import Difference, FunctionPair, FunctionStats, OpRef
from .argument_roots import pin_roots, tie_arguments, tie_roots
from .checker_roots import checker_roots
from .classify import Classifier, to_differences
from .view import PairView
from .counterexamples import with_counterexamples
from .folds import FoldContext, apply_folds
from .loop_orders import order_roots
from .pins import Pin
from .proofs import absorb_proven, proof_record, root_sets


@record
class RunSetting:
    """What every pass of one run reads. ``pinned``: the pins already applied (reported as
    roots), None: look for pins; ``facts_from``/``launch``: the proof step's facts (check 8)."""
    rules: Optional[Sequence[str]]
    disable: Iterable[str]
    limits: Limits
    deadline: MatchBudget
    pinned: Optional[Sequence[Pin]] = None
    facts_from: Optional[Tuple[Module, Module]] = None
    launch: Sequence = ()

    @property
    def proving(self) -> bool:
        return "smt-equivalence" in (self.rules or ())

    def pins_of(self, function: int) -> List[Pin]:
        return [p for p in self.pinned or () if p.function == function]


@record
class Normalized:
    """Both modules after the rules: rewrites per rule (both sides), the ops each side's rules
    absorbed (side -> op id -> rule), the seconds it took."""
    left: Module
    right: Module
    counts: Dict[str, int]
    absorbed: Dict[str, Dict[str, str]]
    seconds: float


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


def normalize_pass(left: Module, right: Module, setting: RunSetting) -> Normalized:
    t0 = time.perf_counter()
    # a rule whose precondition fails on one function of a pair is applied to neither
    keep_l, keep_r = one_sided_declines(left, right, pair_functions(left, right)[0], setting.rules,
                                        setting.disable)
    absorbed_l: Dict[str, str] = {}
    absorbed_r: Dict[str, str] = {}
    nl, cl = normalize(left, setting.rules, setting.disable, keep=keep_l, absorbed=absorbed_l)
    nr, cr = normalize(right, setting.rules, setting.disable, keep=keep_r, absorbed=absorbed_r)
    counts = {k: cl.get(k, 0) + cr.get(k, 0) for k in dict.fromkeys(list(cl) + list(cr))}
    return Normalized(nl, nr, counts, {"left": absorbed_l, "right": absorbed_r}, time.perf_counter() - t0)


@record
class Graphs:
    """One entry pair's dataflow graphs, with the arguments tied to one scalar read as the one
    they must equal (the functions then are the tied ones), and the entry arguments aligned on
    these graphs (the matcher's ``Arguments`` stage adds those pairs; pins read their roles)."""
    left: Function
    right: Function
    L: FunctionGraph
    R: FunctionGraph
    ties: Sequence[Any]
    seconds: float
    alignment: Alignment


def graphs_pass(lf: Function, rf: Function, i: int, j: int) -> Graphs:
    t1 = time.perf_counter()
    text_ids: Dict[str, int] = {}  # the graphs' hashed labels and types, shared by both sides
    L, R = FunctionGraph(lf, i, text_ids), FunctionGraph(rf, j, text_ids)
    # one scalar on one side for several arguments of the other: a stated assumption (a
    # specialization root below); the tied arguments are read as the one they must equal (on
    # other functions: the graph of a side whose function changed is built again, and the
    # arguments aligned again on the graphs the matcher gets)
    alignment = align(L, R)
    ties = alignment.ties
    if ties:
        tl, tr = tie_arguments(lf, L, ties, "left"), tie_arguments(rf, R, ties, "right")
        if tl is not lf:
            lf, L = tl, FunctionGraph(tl, i, text_ids)
        if tr is not rf:
            rf, R = tr, FunctionGraph(tr, j, text_ids)
        alignment = align(L, R)
    return Graphs(lf, rf, L, R, ties, time.perf_counter() - t1, alignment)


@record
class EntryPair:
    """One entry pair through the passes: indices, name, graphs, the matcher's context, both
    sides' printed text and their original (unnormalized) functions."""
    i: int
    j: int
    name: str
    graphs: Graphs
    ctx: Any
    ltext: Any
    rtext: Any
    left_original: Function
    right_original: Function


def classify_pass(pair: EntryPair, norm: Normalized, setting: RunSetting) -> Tuple[PairView, list]:
    g, ctx = pair.graphs, pair.ctx
    view = PairView(g.L, g.R, ctx.mapping, pair.ltext, pair.rtext, norm.left.version, norm.right.version,
                    commutative="commutative-operands" in (setting.rules or ()), unpaired=(ctx.lfree, ctx.rfree),
                    pinned=frozenset((p.side, p.argument) for p in setting.pins_of(pair.i)))
    roots = apply_folds("final", FoldContext(view), Classifier(view).run() + tie_roots(view, g.ties) +
                        pin_roots(view, setting.pins_of(pair.i))) + order_roots(view)
    return view, roots


@record
class Checked:
    """The roots after the trusted check: the classifier's less those the proofs discharged,
    plus the checker's own; the proof records, the pairs proven equal, limits hit."""
    roots: list
    check: FunctionCheck
    proofs: List[dict]
    proven: int
    limits_hit: List[str]


def check_pass(pair: EntryPair, cls: PairView, roots: list, setting: RunSetting) -> Checked:
    """The trusted checker decides: every violation of the mapping must be a reported root (or,
    for cascades, listed under one); what is not becomes a root of its own."""
    g, i, j = pair.graphs, pair.i, pair.j
    fl, fr = (setting.facts_from[0].functions[i], setting.facts_from[1].functions[j]) if setting.facts_from else \
        (pair.left_original, pair.right_original)
    proof = ProofOptions(setting.limits.smt_timeout_s, (fl, fr), tuple(setting.launch), setting.limits.smt_rlimit) if setting.proving else None
    check = FunctionCheck(g.left, i, g.right, j, pair.ctx.mapping.l2r, pair.left_original, pair.right_original,
                          proof)
    violations = check.run()
    proofs: List[dict] = []
    proven = 0
    if check.proofs:
        roots = absorb_proven(roots, check, cls)
        proofs = [proof_record(p, pair.name) for p in check.proofs]
        proven = len({(p.left, p.right) for p in check.proofs if p.left in check.discharged_left})
    open_violations = covered(violations, *root_sets(roots))
    if any(r.category == "signature" for r in roots):
        # arguments shifted by an inserted or removed one: the signature root names the cause
        open_violations = [v for v in open_violations if v.kind != "signature"]
    unverifiable = [v for v in open_violations if v.kind == "unverifiable"]
    limits_hit = [f"checker could not verify @{pair.name}: {unverifiable[0].message}"] if unverifiable else []
    roots = roots + checker_roots(cls, [v for v in open_violations if v.kind != "unverifiable"], roots)
    return Checked(apply_folds("checked", FoldContext(cls), roots), check, proofs, proven, limits_hit)


def differences_pass(pair: EntryPair, cls: PairView, checked: Checked) -> List[Difference]:
    """The roots as differences, with the refuted queries' models, and the entry's own."""
    out = with_counterexamples(to_differences(cls, checked.roots, pair.name), checked.check, pair.ltext,
                               pair.rtext)
    return out + _function_level(pair)


def _function_level(pair: EntryPair) -> List[Difference]:
    """Differences of the entry itself (hints); arguments are graph nodes and handled there."""
    lf, rf, i, j = pair.graphs.left, pair.graphs.right, pair.i, pair.j
    out = []
    if attr_key(lf.hints) != attr_key(rf.hints):
        out.append(Difference("hints", f"entry optimization_hints {attr_text(lf.hints)} -> {attr_text(rf.hints)}",
                              OpRef(f"f{i}", f"entry @{lf.name}", None), OpRef(f"f{j}", f"entry @{rf.name}", None),
                              pair.name))
    return out


def function_record(pair: EntryPair, differences: List[Difference]) -> FunctionPair:
    """The pair as the result's ``functions`` lists it: names, verdict, the matcher's counts."""
    g, mapping = pair.graphs, pair.ctx.mapping
    ul = len(g.L.order) - len(mapping.l2r)  # every pair holds one node of each side
    ur = len(g.R.order) - len(mapping.r2l)
    lnodes, rnodes = g.L.nodes, g.R.nodes
    arguments = sorted((lnodes[l].arg_index, rnodes[r].arg_index) for l, r in mapping.l2r.items()
                       if lnodes[l].kind == "arg" and rnodes[r].kind == "arg"
                       and (lnodes[l].users or rnodes[r].users))  # two unused ones pair by position
    return FunctionPair(g.left.name, g.right.name, "different" if differences else "same", len(mapping), ul, ur,
                        tuple(arguments),
                        tuple(_tie_json(t, lnodes if t.side == "left" else rnodes) for t in g.ties))


def _tie_json(t, nodes) -> dict:
    """A tie as data: the argument, and the one it must equal or the value the other side fixes."""
    out = {"side": t.side, "argument": nodes[t.tied].arg_index}
    if t.kept is None:
        out["static"] = int(t.via)
    else:
        out["equals"] = nodes[t.kept].arg_index
    return out


def mapping_rows(pair: EntryPair) -> List[Tuple[str, str, str]]:
    """(left op id, right op id, matcher stage) of every op pair."""
    lnodes, rnodes, stage = pair.graphs.L.nodes, pair.graphs.R.nodes, pair.ctx.mapping.stage
    return [(input_op_id(l), input_op_id(r), stage[l]) for l, r in pair.ctx.mapping.l2r.items()
            if lnodes[l].kind == "op" and rnodes[r].kind == "op"]


def function_stats(pair: EntryPair) -> FunctionStats:
    g = pair.graphs
    return FunctionStats(g.left.name, g.right.name, len(g.L), len(g.R), round(g.seconds, 4), dict(pair.ctx.stats))


def module_level_pass(nl: Module, nr: Module, pairs, only_l, only_r, diffs: List[Difference]) -> List[Difference]:
    """Differences of the modules themselves (globals, entry attributes the checker sees) and
    the entries on one side only; ``diffs``: the entry pairs' (an entry's hints are said there)."""
    out: List[Difference] = []
    for v in check_module_level(nl, nr, pairs):
        if v.left is None and v.right is None:  # module globals
            out.append(Difference("structure", v.message, None, None, nl.functions[0].name if nl.functions else ""))
            continue
        if v.left is None or v.right is None or any(d.left and d.left.op_id == v.left for d in diffs + out):
            continue  # entries on one side only are reported below; entry hints above
        i, j = int(v.left[1:]), int(v.right[1:])
        fname = nl.functions[i].name
        out.append(Difference("structure", v.message, OpRef(f"f{i}", f"entry @{fname}", None),
                              OpRef(f"f{j}", f"entry @{nr.functions[j].name}", None), fname))
    for i in only_l:
        out.append(Difference("structure", f"entry @{nl.functions[i].name} only on the left",
                              OpRef(f"f{i}", f"entry @{nl.functions[i].name}", None), None, nl.functions[i].name))
    for j in only_r:
        out.append(Difference("structure", f"entry @{nr.functions[j].name} only on the right",
                              None, OpRef(f"f{j}", f"entry @{nr.functions[j].name}", None), nr.functions[j].name))
    return out
