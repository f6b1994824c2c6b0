#!/usr/bin/env python3
"""Measures every applicable variant of an operator over a grid of shapes, so that the launchers'
choice (`select_variant` in reference/<op>/kernel.py and the Rust library's, which agree:
tests/rust/test_selection.py) can be checked against measurements instead of guesses.

Runs on the GPU machine (torch, no cuda-tile needed): for each op in GRIDS and each case of its
grid (dtype, shape, strides), every variant that accepts the case is launched from its prebuilt
cubin (build/reference/<op>/<variant>.<arch>.cubin) on identical inputs. Timing: CUDA events
around each launch, L2 flushed (256 MiB memset) before every launch, and the variants of one case
launched round-robin (A B C A B C ...), so every variant has the same predecessors (a flush, then
another kernel) — a launch that follows a launch of the same kernel runs faster even after a
flush on this GPU. Median of --reps per variant.

The script records measurements only; which variant the launcher picks is evaluated on the CPU
side by tests/suite/test_selection_results.py against the committed
docs/results/selection.json: the pick must be within 1.10x of the fastest applicable variant.

Writes $OUT/selection.json (or --out DIR).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tileir_diff.suite.catalog import load_catalog  # noqa: E402

SEED = 1234
# the tolerance the selection is held to (issue: a pick no more than 1.10x the fastest applicable)
TOLERANCE = 1.10


# ------------------------------------------------------------------------------------------
# grids: per op, the cases (select_variant's arguments + the shape) and which variants take each


def _dtype_of(variant) -> str:
    return variant.dtypes.get("x") or variant.dtypes.get("weight")


def _row_applicable(variant, n: int) -> bool:
    """A row kernel (TILE_M rows of TILE_N columns per tile) takes rows of up to TILE_N columns; an
    online/looped kernel any n; `_a8` variants only n a multiple of 8 (contiguous rows here)."""
    if "_a8" in variant.name and n % 8:
        return False
    looped = "online" in variant.name or "looped" in variant.name
    return looped or n <= variant.constants.get("TILE_N", 0)


def _row_cases(columns):
    """select_variant(dtype, m, n, row_strides) of a row-wise op: each dtype and row length, a few
    rows (latency) and 32 MiB worth of rows (bandwidth), contiguous rows."""
    for dtype in ("float16", "bfloat16", "float32"):
        for n in columns:
            for m in (64, max(64, (1 << 25) // n)):
                yield {"args": [dtype, m, n, [n]], "shape": {"M": m, "N": n}, "dtype": dtype, "n": n}


def _softmax_cases():
    return _row_cases((128, 520, 1024, 2048, 4096, 8192, 32768))


def _softmax_applicable(variant, case) -> bool:
    return _dtype_of(variant) == case["dtype"] and _row_applicable(variant, case["n"])


def _rms_norm_cases():
    return _row_cases((128, 520, 1024, 2048, 4096, 8192, 16384))


def _rms_norm_applicable(variant, case) -> bool:
    return (variant.name.startswith("fwd_") and _dtype_of(variant) == case["dtype"]
            and _row_applicable(variant, case["n"]))


def _embedding_cases():
    for weight, ids in (("float16", "int32"), ("bfloat16", "int32"), ("float32", "int32"), ("bfloat16", "int64")):
        for hidden in (1024, 4096):
            for tokens in (1, 8, 32, 64, 128, 512, 2048, 16384):
                vocab = 32000
                yield {"args": [weight, ids, tokens, vocab, hidden, hidden, hidden],
                       "shape": {"T": tokens, "V": vocab, "H": hidden}, "dtypes": (weight, ids)}


def _embedding_applicable(variant, case) -> bool:
    return (variant.dtypes["weight"], variant.dtypes["ids"]) == case["dtypes"]


# op -> (the selection function's name in kernel.py, case generator, applicability)
GRIDS = {
    "embedding": ("select_variant", _embedding_cases, _embedding_applicable),
    "softmax": ("select_variant", _softmax_cases, _softmax_applicable),
    "rms_norm": ("select_variant", _rms_norm_cases, _rms_norm_applicable),
}


# ------------------------------------------------------------------------------------------
# measurement


def _load_ref(op):
    spec = importlib.util.spec_from_file_location(f"_ref_{op.op}", op.ref_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure_case(torch, launches: dict, warmup: int, reps: int, flush) -> dict:
    """Median device time (us) of each launch, round-robin with an L2 flush before every launch."""
    names = sorted(launches)
    for _ in range(warmup):
        for name in names:
            launches[name]()
    torch.cuda.synchronize()
    events = {name: [] for name in names}
    for _ in range(reps):
        for name in names:
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            launches[name]()
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    out = {}
    for name in names:
        times = sorted(s.elapsed_time(e) * 1000.0 for s, e in events[name])
        out[name] = round(times[len(times) // 2], 3)
    return out


def run_op(torch, op, build_root: Path, arch: str, warmup: int, reps: int, flush) -> list[dict]:
    from tileir_diff.launch import prepare_launch

    select_name, cases, applicable = GRIDS[op.op]
    ref = _load_ref(op)
    rows = []
    for case in cases():
        variants = [v for v in op.variants if applicable(v, case)]
        if len(variants) < 2:
            continue  # one candidate: nothing to choose
        launches, keep = {}, []
        for v in variants:
            cubin = build_root / op.op / f"{v.name}.{arch}.cubin"
            inputs = ref.make_inputs(v.raw, case["shape"], seed=SEED, device="cuda")
            keep.append(inputs)
            launches[v.name] = prepare_launch(v, cubin, inputs)
        times = measure_case(torch, launches, warmup, reps, flush)
        fastest = min(times, key=times.get)
        rows.append({"op": op.op, "select": select_name, "args": case["args"], "shape": case["shape"],
                     "times_us": times, "fastest": fastest})
        print(f"[{op.op}] {case['shape']} {case['args'][:2]}: fastest {fastest} "
              + " ".join(f"{k}={v}" for k, v in times.items()), flush=True)
        del keep, launches
        torch.cuda.empty_cache()
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", action="append", dest="ops", help="ops to run (default: every op in GRIDS)")
    parser.add_argument("--build-root", default=str(REPO / "build" / "reference"))
    parser.add_argument("--arch", default=None)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args(argv)

    import torch

    major, minor = torch.cuda.get_device_capability(0)
    arch = args.arch or f"sm_{major}{minor}"
    ops = args.ops or sorted(GRIDS)
    unknown = set(ops) - set(GRIDS)
    if unknown:
        raise SystemExit(f"no selection grid for: {sorted(unknown)} (have {sorted(GRIDS)})")
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    rows = []
    for op in load_catalog(REPO / "reference", ops=ops):
        rows.extend(run_op(torch, op, Path(args.build_root), arch, args.warmup, args.reps, flush))
    props = torch.cuda.get_device_properties(0)
    doc = {
        "schema_version": 1,
        "environment": {
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "gpu": props.name, "arch": arch, "torch": torch.__version__,
            "timing": (f"CUDA events around each launch, L2 flushed (256 MiB memset) before each launch, the "
                       f"variants of a case round-robin, median of {args.reps} after {args.warmup} warmup rounds"),
        },
        "tolerance": TOLERANCE,
        "rows": rows,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "selection.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out / 'selection.json'}: {len(rows)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
