#!/usr/bin/env python3
"""Thread stress run of the diff path (issue 27): N threads x M rounds over the kernel pairs whose
verdict the proof step decides (tests/check/proof_pairs.py), every result compared with the
serial one, JSON byte for byte (wall-clock figures masked).

Half the threads diff shared module objects (one parse, memo slots written concurrently), half
diff the printed text (each thread parses). Prints: diffs, threads, wall time (serial and
concurrent), mismatches vs serial, errors. Exit status 1 on any mismatch or error.

    python scripts/stress_threads.py                     # 16 threads x 5 rounds x 14 pairs = 1,120 diffs
    python scripts/stress_threads.py --threads 8 --rounds 2

The proof step's budget is work (z3's resource count, the same in every thread); its wall-clock
safety net is raised (``--smt-timeout``, default 60 s), since many threads on few shared cores
stretch every proof's wall time (past the net a diff is ``unknown``, which would be reported as a
mismatch). For load from other processes see scripts/stress_load.py.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tileir_diff  # noqa: E402
from tileir_diff.text.printer import print_module  # noqa: E402
from tests.check.proof_pairs import proof_pairs, stable_json  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=5, help="passes over all pairs per thread")
    ap.add_argument("--smt-timeout", type=float, default=60.0)
    args = ap.parse_args(argv)
    limits = {"smt_timeout_s": args.smt_timeout}

    def diff(a, b, launch):
        return stable_json(tileir_diff.diff(a, b, limits=limits, launch=list(launch), with_lines=False))

    shared = proof_pairs()
    texts = [(name, print_module(a), print_module(b), launch) for name, a, b, launch in shared]
    t0 = time.perf_counter()
    expected = {("module", name): diff(a, b, launch) for name, a, b, launch in shared}
    expected.update({("text", name): diff(a, b, launch) for name, a, b, launch in texts})
    serial_s = time.perf_counter() - t0

    results, errors = [], []
    barrier = threading.Barrier(args.threads)

    def work(t: int) -> None:
        kind, pairs = ("module", shared) if t % 2 else ("text", texts)
        barrier.wait()
        for r in range(args.rounds):
            for k in range(len(pairs)):
                name, a, b, launch = pairs[(k + t + r) % len(pairs)]  # threads start at different pairs
                try:
                    results.append(((kind, name), diff(a, b, launch)))
                except Exception as e:  # reported, counted as a failure
                    errors.append(f"{kind} {name}: {e!r}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(args.threads)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0
    mismatches = [key for key, text in results if text != expected[key]]
    n = len(results) + len(errors)
    per_serial = serial_s / len(expected)
    print(f"pairs: {len(shared)} (each as modules and as text; {len(expected)} serial diffs in {serial_s:.1f} s, "
          f"{per_serial * 1000:.0f} ms each)")
    print(f"concurrent: {n} diffs, {args.threads} threads x {args.rounds} rounds, wall {wall:.1f} s "
          f"({wall / n * 1000:.0f} ms per diff; serial would take ~{per_serial * n:.1f} s)")
    print(f"mismatches vs serial: {len(mismatches)}; errors: {len(errors)}")
    for key in sorted(set(mismatches))[:10]:
        print(f"  mismatch: {key[0]} {key[1]}")
    for e in errors[:10]:
        print(f"  error: {e}")
    return 1 if mismatches or errors else 0


if __name__ == "__main__":
    sys.exit(main())
