#!/usr/bin/env python3
"""The port table under load against the port table alone (issue 27): verdicts must not depend
on the machine's load. Runs the diffs of ``scripts/smt_work.py`` (port rows with their launch
facts, optionally the corpus's Rust snapshots) once in a child process on its own, then again in
a child at ``nice -n 19`` while ``--hogs`` busy-loop processes compete for the cores, and
compares every pair's JSON report (wall-clock fields masked) byte for byte.

Prints the two runs' wall times, the load average during the loaded run, the verdicts of each,
and the pairs whose verdict or report differs. Exit status 1 on any difference.

    python scripts/stress_load.py                          # the whole port table, 4 hogs
    python scripts/stress_load.py --ports 60 --hogs 6 --op bmm

Before the budgets were work (rlimit, counted matcher steps), the port table at ``nice -n 19``
under a load average of ~10 turned 7 of bmm's rows ``different`` (proofs out of time).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOG = "import os\nwhile True:\n    os.getpid()\n"


def run_table(out: Path, args, nice: int = 0) -> float:
    cmd = [sys.executable, str(ROOT / "scripts" / "smt_work.py"), "--json-dir", str(out),
           "--ports", str(args.ports), "--corpus", str(args.corpus)]
    for op in args.op or ():
        cmd += ["--op", op]
    if nice:
        cmd = ["nice", "-n", str(nice)] + cmd
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def verdicts(folder: Path) -> dict:
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))["verdict"] for p in sorted(folder.glob("*.json"))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ports", type=int, default=0, help="port rows, spread over the table (0: all)")
    ap.add_argument("--corpus", type=int, default=-1, help="corpus pairs too (0: all; -1: none, the default)")
    ap.add_argument("--op", action="append", help="only the port rows of this op (repeatable)")
    ap.add_argument("--hogs", type=int, default=4, help="busy-loop processes during the loaded run")
    ap.add_argument("--nice", type=int, default=19, help="niceness of the loaded run (default 19)")
    args = ap.parse_args(argv)
    # a SIGTERM (timeout, CI) unwinds like an exception, so that the hogs are stopped below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as tmp:
        calm, loaded = Path(tmp) / "calm", Path(tmp) / "loaded"
        calm_s = run_table(calm, args)
        print(f"alone: {calm_s:.1f} s", flush=True)
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
        try:
            time.sleep(2.0)  # let the load average climb
            loaded_s = run_table(loaded, args, nice=args.nice)
            load = os.getloadavg()[0]
        finally:
            for h in hogs:  # only the processes started here, by their own handle
                h.kill()
                h.wait()
        a, b = verdicts(calm), verdicts(loaded)
        changed = sorted(k for k in a if a.get(k) != b.get(k))
        differ = sorted(k for k in a if (calm / f"{k}.json").read_bytes() != (loaded / f"{k}.json").read_bytes())
    count = lambda v: dict(sorted({x: list(v.values()).count(x) for x in set(v.values())}.items()))  # noqa: E731
    print(f"pairs: {len(a)}; alone {calm_s:.1f} s, loaded (nice {args.nice}, {args.hogs} hogs, load average "
          f"{load:.1f}) {loaded_s:.1f} s")
    print(f"verdicts alone: {count(a)}; loaded: {count(b)}")
    print(f"verdicts changed: {len(changed)}; reports not byte-identical: {len(differ)}")
    for k in differ[:20]:
        print(f"  {k}: {a.get(k)} -> {b.get(k)}")
    return 1 if changed or differ or len(a) != len(b) else 0


if __name__ == "__main__":
    sys.exit(main())
