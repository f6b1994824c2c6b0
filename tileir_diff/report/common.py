"""Facts every renderer shows the same way: headline, difference locations, counts."""
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..errors import printable
from .result import DiffResult, Difference

VERDICT_MEANING = {
    "identical": "same after renaming values only",
    "equivalent": "same after the normalization rules listed",
    "specialized": "the same computation under other assumptions or hints (listed)",
    "different": "root differences found",
    "unknown": "the matcher hit a limit; no verdict",
}


# What json.dumps leaves raw with ensure_ascii=False: DEL, C1 controls, line and paragraph
# separators and the bidi marks and overrides (errors._UNSAFE_CHARS less C0, which JSON escapes
# itself; C0 outside strings is the indentation's newlines). A pattern compiled by re (and kept in
# its cache) at the first JSON report: compiling it costs a text report ~2.6 M instructions.
_JSON_UNSAFE = "[\x7f-\x9f\u061c\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"


def escape_controls(value: Any, keep: str = "") -> str:
    """``value`` as text with every control character (C0, DEL, C1) and every line, paragraph or
    direction separator written as ``\\xNN`` / ``\\uNNNN`` (``errors.printable``), except the
    characters in ``keep`` (HTML keeps newlines: layout there, not commands). The one
    place every renderer escapes what came from a file (names, hint keys, messages): no ANSI or
    OSC sequence restyles a terminal that shows the report, no bidi override reorders it."""
    s = "" if value is None else str(value)
    if not keep:
        return printable(s)
    out, start = [], 0
    for i, c in enumerate(s):
        if c in keep:
            out.append(printable(s[start:i]) + c)
            start = i + 1
    out.append(printable(s[start:]))
    return "".join(out)


def escape_json_text(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters it leaves raw that
    a terminal or a viewer acts on (C1 controls, DEL, separators, bidi marks) as ``\\uNNNN``:
    still the same JSON document, now safe to print."""
    return re.sub(_JSON_UNSAFE, lambda m: f"\\u{ord(m.group()):04x}", text)


def headline(result: DiffResult) -> str:
    n = len(result.differences)
    affected = sum(len(d.affected) for d in result.differences)
    text = f"{result.verdict.upper()}: {result.left_source} vs {result.right_source}"
    if result.verdict == "specialized":
        text += f" ({n} assumption/hint difference{'s' if n != 1 else ''}{accepted_note(result)})"
    elif result.verdict == "different":
        text += f" ({n} root difference{'s' if n != 1 else ''}"
        text += f", {affected} affected op{'s' if affected != 1 else ''}" if affected else ""
        text += f"{accepted_note(result)})"
    elif result.verdict == "unknown" and result.reason:
        text += f" ({result.reason})"
    return text


def ops_matched(result: DiffResult) -> Optional[int]:
    """The one "ops matched" count every report shows: the matcher's pairs summed over the entry
    pairs (what the functions table lists), or the mapping's size when there are no per-function
    counts; None when nothing was matched at all."""
    counts = [f.matched for f in result.functions if isinstance(f.matched, int)]
    if counts:
        return sum(counts)
    return len(result.mapping) if result.mapping else None


def accepted_note(result: DiffResult) -> str:
    """``, 2 of 3 accepted by reference/x/analysis.json`` after diff --accept, else ''."""
    source = result.accepted_from
    if not source:
        return ""
    n = sum(1 for d in result.differences if d.accepted)
    return f", {n} of {len(result.differences)} accepted by {source}"


def op_side(d: Difference) -> str:
    """``f0/o14 ↔ f0/o15``, ``f0/o14 (left only)`` ..."""
    if d.left and d.right:
        return f"{d.left.op_id} ↔ {d.right.op_id}"
    if d.left:
        return f"{d.left.op_id} (left only)"
    if d.right:
        return f"{d.right.op_id} (right only)"
    return "-"


def sorted_rules(result: DiffResult) -> List[Tuple[str, int]]:
    return sorted(result.rules_applied.items(), key=lambda kv: (-kv[1], kv[0]))


def difference_op_ids(result: DiffResult) -> Tuple[Dict[str, str], Dict[str, str]]:
    """Op id -> role ("diff" or "affected") per side, for highlighting printed modules."""
    left: Dict[str, str] = {}
    right: Dict[str, str] = {}
    for d in result.differences:
        for op_id in d.affected:
            left.setdefault(op_id, "affected")
        for op_id in d.affected_right:
            right.setdefault(op_id, "affected")
    for d in result.differences:
        if d.left:
            left[d.left.op_id] = "diff"
        if d.right:
            right[d.right.op_id] = "diff"
    return left, right


def pair_summary(result: DiffResult) -> Optional[Dict[str, Any]]:
    return result.summary.pair if result.summary is not None else None


def compact(v: Any) -> str:
    """A summary value on one line: ``{k: v, ...}``, ``[a, b]`` (no quotes, unlike repr)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {compact(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(compact(x) for x in v) + "]"
    return str(v)


def function_pairs(pair: Dict[str, Any]) -> Iterator[Tuple[str, Optional[List[str]], List[Tuple[str, Any]]]]:
    """Per function pair of a pair summary: its title (``k``, or ``k / k_port`` when renamed), the
    names of its differing sections (None when the summaries agree), and those sections that have
    rows, as (name, section)."""
    for fp in pair.get("functions", []):
        title = fp["left"] if fp["left"] == fp["right"] else f"{fp['left']} / {fp['right']}"
        if fp["same"]:
            yield title, None, []
            continue
        differing = fp["differing_sections"]
        yield title, differing, [(k, fp["sections"][k]) for k in differing if fp["sections"].get(k)]


def function_headline(title: str, differing: Optional[List[str]], name=str, text=str) -> str:
    """A function pair's first line, ``@title: summaries agree`` or ``@title: differs in a, b``;
    ``name`` and ``text`` render the title and the section names (a renderer's escaping)."""
    head = name("@" + str(title))
    return f"{head}: summaries agree" if differing is None else f"{head}: differs in {text(', '.join(differing))}"


def stats_items(result: DiffResult) -> List[Tuple[str, Any]]:
    """Flat ``(key, value)`` pairs of the matcher stats (nested dicts become ``a.b``)."""
    out: List[Tuple[str, Any]] = []

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else str(k), x)
        else:
            out.append((prefix, v))

    walk("", result.stats.to_dict())
    return out
