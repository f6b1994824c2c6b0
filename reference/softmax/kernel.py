"""softmax over the last axis of a 2-D array, two structures.

softmax_row: TILE_M whole rows per block (TILE_N >= N): one load, max, exp, sum, one store.
softmax_online: one row per block, the row streamed in TILE_N tiles twice: pass 1 keeps the
running max and the running sum rescaled at each new max (online softmax), pass 2 writes
exp(x - max) / sum. Used when the row does not fit one tile.
"""

import cuda.tile as ct

# exp(v) = exp2(v * log2(e)); exp2 is the native instruction.
LOG2E = 1.4426950408889634


def _softmax_row(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    # -inf padding: padded columns contribute exp(-inf) = 0 to the sum and never win the max.
    t = ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    t = ct.astype(t, ct.float32) * LOG2E
    row_max = ct.max(t, axis=1, keepdims=True)
    e = ct.exp2(t - row_max)
    row_sum = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(block, 0), tile=ct.astype(e / row_sum, out.dtype))


softmax_row = ct.kernel(_softmax_row)


def _softmax_online(x, out, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(1, TILE_N))
    running_max = ct.full((1, 1), float("-inf"), dtype=ct.float32)
    running_sum = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        t = ct.astype(t, ct.float32) * LOG2E
        new_max = ct.maximum(running_max, ct.max(t, axis=1, keepdims=True))
        # Rescale the sum so far to the new maximum before adding this tile's terms.
        running_sum = running_sum * ct.exp2(running_max - new_max) + ct.sum(ct.exp2(t - new_max), axis=1, keepdims=True)
        running_max = new_max
    inv_sum = 1.0 / running_sum
    for j in range(num_col_tiles):
        t = ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        t = ct.astype(t, ct.float32) * LOG2E
        ct.store(out, index=(row, j), tile=ct.astype(ct.exp2(t - running_max) * inv_sum, out.dtype))


softmax_online = ct.kernel(_softmax_online)


# The same bodies under occupancy=K: K blocks share an SM (registers capped), hiding the
# load -> reduce -> store latency of one block (H200 measurements in docs/results/tuning.md).
softmax_row_o8 = ct.kernel(_softmax_row, occupancy=8)
softmax_row_o4 = ct.kernel(_softmax_row, occupancy=4)
softmax_online_o4 = ct.kernel(_softmax_online, occupancy=4)


# Row counts where the measured choice changes (docs/results/selection.json): up to FEW_ROWS
# the launch is latency-bound (a wave or two of blocks), up to SOME_ROWS a few waves, beyond it
# bandwidth-bound.
FEW_ROWS = 256
SOME_ROWS = 1024


def select_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's choice for x, out of `dtype` (a torch dtype name) with m rows of n columns and
    the given row strides (elements; a single row has none that matters); None for a dtype no
    variant takes. Measured, not guessed: every applicable variant timed over a grid of m and n
    (scripts/gpu/bench_selection.py, docs/results/selection.json), and this choice is held within
    1.10x of the fastest at every measured point (tests/suite/test_selection_results.py). Short rows
    (n <= 128) and few rows take the online kernel (one row per block, no wasted tile width);
    many rows of up to 1024 columns take 4 rows per block (bf16 already from FEW_ROWS when the row
    fills the tile: no masked tail); 2048 < n <= 4096 the whole-row tile; long rows the online
    kernel. The 16-bit `_a8` variants need n and the row strides multiples of 8 and fall back to
    the untuned kernel of the same shape otherwise. The Rust library's cutile_softmax chooses the
    same (tests/rust/test_selection.py)."""
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    if dtype == "float32":
        if m <= FEW_ROWS or n > 4096:
            return "f32_online_n1024"
        return "f32_row_o8_m4_n1024" if n <= 1024 else "f32_row_m1_n4096"
    a8 = n % 8 == 0 and (m <= 1 or all(s % 8 == 0 for s in row_strides))
    online = f"{prefix}_online_a8_o4_n1024" if a8 else f"{prefix}_online_n1024"
    if n <= 128:
        return f"{prefix}_online_n1024"
    if n <= 1024:
        rows_per_block = m > SOME_ROWS or (dtype == "bfloat16" and n == 1024 and m > FEW_ROWS)
        if rows_per_block:
            return f"{prefix}_row_a8_o8_m4_n1024" if a8 else f"{prefix}_row_m4_n1024"
        return online if dtype == "float16" else f"{prefix}_online_n1024"
    if n <= 2048:
        return f"{prefix}_online_n1024" if dtype == "bfloat16" and m > SOME_ROWS else online
    if n <= 4096:
        return f"{prefix}_row_a8_o4_m1_n4096" if a8 else f"{prefix}_row_m1_n4096"
    return online
