#!/usr/bin/env python3
"""Write a demo diff report: a corpus matmul vs a text copy with two planted bugs.

    python3 scripts/demo_report.py OUT.html [--format html|json|text|markdown]

The right side is the left kernel printed as text with the loop step constant changed 1 -> 2
and the store's index swapped ([bid.x, bid.y] -> [bid.y, bid.x]): two root differences
(constant/control flow and memory) with their downstream effects. Used by
scripts/screenshot_report.sh --demo and the screenshot test.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tileir_diff  # noqa: E402

LEFT = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_4.tileirbc"


def planted_bug_text(module) -> str:
    text = tileir_diff.print_module(module)
    step = re.search(r"step (%[\w]+)\)", text).group(1)
    text, n1 = re.subn(rf"({re.escape(step)} = constant <i32: )1>", r"\g<1>2>", text)
    text, n2 = re.subn(r"(store_view_tko weak %\w+, %\w+)\[(%\w+), (%\w+)\]", r"\1[\3, \2]", text)
    if (n1, n2) != (1, 1):
        raise SystemExit(f"demo: the kernel text changed shape (edits applied: {n1}, {n2})")
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--format", default="html", choices=("html", "json", "text", "markdown"))
    args = ap.parse_args(argv)
    left = tileir_diff.load(LEFT)
    right_text = planted_bug_text(left)
    right_path = Path(args.out).with_suffix(".right.tileir")
    right_path.write_text(right_text, encoding="utf-8")
    result = tileir_diff.diff(LEFT, right_path)
    from tileir_diff.report import render
    Path(args.out).write_text(render(result, args.format), encoding="utf-8")
    print(f"{result.verdict}: {len(result.differences)} root differences -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
