"""CPU numerics of split-K's chunked reduce (splitk_reduce_chunked: SP slabs a load, zero past the
last slab): the Rust snapshot (tests/corpus/rust) and, where the suite is exported, the Python
reference's bytecode run in the NumPy interpreter at slab counts on every side of the chunk size
(S < SP: one padded chunk; S = SP; S = SP + 1: a second chunk of one slab and SP - 1 padded ones;
2 SP), on a ragged (M, N) of edge tiles and on every other slab of a 2S-slab buffer, against the
float64 sum. The GPU test shapes run S = 1, 3, 4, 8; these reach S = 5 and non-contiguous slabs too."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.reference_build import built_reference_dir
from tileir_diff.interp import HostArray, run_variant
from tileir_diff.loader import load
from tileir_diff.suite.catalog import load_op

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_op(ROOT / "reference" / "splitk_matmul")
CHUNKED = [v for v in SPEC.variants if v.kernel == "splitk_reduce_chunked" and v.dtypes["c"] == "float16"]


def _sources(v):
    yield "rust", ROOT / "tests" / "corpus" / "rust" / f"splitk_matmul.{v.name}.tileirbc"
    yield "python", built_reference_dir() / "splitk_matmul" / f"{v.name}.tileirbc"


CASES = [(side, v, path) for v in CHUNKED for side, path in _sources(v)]


@pytest.mark.parametrize("side, v, path", CASES, ids=[f"{s}/{v.name}" for s, v, _ in CASES])
@pytest.mark.parametrize("strided", [False, True])
def test_chunked_reduce_sums_every_slab_once(side, v, path, strided):
    if not path.is_file():
        pytest.skip(f"{path} not built (tileir-diff suite export)")
    assert CHUNKED, "no chunked reduce variant in reference/splitk_matmul/analysis.json"
    module = load(str(path))
    sp, tm, tn = (v.constants[k] for k in ("SP", "TM", "TN"))
    m, n = 2 * tm + 1, tn + 24  # edge tiles on both axes
    rng = np.random.default_rng(11)
    for s in sorted({1, sp - 1, sp, sp + 1, 2 * sp} - {0}):
        # multiples of 1/8 in [-4, 4]: every partial sum exact in f32 and in f16 at the end
        slabs = (rng.integers(-32, 33, size=(2 * s if strided else s, m, n)) / 8.0).astype(np.float32)
        partial = slabs[::2] if strided else slabs
        c = np.full((m, n), np.nan, dtype=np.float16)
        out = run_variant(v, module, {"partial": HostArray(partial, "float32"), "c": HostArray(c, "float16")},
                          shape={"M": m, "N": n, "S": s}).arrays["c"]
        expected = partial.astype(np.float64).sum(axis=0)
        assert not np.isnan(out.astype(np.float32)).any(), f"{side} {v.name} S={s}: c left unwritten"
        np.testing.assert_array_equal(out.astype(np.float64), expected, err_msg=f"{side} {v.name} S={s}")
