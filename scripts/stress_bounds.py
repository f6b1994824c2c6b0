"""Long runs of the bounded-work harness of issue 27 (tests/fuzz/bounds_harness.py), and the
scaling figures behind it. Prints, per class, the cases run and their outcomes (ok, crash,
exit70, raw-control, slow: over 10 s, 20 s for the execute class; a command-line
--execute case runs under a 3 GiB address space, and a kill is a crash), the slowest case, then two scaling tables measured in
the same run:

* the text reader on N lines that start with ``#`` (N = 10k..160k; time per line stays flat
  when the alias prescan is linear: the ratio column is time(N) / time(smallest N) / (N / smallest N));
* a kernel of N identical ops (cmpi + assert pairs, nothing dead) diffed with itself, N = 1k,
  4k, 16k, 20k: verdict and seconds (the budget is work: Limits.max_match_steps).

    nice python3 scripts/stress_bounds.py [--seconds 300] [--seed 0] [--class parser ...]
                                          [--cli-every 20] [--no-scaling] [--scaling-only]

``--cli-every N`` also runs every Nth case of each class through the command line (status 70 and tracebacks
counted). Exit status 1 when any case is a violation.
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz.bounds_harness import CLASSES, make_case, run_case  # noqa: E402
from tests.fuzz.bounds_inputs import identical_ops  # noqa: E402


def fuzz(args) -> int:
    classes = args.cls or list(CLASSES)
    rng = random.Random(args.seed)
    counts = {c: collections.Counter() for c in classes}
    slowest = {c: (0.0, "") for c in classes}
    violations = []
    end = time.monotonic() + args.seconds
    i = 0
    while time.monotonic() < end:
        cls = classes[i % len(classes)]
        cli = args.cli_every > 0 and (i // len(classes)) % args.cli_every == 0  # every class in turn
        outcome = run_case(make_case(cls, rng, max_lines=args.max_lines, max_ops=args.max_ops, max_trips=args.max_trips),
                           cli=cli)
        counts[cls][outcome.status] += 1
        counts[cls]["cli" if cli else "library"] += 1
        if outcome.seconds > slowest[cls][0]:
            slowest[cls] = (outcome.seconds, f"{outcome.kind} size {outcome.size}")
        if outcome.status != "ok":
            violations.append(f"{cls}/{outcome.kind}: {outcome.status}: {outcome.detail[:200]}")
            print("VIOLATION", violations[-1], flush=True)
        i += 1
    print(f"{'class':10} {'cases':>6} {'(cli)':>6} {'ok':>6} {'crash':>6} {'exit70':>6} {'raw':>6} {'slow':>6}  slowest")
    for cls in classes:
        c = counts[cls]
        total = sum(c[s] for s in ("ok", "crash", "exit70", "raw-control", "slow"))
        print(f"{cls:10} {total:6} {c['cli']:6} {c['ok']:6} {c['crash']:6} {c['exit70']:6} {c['raw-control']:6} "
              f"{c['slow']:6}  {slowest[cls][0]:.2f} s ({slowest[cls][1]})")
    return 1 if violations else 0


def scaling_parser() -> None:
    from tileir_diff.errors import TileIRFormatError
    from tileir_diff.text.parser import parse_text
    print("\ntext reader: N lines of '#aN = loc(\"f.py\":N:1)' (alias definitions) and of a bare '#'")
    print(f"{'N':>8} {'aliases s':>10} {'ratio':>6} {'bare # s':>9} {'ratio':>6}")
    base = None
    for n in (10_000, 40_000, 160_000):
        row = []
        for body in ('#a{i} = loc("f.py":{i}:1)', "#"):
            text = "\n".join(body.format(i=i) for i in range(n)) + "\n"
            t0 = time.perf_counter()
            try:
                parse_text(text)
            except TileIRFormatError:
                pass
            row.append(time.perf_counter() - t0)
        base = base or (n, row)
        ratios = [t / b / (n / base[0]) for t, b in zip(row, base[1])]
        print(f"{n:8} {row[0]:10.2f} {ratios[0]:6.2f} {row[1]:9.2f} {ratios[1]:6.2f}", flush=True)


def scaling_matcher(sizes) -> None:
    import tileir_diff
    from tileir_diff.text.parser import parse_text
    print("\nmatcher: N identical cmpi + assert pairs (2N ops) diffed with themselves (work budget: Limits.max_match_steps)")
    print(f"{'N':>7} {'verdict':>10} {'seconds':>8} {'s per 1k':>9}")
    for n in sizes:
        text = identical_ops(n, kept=True)
        a, b = parse_text(text), parse_text(text)
        t0 = time.perf_counter()
        r = tileir_diff.diff(a, b)
        dt = time.perf_counter() - t0
        print(f"{n:7} {r.verdict:>10} {dt:8.1f} {dt / n * 1000:9.2f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--class", dest="cls", choices=CLASSES, action="append")
    ap.add_argument("--cli-every", type=int, default=20, metavar="N")
    ap.add_argument("--max-lines", type=int, default=50_000, help="largest parser input (lines, about 1.2 MB)")
    ap.add_argument("--max-ops", type=int, default=4000, help="largest matcher kernel in the fuzz loop")
    ap.add_argument("--max-trips", type=int, default=999_999,
                    help="longest --execute loop in the fuzz loop (nested loops multiply it by up to 1,000)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 4000, 16000, 20000],
                    help="matcher scaling sizes")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--scaling-only", action="store_true")
    args = ap.parse_args()
    status = 0 if args.scaling_only else fuzz(args)
    if not args.no_scaling:
        scaling_parser()
        scaling_matcher(args.sizes)
    return status


if __name__ == "__main__":
    sys.exit(main())
