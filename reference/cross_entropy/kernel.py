"""Cross-entropy loss per row with a fused logsumexp: loss[r] = logsumexp(logits[r]) - logits[r, target[r]].

One row per block; the vocabulary is streamed in TILE_V tiles once, keeping an online
logsumexp (running max and rescaled sum, base 2) and picking up the target logit where the
column index equals the target. Rows whose target is IGNORE_INDEX get loss 0. lse is stored
too (the backward needs it).
"""

import cuda.tile as ct

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


@ct.kernel
def cross_entropy_fwd(logits, target, loss, lse, TILE_V: ct.Constant[int], IGNORE_INDEX: ct.Constant[int]):
    row = ct.bid(0)
    num_col_tiles = ct.num_tiles(logits, axis=1, shape=(1, TILE_V))
    tgt = ct.reshape(ct.astype(ct.load(target, index=(row,), shape=(1,)), ct.int32), (1, 1))
    cols = ct.reshape(ct.arange(TILE_V, dtype=ct.int32), (1, TILE_V))
    running_max = ct.full((1, 1), float("-inf"), dtype=ct.float32)
    running_sum = ct.zeros((1, 1), dtype=ct.float32)
    target_logit = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(logits, index=(row, j), shape=(1, TILE_V), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
        target_logit = target_logit + ct.sum(ct.where(cols + j * TILE_V == tgt, t, 0.0), axis=1, keepdims=True)
        t2 = t * LOG2E
        new_max = ct.maximum(running_max, ct.max(t2, axis=1, keepdims=True))
        running_sum = running_sum * ct.exp2(running_max - new_max) + ct.sum(ct.exp2(t2 - new_max), axis=1, keepdims=True)
        running_max = new_max
    row_lse = (running_max + ct.log2(running_sum)) * LN2
    row_loss = ct.where(tgt == IGNORE_INDEX, 0.0, row_lse - target_logit)
    ct.store(loss, index=(row,), tile=ct.reshape(row_loss, (1,)))
    ct.store(lse, index=(row,), tile=ct.reshape(row_lse, (1,)))


# ---- the `_fast` kernel (issue 30; docs/results/tuning.md, "cross_entropy: `_fast` kernels") ---------
# The untuned kernel does three block reductions per TILE_V tile (the target pick, the max, the sum)
# and an IEEE exp2 per element: about 24-31 instructions per element, so it is issue-bound, not
# memory-bound. Here:
# - the target logit is one (1, 1) tile loaded at (row, target) before the loop, not a compare and a
#   reduction per element;
# - the sum of exponentials is a (1, TILE_V) accumulator rescaled per tile and reduced once per row,
#   so each tile costs one block reduction (the max);
# - the max is taken over the logits as loaded (16-bit: packed pairs) and scaled once (x -> x *
#   log2(e) is monotone, so max(x) * log2(e) is max(x * log2(e)) exactly), and each element's
#   exponent is one fma;
# - exp2 flushes subnormal results to zero (MUFU.EX2 with no fix-up: a term below 2^-126 of the row
#   maximum's contributes 0, far inside the f32 tolerance).
# Per element: a conversion, a max, an fma, an exp2 and an fma.
def _cross_entropy_fast(logits, target, loss, lse, TILE_V: ct.Constant[int], IGNORE_INDEX: ct.Constant[int]):
    row = ct.bid(0)
    num_col_tiles = ct.num_tiles(logits, axis=1, shape=(1, TILE_V))
    tgt = ct.astype(ct.load(target, index=(row,), shape=()), ct.int32)
    # Targets outside [0, V) (other than IGNORE_INDEX) read column 0 and get loss +inf.
    in_row = (tgt >= 0) & (tgt < logits.shape[1])
    target_logit = ct.astype(ct.load(logits, index=(row, ct.where(in_row, tgt, 0)), shape=(1, 1)), ct.float32)
    running_max = ct.full((1, 1), float("-inf"), dtype=ct.float32)
    acc = ct.zeros((1, TILE_V), dtype=ct.float32)
    for j in range(num_col_tiles):
        # -inf padding: padded columns add exp2(-inf) = 0 and never win the max.
        raw = ct.load(logits, index=(row, j), shape=(1, TILE_V), padding_mode=ct.PaddingMode.NEG_INF)
        # The max of the logits as stored (exact in any dtype; packed HMNMX2 pairs for 16-bit).
        new_max = ct.maximum(running_max, ct.astype(ct.max(raw, axis=1, keepdims=True), ct.float32) * LOG2E)
        t = ct.astype(raw, ct.float32)
        acc = acc * ct.exp2(running_max - new_max, flush_to_zero=True) + ct.exp2(
            t * LOG2E - new_max, flush_to_zero=True)
        running_max = new_max
    row_lse = (running_max + ct.log2(ct.sum(acc, axis=1, keepdims=True))) * LN2
    row_loss = ct.where(in_row, row_lse - target_logit, float("inf"))
    row_loss = ct.where(tgt == IGNORE_INDEX, 0.0, row_loss)
    ct.store(loss, index=(row,), tile=ct.reshape(row_loss, (1,)))
    ct.store(lse, index=(row,), tile=ct.reshape(row_lse, (1,)))


# Blocks per SM: the occupancy hint caps registers so that K one-row blocks share an SM (more
# tiles in flight), the (1, TILE_V) accumulator and the loaded tile taking TILE_V / 64 registers
# each per thread at 128 threads.
cross_entropy_fast_o8 = ct.kernel(_cross_entropy_fast, occupancy=8)
cross_entropy_fast_o4 = ct.kernel(_cross_entropy_fast, occupancy=4)
cross_entropy_fast_o2 = ct.kernel(_cross_entropy_fast, occupancy=2)


def _aligned(m: int, v: int, row_stride: int, multiple: int) -> bool:
    """V and the row stride multiples of `multiple` elements (16-byte rows); one row has no stride
    that matters."""
    return v % multiple == 0 and (m <= 1 or row_stride % multiple == 0)


def _select_fast(prefix: str, m: int, v: int) -> str:
    """Aligned rows (`prefix` "f16_a8", "bf16_a8" or "f32_a4"): the tile width by row length and,
    for 16-bit rows, by row count (bench_selection.py, H200, 2026-12-06: every pick within 1.10x
    of the fastest in both passes). One row is one block: with few rows (m <= 512, under four
    blocks per SM) a wider tile keeps more bytes in flight per block; with many rows the narrower
    tile's occupancy wins."""
    if prefix == "f32_a4":
        return "f32_a4_fast_v1024" if v <= 1024 else "f32_a4_fast_v2048" if v <= 4096 else "f32_a4_fast_v4096"
    if v <= 2048:
        return f"{prefix}_fast_v2048"
    few_rows = m <= 512
    if v <= 4096:
        return f"{prefix}_fast_v4096" if few_rows else f"{prefix}_fast_v2048"
    return f"{prefix}_fast_v8192" if few_rows else f"{prefix}_fast_v4096"


def select_variant(dtype: str, m: int, v: int, row_stride: int) -> str | None:
    """The launcher's choice for logits of `dtype` (a torch dtype name) with m rows of v columns and
    the given row stride (elements); None for a dtype no variant takes. Aligned rows (16-bit: v and
    the row stride multiples of 8; f32: of 4) take the `_fast` kernel (_select_fast); other rows
    the untuned one. bf16_a8_v2048 runs only when forced. The Rust library's cutile_cross_entropy
    chooses the same (tests/rust/test_selection.py)."""
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    multiple = 4 if dtype == "float32" else 8
    if _aligned(m, v, row_stride, multiple):
        return _select_fast(f"{prefix}_a{multiple}", m, v)
    return f"{prefix}_v2048"
