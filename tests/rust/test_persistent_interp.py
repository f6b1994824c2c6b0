"""CPU numerics of the persistent GEMM ports (matmul_w8_persistent, bmm_w8_persistent): each Rust
snapshot (tests/corpus/rust/<op>.<variant>.tileirbc) runs in the NumPy interpreter on a grid
smaller than its output tile count, so every block loops over several tiles (bmm: across
batches), against a float64 product, at grids of 1 and 3 blocks: many passes per block, where the
GPU runs' largest test shapes (matmul 1600 x 3000, bmm B=5 of 1000 x 1096) give a block two."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir_diff.interp import HostArray, run_variant
from tileir_diff.loader import load
from tileir_diff.suite.catalog import load_op

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "tests" / "corpus" / "rust"
NP_DTYPE = {"float16": np.float16, "float32": np.float32, "bfloat16": np.float32}


def _persistent(op):
    spec = load_op(ROOT / "reference" / op)
    return [(op, v) for v in spec.variants if "NUM_BLOCKS" in v.constants and v.dtypes["a"] in NP_DTYPE]


CASES = _persistent("matmul") + _persistent("bmm")


def _values(rng, shape, dtype):
    """Multiples of 1/8 in [-1, 1]: exact in every dtype here (tf32 included), sums of products exact in f32."""
    return (rng.integers(-8, 9, size=shape) / 8.0).astype(NP_DTYPE[dtype])


@pytest.mark.parametrize("op, v", CASES, ids=[f"{op}/{v.name}" for op, v in CASES])
@pytest.mark.parametrize("grid", [1, 3])
def test_persistent_blocks_cover_every_tile(op, v, grid):
    rng = np.random.default_rng(7)
    dtype = v.dtypes["a"]
    # ragged: 3 row tiles (the last partial) x 2 column tiles; bmm: 3 batches of them
    batch, m, n, k = (3 if op == "bmm" else 1), 2 * v.constants["BM"] + 8, v.constants["BN"] + 40, 72
    ta, tb = v.constants.get("TRANS_A", False), v.constants["TRANS_B"]
    lead = (batch,) if op == "bmm" else ()
    a = _values(rng, lead + ((k, m) if ta else (m, k)), dtype)
    b = _values(rng, lead + ((n, k) if tb else (k, n)), dtype)
    c = np.full(lead + (m, n), np.nan, dtype=NP_DTYPE[dtype])
    module = load(str(SNAPSHOTS / f"{op}.{v.name}.tileirbc"))
    out = run_variant(v, module, {"a": HostArray(a, dtype), "b": HostArray(b, dtype), "c": HostArray(c, dtype)},
                      grid=(grid, 1, 1)).arrays["c"].astype(np.float64)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    expected = np.swapaxes(a64, -1, -2) if ta else a64
    expected = expected @ (np.swapaxes(b64, -1, -2) if tb else b64)
    assert not np.isnan(out).any(), f"{v.name}: tiles left unwritten on a grid of {grid}"
    # exact sums (multiples of 1/64 below 2, K = 72); bf16 rounds the stored output to 8 bits
    np.testing.assert_allclose(out, expected, rtol=2.0 ** -8 if v.dtypes["c"] == "bfloat16" else 0, atol=0)
