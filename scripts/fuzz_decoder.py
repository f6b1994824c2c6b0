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

from tileir_diff import TileIRFormatError, load  # noqa: E402


def mutate(rng: random.Random, data: bytes, other: bytes):
    kind = rng.choice(("truncate", "flip", "byte", "splice", "insert", "delete", "varint"))
    b = bytearray(data)
    if kind == "truncate":
        return kind, bytes(b[:rng.randrange(len(b))])
    if kind == "flip":
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == "byte":
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == "splice":
        return kind, bytes(b[:max(12, rng.randrange(len(b)))]) + other[rng.randrange(len(other)):]
    elif kind == "insert":
        i = rng.randrange(len(b))
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    elif kind == "delete":
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 8)]
    else:  # a large varint somewhere
        i = rng.randrange(12, len(b))
        b[i:i + 1] = bytes([0xFF] * rng.randint(2, 9) + [0x7F])
    return kind, bytes(b)


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
    for n in range(args.cases):
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
