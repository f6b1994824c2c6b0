"""Summary of a pair of kernels: the two kernel summaries side by side, differences flagged.

This compares summaries, not graphs: it answers "what does each side do" at a glance and
flags rows that differ; the diff engine decides what the root differences are.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

SECTIONS = ("signature", "hints", "tile_shapes", "memory", "reductions", "mma", "loops",
            "assumptions", "op_histogram")


def pair_function_summaries(left: Sequence[dict], right: Sequence[dict]) -> List[tuple]:
    """Pair function summaries by name, then the rest by position (ports often rename)."""
    right_by_name = {f["name"]: f for f in right}
    pairs: List[Tuple[Optional[dict], Optional[dict]]] = []
    used = set()
    unpaired_left = []
    for lf in left:
        rf = right_by_name.get(lf["name"])
        if rf is not None and rf["name"] not in used:
            pairs.append((lf, rf))
            used.add(rf["name"])
        else:
            unpaired_left.append(lf)
    unpaired_right = [f for f in right if f["name"] not in used]
    for i in range(max(len(unpaired_left), len(unpaired_right))):
        pairs.append((unpaired_left[i] if i < len(unpaired_left) else None,
                      unpaired_right[i] if i < len(unpaired_right) else None))
    return pairs


def summarize_pair_dicts(left: dict, right: dict) -> Dict[str, Any]:
    """``{"functions": [...], "same": bool}`` from two module summaries."""
    functions = []
    for lf, rf in pair_function_summaries(left.get("functions", []), right.get("functions", [])):
        functions.append(_function_pair(lf, rf))
    same = all(f["same"] for f in functions) and left.get("globals") == right.get("globals")
    return {"functions": functions, "same": same,
            "version": {"left": left.get("version"), "right": right.get("version"),
                        "same": left.get("version") == right.get("version")}}


def _function_pair(lf: Optional[dict], rf: Optional[dict]) -> Dict[str, Any]:
    out: Dict[str, Any] = {"left": lf["name"] if lf else None, "right": rf["name"] if rf else None}
    if lf is None or rf is None:
        out["sections"] = {}
        out["same"] = False
        out["differing_sections"] = ["function"]
        return out
    sections = {
        "signature": _scalar_row(lf["signature"]["text"].replace(f"@{lf['name']}", "@"),
                                 rf["signature"]["text"].replace(f"@{rf['name']}", "@"),
                                 lf["signature"]["text"], rf["signature"]["text"]),
        "hints": _scalar_row(lf["hints"], rf["hints"]),
        "tile_shapes": _set_rows(lf["tile_shapes"], rf["tile_shapes"]),
        "memory": _memory_rows(lf["memory"], rf["memory"]),
        "reductions": _list_rows(lf["reductions"], rf["reductions"]),
        "mma": _list_rows(lf["mma"], rf["mma"]),
        "loops": _list_rows(lf["loops"], rf["loops"]),
        "assumptions": _fact_rows(lf["assumptions"], rf["assumptions"]),
        "op_histogram": _histogram_rows(lf["op_histogram"], rf["op_histogram"]),
    }
    out["sections"] = sections
    out["differing_sections"] = [k for k in SECTIONS if not sections[k]["same"]]
    out["same"] = not out["differing_sections"]
    return out


def _scalar_row(left_key, right_key, left_text=None, right_text=None) -> Dict[str, Any]:
    return {"same": left_key == right_key,
            "rows": [{"left": left_text if left_text is not None else left_key,
                      "right": right_text if right_text is not None else right_key,
                      "same": left_key == right_key}]}


def _set_rows(left: Sequence[str], right: Sequence[str]) -> Dict[str, Any]:
    ls, rs = set(left), set(right)
    ordered = list(left) + [x for x in right if x not in ls]
    rows = [{"left": x if x in ls else None, "right": x if x in rs else None, "same": x in ls and x in rs}
            for x in ordered]
    return {"same": ls == rs, "rows": rows, "only_left": sorted(ls - rs), "only_right": sorted(rs - ls)}


def _list_rows(left: Sequence[dict], right: Sequence[dict]) -> Dict[str, Any]:
    """Pair items by position (program order) and compare their one-line texts."""
    rows = []
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else None
        b = right[i] if i < len(right) else None
        rows.append(_row(a, b))
    return {"same": all(r["same"] for r in rows), "rows": rows}


def _fact_rows(left: Sequence[dict], right: Sequence[dict]) -> Dict[str, Any]:
    """Assumptions compared as sets of ``value: predicate`` facts: where each is written, in which
    order and how often (cuTile Python repeats ``div_by`` in stride chains) does not matter."""
    first_l: Dict[str, dict] = {}
    first_r: Dict[str, dict] = {}
    for a in left:
        first_l.setdefault(a["text"], a)
    for b in right:
        first_r.setdefault(b["text"], b)
    texts = list(first_l) + [t for t in first_r if t not in first_l]
    rows = [_row(first_l.get(t), first_r.get(t)) for t in texts]
    return {"same": all(r["same"] for r in rows), "rows": rows}


def _row(a: Optional[dict], b: Optional[dict]) -> Dict[str, Any]:
    return {"left": a["text"] if a else None, "right": b["text"] if b else None,
            "left_op": a.get("op_id") if a else None, "right_op": b.get("op_id") if b else None,
            "same": a is not None and b is not None and a["text"] == b["text"]}


def _memory_rows(left: Sequence[dict], right: Sequence[dict]) -> Dict[str, Any]:
    """Pair views by (kind, label) — the argument they come from — then accesses in order."""
    def key(g):
        return (g["access"], g["view"])

    right_by_key: Dict[tuple, List[dict]] = {}
    for g in right:
        right_by_key.setdefault(key(g), []).append(g)
    rows = []
    used = set()
    for g in left:
        candidates = right_by_key.get(key(g), [])
        match = next((c for c in candidates if id(c) not in used and c["type"] == g["type"]), None)
        match = match or next((c for c in candidates if id(c) not in used), None)
        if match is not None:
            used.add(id(match))
        rows.append(_view_pair(g, match))
    for g in right:
        if id(g) not in used:
            rows.append(_view_pair(None, g))
    return {"same": all(r["same"] for r in rows), "rows": rows}


def _view_pair(a: Optional[dict], b: Optional[dict]) -> Dict[str, Any]:
    accesses = _list_rows(a["accesses"] if a else [], b["accesses"] if b else [])
    header_same = a is not None and b is not None and a["text"] == b["text"]
    either = a if a is not None else b
    assert either is not None, "a view row needs a view on one side"
    return {"view": either["view"], "left": a["text"] if a else None, "right": b["text"] if b else None,
            "same": header_same and accesses["same"], "accesses": accesses["rows"]}


def _histogram_rows(left: Dict[str, int], right: Dict[str, int]) -> Dict[str, Any]:
    names = sorted(set(left) | set(right))
    rows = [{"op": n, "left": left.get(n, 0), "right": right.get(n, 0),
             "same": left.get(n, 0) == right.get(n, 0)} for n in names]
    return {"same": all(r["same"] for r in rows), "rows": rows}
