"""CPU numerics of the two-kernel ports as their one C call runs them: flash_decode_partial then
flash_decode_combine on its partials, moe_align_histogram then moe_align_sort on its counts and
offsets. The fresh emit-ir IR of each pair runs in the NumPy interpreter, the second kernel on
the first one's outputs, against a float64 / exact NumPy reference of the whole op (decode
attention over each sequence's keys; the stable expert sort). A pre-check of what
tests/rust/test_gpu_ports.py checks on the GPU."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tileir_diff
from tileir_diff.interp import HostArray, run_variant
from tileir_diff.suite.catalog import load_op

from .conftest import emitted_ir

pytestmark = pytest.mark.cargo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rust_ir(request):
    """The two ops' IR (emit-ir --op; build_ports.sh's when it is current: conftest.emitted_ir)."""
    return emitted_ir(request, ("flash_decode", "moe_align_block_size"))


def _variant(op, name):
    return next(v for v in load_op(ROOT / "reference" / op).variants if v.name == name)


def _run(op, name, rust_ir, arrays):
    v = _variant(op, name)
    return v, run_variant(v, tileir_diff.load(str(rust_ir / op / f"{name}.tileirbc")), arrays).arrays


@pytest.mark.parametrize("partial, combine, dtype, d, hq, hkv", [
    ("partial_bf16_d128_g1", "combine_bf16_d128", "bfloat16", 128, 2, 2),
    ("partial_bf16_d128_g4", "combine_bf16_d128", "bfloat16", 128, 8, 2),
    ("partial_f16_d64_g8", "combine_f16_d64", "float16", 64, 8, 1),
])
def test_flash_decode_partial_then_combine_is_decode_attention(rust_ir, partial, combine, dtype, d, hq, hkv):
    rng = np.random.default_rng(20261201)
    b, smax, s = 2, 300, 3
    lens = np.array([300, 130], dtype=np.int32)  # 3 key tiles (the last ragged) / 2: split 2 of batch 1 is empty
    exact = lambda *shape: (rng.integers(-8, 9, size=shape) / 8.0).astype(np.float32)  # noqa: E731 (exact in 16 bits)
    q, k, v = exact(b, hq, d), exact(b, hkv, smax, d), exact(b, hkv, smax, d)
    scale = 1.0 / np.sqrt(d)
    _, out = _run("flash_decode", partial, rust_ir, {
        "q": HostArray(q, dtype), "k": HostArray(k, dtype), "v": HostArray(v, dtype), "seq_lens": lens,
        "partial_o": np.full((b, hq, s, d), np.nan, dtype=np.float32),
        "partial_lse": np.full((b, hq, s), np.nan, dtype=np.float32), "sm_scale": np.float32(scale)})
    assert np.isneginf(out["partial_lse"][1, :, 2]).all() and (out["partial_o"][1, :, 2] == 0).all(), "empty split"
    combine_v, merged = _run("flash_decode", combine, rust_ir, {
        "partial_o": out["partial_o"], "partial_lse": out["partial_lse"],
        "o": HostArray(np.full((b, hq, d), np.nan, dtype=np.float32), dtype)})
    group = hq // hkv
    want = np.empty((b, hq, d))
    for i in range(b):
        keys = np.repeat(k[i, :, :lens[i]].astype(np.float64), group, axis=0)
        vals = np.repeat(v[i, :, :lens[i]].astype(np.float64), group, axis=0)
        scores = np.einsum("hd,hkd->hk", q[i], keys) * scale
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        want[i] = np.einsum("hk,hkd->hd", p / p.sum(axis=1, keepdims=True), vals)
    tol = combine_v.tolerances[dtype]
    np.testing.assert_allclose(np.asarray(merged["o"], dtype=np.float64), want, rtol=tol["rtol"], atol=tol["atol"])


@pytest.mark.parametrize("histogram, sort, block_m, experts", [
    ("hist_bm64_e128", "sort_bm64_e128", 64, 60), ("hist_bm16_e256", "sort_bm16_e256", 16, 20)])
def test_moe_align_histogram_then_sort_is_the_stable_expert_sort(rust_ir, histogram, sort, block_m, experts):
    rng = np.random.default_rng(20261201)
    n = 300  # 3 id tiles of 128, the last ragged
    ids = rng.integers(experts // 2, experts, size=n).astype(np.int32)  # the first half of the experts stays empty
    em = n + experts * (block_m - 1)
    nb = -(-em // block_m)
    poison = lambda size: np.full(size, 0x7F7F7F7F, dtype=np.int32)  # noqa: E731
    _, hist = _run("moe_align_block_size", histogram, rust_ir, {
        "topk_ids": ids, "expert_counts": poison(experts), "expert_offsets": poison(experts + 1),
        "expert_ids": poison(nb), "num_tokens_post_padded": poison(1)})
    _, out = _run("moe_align_block_size", sort, rust_ir, {
        "topk_ids": ids, "expert_counts": hist["expert_counts"], "expert_offsets": hist["expert_offsets"],
        "sorted_token_ids": poison(em)})
    counts = np.bincount(ids, minlength=experts)
    padded = -(-counts // block_m) * block_m
    offsets = np.concatenate([[0], np.cumsum(padded)])
    owners = np.full(nb, -1)
    want_sorted = np.full(em, n)
    for e in range(experts):
        owners[offsets[e] // block_m:offsets[e + 1] // block_m] = e
        mine = np.flatnonzero(ids == e)  # ascending flat ids: the stable order
        want_sorted[offsets[e]:offsets[e] + len(mine)] = mine
    np.testing.assert_array_equal(hist["expert_counts"], counts)
    np.testing.assert_array_equal(hist["expert_offsets"], offsets)
    np.testing.assert_array_equal(hist["num_tokens_post_padded"], [offsets[-1]])
    np.testing.assert_array_equal(hist["expert_ids"], owners)
    np.testing.assert_array_equal(out["sorted_token_ids"], want_sorted)
