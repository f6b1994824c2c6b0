"""How the second opinion fares on real-looking pairs: ``python -m tests.execute.measure [--trials N]``.

For every pair of the independent-style corpus (tests/corpus/independent) and the small pairs of
``pairs.py``, runs ``diff(..., execute="always")`` and prints the structural verdict, the execution
status, whether a counterexample is valid for both kernels under the structural diff's argument
mapping (``counterexample.valid``; absent before that field existed), whether the verdict was
overruled, and the reason when the check could not decide. The last lines count them.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tileir_diff.api import diff  # noqa: E402

from tests.execute import pairs as P  # noqa: E402

INDEPENDENT = HERE.parent / "corpus" / "independent"


def corpus_pairs():
    for expect in sorted(INDEPENDENT.glob("*.expect.json")):
        name = expect.name[: -len(".expect.json")]
        side = json.loads((INDEPENDENT / f"{name}.json").read_text())
        ref = side["reference"]
        yield name, str(INDEPENDENT / "reference" / f"{ref['op']}.{ref['variant']}.tileirbc"), \
            str(INDEPENDENT / f"{name}.tileirbc")


def small_pairs():
    for name, make in (("if-branches", P.if_branches), ("rsqrt-eps", P.rsqrt_eps), ("commuted", P.commuted),
                       ("fma", P.fma_or_mul_add), ("load-after-store", P.load_after_store)):
        yield name, make(False), make(True)
    yield "python-vs-rust-order", P.python_order_double(), P.rust_order(16)
    yield "python-vs-raw-pointers", P.python_order_double(), P.rust_raw_pointers()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=8)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    counts: dict = {}
    for name, left, right in list(corpus_pairs()) + list(small_pairs()):
        if args.only and args.only not in name:
            continue
        t0 = time.perf_counter()
        r = diff(left, right, execute="always", trials=args.trials, seed=0,
                 execute_options={"time_budget": args.budget})
        ex = r.execution.to_dict()
        cex = ex.get("counterexample") or {}
        valid = cex.get("valid") if cex else None
        structural = ex.get("structural_verdict") or r.verdict
        row = {"pair": name, "structural": structural, "final": r.verdict, "status": ex["status"],
               "valid": valid, "overruled": bool(ex.get("structural_verdict")),
               "why": (cex.get("invalid_because") or ex.get("could_not_check") or ex.get("reason") or "")[:150],
               "s": round(time.perf_counter() - t0, 1)}
        print(json.dumps(row), flush=True)
        for key in (f"status={ex['status']}", f"valid={valid}" if cex else None,
                    "overruled" if row["overruled"] else None):
            if key:
                counts[key] = counts.get(key, 0) + 1
    print(json.dumps(counts, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
