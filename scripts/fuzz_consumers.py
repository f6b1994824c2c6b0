"""Fuzz both readers and every consumer after them (tests/fuzz/harness.py) for a long run.

Each case is a corpus file mutated at the byte level, the text level or through the IR
(grammar-aware, so that it gets past the decoder). It must be refused with a one-line
TileIRFormatError carrying an offset, or read into a module on which the printer (and parsing
its text back), the JSON dump, the summary, the writer (and reading its bytes back),
normalization + diff (against itself and against its corpus original) and every report format
all work and give the right answer. Prints counts per mutation and outcome, the slowest case,
the largest memory peak per input byte, and writes each crash to --crash-dir.

    nice python3 scripts/fuzz_consumers.py [--cases 50000] [--seed 0] [--kind bytes|text|grammar]
                                           [--memory-every 10] [--oracle]

``--memory-every N`` measures the peak of Python allocations (tracemalloc) on every Nth case
(tracing slows a case down about three times). ``--oracle`` also asks tileirdisasm (NVIDIA's
reader and verifier) about every bytecode case and counts where the two disagree.
"""
from __future__ import annotations

import argparse
import collections
import random
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz.harness import KINDS, Corpus, make_case, run  # noqa: E402


def _oracle(tool: str, data: bytes, tmp: Path):
    """(accepted, its message) from tileirdisasm."""
    p = tmp / "case.tileirbc"
    p.write_bytes(data)
    try:
        r = subprocess.run([tool, str(p)], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    return r.returncode == 0, r.stderr.decode("utf-8", "replace")[:2000]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kind", choices=KINDS, action="append", help="only these mutation kinds (repeatable)")
    ap.add_argument("--memory-every", type=int, default=10, metavar="N",
                    help="trace allocations on every Nth case (0: never)")
    ap.add_argument("--slow", type=float, default=2.0,
                    help="CPU seconds above which loading or one consumer makes the case a violation")
    ap.add_argument("--crash-dir", type=Path, default=ROOT / "build" / "fuzz-crashes")
    ap.add_argument("--oracle", action="store_true", help="also run tileirdisasm on every bytecode case")
    ap.add_argument("--progress", type=int, default=5000, metavar="N", help="print a line every N cases")
    args = ap.parse_args()

    tool = None
    if args.oracle:
        from tileir_diff.tools import find_tool
        tool = find_tool("tileirdisasm")
        if tool is None:
            ap.error("--oracle needs tileirdisasm (pip install nvidia-cuda-tileiras)")
    state = _Run(args, tool)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill -TERM: stop, still report
    try:
        for n in range(args.cases):
            state.one(n)
            if args.progress and (n + 1) % args.progress == 0:
                state.report(final=False)
    except KeyboardInterrupt:
        print(f"stopped after {state.n} cases", flush=True)
    return state.report(final=True)


class _Run:
    """The counters of one run; ``report`` prints them (also midway, so that a long run that is
    stopped early still has its figures)."""

    def __init__(self, args, tool):
        self.args, self.tool = args, tool
        self.corpus = Corpus()
        # Warm up: the first full run imports numpy, networkx and the engine (megabytes that no
        # input is responsible for) before any allocation is traced.
        from tests.fuzz.harness import run_case
        run_case(self.corpus.data[0], str(self.corpus.paths[0]), self.corpus.module(0))
        self.rng = random.Random(args.seed)
        self.kinds = tuple(args.kind or KINDS)
        self.counts: collections.Counter = collections.Counter()
        self.oracle: collections.Counter = collections.Counter()
        self.violations = []
        self.worst_time = (0.0, None)
        self.worst_total = 0.0
        self.worst_mem = (0.0, None)
        self.worst_mem_large = (0.0, None)  # inputs of 4 KiB or more: a fixed overhead dominates small ones
        self.worst_peak = (0, None)
        self.executions = 0  # loads plus consumer runs
        self.total_bytes = 0
        self.n = 0
        self.t0 = time.perf_counter()
        self.tmp = Path(tempfile.mkdtemp(prefix="fuzz_consumers_"))

    def one(self, n: int) -> None:
        args, corpus = self.args, self.corpus
        case = make_case(corpus, self.rng, self.rng.choice(self.kinds))
        self.total_bytes += len(case.data)
        trace = args.memory_every and n % args.memory_every == 0
        if trace:
            tracemalloc.start()
        out = run(corpus, case)
        if trace:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            per_byte = peak / max(1, len(case.data))
            if per_byte > self.worst_mem[0]:
                self.worst_mem = (per_byte, (case.kind, case.mutation, len(case.data), peak))
            if len(case.data) >= 4096 and per_byte > self.worst_mem_large[0]:
                self.worst_mem_large = (per_byte, (case.kind, case.mutation, len(case.data), peak))
            if peak > self.worst_peak[0]:
                self.worst_peak = (peak, (case.kind, case.mutation, len(case.data)))
        if out.worst > self.worst_time[0]:
            self.worst_time = (out.worst, (case.kind, case.mutation, len(case.data), out.worst_stage))
        self.worst_total = max(self.worst_total, out.seconds)
        self.executions += 1 + len(out.stages)
        status = out.status
        if out.worst > args.slow:
            status += " (slow)"
        self.counts[(case.kind, status, out.stage)] += 1
        if status != "rejected" and status != "accepted":
            self.violations.append((n, case, out))
            self.keep(f"case{n:07d}_{case.kind}_{out.stage}", case,
                      f"{out.status} in {out.stage}: {out.error}\n\n{out.trace}")
        if self.tool and case.form == "bytecode":
            nv, nv_msg = _oracle(self.tool, case.data, self.tmp)
            ours = out.status != "rejected"
            self.oracle[("nvidia accepts" if nv else "nvidia rejects", "we read it" if ours else "we refuse it")] += 1
            if nv != ours:  # keep the disagreements to look at
                self.keep(f"disagree{n:07d}_{'nvidia_accepts' if nv else 'nvidia_rejects'}", case,
                          f"ours: {out.status} {out.error}\nnvidia: {nv_msg}")
        self.n = n + 1

    def keep(self, stem_name: str, case, text: str) -> None:
        d = self.args.crash_dir
        d.mkdir(parents=True, exist_ok=True)
        stem = d / stem_name
        stem.with_suffix(".tileirbc" if case.form == "bytecode" else ".tileir").write_bytes(case.data)
        stem.with_suffix(".txt").write_text(f"{case.kind} {case.mutation} from {self.corpus.paths[case.source]}\n"
                                            f"{text}\n")

    def report(self, final: bool) -> int:
        args, n = self.args, self.n
        total = time.perf_counter() - self.t0
        try:
            import resource
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        except Exception:  # pragma: no cover
            rss = float("nan")
        print(("" if final else "-- so far: ") +
              f"{n} cases ({self.total_bytes / 1e6:.1f} MB of input), {self.executions} executions (loads and "
              f"consumer runs) in {total:.0f}s ({n / max(total, 1e-9):.1f} cases/s), seed {args.seed}, "
              f"kinds {','.join(self.kinds)}, {len(self.violations)} violations", flush=True)
        print(f"slowest step (loading, or one consumer), CPU time: {self.worst_time[0] * 1e3:.0f} ms "
              f"{self.worst_time[1]}; slowest case, all consumers together, wall time: {self.worst_total * 1e3:.0f} ms")
        if args.memory_every:
            print(f"traced memory (every {args.memory_every}th case): largest peak {self.worst_peak[0] / 2**20:.1f} MiB "
                  f"{self.worst_peak[1]}; largest peak per input byte {self.worst_mem[0]:.0f} B/B {self.worst_mem[1]}, "
                  f"{self.worst_mem_large[0]:.0f} B/B for inputs of 4 KiB or more {self.worst_mem_large[1]}; "
                  f"process max RSS {rss:.0f} MiB")
        for (kind, status, stage), c in sorted(self.counts.items()):
            print(f"  {kind:8} {status:20} {stage:10} {c:8d}")
        if self.oracle:
            print("against tileirdisasm (bytecode cases):")
            for k, c in sorted(self.oracle.items()):
                print(f"  {k[0]:15} {k[1]:13} {c:8d}")
        if final:
            print(f"violations: {len(self.violations)}")
            for i, case, out in self.violations[:10]:
                print(f"  case {i}: {case.kind}/{case.mutation} from {self.corpus.paths[case.source].name}: "
                      f"{out.status} in {out.stage}: {out.error[:200]}")
        sys.stdout.flush()
        return 1 if self.violations else 0


if __name__ == "__main__":
    sys.exit(main())
