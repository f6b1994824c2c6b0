"""Probe: would a port's sm_90 SASS match its reference without the loop-index assumes?

cuTile Rust follows a range loop with a constant start (`for i in 0i32..n`) by
`assume bounded<0, ?>, %loopIdx`, which cuTile Python does not emit; tileiras can then compute
addresses off the uniform datapath (rope: fixed by looping over a `Dim`, see
rust_kernels/src/ops/rope/kernel.rs). For each port whose SASS record in
docs/results/ports_sass.json is `different` and whose Rust IR carries such assumes, this script
removes them from the IR text (tileirdisasm), re-encodes it (tileir_diff.bytecode.writer),
compiles it with tileiras for sm_90 into a scratch folder and compares the SASS with the
reference's again. Nothing under build/ is written.

Usage: python3 scripts/probe_loop_assume.py [--op OP]... [--out DIR]
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tileir_diff.bytecode.writer import write_bytecode  # noqa: E402
from tileir_diff.loader import load  # noqa: E402
from tileir_diff.suite.sass import compare_cubins  # noqa: E402
from tileir_diff.tools import find_tool  # noqa: E402

LOOP_ASSUME = re.compile(r"^\s*(%\w+) = assume bounded<[^>]*>, (%loopIdx\w*) : tile<i32>\s*$", re.M)


def strip_loop_assumes(text: str) -> tuple[str, int]:
    """The IR text without `assume bounded` on loop indices, each use renamed to the index."""
    found = LOOP_ASSUME.findall(text)
    text = LOOP_ASSUME.sub("", text)
    for assumed, index in found:
        text = re.sub(re.escape(assumed) + r"\b", index, text)
    return text, len(found)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--op", action="append", help="only this op (repeatable)")
    ap.add_argument("--out", type=Path, help="scratch folder (default: a new temporary one)")
    args = ap.parse_args()
    disasm, tileiras = find_tool("tileirdisasm"), find_tool("tileiras")
    if not disasm or not tileiras:
        print("tileirdisasm/tileiras not found", file=sys.stderr)
        return 1
    out = args.out or Path(tempfile.mkdtemp(prefix="loop_assume_"))
    out.mkdir(parents=True, exist_ok=True)
    records = json.loads((ROOT / "docs/results/ports_sass.json").read_text())["results"]
    for r in records:
        op, variant = r["op"], r["variant"]
        if r["verdict"] != "different" or (args.op and op not in args.op):
            continue
        rust = ROOT / "build/rust" / op / f"{variant}.tileirbc"
        if not rust.is_file():
            continue
        text = subprocess.run([disasm, str(rust)], capture_output=True, text=True, check=True).stdout
        stripped, n = strip_loop_assumes(text)
        if not n:
            continue
        prefix = out / f"{op}__{variant}"
        prefix.with_suffix(".tileirbc").write_bytes(write_bytecode(load(stripped)))
        cubin = prefix.with_suffix(".sm_90.cubin")
        subprocess.run([tileiras, "--gpu-name=sm_90", "-o", str(cubin), str(prefix.with_suffix(".tileirbc"))],
                       check=True, capture_output=True)
        c = compare_cubins(op, variant, ROOT / "build/reference" / op / f"{variant}.sm_90.cubin", cubin)
        print(f"{op}/{variant}: {n} loop assumes; instructions {r['instructions']} -> without them "
              f"{c.verdict} {c.instructions}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
