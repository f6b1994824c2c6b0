#!/usr/bin/env python3
"""What the proof step's queries cost, in z3's resource count (``rlimit``) and in seconds, over the
port table (``build/reference/<op>/<v>`` against ``build/rust/<op>/<v>``, with the ops' launch
facts) and the corpus's Rust snapshots (``tests/corpus/rust/<op>.<v>`` against the same
reference): the calibration of ``check.smt.DEFAULT_RLIMIT`` (docs/robustness.md, "Work budgets").

For each query (``ConeEncoder._check``, the small-model search apart) it records the resource
count z3 spent, the answer and the seconds; it prints the distribution for the decided queries
(``sat``/``unsat``) and the undecided ones, and the units per second. ``--json-dir D`` also
writes each pair's ``diff -f json`` (wall-clock fields masked) to ``D/<name>.json``, for a
byte comparison between two commits (``diff -r``).

    python scripts/smt_work.py --ports 40 --json-dir /tmp/after
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.check.proof_pairs import stable_json  # noqa: E402
from tileir_diff.check import smt  # noqa: E402


def port_pairs(limit=None, ops=None):
    """(name, left path, right path, launch facts) of the port table, ``limit`` rows spread evenly."""
    from tileir_diff.suite.catalog import load_catalog
    from tileir_diff.suite.launch_facts import facts_for
    ref = Path(os.environ.get("TILEIR_REFERENCE_BUILD", ROOT / "build" / "reference"))
    rust = Path(os.environ.get("TILEIR_CUBIN_DIR", ROOT / "build" / "rust"))
    rows = []
    for spec in load_catalog():
        if ops and spec.op not in ops:
            continue
        for v in spec.variants:
            a, b = ref / spec.op / f"{v.name}.tileirbc", rust / spec.op / f"{v.name}.tileirbc"
            if a.is_file() and b.is_file():
                rows.append((f"port.{spec.op}.{v.name}", a, b,
                             facts_for(spec, v, str(spec.analysis_path.relative_to(ROOT)))))
    if limit and limit < len(rows):
        step = len(rows) / limit
        rows = [rows[int(i * step)] for i in range(limit)]
    return rows


def corpus_pairs(limit=None):
    """The corpus's Rust snapshots against the reference build (no launch facts), ``limit`` spread."""
    ref = Path(os.environ.get("TILEIR_REFERENCE_BUILD", ROOT / "build" / "reference"))
    rows = []
    for b in sorted((ROOT / "tests" / "corpus" / "rust").glob("*.tileirbc")):
        op, variant = b.name[:-len(".tileirbc")].split(".", 1)
        a = ref / op / f"{variant}.tileirbc"
        if a.is_file():
            rows.append((f"corpus.{op}.{variant}", a, b, []))
    if limit and limit < len(rows):
        step = len(rows) / limit
        rows = [rows[int(i * step)] for i in range(limit)]
    return rows


class Recorder:
    """Wraps ``ConeEncoder._check``: per query, (rlimit units spent, answer, seconds)."""

    def __init__(self):
        self.queries = []
        self.original = smt.ConeEncoder._check
        recorder = self

        def _check(enc, goal, *args, **kwargs):
            before = _count(enc.ctx)
            t0 = time.perf_counter()
            out = recorder.original(enc, goal, *args, **kwargs)
            recorder.queries.append((_count(enc.ctx) - before, str(out[0]), time.perf_counter() - t0))
            return out
        smt.ConeEncoder._check = _check  # type: ignore[method-assign]


def pick(xs, p: float):
    """The ``p`` quantile of the sorted list ``xs``."""
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _count(ctx) -> int:
    return int(smt.z3.Solver(ctx=ctx).statistics().get_key_value("rlimit count"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ports", type=int, default=0, help="port rows, spread over the table (0: all)")
    ap.add_argument("--corpus", type=int, default=0, help="corpus pairs, spread (0: all; -1: none)")
    ap.add_argument("--op", action="append", help="only the port rows of this op (repeatable)")
    ap.add_argument("--json-dir", type=Path, help="write each pair's masked JSON here")
    args = ap.parse_args(argv)
    import tileir_diff
    smt.available()
    rec = Recorder()
    pairs = port_pairs(args.ports or None, args.op) + ([] if args.corpus < 0 else corpus_pairs(args.corpus or None))
    if args.json_dir:
        args.json_dir.mkdir(parents=True, exist_ok=True)
    verdicts: dict = {}
    t_all = time.perf_counter()
    for name, a, b, launch in pairs:
        r = tileir_diff.diff(str(a), str(b), launch=list(launch))
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
        if args.json_dir:
            (args.json_dir / f"{name}.json").write_text(stable_json(r), encoding="utf-8")
    wall = time.perf_counter() - t_all
    decided = [q for q in rec.queries if q[1] in ("sat", "unsat")]
    undecided = [q for q in rec.queries if q[1] not in ("sat", "unsat")]
    print(f"pairs: {len(pairs)} in {wall:.1f} s; verdicts: {dict(sorted(verdicts.items()))}")
    print(f"queries: {len(rec.queries)} ({len(decided)} decided, {len(undecided)} undecided)")
    for what, qs in (("decided", decided), ("undecided", undecided)):
        if not qs:
            continue
        units = sorted(q[0] for q in qs)
        secs = sorted(q[2] for q in qs)
        print(f"  {what}: rlimit median {statistics.median(units):,.0f}, p90 {pick(units, 0.9):,}, "
              f"p99 {pick(units, 0.99):,}, max {units[-1]:,}; seconds median {statistics.median(secs):.4f}, "
              f"max {secs[-1]:.3f}")
    heavy = [q for q in rec.queries if q[2] > 0.05]
    if heavy:
        rate = sum(q[0] for q in heavy) / sum(q[2] for q in heavy)
        print(f"  rate over queries of more than 50 ms: {rate:,.0f} units/s ({len(heavy)} queries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
