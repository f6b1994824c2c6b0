#!/usr/bin/env python3
"""Two variants of one op timed interleaved on the same inputs: is a candidate faster than its base?

    python3 scripts/gpu/ab_variants.py --reference-root ROOT --build-root BUILD --op OP \\
        --pair BASE:CANDIDATE [--pair ...] [--cubin-root OTHER_BUILD] [--rounds 5] [--reps 30] [--out DIR]

run_reference.py times each variant on its own, one after another. For GEMMs that is not enough to
tell a few per cent: the SM clock drops under sustained tensor-core load, so whichever variant runs
later in the sequence pays for what ran before it (session 26: the same kernel read 0.82x and 0.92x
cuBLAS at two places in one run). Here the two sides of a pair alternate in groups (bench_ports'
Timer: L2 flushed before every launch, CUPTI device times), inside ``--rounds`` rounds whose order
of sides flips each round, so both see the same clocks. Both launch on the base variant's bench-shape
inputs (a candidate differs in constants, hints or contract, not in its parameters).
``--cubin-root`` takes the base's cubin from another build: a scratch root's candidate against the
committed build, or ``--pair V:V`` for one variant's cubin before and after a change.

``--pair BASE:torch`` times the variant against what a user would call instead (ref.torch_baseline:
cuBLAS, SDPA, eager torch) in the same interleaved rounds: a goal figure for a compute-bound kernel
whose sequential baseline moves with the clock (session 30: SDPA read 1,661 and 2,091 us in two rows
of one committed run for the same call). The baseline may launch kernels of any name, so both sides
of such a pair are timed by CUDA events around each launch (L2 flushed before each), not CUPTI.

Prints, per pair, the median device time of each side, the ratio candidate / base per round and over
all rounds, and writes DIR/ab_variants.json.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import functools
import math
import importlib.util
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tileir_diff.suite.catalog import load_op  # noqa: E402

SEED = 20261201


def _bench_ports():
    spec = importlib.util.spec_from_file_location("bench_ports", REPO / "scripts" / "gpu" / "bench_ports.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def interleaved(pair, launch: dict, names: set, rounds: int) -> dict:
    """Time launch["base"] against launch["candidate"] over `rounds` rounds of ``pair(first,
    second, names)`` (bench_ports.Timer.pair: {"a": stats, "b": stats} of the first and second
    launcher), the base first in even rounds and second in odd ones: medians of each side, the
    candidate / base ratio per round and its median."""
    out = []
    for i in range(rounds):
        first, second = ("base", "candidate") if i % 2 == 0 else ("candidate", "base")
        got = pair(launch[first], launch[second], names)
        us = {first: got["a"]["cupti_median_us"], second: got["b"]["cupti_median_us"]}
        out.append({"base_us": us["base"], "candidate_us": us["candidate"],
                    "ratio": us["candidate"] / us["base"], "first": first})
    return {"base_us": statistics.median(r["base_us"] for r in out),
            "candidate_us": statistics.median(r["candidate_us"] for r in out),
            "ratio": statistics.median(r["ratio"] for r in out), "ratios": [r["ratio"] for r in out], "rounds": out}


def events_pair(torch, timer, side_a, side_b, group: int) -> dict:
    """Timer.pair's cycles (GROUP launches a side, L2 flushed before each) timed by CUDA events
    only: {"a": stats, "b": stats} with the events' median as "cupti_median_us" (the key
    `interleaved` reads), for launchers whose kernels are not ours to name; `group`: bench_ports.GROUP."""
    for _ in range(timer.warmup):
        side_a()
        side_b()
    torch.cuda.synchronize()
    fns, events = {"a": side_a, "b": side_b}, []
    for _ in range(math.ceil(timer.reps / group)):
        for label in ["a"] * group + ["b"] * group:
            timer.flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fns[label]()
            end.record()
            events.append((label, start, end))
    torch.cuda.synchronize()
    out = {}
    for side in ("a", "b"):
        ev = [s.elapsed_time(e) * 1000.0 for label, s, e in events if label == side]
        out[side] = {"cupti_median_us": statistics.median(ev), "events_median_us": statistics.median(ev),
                     "events_best_us": min(ev), "reps": len(ev)}
    return out


def run(args) -> dict:
    import torch

    from tileir_diff.launch import CubinKernel, prepare_launch

    op = load_op(Path(args.reference_root) / args.op)
    bench_ports = _bench_ports()  # its Timer and ref.py loader
    ref = bench_ports._load_ref(op)
    variants = {v.name: v for v in op.variants}
    timer = bench_ports.Timer(torch, args.reps, args.warmup)
    rows = []
    for pair in args.pair:
        base_name, cand_name = pair.split(":")
        base = variants[base_name]
        inputs = ref.make_inputs(base.raw, base.bench_shape, seed=SEED, device="cuda")
        if cand_name == "torch":  # the user's alternative, timed by events in the same rounds
            launch = {"base": prepare_launch(base, CubinKernel(Path(args.cubin_root or args.build_root) / args.op
                                                               / f"{base.name}.{args.arch}.cubin", base.symbol), inputs),
                      "candidate": functools.partial(ref.torch_baseline, base.raw, inputs)}
            row = {"base": base_name, "candidate": cand_name, "shape": base.bench_shape, "timing": "cuda events",
                   **interleaved(lambda a, b, _names: events_pair(torch, timer, a, b, bench_ports.GROUP), launch, set(), args.rounds)}
        else:
            cand = variants[cand_name]
            # by side, not by name: BASE:BASE with --cubin-root times one variant's old cubin against its new one
            sides = {"base": (base, Path(args.cubin_root or args.build_root)), "candidate": (cand, Path(args.build_root))}
            launch = {side: prepare_launch(v, CubinKernel(root / args.op / f"{v.name}.{args.arch}.cubin", v.symbol),
                                           inputs)
                      for side, (v, root) in sides.items()}
            row = {"base": base_name, "candidate": cand_name, "shape": base.bench_shape,
                   **interleaved(timer.pair, launch, {base.symbol, cand.symbol}, args.rounds)}
        rows.append(row)
        print(f"{args.op} {cand_name} / {base_name}: {row['candidate_us']:.1f} / {row['base_us']:.1f} us, "
              f"ratio {row['ratio']:.3f} (rounds {', '.join(f'{r:.3f}' for r in row['ratios'])})", flush=True)
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "gpu": torch.cuda.get_device_name(0), "op": args.op, "rounds": args.rounds, "reps": args.reps,
            "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference-root", required=True)
    ap.add_argument("--build-root", required=True)
    ap.add_argument("--cubin-root", help="the base variants' cubins from this build instead")
    ap.add_argument("--op", required=True)
    ap.add_argument("--pair", action="append", required=True, metavar="BASE:CANDIDATE",
                    help="CANDIDATE 'torch': the op's torch baseline (ref.torch_baseline), events-timed")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30, help="launches per side per round")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    doc = run(args)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "ab_variants.json").write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
