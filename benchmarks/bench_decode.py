"""Decode + print time vs NVIDIA's tileirdisasm on the same files, from one run.

Files: the largest corpus kernel and a generated kernel of >= 3,000 ops (benchmarks/synth.py).
Both sides are timed as a user runs them, as whole commands (`tileir-diff dump FILE` vs
`tileirdisasm FILE`, best of N), and our in-process decode+print time is reported too.
Prints a table with ratios; asserts nothing about speed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import synth_bytes  # noqa: E402
from tileir_diff import load  # noqa: E402
from tileir_diff.text.printer import print_module  # noqa: E402
from tileir_diff.tools import find_tool  # noqa: E402


def best_of(fn, n):
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ops", type=int, default=3000)
    args = ap.parse_args()
    disasm = find_tool("tileirdisasm")
    if not disasm:
        print("tileirdisasm not found (pip install nvidia-cuda-tileiras)")
        return 2
    corpus = sorted((ROOT / "tests/corpus/data").glob("*.tileirbc"), key=lambda p: p.stat().st_size)
    tmp = Path(tempfile.mkdtemp())
    synth = tmp / f"synth_{args.ops}.tileirbc"
    synth.write_bytes(synth_bytes(args.ops))
    files = [("largest corpus kernel", corpus[-1]), (f"synthetic {args.ops}-op kernel", synth)]
    cli = [sys.executable, "-m", "tileir_diff.cli", "dump"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    print(f"{'file':34} {'bytes':>8} {'ops':>6} {'tileirdisasm':>13} {'dump (cmd)':>11} {'ratio':>6} "
          f"{'in-process':>11} {'ratio':>6}")
    for label, path in files:
        m = load(path)
        nops = sum(1 for _ in m.walk())
        ours_out = print_module(m)
        ref_out = subprocess.run([disasm, str(path)], capture_output=True, text=True).stdout
        t_ref = best_of(lambda: subprocess.run([disasm, str(path)], capture_output=True, check=True), args.repeat)
        t_cmd = best_of(lambda: subprocess.run(cli + [str(path)], capture_output=True, check=True, env=env),
                        args.repeat)
        t_lib = best_of(lambda: print_module(load(path)), args.repeat)
        same = "identical" if ours_out == ref_out else "text differs"
        print(f"{label:34} {path.stat().st_size:8d} {nops:6d} {t_ref * 1e3:11.1f}ms {t_cmd * 1e3:9.1f}ms "
              f"{t_cmd / t_ref:5.1f}x {t_lib * 1e3:9.1f}ms {t_lib / t_ref:5.1f}x   ({same})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
