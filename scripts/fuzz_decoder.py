"""Fuzz the bytecode decoder: N mutated corpus files (truncations, bit flips, byte
substitutions, splices, inserted/deleted bytes), each must decode or raise TileIRFormatError
with an offset, within a time bound. Prints counts per mutation and outcome.

    python3 scripts/fuzz_decoder.py [--cases 100000] [--seed 0]
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

from tests.fuzz.harness import mutate_bytes  # noqa: E402
from tileir_diff import TileIRFormatError, load  # noqa: E402


# One set of byte mutations for the script and the tests (tests/fuzz/harness.py).
mutate = mutate_bytes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slow", type=float, default=1.0, help="seconds above which a case counts as slow")
    args = ap.parse_args()
    files = [p.read_bytes() for p in sorted((ROOT / "tests/corpus/data").glob("*.tileirbc"))]
    rng = random.Random(args.seed)
    counts = collections.Counter()
    crashes = []
    slowest = 0.0
    t0 = time.perf_counter()
    for _n in range(args.cases):
        kind, data = mutate(rng, rng.choice(files), rng.choice(files))
        t = time.perf_counter()
        try:
            load(data)
            outcome = "decoded"
        except TileIRFormatError as e:
            outcome = "TileIRFormatError" if e.offset is not None else "error WITHOUT offset"
        except Exception as e:  # the property under test: this must never happen
            outcome = f"CRASH {type(e).__name__}"
            crashes.append((kind, data, repr(e)))
        dt = time.perf_counter() - t
        slowest = max(slowest, dt)
        if dt > args.slow:
            outcome += " (slow)"
        counts[(kind, outcome)] += 1
    total = time.perf_counter() - t0
    print(f"{args.cases} cases in {total:.1f}s ({args.cases / total:.0f}/s), slowest {slowest * 1e3:.1f} ms")
    for (kind, outcome), c in sorted(counts.items()):
        print(f"  {kind:9} {outcome:28} {c:7d}")
    bad = sum(c for (k, o), c in counts.items() if o.startswith(("CRASH", "error WITHOUT")) or "slow" in o)
    print(f"violations: {bad}")
    for kind, data, msg in crashes[:5]:
        print("  example:", kind, msg, data[:32].hex())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
