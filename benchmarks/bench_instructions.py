#!/usr/bin/env python3
"""Instructions, not seconds: the diff against tileirdisasm under ``valgrind --tool=callgrind``.

    python3 benchmarks/bench_instructions.py [--ops 3000] [--baseline DIR] [--pair A B]... [--dump FILE]...
                                             [--load FILE]...

On a shared machine wall times move by 2-4x from one minute to the next; the number of
instructions a process retires does not depend on the load. For the generated pair of
``bench_diff.py`` (``--ops``, one constant changed) and each ``--pair``, this counts:

- ``tileirdisasm`` on both files (two processes);
- ``tileir-diff diff A B`` as a whole process (``python -m tileir_diff.cli``, imports from a
  bytecode cache filled before counting), for this checkout and ``--baseline DIR`` if given;
- ``tileir-diff dump FILE`` as a whole process for each ``--dump`` (start-up and imports are
  most of it for a port-sized kernel), against ``tileirdisasm FILE``;
- for each ``--load FILE``, decoding it and decoding + verifying it in process: a first load
  (a process loading it once minus one loading it never: the op plans are built then) and a
  later one (four loads minus one, divided by three), with ``PYTHONHASHSEED=0``;
- ``python -c pass`` (the interpreter's start, which every whole-process figure includes);

and prints each count and its ratio to tileirdisasm's. Instruction ratios understate time ratios
(tileirdisasm, native code, retires more instructions per cycle than the interpreter), so this
compares checkouts; ``bench_diff.py`` gives the time ratios. A 3,000-op pair takes about a
minute under callgrind; 30,000 ops about ten. Exit status 2 without valgrind or tileirdisasm.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _proc import CHILD_CWD, ROOT, python_env, wall, warm_up  # noqa: E402
from bench_diff import make_pair  # noqa: E402

from tileir_diff.tools import find_tool  # noqa: E402


def instructions(cmd, env=None) -> int:
    """Instructions ``cmd`` retires (callgrind's total; the exit status is not checked: a diff
    exits 1 for ``different``)."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *cmd],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=CHILD_CWD)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if not found:
        raise RuntimeError(f"callgrind counted nothing for {' '.join(cmd)}: {done.stderr[-400:]}")
    return int(found.group(1))


#: One child process: ``N`` loads of a file (``decode``: without the verifier), kept alive, then
#: the exit the CLI takes (no teardown counted).
_LOAD_CHILD = r"""
import os, sys
from tileir_diff.bytecode.reader import read_bytecode
import tileir_diff.ir.verify  # imported on the first verified load otherwise: not a load's cost
mode, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = open(path, "rb").read()
kept = [read_bytecode(data, path, verify=mode == "load") for _ in range(n)]
os._exit(0)
"""


def load_instructions(python: str, env, path: str, mode: str):
    """(first, later) instructions of one in-process load of ``path`` (see the module docstring)."""
    env = dict(env, PYTHONHASHSEED="0")
    wall([python, "-c", _LOAD_CHILD, mode, "1", path], env)  # fills the bytecode cache
    counts = [instructions([python, "-c", _LOAD_CHILD, mode, str(n), path], env) for n in (0, 1, 4)]
    return counts[1] - counts[0], (counts[2] - counts[1]) / 3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--ops", type=int, default=3000, help="ops of the generated pair (0: none)")
    ap.add_argument("--baseline", type=Path, help="another checkout (its tileir_diff/ folder's parent)")
    ap.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A", "B"), help="also this pair")
    ap.add_argument("--dump", action="append", default=[], metavar="FILE", help="also `tileir-diff dump FILE`")
    ap.add_argument("--load", action="append", default=[], metavar="FILE",
                    help="also decode and decode + verify FILE in process")
    args = ap.parse_args(argv)
    disasm = find_tool("tileirdisasm")
    if disasm is None or shutil.which("valgrind") is None:
        print("needs valgrind and tileirdisasm (pip install nvidia-cuda-tileiras)", file=sys.stderr)
        return 2
    # the interpreter itself, not a launcher script (pyenv's shims are shell scripts)
    python = str(Path(sys.executable).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        roots = [("this", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
        checkouts = [(label, python_env(root, Path(tmp) / f"pyc-{label}")) for label, root in roots]
        for (_, env), (_, root) in zip(checkouts, roots):
            warm_up(env, root)
        pairs = [(f"generated, {ops:,} ops", *map(str, paths))
                 for paths, ops in ([make_pair(args.ops, Path(tmp))] if args.ops else [])]
        pairs += [(f"{Path(b).parent.name}/{Path(b).name}", str(Path(a).resolve()), str(Path(b).resolve()))
                  for a, b in args.pair]
        start = instructions([python, "-c", "pass"])
        print(f"python -c pass: {start / 1e6:,.1f} M instructions")
        for name, a, b in pairs:
            wall([disasm, a])
            wall([disasm, b])  # RuntimeError unless tileirdisasm reads both
            tool = instructions([disasm, a]) + instructions([disasm, b])
            print(f"{name}: tileirdisasm x2 {tool / 1e6:,.1f} M")
            for label, env in checkouts:
                cmd = [python, "-m", "tileir_diff.cli", "diff", a, b]
                wall(cmd, env, ok=(0, 1, 3, 4))  # fills the bytecode cache; RuntimeError if the diff fails (4: specialized)
                ours = instructions(cmd, env)
                print(f"  {label:>8}: tileir-diff diff (whole process) {ours / 1e6:,.1f} M, {ours / tool:.1f}x "
                      f"tileirdisasm x2")
        for path in (str(Path(p).resolve()) for p in args.dump):
            wall([disasm, path])
            tool = instructions([disasm, path])
            print(f"dump {Path(path).parent.name}/{Path(path).name}: tileirdisasm {tool / 1e6:,.1f} M")
            for label, env in checkouts:
                cmd = [python, "-m", "tileir_diff.cli", "dump", path]
                wall(cmd, env)
                ours = instructions(cmd, env)
                print(f"  {label:>8}: tileir-diff dump (whole process) {ours / 1e6:,.1f} M, {ours / tool:.1f}x tileirdisasm")
        for path in (str(Path(p).resolve()) for p in args.load):
            print(f"load {Path(path).parent.name}/{Path(path).name} (in process, first / later):")
            for label, env in checkouts:
                (d1, d2), (l1, l2) = (load_instructions(python, env, path, mode) for mode in ("decode", "load"))
                print(f"  {label:>8}: decode {d1 / 1e6:,.1f} / {d2 / 1e6:,.1f} M, verify {(l1 - d1) / 1e6:,.1f} / "
                      f"{(l2 - d2) / 1e6:,.1f} M, load {l1 / 1e6:,.1f} / {l2 / 1e6:,.1f} M")
    return 0


if __name__ == "__main__":
    sys.exit(main())
