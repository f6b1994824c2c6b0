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
    ref = P.python_order_double()
    yield "python-vs-rust-order", ref, P.rust_order(16)
    yield "python-vs-raw-pointers", ref, P.rust_raw_pointers()
    yield "output-first", ref, P.rust_out_first()
    yield "output-first-bug", ref, P.rust_out_first("3.0")
    yield "constant-as-argument", ref, P.rust_out_first("0.0", scalar=True)
    yield "constant-as-argument-bug", ref, P.rust_out_first("1.0", scalar=True)
    extra = ref.replace(", %a5: tile<i32>)", ", %a5: tile<i32>, %aux: tile<ptr<f32>>, %an: tile<i32>, %as: tile<i32>)")
    extra = extra.replace("  return", "  %tva = make_tensor_view %aux, shape = [%an], strides = [%as] : tile<i32> -> "
                          f"{P.TV}\n  %pva = make_partition_view %tva : {P.PV}\n"
                          f"{P.store('%x', '%pva', '%tok', '%ta')}\n  return", 1)
    yield "extra-output", ref, extra
    yield "extra-output-bug", ref, extra.replace("2.0", "4.0")


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
