#!/usr/bin/env python3
"""Diff two Tile IR files with the library and print the verdict and root differences.

    python3 examples/diff_two_files.py [LEFT RIGHT]

Without arguments it compares one corpus kernel exported at bytecode 13.3 and at 13.4
(identical: only the encoding differs; absent fields read as their defaults). Exits with the
same status as ``tileir-diff diff``.
"""
import sys
from pathlib import Path

import tileir_diff

DATA = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "data"
left, right = sys.argv[1:3] if len(sys.argv) == 3 else (DATA / "reduce_custom.v13_3.tileirbc",
                                                          DATA / "reduce_custom.v13_4.tileirbc")

result = tileir_diff.diff(left, right)
print(f"verdict: {result.verdict}")
for name, count in sorted(result.rules_applied.items()):
    print(f"  rule {name}: {count} rewrites")
for d in result.differences:
    where = d.left.op_id if d.left else d.right.op_id
    print(f"  [{d.category}] {where}: {d.message}")
sys.exit(result.exit_code)
