"""Plain-text rendering of kernel and pair summaries (``tileir-diff summary``, text reports)."""
from __future__ import annotations

from typing import Any, Dict, List

from ..errors import printable
from .common import compact, function_headline, function_pairs

SECTION_TITLES = {"memory": "memory", "reductions": "reductions/scans", "mma": "mma", "loops": "control flow",
                  "assumptions": "assumptions"}


def render_kernel(summary: Dict[str, Any], *, histogram: bool = True) -> str:
    """A module summary as indented text, one function after another."""
    lines: List[str] = []
    head = f"module (bytecode {summary.get('version')})"
    if summary.get("source"):
        head += f" from {summary['source']}"
    lines.append(head)
    for fn in summary.get("functions", []):
        lines.extend(function_lines(fn, histogram=histogram))
    for g in summary.get("globals", []):
        lines.append(f"  global @{g['name']} = {g['value']}")
    # Strings from the file (names, paths) must not split lines or carry terminal escapes.
    return "\n".join(printable(line) for line in lines) + "\n"


def function_lines(fn: Dict[str, Any], *, histogram: bool = True, indent: str = "  ") -> List[str]:
    kind = "entry" if fn.get("entry", True) else "function"
    lines = [f"{indent}{kind} {fn['signature']['text']}  [{fn['num_ops']} ops]"]
    i2 = indent + "  "
    if fn.get("hints"):
        lines.append(f"{i2}hints: {compact(fn['hints'])}")
    if fn.get("tile_shapes"):
        lines.append(f"{i2}tile shapes: {', '.join(fn['tile_shapes'])}")
    if fn.get("memory"):
        lines.append(f"{i2}memory:")
        for group in fn["memory"]:
            lines.append(f"{i2}  {group['text']}")
            for a in group["accesses"]:
                lines.append(f"{i2}    {a['op_id']}: {a['text']}")
    for key in ("reductions", "mma", "loops", "assumptions"):
        items = fn.get(key) or []
        if items:
            lines.append(f"{i2}{SECTION_TITLES[key]}:")
            for it in items:
                lines.append(f"{i2}  {it['op_id']}: {it['text']}")
    if histogram and fn.get("op_histogram"):
        ops = ", ".join(f"{k}×{v}" for k, v in fn["op_histogram"].items())
        lines.append(f"{i2}ops: {ops}")
    return lines


def pair_lines(pair: Dict[str, Any], *, only_differing: bool = True, indent: str = "  ") -> List[str]:
    """Differing rows of a pair summary, ``- left`` / ``+ right`` style."""
    lines: List[str] = []
    for title, differing, sections in function_pairs(pair):
        lines.append(indent + function_headline(title, differing))
        if differing is None:
            continue
        for name, section in sections:
            lines.append(f"{indent}  {name}:")
            lines.extend(_section_rows(name, section, indent + "    ", only_differing))
    return lines


def _section_rows(name: str, section: Dict[str, Any], indent: str, only_differing: bool) -> List[str]:
    out: List[str] = []
    if name == "tile_shapes":
        if section.get("only_left"):
            out.append(f"{indent}- only left: {', '.join(section['only_left'])}")
        if section.get("only_right"):
            out.append(f"{indent}+ only right: {', '.join(section['only_right'])}")
        return out
    if name == "op_histogram":
        rows = [r for r in section["rows"] if not (only_differing and r["same"])]
        if rows:
            out.append(indent + ", ".join(f"{r['op']} {r['left']}→{r['right']}" for r in rows))
        return out
    for row in section["rows"]:
        if only_differing and row["same"]:
            continue
        if name == "memory":
            label = f"view {row['view']}"
            if row["left"] != row["right"]:
                out.append(f"{indent}- {label}: {_or_absent(row['left'])}")
                out.append(f"{indent}+ {label}: {_or_absent(row['right'])}")
            else:
                out.append(f"{indent}  {label}: {row['left']}")
            for acc in row["accesses"]:
                if only_differing and acc["same"]:
                    continue
                out.append(f"{indent}  - {_or_absent(acc['left'])}")
                out.append(f"{indent}  + {_or_absent(acc['right'])}")
            continue
        out.append(f"{indent}- {_or_absent(_cell(row['left']))}")
        out.append(f"{indent}+ {_or_absent(_cell(row['right']))}")
    return out


def _cell(v: Any) -> Any:
    return compact(v) if isinstance(v, (dict, list)) else v


def _or_absent(v: Any) -> str:
    return "(absent)" if v is None else str(v)


