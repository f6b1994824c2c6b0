#!/usr/bin/env python3
"""The launchers' worst pick over measured selection grids, per file: for every row of an op, the
pick of its select function (reference/<op>/kernel.py) over the fastest measured variant, the
largest such ratio, and every pick above the file's tolerance. No GPU; needs cuda.tile to import
the launcher (as tests/suite/test_selection_results.py, which asserts what this prints).

    python3 scripts/selection_worst.py --op layer_norm [FILE ...]

FILE defaults to docs/results/selection.json and selection_repeat.json; a bench_selection.py
output (a GPU run's sel1/selection.json or sel2/selection.json) works the same.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT = [REPO / "docs" / "results" / name for name in ("selection.json", "selection_repeat.json")]


def _launcher(op: str):
    spec = importlib.util.spec_from_file_location(f"_worst_{op}", REPO / "reference" / op / "kernel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ratios(doc: dict, op: str, launcher) -> list[tuple[float, dict, str]]:
    """(pick time / fastest time, row, pick) for each of the op's rows, in file order."""
    out = []
    for row in doc["rows"]:
        if row["op"] != op:
            continue
        pick = getattr(launcher, row.get("select") or "select_variant")(*row["args"])
        pick = ",".join(pick) if isinstance(pick, tuple) else pick
        times = row["times_us"]
        if pick not in times:
            raise SystemExit(f"{op} {row['args']}: picks {pick}, not measured ({sorted(times)})")
        out.append((times[pick] / min(times.values()), row, pick))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", required=True)
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    args = parser.parse_args(argv)
    launcher = _launcher(args.op)
    over = 0
    for path in args.files:
        doc = json.loads(path.read_text())
        tolerance = doc.get("tolerance", 1.10)
        got = ratios(doc, args.op, launcher)
        if not got:
            print(f"{path}: no {args.op} rows")
            continue
        ratio, row, pick = max(got, key=lambda g: g[0])
        print(f"{path}: {len(got)} {args.op} rows, worst pick {ratio:.3f}x ({row['args'][:3]}: {pick} "
              f"{row['times_us'][pick]} us, fastest {row['fastest']} {min(row['times_us'].values())} us)")
        for r, row, pick in got:
            if r > tolerance:
                over += 1
                print(f"  above {tolerance}x: {row['args']}: {pick} {r:.3f}x the fastest {row['fastest']}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
