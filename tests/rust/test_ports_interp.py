"""CPU numerics of the cuTile Rust ports of argmax, cross_entropy, cumsum and embedding: each
variant's committed snapshot (tests/corpus/rust/<op>.<variant>.tileirbc) runs in the NumPy
interpreter on small ragged inputs (several column tiles where the kernel loops, a partial last
tile, padded rows) and is compared with a float64 NumPy reference at the analysis.json
tolerances. A pre-check of what tests/rust/test_gpu_ports.py checks on the GPU."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tileir_diff
from tileir_diff.interp import HostArray, run_variant
from tileir_diff.suite.catalog import load_op

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "tests" / "corpus" / "rust"
OPS = ("argmax", "cross_entropy", "cumsum", "embedding")
NP_DTYPE = {"float16": np.float16, "float32": np.float32, "bfloat16": np.float32}


def _values(rng, shape, dtype):
    """Random values exact in `dtype` (multiples of 1/8 in [-8, 8]: exact in bf16 and f16)."""
    return (rng.integers(-64, 65, size=shape) / 8.0).astype(NP_DTYPE[dtype])


def _padded(values, dtype, pad):
    """`values` as a view of a wider row-major buffer (rows `pad` elements longer)."""
    if not pad:
        return HostArray(values, dtype)
    m, n = values.shape
    wide = np.zeros((m, n + pad), dtype=values.dtype)
    wide[:, :n] = values
    return HostArray(wide[:, :n], dtype, strides=(n + pad, 1))


def _inputs_argmax(v, rng, shape):
    m, n = shape
    x = _values(rng, (m, n), v.dtypes["x"])
    if n > 3:  # exact ties: the first index must win, also across column tiles
        x[0, n // 3] = x[0, n - 1] = 100.0
    arrays = {"x": _padded(x, v.dtypes["x"], 8 if m % 2 else 0), "out": np.full(m, -7, dtype=np.int64)}
    return arrays, {"out": np.argmax(x.astype(np.float64), axis=-1)}


def _inputs_cross_entropy(v, rng, shape):
    m, n = shape
    logits = _values(rng, (m, n), v.dtypes["logits"]) * 2
    target = rng.integers(0, n, size=m).astype(np.int64)
    target[::3] = v.constants["IGNORE_INDEX"]
    target[1] = n - 1  # the last, ragged column tile
    x = logits.astype(np.float64)
    top = x.max(axis=1, keepdims=True)
    lse = (top + np.log(np.exp(x - top).sum(axis=1, keepdims=True)))[:, 0]
    picked = x[np.arange(m), np.where(target < 0, 0, target)]
    loss = np.where(target == v.constants["IGNORE_INDEX"], 0.0, lse - picked)
    arrays = {"logits": _padded(logits, v.dtypes["logits"], 8), "target": target,
              "loss": np.full(m, np.nan, dtype=np.float32), "lse": np.full(m, np.nan, dtype=np.float32)}
    return arrays, {"loss": loss, "lse": lse}


def _inputs_cumsum(v, rng, shape):
    m, n = shape
    x = _values(rng, (m, n), v.dtypes["x"])
    out = np.full((m, n), np.nan, dtype=NP_DTYPE[v.dtypes["out"]])
    arrays = {"x": _padded(x, v.dtypes["x"], 8), "out": HostArray(out, v.dtypes["out"])}
    return arrays, {"out": np.cumsum(x.astype(np.float64), axis=-1)}


def _inputs_embedding(v, rng, shape):
    tokens, rows, h = shape
    weight = _values(rng, (rows, h), v.dtypes["weight"])
    ids = rng.integers(0, rows, size=tokens).astype(np.int64 if v.dtypes["ids"] == "int64" else np.int32)
    ids[0], ids[-1] = rows - 1, 0  # the table's edges
    out = np.full((tokens, h), np.nan, dtype=NP_DTYPE[v.dtypes["out"]])
    pad = v.params[1].stride_divisible_by[0]  # keeps the row stride a multiple of 16 bytes
    arrays = {"ids": ids, "weight": _padded(weight, v.dtypes["weight"], pad), "out": HostArray(out, v.dtypes["out"])}
    return arrays, {"out": weight[ids].astype(np.float64)}


INPUTS = {"argmax": _inputs_argmax, "cross_entropy": _inputs_cross_entropy, "cumsum": _inputs_cumsum,
          "embedding": _inputs_embedding}


def _shape(op, v):
    """Small and ragged: 2-3 row blocks, a partial last column tile; 3 column tiles where the
    kernel loops over them (argmax, cross_entropy, cumsum_looped), one where it takes whole rows."""
    aligned = "_a8" in v.name or "_a4_" in v.name
    if op == "embedding":  # 13 tokens (a ragged gather block), 3 hidden tiles, the last one partial
        return (13, 37, 2 * v.constants["TILE_H"] + 8)
    if op == "cumsum" and v.kernel.startswith("cumsum_row"):  # cumsum_row, cumsum_row_fast_o16: whole rows
        return (7, 1000 if aligned else 999)
    tile = v.constants.get("TILE_N") or v.constants.get("TILE_V")
    return (7 if op != "cross_entropy" else 4, 2 * tile + (104 if aligned else 101))


def _cases():
    for op in OPS:
        spec = load_op(ROOT / "reference" / op)
        for v in spec.variants:
            path = SNAPSHOTS / f"{op}.{v.name}.tileirbc"
            yield pytest.param(op, spec, v, path, id=f"{op}-{v.name}",
                               marks=pytest.mark.skipif(not path.is_file(), reason=f"no snapshot {path.name}"))


@pytest.mark.parametrize("op, spec, variant, path", list(_cases()))
def test_port_matches_numpy_reference(op, spec, variant, path):
    rng = np.random.default_rng(20261201)
    arrays, expected = INPUTS[op](variant, rng, _shape(op, variant))
    result = run_variant(variant, tileir_diff.load(str(path)), arrays)
    for name, want in expected.items():
        got = np.asarray(result.arrays[name], dtype=np.float64)
        tol = variant.tolerances[variant.dtypes[name]]
        np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"], err_msg=f"{op}/{variant.name} {name}")


def _argmax_edge_rows(n, dtype):
    """Rows that pin down argmax's comparisons: NaNs (skipped: an ordered compare and maxf without
    propagate_nan never take one), rows of NaN or -inf only (index 0), ties of -0.0 and +0.0,
    +inf twice, and maxima tied across column tiles (the first index wins)."""
    rng = np.random.default_rng(7)
    x = _values(rng, (9, n), dtype)
    x[0, ::7] = np.nan
    x[0, [5, n // 2, n - 1]] = 50.0
    x[1, :] = np.nan
    x[2, :] = -np.inf
    x[3, :] = -np.inf
    x[3, ::3] = np.nan
    x[4, :] = -1.0
    x[4, [n - 9, 3, n // 2]] = [0.0, -0.0, 0.0]
    x[5, n - 1] = 20.0
    x[6, [n // 3, 2 * n // 3]] = np.inf
    x[8, 0] = np.nan
    x[8, n - 2] = 9.0
    return x


def _argmax_model(x):
    """The kernels' rule: the first index of the largest non-NaN value; 0 when that is -inf or
    every value is NaN (no value is strictly greater than the initial -inf)."""
    out = []
    for row in x.astype(np.float64):
        top = np.nanmax(np.where(np.isnan(row), -np.inf, row))
        out.append(0 if top == -np.inf else int(np.flatnonzero(row == top)[0]))
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_argmax_variants_agree_on_nan_inf_and_ties(dtype):
    """Every argmax port of `dtype` (the `_m4` kernels and the `_fast` ones, which keep a running
    max per column position instead of reducing each tile) gives the same index on rows of NaN,
    infinities and signed-zero ties, and that index is the model's."""
    spec = load_op(ROOT / "reference" / "argmax")
    variants = [v for v in spec.variants if v.dtypes["x"] == dtype and (SNAPSHOTS / f"argmax.{v.name}.tileirbc").is_file()]
    assert any("_fast" in v.name for v in variants) and any("_m4_" in v.name for v in variants)
    n = 2 * 2048 + 104  # a multiple of 8: every variant takes it; 5 tiles of 1024, 3 of 2048 (last partial)
    x = _argmax_edge_rows(n, dtype)
    want = _argmax_model(x)
    assert want.tolist()[:7] == [5, 0, 0, 0, 3, n - 1, n // 3]
    for v in variants:
        arrays = {"x": HostArray(x, dtype), "out": np.full(x.shape[0], -7, dtype=np.int64)}
        got = run_variant(v, tileir_diff.load(str(SNAPSHOTS / f"argmax.{v.name}.tileirbc")), arrays).arrays["out"]
        np.testing.assert_array_equal(np.asarray(got, dtype=np.int64), want, err_msg=f"argmax/{v.name}")
