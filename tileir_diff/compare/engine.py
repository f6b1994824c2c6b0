"""The diff engine: normalize both modules, build graphs, match, classify, decide the verdict.

Verdicts: ``identical`` (equal after renaming only: the run with no optional rule has no
difference), ``equivalent`` (equal after the enabled rules; ``rules_applied`` says which ran and
how many rewrites each made on both sides), ``different`` (root differences listed), ``unknown``
(a limit was hit; ``reason`` names it). The normalized run goes first; the renaming-only run is
needed only to tell identical from equivalent when some rule rewrote something.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..gc_pause import gc_paused
from ..check import smt_common  # (smt.py itself only where a query or a launch fact needs it)
from ..ir import Module
from ..errors import TimeLimitExceeded
from ..match import LimitExceeded, Limits, MatchBudget, match_functions
from ..normalize import select_rules, tag_origins
from ..normalize.util import count_ops, ops_of
from .describe import FunctionText
from .passes import (EntryPair, RunSetting, check_pass, classify_pass, differences_pass, function_record,
                     function_stats, graphs_pass, mapping_rows, module_level_pass, normalize_pass, pair_functions)
from .pins import Pin, apply_pins, find_pins
from ..report.result import (DeferredLines, DeferredSummary, DiffResult, Difference, FunctionPair, FunctionStats,
                             MatchStats)
from .specialization import never_holding_assumptions, strip_assumptions
from .verdict import RunFacts, VerdictInputs, decide, follow_up


class _Run:
    """One pass of the pipeline under one rule set."""

    def __init__(self, differences, functions, mapping, stats, counts, limits_hit, pins=(), proofs=None):
        self.proofs: List[dict] = proofs or []
        self.differences: List[Difference] = differences
        self.functions: List[FunctionPair] = functions
        self.mapping: List[Tuple[str, str, str]] = mapping
        self.stats: MatchStats = stats
        self.counts: Dict[str, int] = counts
        self.limits_hit: List[str] = limits_hit
        self.pins: List[Pin] = list(pins)  # found on this run (pinned=None) or applied (pinned given)
        # side -> op id -> the rule under which the op left the normalized module
        self.absorbed: Dict[str, Dict[str, str]] = {"left": {}, "right": {}}


class _FoundDifference(Exception):
    """A run asked ``unless_different`` found a difference (the rest of it is not needed)."""


def _run(left: Module, right: Module, ltexts, rtexts, rules: Optional[Sequence[str]], disable: Iterable[str],
         limits: Limits, deadline: MatchBudget, pinned: Optional[List[Pin]] = None,
         facts_from: Optional[Tuple[Module, Module]] = None, launch: Sequence = (),
         unless_different: bool = False) -> _Run:
    """One pass. ``pinned``: the pins already applied to ``left``/``right`` (reported as roots);
    None: look for pins (returned in ``_Run.pins``, for the caller to apply and run again).
    ``facts_from``/``launch``: the proof step's facts (check 8). ``unless_different``: the
    caller needs the run only if it finds no difference: ``_FoundDifference`` as soon as one is
    certain (see ``_certainly_different``), else as soon as one entry pair's classifier has a
    root (it would stay one root or more: without proofs the check only adds roots, a fold only
    moves a root under another, and each root is one difference)."""
    setting = RunSetting(rules, disable, limits, deadline, pinned, facts_from, launch)
    norm = normalize_pass(left, right, setting)
    nl, nr, counts = norm.left, norm.right, norm.counts
    pairs, only_l, only_r = pair_functions(nl, nr)
    if unless_different and not setting.proving and _certainly_different(nl, nr, pairs, only_l, only_r):
        raise _FoundDifference()
    diffs: List[Difference] = []
    functions, mapping, limits_hit, proofs = [], [], [], []
    found_pins: List[Pin] = []
    figures: List[FunctionStats] = []
    for i, j in pairs:
        g = graphs_pass(nl.functions[i], nr.functions[j], i, j)
        ctx = match_functions(g.L, g.R, limits, deadline, alignment=g.alignment)
        limits_hit.extend(ctx.limits_hit)
        if pinned is None:
            found_pins.extend(find_pins(g.L, g.R, ctx.mapping, i, g.alignment.signatures.roles))
        name = g.left.name if g.left.name == g.right.name else f"{g.left.name}/{g.right.name}"
        pair = EntryPair(i, j, name, g, ctx, ltexts[i], rtexts[j], left.functions[i], right.functions[j])
        cls, roots = classify_pass(pair, norm, setting)
        if unless_different and roots and not setting.proving:
            raise _FoundDifference()
        checked = check_pass(pair, cls, roots, setting)
        proofs.extend(checked.proofs)
        if checked.proven:
            counts["smt-equivalence"] = counts.get("smt-equivalence", 0) + checked.proven
        limits_hit.extend(checked.limits_hit)
        fdiffs = differences_pass(pair, cls, checked)
        diffs.extend(fdiffs)
        functions.append(function_record(pair, fdiffs))
        mapping.extend(mapping_rows(pair))
        figures.append(function_stats(pair))
    diffs.extend(module_level_pass(nl, nr, pairs, only_l, only_r, diffs))
    stats = MatchStats(normalize_s=round(norm.seconds, 4), functions=tuple(figures),
                       smt=smt_common.skipped_reason() if setting.proving and not smt_common.installed() else None,
                       smt_queries=len(proofs) if proofs else None,
                       smt_s=round(sum(p["seconds"] for p in proofs), 4) if proofs else None)
    run = _Run(diffs, functions, mapping, stats, counts, limits_hit, found_pins if pinned is None else pinned,
               proofs)
    run.absorbed = norm.absorbed
    return run


def _certainly_different(nl: Module, nr: Module, pairs, only_l, only_r) -> bool:
    """Whether a run without proofs on these normalized modules must end with a difference (or a
    limit hit), known before any graph is built: an entry on one side only is a difference of
    its own; and two paired entries whose ops (nested regions included) differ in their names
    as a multiset cannot be mapped op to op with equal labels. The trusted checker reports every
    op it finds unmapped or mapped to an op of another label (``check/checker.py``, checks 2
    and 3) on the functions the graphs were built from: the normalized ones, unless arguments
    were tied, and every tie is a root of its own (``tie_roots``). Each such violation is a root
    or lies under one, or is a limit hit (``check_pass``). One walk per function."""
    if only_l or only_r:
        return True
    return any(_op_names(nl.functions[i]) != _op_names(nr.functions[j]) for i, j in pairs)


def _op_names(f) -> Counter:
    return Counter(op.name for op in ops_of(f.body))


def _diff_key(d: Difference):
    return (d.category, d.left.op_id if d.left else None, d.right.op_id if d.right else None)


def compute_diff(left: Module, right: Module, *, rules: Optional[Sequence[str]] = None, disable: Iterable[str] = (),
                 limits=None, left_source: Optional[str] = None, right_source: Optional[str] = None,
                 with_summary: bool = True, with_lines: bool = True, launch: Sequence[str] = ()) -> DiffResult:
    """Diff two modules (see the module docstring for the verdicts). ``launch``: facts of the
    launch both kernels run under, for the proof step (``smt.launch_fact``: e.g.
    ``"grid.x == cdiv(arg11, 128) * cdiv(arg12, 128)"``, or ``(text, origin)``: where it is declared
    and checked, as the proof reports it); each one a proof uses is reported."""
    facts: tuple = ()
    if launch:
        from ..check import smt
        facts = tuple(smt.launch_fact(t) if isinstance(t, str) else smt.launch_fact(*t) for t in launch)
    if not isinstance(left, Module) or not isinstance(right, Module):
        raise TypeError("compute_diff takes two tileir_diff.ir.Module objects (use tileir_diff.diff() for paths/bytes)")
    # The pipeline builds many long-lived objects and no garbage cycles: see gc_pause.
    with gc_paused():
        return _compute_diff(left, right, rules=rules, disable=disable, limits=limits, left_source=left_source,
                             right_source=right_source, with_summary=with_summary, with_lines=with_lines,
                             launch=facts)


def _compute_diff(left: Module, right: Module, *, rules, disable, limits, left_source, right_source,
                  with_summary: bool, with_lines: bool, launch=()) -> DiffResult:
    limits = Limits.coerce(limits)
    disable = list(disable or ())
    chosen = [r.name for r in select_rules(rules, disable)]  # validates names
    t0 = time.perf_counter()
    deadline = MatchBudget(limits)  # counted work, shared by every pass (and its wall-clock safety net)
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
            # the renaming-only run matters only if it finds no difference (then ``identical``)
            try:
                raw = _run(tl, tr, ltexts, rtexts, [], (), limits, deadline, launch=launch, unless_different=True)
                inputs = VerdictInputs(first, raw=_facts(raw))
            except _FoundDifference:  # ``decide`` without a raw run: ``equivalent``
                inputs = VerdictInputs(first)
        decided = decide(inputs)
        verdict, reason, rules_applied = decided.verdict, decided.reason, dict(decided.rules_applied)
        if decided.from_raw:
            run = raw
        run.differences = list(decided.differences)
        if decided.rule_hints:
            optional_off = [n for n in _all_optional() if n not in chosen]
            if optional_off:
                _add_rule_hints(run, tl, tr, ltexts, rtexts, chosen, optional_off, limits, deadline, launch)
    except (LimitExceeded, TimeLimitExceeded) as e:  # a time limit: the matcher's or a proof's safety net
        verdict, reason = "unknown", str(e)
        run = _Run([], [], [], MatchStats(), {}, [str(e)])

    stats = replace(run.stats, ops_left=count_ops(left), ops_right=count_ops(right),
                    limits_hit=tuple(run.limits_hit), seconds=round(time.perf_counter() - t0, 4),
                    rules_enabled=tuple(chosen), rule_counts=run.counts)
    # Made on first use of result.summary (reports that show it), not here.
    summary: Any = DeferredSummary(lambda: _summary(left, right)) if with_summary else None
    # Printed on first use of result.left_lines/right_lines (HTML and JSON reports), not here.
    llines: Any = DeferredLines(lines_l.lines) if with_lines else []
    rlines: Any = DeferredLines(lines_r.lines) if with_lines else []
    return DiffResult(verdict=verdict, differences=run.differences if verdict in ("different", "specialized") else [],
                      rules_applied=rules_applied, summary=summary, left_source=lsrc,
                      right_source=rsrc, functions=tuple(run.functions),
                      mapping=run.mapping, stats=stats, reason=reason,
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
