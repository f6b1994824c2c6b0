"""docs/results/ports_results.md from ports_results.json (written by tests/rust/test_gpu_ports.py
with TILEIR_PORTS_RESULTS set): one row per variant, its cases, result and worst error per output.

Usage: python3 scripts/gpu/render_ports_results.py docs/results/ports_results.json [--tests N]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def render(doc: dict, tests_passed: int | None = None) -> str:
    rows: dict = {}
    for case in doc["cases"]:
        row = rows.setdefault((case["op"], case["variant"]), {"cases": 0, "fail": 0, "err": {}})
        row["cases"] += 1
        row["fail"] += case.get("result") != "pass"
        for name, out in case.get("outputs", {}).items():
            row["err"][name] = max(row["err"].get(name, 0.0), out.get("max_abs_err", 0.0))
    passed = sum(r["fail"] == 0 for r in rows.values())
    command = ("`TILEIR_PORTS_RESULTS=$OUT/ports_results.json python3 -m pytest -q -m gpu "
               "tests/rust/test_gpu_ports.py` (carrying build/rust's sm_90 cubins and the C ABI library)")
    lines = ["# cuTile Rust ports on the GPU", "",
             f"- date: {doc.get('date')}", f"- GPU: {doc.get('gpu')}", f"- driver: {doc.get('driver')}",
             f"- torch: {doc.get('torch')}",
             f"- command: {command}" + (f", {tests_passed} tests passed" if tests_passed else "") +
             ": numerics of every variant and test shape through the C ABI (each variant forced), no "
             "allocation by a launch, in-order execution on a non-default stream, the driver-side "
             "rejections.",
             *[f"- updated {u['date']}: the cases of {', '.join(u['ops'])} replaced by a later run ({u.get('note', '')})"
               for u in doc.get("updates", ())],
             f"- {len(doc['cases'])} numerics cases over {len(rows)} variants; {passed} variants pass every case.", "",
             "Each case records the sha256 of the sm_90 cubin it ran; the port table (docs/PORTS.md) shows a "
             "result for another build of the cubin as stale.", "",
             "| op | variant | cases | result | max abs error per output |", "|---|---|---|---|---|"]
    for (op, variant), r in sorted(rows.items()):
        errs = ", ".join(f"{k}: {v:.3g}" for k, v in sorted(r["err"].items()))
        lines.append(f"| {op} | {variant} | {r['cases']} | {'pass' if not r['fail'] else str(r['fail']) + ' fail'} | {errs} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", type=Path)
    ap.add_argument("--tests", type=int, help="how many GPU tests passed in the run (for the header)")
    args = ap.parse_args(argv)
    doc = json.loads(args.json.read_text())
    args.json.with_suffix(".md").write_text(render(doc, args.tests), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
