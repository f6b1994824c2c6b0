"""Decode + print time vs NVIDIA's tileirdisasm on the same files, from one run.

    python3 benchmarks/bench_decode.py [--ops 3000] [--repeat 7]

Files: the largest corpus kernel and a generated kernel of >= 3,000 ops (benchmarks/synth.py).
``tileirdisasm FILE`` is timed as a command (it is one); ours is timed in-process (decode the
bytes + print the text, what ``tileir_diff.load`` + ``print_module`` cost) and as the whole
``tileir-diff dump FILE`` command (interpreter start, imports from cached bytecode: what a user
pays). Every figure is the median of ``--repeat`` runs (the machine is shared; the load average
is printed). The goal (<= 5x) is on both ratios. Asserts nothing about speed; checks that our
text is byte-identical to tileirdisasm's.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _proc import cli_command, load_line, median, python_env, wall, warm_up  # noqa: E402
from synth import synth_bytes  # noqa: E402
from tileir_diff import load  # noqa: E402
from tileir_diff.text.printer import print_module  # noqa: E402
from tileir_diff.tools import find_tool  # noqa: E402

GOAL = 5.0


def median_of(fn, n):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
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
    files = [(f"largest corpus kernel ({corpus[-1].stem})", corpus[-1]), (f"synthetic {args.ops}-op kernel", synth)]
    env = python_env(ROOT, tmp / "pyc")
    warm_up(env, ROOT)
    print(f"before: {load_line()}; median of {args.repeat} runs each")
    head = (f"{'file':48} {'ops':>6} {'tileirdisasm':>12} {'decode':>8} {'print':>8} {'ours':>8} {'ratio':>6} "
            f"{'goal':>6} {'dump cmd':>9} {'ratio':>6}  text")
    print(head)
    print("-" * len(head))
    all_met = True
    for label, path in files:
        data = path.read_bytes()
        m = load(data)
        nops = sum(1 for _ in m.walk())
        ours_out = print_module(m)
        ref_out = subprocess.run([disasm, str(path)], capture_output=True, text=True).stdout
        t_ref = median([wall([disasm, str(path)]) for _ in range(args.repeat)])
        t_decode = median_of(lambda: load(data), args.repeat)  # noqa: B023
        t_print = median_of(lambda: print_module(m), args.repeat)  # noqa: B023
        t_lib = median_of(lambda: print_module(load(data)), args.repeat)  # noqa: B023
        t_cmd = median([wall(cli_command("dump", str(path)), env) for _ in range(args.repeat)])
        same = "identical" if ours_out == ref_out else "DIFFERS"
        ratio = t_lib / t_ref
        all_met &= ratio <= GOAL and t_cmd / t_ref <= GOAL
        print(f"{label:48} {nops:6d} {t_ref * 1e3:10.1f}ms {t_decode * 1e3:6.1f}ms {t_print * 1e3:6.1f}ms "
              f"{t_lib * 1e3:6.1f}ms {ratio:5.1f}x {'<=' + str(int(GOAL)) + 'x':>6} {t_cmd * 1e3:7.1f}ms "
              f"{t_cmd / t_ref:5.1f}x  {same}")
    print(f"after: {load_line()}")
    print(f"goal (decode + print <= {GOAL:.0f}x tileirdisasm, in-process and as a command): "
          f"{'met' if all_met else 'NOT met'}")
    print("'ours' = tileir_diff.load(bytes) + print_module; 'dump cmd' = `python -m tileir_diff.cli dump FILE` "
          "(interpreter start-up and imports from cached bytecode included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
