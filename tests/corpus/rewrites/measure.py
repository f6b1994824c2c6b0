"""The equivalent-rewrite corpus measured (docs/verification.md "Equivalent rewrites"): every pair
of manifest.json diffed, and

* **flagged**: of the pairs judged ``equivalent``/``specialized`` (the rewrites), those the diff
  calls ``different`` or ``unknown``;
* **controls passed**: of the pairs judged ``different`` (the controls), those the diff gives a
  same or specialized verdict (must be 0).

``python3 tests/corpus/rewrites/measure.py [-v]`` prints flagged/total and every pair's verdict
(-v: with the first root of each pair that did not get its judged verdict).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import tileir_diff  # noqa: E402

SAME = ("identical", "equivalent", "specialized")


def manifest() -> List[dict]:
    return json.loads((HERE / "manifest.json").read_text())


def outcome(entry: dict) -> Dict[str, object]:
    name = entry["name"]
    result = tileir_diff.diff(str(HERE / f"{name}.left.tir"), str(HERE / f"{name}.right.tir"))
    flagged = not entry["control"] and result.verdict not in SAME
    passed_control = entry["control"] and result.verdict in SAME
    first = result.differences[0] if result.differences else None
    return {"name": name, "expect": entry["expect"], "control": entry["control"], "verdict": result.verdict,
            "flagged": flagged, "passed_control": passed_control,
            "root": f"{first.category}: {first.message}" if first is not None else ""}


def measure() -> Dict[str, object]:
    rows = [outcome(e) for e in manifest()]
    rewrites = [r for r in rows if not r["control"]]
    return {"rows": rows, "rewrites": len(rewrites), "flagged": sum(bool(r["flagged"]) for r in rows),
            "controls": len(rows) - len(rewrites), "controls_passed": sum(bool(r["passed_control"]) for r in rows)}


def main(verbose: bool = False) -> None:
    m = measure()
    print(f"pairs: {len(m['rows'])} ({m['rewrites']} equivalent rewrites, {m['controls']} controls)")
    print(f"rewrites flagged: {m['flagged']}/{m['rewrites']} = {100.0 * m['flagged'] / max(m['rewrites'], 1):.1f} %")
    print(f"controls given a same verdict: {m['controls_passed']}/{m['controls']}")
    for r in m["rows"]:
        mark = "FLAGGED" if r["flagged"] else "CONTROL PASSED" if r["passed_control"] else "ok"
        kind = "control" if r["control"] else "rewrite"
        print(f"  {r['name']:34} {kind:8} judged {r['expect']:12} got {r['verdict']:12} {mark}")
        if verbose and r["verdict"] != r["expect"] and r["root"]:
            print(f"      {str(r['root'])[:200]}")


if __name__ == "__main__":
    main("-v" in sys.argv)
