"""dropout_fast keeps exactly the elements dropout keeps, and writes the same bits, for every p.

The GPU numerics (run_reference.py, test_gpu_ports.py) check both kernels against ref.py at p = 0.3
only. dropout_fast replaces the float test uniform(seed, i) >= p by an unsigned compare of the hash
with ceil(p * 2^24) << 8 and a flag for "nothing kept"; these are equal for every p only if the
threshold's edge cases are right (p <= 0, p >= 1, NaN, infinities, subnormals, multiples of 2^-24,
1 - 2^-24). Here both kernels' bytecode runs in the interpreter on the same ragged inputs (with inf,
NaN and zeros among them) and the outputs must agree bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest

from tileir_diff import load
from tileir_diff.interp import HostArray, run_variant
from tileir_diff.suite.catalog import load_catalog
from tests.conftest import fresh_reference_bytecode

OP = load_catalog(ops=["dropout"])[0]
VARIANTS = {v.name: v for v in OP.variants}
# the edges of the threshold, and values on both sides of a multiple of 2^-24
P_VALUES = (0.0, -0.0, 1.0, 0.3, 0.5, float("nan"), float("inf"), -float("inf"), 1.5, -0.5, 1e-40, 2.0**-24,
            3 * 2.0**-25, 1 - 2.0**-24, 1 - 2.0**-23, 0.25 + 2.0**-24, np.nextafter(np.float32(0.25), np.float32(0)))
SEEDS = (0, 12345, -1)
N = 2056  # two full tiles and a ragged third
BOUNDARY_SEED = 12345
BOUNDARY_ELEMENTS = (10, 1500, 2050)


def _top24(i: int, seed: int) -> int:
    """k = hash(i, seed) >> 8 as reference/dropout/ref.py computes it (uniform = k / 2^24)."""
    mask = 0xFFFFFFFF
    h = ((i * 0x9E3779B1) & mask) ^ (seed & mask)
    h ^= h >> 16
    h = (h * 0x7FEB352D) & mask
    h ^= h >> 15
    h = (h * 0x846CA68B) & mask
    h ^= h >> 16
    return h >> 8


def _boundary_ps():
    """For a few elements, p = their uniform exactly (kept: u >= p) and the f32 neighbours on
    either side: an off-by-one threshold (> for >=, floor for ceil) flips those elements."""
    ps = []
    for i in BOUNDARY_ELEMENTS:
        u = np.float32(_top24(i, BOUNDARY_SEED) / 2.0**24)
        ps += [float(u), float(np.nextafter(u, np.float32(2))), float(np.nextafter(u, np.float32(-1)))]
    return tuple(ps)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    from tileir_diff.suite.export import artifact_paths

    root = tmp_path_factory.mktemp("reference")
    failed = fresh_reference_bytecode(root, [OP])
    names = ("f16_a8_t1024", "f16_a8_fast_t1024", "bf16_a8_t1024", "bf16_a8_fast_t1024")
    paths = {name: artifact_paths(VARIANTS[name], root, archs=())[0] for name in names}
    missing = [name for name, path in paths.items() if not path.is_file()]
    if missing:
        pytest.skip(f"no bytecode for {missing} (export failed or cuda.tile missing: {failed})")
    return {name: load(str(path)) for name, path in paths.items()}


def _inputs(dtype):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(N).astype(np.float32)
    x[:5] = [np.inf, -np.inf, np.nan, 0.0, -0.0]
    if dtype == "float16":
        return x.astype(np.float16)
    return (x.view(np.uint32) & 0xFFFF0000).view(np.float32)  # bf16 values, held as float32


def _run(modules, name, dtype, seed, p):
    x = _inputs(dtype)
    out = np.zeros_like(x)
    arrays = {"x": HostArray(x, dtype, (1,)), "out": HostArray(out, dtype, (1,)), "seed": seed, "p": float(p)}
    result = run_variant(VARIANTS[name], modules[name], arrays)
    return np.asarray(result.arrays["out"]).copy()


@pytest.mark.parametrize("prefix, dtype", [("f16", "float16"), ("bf16", "bfloat16")])
def test_fast_kernel_writes_the_same_bits_for_every_p(modules, prefix, dtype):
    bits = np.uint16 if dtype == "float16" else np.uint32
    kept_counts = {}
    cases = [(seed, p) for seed in SEEDS for p in P_VALUES] + [(BOUNDARY_SEED, p) for p in _boundary_ps()]
    outputs = {}
    for seed, p in cases:
        old = _run(modules, f"{prefix}_a8_t1024", dtype, seed, p).view(bits)
        new = _run(modules, f"{prefix}_a8_fast_t1024", dtype, seed, p).view(bits)
        differ = np.flatnonzero(old != new)
        assert differ.size == 0, f"{prefix} seed={seed} p={p!r}: {differ.size} elements differ, first {differ[:5]}"
        kept_counts[(seed, p)] = int(np.count_nonzero(old))
        outputs[(seed, p)] = old
    # the cases exercise both edges: p <= 0 keeps every input but +0 (-0 keeps its sign bit), p >= 1
    # or NaN keeps none, p = 0.5 about half (a kernel writing a constant would fail above or here)
    assert kept_counts[(0, 0.0)] == N - 1 and kept_counts[(0, -0.5)] == N - 1
    assert kept_counts[(0, 1.0)] == kept_counts[(0, 1.5)] == 0
    assert kept_counts[(12345, float("inf"))] == 0
    assert 0.4 * N < kept_counts[(0, 0.5)] < 0.6 * N
    # the boundary cases hit: at p = u_i element i is kept, just above it dropped, just below kept
    for k, i in enumerate(BOUNDARY_ELEMENTS):
        at, above, below = _boundary_ps()[3 * k:3 * k + 3]
        assert outputs[(BOUNDARY_SEED, at)][i] != 0 and outputs[(BOUNDARY_SEED, below)][i] != 0, i
        assert outputs[(BOUNDARY_SEED, above)][i] == 0, i
