#!/usr/bin/env python3
"""Memory of a long-lived caller: the same diffs, round after round, in one process.

    python3 benchmarks/bench_memory.py [--rounds 4] [--no-ports] [--threads N]

A server or an agent loop calls ``tileir_diff.diff`` for hours; whatever a diff leaves behind
(a cache that grows with its inputs, objects only the cycle collector frees) shows as resident
memory that grows from round to round although every round does the same work. Each round diffs
every pair of the third-party-style corpus (tests/corpus/third_party_style: ports written in other
styles, many proven with z3) and, unless ``--no-ports``, every port pair of the built suite
(``$TILEIR_REFERENCE_BUILD`` / ``$TILEIR_CUBIN_DIR`` or build/). The cycle collector runs as it
would (never forced). Printed per round: resident memory, its change, the z3 contexts still alive
(each one ``smt.new_context`` made, through a weak reference) and the bytes the attribute-key memo
tables hold; then the growth per diff after the first round (the first fills the import-time and
bounded caches). ``--threads N`` runs each round's pairs on N threads (one library, shared caches).

Session 22 (before ConeEncoder.close): 48 finished z3 contexts alive after 350 mutants of the
mutation engine, 1.3 GB; the engine's workers reached 6-12 GB.
"""
from __future__ import annotations

import argparse
import sys
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_diff import port_pairs  # noqa: E402

import tileir_diff  # noqa: E402
from tileir_diff.check import smt  # noqa: E402
from tileir_diff.normalize import canon  # noqa: E402


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        import os
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def corpus_pairs():
    root = ROOT / "tests" / "corpus" / "third_party_style"
    return [(str(p), str(p.with_name(p.name.replace(".left.", ".right.")))) for p in sorted(root.glob("*.left.tir"))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--no-ports", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    contexts: "weakref.WeakSet" = weakref.WeakSet()
    made = smt.new_context

    def tracked():
        ctx = made()
        if ctx is not None:
            contexts.add(ctx)
        return ctx
    smt.new_context = tracked
    pairs = corpus_pairs() + ([] if args.no_ports else port_pairs())
    print(f"{len(pairs)} pairs a round ({len(corpus_pairs())} third-party-style, the rest port pairs), "
          f"{args.threads} thread(s)")

    def one(pair):
        return tileir_diff.diff(*pair, with_summary=False, with_lines=False).verdict

    rows = []
    for r in range(args.rounds):
        t0 = time.perf_counter()
        if args.threads > 1:
            with ThreadPoolExecutor(args.threads) as pool:
                verdicts = list(pool.map(one, pairs))
        else:
            verdicts = [one(p) for p in pairs]
        rows.append((resident_mb(), len(contexts), sum(canon._memo_bytes.values()), time.perf_counter() - t0,
                     tuple(verdicts)))
        prev = rows[-2][0] if len(rows) > 1 else None
        rss, live, memo, secs, _ = rows[-1]
        print(f"round {r + 1}: {secs:6.1f} s  resident {rss:7.0f} MB"
              + (f" ({rss - prev:+.0f})" if prev is not None else "")
              + f"  z3 contexts alive {live}  memo tables {memo / 2**20:.1f} MiB", flush=True)
    if len(rows) > 1:
        grown = rows[-1][0] - rows[0][0]
        diffs = len(pairs) * (len(rows) - 1)
        print(f"after round 1: {grown:+.0f} MB over {diffs} diffs ({grown * 1024 / diffs:+.1f} KB a diff); "
              f"verdicts the same every round: {len({v for *_, v in rows}) == 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
