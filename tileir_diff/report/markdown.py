"""Markdown report (GitHub-flavoured): for pull requests, issues and agent transcripts.

Text from the result is either inside code spans (backticks and table pipes neutralised) or
HTML-escaped, so a kernel's strings cannot inject markup into the rendered page.
"""
from __future__ import annotations

import html
from typing import Any, List

from ..errors import printable

from .common import VERDICT_MEANING, function_headline, function_pairs, op_side, pair_summary, sorted_rules
from .html import SECTION_TITLES
from .result import DiffResult, Difference


def text(value: Any) -> str:
    """Plain text for Markdown: control characters escaped (no line ending of any kind can
    end the paragraph), HTML-escaped and Markdown punctuation neutralised."""
    s = html.escape(printable("" if value is None else value), quote=False)
    for ch in "\\`*_[]|#":
        s = s.replace(ch, "\\" + ch)
    return s


def code(value: Any) -> str:
    """An inline code span that survives backticks and pipes (in table cells) in the value.
    Every control character is escaped first: ``\\r\\r`` (a blank line to CommonMark) would
    otherwise end the span and the paragraph, and what follows would be read as raw HTML."""
    s = printable("" if value is None else value).replace("|", "\\|")
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def render(result: DiffResult, *, max_affected: int = 10, summary: bool = True) -> str:
    lines: List[str] = [f"## tileir-diff: **{result.verdict}**", "",
                        f"{code(result.left_source)} vs {code(result.right_source)} — "
                        f"{text(VERDICT_MEANING.get(result.verdict, ''))}"]
    if result.reason:
        lines += ["", f"> unknown because: {text(result.reason)}"]
    if result.execution is not None:
        from .execution import execution_lines
        body = [printable(line) for line in execution_lines(result.execution.to_dict())]
        fence = "```"
        while any(fence in line for line in body):
            fence += "`"
        lines += ["", "### Execution", "", fence] + body + [fence]
    lines += _differences_section(result, max_affected)
    rules = sorted_rules(result)
    lines += _rules_section(result, rules)
    lines += _functions_section(result)
    pair = pair_summary(result) if summary else None  # (a deferred summary is made only when shown)
    if pair:
        lines += _summary_section(result, pair, rules)
    return "\n".join(lines).rstrip() + "\n"


def _differences_section(result: DiffResult, max_affected: int) -> List[str]:
    """The root differences as a numbered list, each with its diff block."""
    diffs = result.differences
    if not diffs:
        return []
    lines = ["", f"### Root differences ({len(diffs)})", ""]
    for i, d in enumerate(diffs, 1):
        lines.append(f"{i}. **{text(d.category)}** — {text(d.message)}  ")
        lines.append(f"   in {code('@' + d.function)}, {code(op_side(d))}")
        lines += diff_block(d)
        if d.affected:
            more = len(d.affected) - max_affected
            listed = ", ".join(code(a) for a in d.affected[:max_affected])
            lines.append(f"   affected downstream: {listed}{f' (+{more} more)' if more > 0 else ''}")
        if d.rule_hint:
            lines.append(f"   _note:_ {text(d.rule_hint)}")
        accepted = d.accepted
        if accepted:
            lines.append(f"   _accepted_ by {code(accepted.get('file', ''))}: {text(accepted.get('what', ''))}")
    return lines


def _rules_section(result: DiffResult, rules) -> List[str]:
    """The rules applied as a table (or none), and those disabled."""
    lines = ["", "### Rules applied", ""]
    if rules:
        lines += ["| rule | rewrites |", "|---|---:|"]
        lines += [f"| {code(k)} | {v} |" for k, v in rules]
    else:
        lines.append("none")
    if result.rules_disabled:
        lines += ["", "Disabled: " + ", ".join(code(r) for r in result.rules_disabled)]
    return lines


def _functions_section(result: DiffResult) -> List[str]:
    """One table row per function pair."""
    if not result.functions:
        return []
    lines = ["", "### Functions", "", "| left | right | verdict | matched | left only | right only |",
             "|---|---|---|---:|---:|---:|"]
    for f in result.functions:
        lines.append(f"| {code('@' + str(f.left))} | {code('@' + str(f.right))} | "
                     f"{text(f.verdict)} | {f.matched} | {f.unmatched_left} | {f.unmatched_right} |")
    return lines


def _summary_section(result: DiffResult, pair, rules) -> List[str]:
    """Per function pair, its headline and the rows of each section that differ (on a same
    verdict, what the rules absorbed)."""
    same_verdict = result.verdict in ("identical", "equivalent")
    mark = "written differently" if same_verdict else "≠"
    lines = ["", "### Summary", ""]
    for name, differing, sections in function_pairs(pair):
        if same_verdict and differing is not None:
            # the rules absorbed it (the verdict says so): the HTML's wording, not a difference
            lines.append(f"- {code('@' + str(name))}: written differently in {text(', '.join(differing))} "
                         f"(absorbed by the rules: {text(', '.join(k for k, _ in rules) or 'none')})")
        else:
            lines.append("- " + function_headline(name, differing, code, text))
        if differing is None:
            continue
        for key, section in sections:
            lines += _section_table(key, section, mark)
    return lines


def _section_table(key: str, section, mark: str) -> List[str]:
    """One summary section's differing rows as a table (the op histogram by op name)."""
    lines = ["", f"  **{text(SECTION_TITLES.get(key, key))}**", ""]
    lines += ["  | | left | right |", "  |---|---|---|"] if key != "op_histogram" else \
             ["  | op | left | right |", "  |---|---:|---:|"]
    for row in section["rows"]:
        if row["same"]:
            continue
        if key == "op_histogram":
            lines.append(f"  | {code(row['op'])} | {row['left']} | {row['right']} |")
            continue
        lines.append(f"  | {mark} | {_cell(row.get('left'))} | {_cell(row.get('right'))} |")
        for a in row.get("accesses", []):
            if not a["same"]:
                lines.append(f"  | {mark} access | {_cell(a.get('left'))} | {_cell(a.get('right'))} |")
    lines.append("")
    return lines


def diff_block(d: Difference) -> List[str]:
    """A root difference's two sides as a fenced ```diff block inside its list item (CommonMark
    renders ``-``/``+`` lines there as removed/added, not as bullets). A code block shows its text
    literally: only control characters are escaped, and the fence outgrows any backtick run."""
    body = []
    for sign, ref in (("-", d.left), ("+", d.right)):
        if ref is None:
            body.append(f"{sign} (absent on this side)")
            continue
        loc = f"    @ {ref.location}" if ref.location else ""
        body.append(printable(f"{sign} {ref.op_id}: {ref.text}{loc}"))
    fence = "```"
    while any(fence in line for line in body):
        fence += "`"
    return ["", f"   {fence}diff"] + [f"   {line}" for line in body] + [f"   {fence}"]


def _cell(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, dict):
        v = "{" + ", ".join(f"{k}: {x}" for k, x in v.items()) + "}"
    return code(v)
