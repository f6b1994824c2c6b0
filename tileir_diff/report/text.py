"""Compact text report: verdict line, root differences first, then rules, functions, summary."""
from __future__ import annotations

import re

from typing import Any, List, Optional, Sequence

from ..errors import printable
from .common import VERDICT_MEANING, function_pairs, headline, op_side, pair_summary, sorted_rules
from .summary_text import pair_lines
from .result import DiffResult


def render(result: DiffResult, *, max_affected: int = 8, summary: bool = True, stats: bool = False,
           max_differences: int | None = None, max_summary_lines: int = 40) -> str:
    """The report an engineer reads in a terminal or a failing test.

    ``max_affected`` caps the affected op ids listed per difference; ``summary`` adds the
    differing rows of the pair summary (at most ``max_summary_lines``); ``stats`` adds the
    matcher figures.
    """
    lines: List[str] = [headline(result), f"  verdict means: {VERDICT_MEANING.get(result.verdict, '')}"]
    if result.all_accepted:
        lines.append("  every root difference is accepted (listed below with its reason): exit status 0")
    lines += _difference_section(result, max_affected, max_differences)
    if result.verdict == "unknown" and result.reason:
        lines += ["", f"unknown because: {result.reason}"]
    if result.execution is not None:
        from .execution import execution_lines
        lines += [""] + execution_lines(result.execution.to_dict())
    lines.append("")
    rules = sorted_rules(result)
    lines += _rules_section(result, rules)
    for f in result.functions:
        lines.append(_function_line(f))
    if summary:
        lines += _summary_section(result, [k for k, _ in rules], max_summary_lines)
    if stats and result.stats.to_dict():
        from .common import stats_items
        lines.append("stats: " + ", ".join(f"{k}={v}" for k, v in stats_items(result)))
    # Names, paths, locations and op text come from the files: a newline or an ANSI escape in
    # them must not start a line of its own or restyle the terminal (errors.printable).
    return "\n".join(printable(line) for line in lines).rstrip() + "\n"


def _difference_section(result: DiffResult, max_affected: int, max_differences: Optional[int]) -> List[str]:
    """The root differences, numbered, at most ``max_differences`` of them."""
    diffs = result.differences
    shown = diffs if max_differences is None else diffs[:max_differences]
    lines: List[str] = ["", "root differences:"] if shown else []
    for i, d in enumerate(shown, 1):
        lines += _difference_lines(i, d, max_affected)
    if len(shown) < len(diffs):
        lines.append(f"... {len(diffs) - len(shown)} more root differences (see the JSON report)")
    return lines


def _difference_lines(i: int, d: Any, max_affected: int) -> List[str]:
    """One root difference: what, where, both sides' ops, what it affects, its counterexample."""
    accepted = d.accepted
    lines = [f"[{i}] {d.category}: {d.message}" + (" (accepted)" if accepted else ""),
             f"    in @{d.function}: {op_side(d)}"]
    if d.context:
        lines.append(f"    inside: {' > '.join(d.context)}")
    for sign, ref in (("-", d.left), ("+", d.right)):
        if ref is None:
            lines.append(f"    {sign} (absent on this side)")
            continue
        loc = f"    @ {ref.location}" if ref.location else ""
        lines.append(f"    {sign} {ref.op_id}: {ref.text}{loc}")
    if d.affected:
        more = len(d.affected) - max_affected
        listed = ", ".join(d.affected[:max_affected]) + (f" (+{more} more)" if more > 0 else "")
        lines.append(f"    affected downstream: {listed}")
    if d.rule_hint:
        lines.append(f"    note: {d.rule_hint}")
    cex = d.detail.get("counterexample")
    if cex:
        lines.append("    counterexample (z3): " + ", ".join(f"{k}={v}" for k, v in cex.items()))
    if accepted:
        lines.append(f"    accepted by {accepted.get('file')}: {accepted.get('what')}")
    return lines


def _rules_section(result: DiffResult, rules: Sequence) -> List[str]:
    """The rules applied (with counts), the proof step's equal and undecided pairs, the rules
    disabled."""
    lines = ["rules applied: " + (", ".join(f"{k} ×{v}" for k, v in rules) if rules else "none")]
    for p in result.proofs:
        if p.get("status") == "equal":
            facts = "; ".join(p.get("assumptions") or ()) or "no assumption"
            lines.append(f"  proven equal (smt-equivalence): {p['left']} ↔ {p['right']} {p['of']}, using: {facts}")
        elif p.get("status") == "undecided":
            lines.append(f"  undecided (smt-equivalence): {p['left']} ↔ {p['right']} {p['of']}: {p.get('note', '')}")
    if result.stats.smt:
        lines.append(f"  note: {result.stats.smt}")
    if result.rules_disabled:
        lines.append("rules disabled: " + ", ".join(result.rules_disabled))
    return lines


def _summary_section(result: DiffResult, rules: List[str], max_summary_lines: int) -> List[str]:
    """The differing rows of the pair summary (none for an identical verdict)."""
    if result.verdict == "identical":  # (before reading the summary: a deferred one is then never made)
        return []
    pair = pair_summary(result)
    if not pair:
        return []
    differing = pair_lines(pair)
    if result.verdict == "equivalent":
        differing = _absorbed_wording(differing, pair, rules)
    if not differing:
        return []
    absorbed = result.verdict == "equivalent" and any(d is not None for _, d, _ in function_pairs(pair))
    lines = ["summary (what each side does; written differently, the rules absorbed it):" if absorbed
             else "summary (what each side does, where it differs):"]
    lines.extend(differing[:max_summary_lines])
    if len(differing) > max_summary_lines:
        lines.append(f"  ... {len(differing) - max_summary_lines} more summary lines "
                     "(--format json or html shows them all)")
    return lines


def _absorbed_wording(lines: List[str], pair: Any, rules: List[str]) -> List[str]:
    """On an equivalent verdict a summary that differs as written is what the rules absorbed:
    each function's ``differs in ...`` line says so, as the HTML does."""
    from .common import function_headline
    absorbed = ", ".join(rules) or "none"
    wording = {}
    for title, sections, _ in function_pairs(pair):
        if sections is not None:
            wording["  " + function_headline(title, sections)] = (
                f"  @{title}: written differently in {', '.join(sections)} (absorbed by the rules: {absorbed})")
    return [wording.get(line, line) for line in lines]


def _function_line(f) -> str:
    left, right = f.left, f.right
    names = f"@{left}" if left == right else f"@{left} ↔ @{right}"
    parts = [f"function {names}: {f.verdict or '?'}"]
    counts = [f"{f.matched} ops matched"]
    if f.unmatched_left:
        counts.append(f"{f.unmatched_left} left only")
    if f.unmatched_right:
        counts.append(f"{f.unmatched_right} right only")
    if counts:
        parts.append("(" + ", ".join(counts) + ")")
    return " ".join(parts)


def first_cause(result: DiffResult) -> str:
    """One line that says why two kernels are not the same: the first root difference (with how
    many more there are), else the reason (unknown, or a counterexample from execution)."""
    diffs = result.differences
    verdict = result.verdict.upper()
    if diffs:
        d = diffs[0]
        more = f" (+{len(diffs) - 1} more root difference{'s' if len(diffs) > 2 else ''})" if len(diffs) > 1 else ""
        return printable(f"{verdict}: {d.category}: {d.message}{more}")
    if result.reason:
        return printable(f"{verdict}: {result.reason}")
    return printable(f"{verdict}: {result.left_source} vs {result.right_source}")


def _without_repeats(body: List[str], head: str) -> List[str]:
    """The report under a failure's first line, saying nothing twice: the verdict header keeps
    only what the first line lacks (the inputs and the count), and a root difference whose message
    the first line already gives points at it."""
    out = list(body)
    if out and ": " in out[0]:
        out[0] = "  " + out[0].split(": ", 1)[1]
    for i, line in enumerate(out):
        m = re.match(r"\[(\d+)\] (.+)$", line)
        if m and head.endswith(m.group(2)):
            out[i] = f"[{m.group(1)}] (the first line)"
            break
    return out


def render_failure(result: DiffResult, *, expectation: str = "", max_lines: Optional[int] = 40,
                   report_paths: Sequence[str] = ()) -> str:
    """The message of a failed assertion: the first root cause on the first line (what pytest's
    short summary shows), then the text report, cut after ``max_lines`` lines with a pointer to
    the full report (``report_paths``, written by the pytest plugin) when there is one."""
    head = first_cause(result)
    if expectation:
        head = f"{expectation}, got {head}"
    body = render(result).rstrip("\n").splitlines()
    lines = [head] + _without_repeats(body, head)
    if max_lines is not None and len(lines) > max_lines:
        cut = len(lines) - max_lines
        lines = lines[:max_lines]
        where = (f"full report: {', '.join(str(p) for p in report_paths)}" if report_paths else
                 "pytest --tileir-report-dir DIR writes the full report; result.to_text() has it")
        lines.append(f"... {cut} more line{'s' if cut != 1 else ''} ({where})")
    elif report_paths:
        lines.append(f"report: {', '.join(str(p) for p in report_paths)}")
    return "\n".join(lines) + "\n"
