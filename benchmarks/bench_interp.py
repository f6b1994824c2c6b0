#!/usr/bin/env python3
"""Interpreter time per kernel launch for every reference-suite variant.

    python3 benchmarks/bench_interp.py [--ops softmax matmul] [--repeat 3] [--shape smallest|bench]

Inputs are seeded NumPy arrays of the variant's smallest test shape (no torch needed): the
interpreter's speed does not depend on the values. Prints one row per variant: grid, blocks,
median seconds per launch and microseconds per block. Needs build/reference/*.tileirbc.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileir_diff import load  # noqa: E402
from tileir_diff.interp import HostArray, run_variant  # noqa: E402
from tileir_diff.interp import dtypes as dt  # noqa: E402
from tileir_diff.suite.catalog import load_catalog, repo_root  # noqa: E402


def smallest(variant):
    def size(s):
        n = 1
        for k, v in s.items():
            if k in variant.shape_symbols and isinstance(v, int):
                n *= v
        return n
    return min(variant.test_shapes, key=size)


def shape_of(variant, param, symbols):
    """An array's shape from the shape symbols: invert `shape_symbols` (S = "x.shape[d]")."""
    dims = [None] * param.ndim
    for sym, expr in variant.shape_symbols.items():
        prefix = f"{param.name}.shape["
        if isinstance(expr, str) and expr.startswith(prefix) and expr.endswith("]"):
            dims[int(expr[len(prefix):-1])] = symbols[sym]
    return dims


def synthetic_inputs(variant, symbols, rng):
    """Arrays of the sizes the symbols imply where analysis.json says how; other dims get the
    smallest symbol value (enough to time the interpreter, not to check numerics)."""
    arrays = {}
    fallback = min(v for k, v in symbols.items() if isinstance(v, int) and k in variant.shape_symbols)
    for p in variant.arrays:
        dims = shape_of(variant, p, symbols)
        shape = tuple(d if d is not None else (p.shape_constant[i] if p.shape_constant and p.shape_constant[i]
                                               else fallback) for i, d in enumerate(dims))
        shape = tuple(-(-n // k) * k for n, k in zip(shape, p.shape_divisible_by or (1,) * len(shape)))
        elem = dt.HOST_TO_ELEMENT[p.dtype]
        if dt.is_float(elem):
            values = rng.standard_normal(shape).astype(np.float32)
        else:
            values = rng.integers(0, 2, size=shape).astype(np.int64)
        # row strides padded up to the export's stride divisibility (rows of odd lengths)
        strides, running = [0] * len(shape), 1
        for d in range(len(shape) - 1, -1, -1):
            fixed = p.stride_constant[d] if p.stride_constant else None
            div = p.stride_divisible_by[d] if p.stride_divisible_by else 1
            strides[d] = fixed if fixed is not None else -(-running // div) * div
            running = strides[d] * shape[d]
        arrays[p.name] = HostArray(values if dt.is_float(elem) else values.astype(dt.STORAGE[elem]), p.dtype,
                                   tuple(strides))
    for p in variant.params:
        if p.kind == "scalar" and p.value is None:
            arrays[p.name] = 1
    return arrays


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    build = repo_root() / "build" / "reference"
    rows, missing = [], []
    print(f"{'variant':48s} {'shape':34s} {'grid':>14s} {'blocks':>6s} {'s/launch':>9s} {'us/block':>9s}")
    for op in load_catalog(ops=args.ops):
        for v in op.variants:
            path = build / v.op / f"{v.name}.tileirbc"
            if not path.is_file():
                missing.append(v.symbol)
                continue
            module = load(str(path))
            shape = {k: x for k, x in smallest(v).items() if k != "noncontiguous"}
            rng = np.random.default_rng(0)
            try:
                arrays = synthetic_inputs(v, shape, rng)
                grid = v.grid_for(shape)
                times = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    run_variant(v, module, arrays, grid=grid)
                    times.append(time.perf_counter() - t0)
            except Exception as exc:  # a row per variant even when synthetic inputs do not fit
                print(f"{v.symbol:48s} skipped: {type(exc).__name__}: {str(exc)[:80]}")
                continue
            med = statistics.median(times)
            blocks = grid[0] * grid[1] * grid[2]
            rows.append(med)
            desc = ",".join(f"{k}={x}" for k, x in shape.items() if isinstance(x, int))
            print(f"{v.symbol:48s} {desc[:34]:34s} {str(tuple(grid)):>14s} {blocks:6d} {med:9.4f} {1e6 * med / blocks:9.0f}")
    if missing:
        print(f"\nnot exported (python3 -m tileir_diff.suite.command export): {len(missing)} variants")
    if rows:
        print(f"\n{len(rows)} variants; median {statistics.median(rows):.4f} s/launch, total {sum(rows):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
