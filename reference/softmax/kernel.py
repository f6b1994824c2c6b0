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


# ---- the `_fast` kernels: the same two structures with approximate math ------------------------
# exp2 flushes subnormal results to zero (MUFU.EX2, no fix-up: a probability below 2^-126 is 0),
# and the row sum's reciprocal is rcp.approx (MUFU.RCP, no IEEE division's refinement and slow
# path), computed once per row and multiplied into each element. f32-level error against float64:
# a few ulps, far inside every dtype's tolerance. The occupancy hints keep few registers and many
# one-row blocks per SM (docs/results/tuning.md, "softmax ... (issue 30)").
def approx_div(num, den):
    """num / den as num * rcp.approx(den), subnormals flushed (MUFU.RCP + one multiply)."""
    return ct.truediv(num, den, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)


def _softmax_row_fast(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    t = ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    t = ct.astype(t, ct.float32) * LOG2E
    row_max = ct.max(t, axis=1, keepdims=True)
    e = ct.exp2(t - row_max, flush_to_zero=True)
    inv_sum = approx_div(1.0, ct.sum(e, axis=1, keepdims=True))
    ct.store(out, index=(block, 0), tile=ct.astype(e * inv_sum, out.dtype))


def _softmax_online_fast(x, out, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(1, TILE_N))
    running_max = ct.full((1, 1), float("-inf"), dtype=ct.float32)
    running_sum = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        t = ct.astype(t, ct.float32) * LOG2E
        new_max = ct.maximum(running_max, ct.max(t, axis=1, keepdims=True))
        running_sum = running_sum * ct.exp2(running_max - new_max, flush_to_zero=True) + ct.sum(
            ct.exp2(t - new_max, flush_to_zero=True), axis=1, keepdims=True)
        running_max = new_max
    inv_sum = approx_div(1.0, running_sum)
    for j in range(num_col_tiles):
        t = ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        t = ct.astype(t, ct.float32) * LOG2E
        p = ct.exp2(t - running_max, flush_to_zero=True) * inv_sum
        ct.store(out, index=(row, j), tile=ct.astype(p, out.dtype))


# One block per row (or two), many blocks per SM: occupancy 16 for (1, 1024) tiles, 8 for (2, 1024)
# and (1, 2048), 4 for (1, 4096); the online kernel 8 for 1024- and 2048-column tiles, 4 for 4096, 2
# for 8192 (registers capped to fit; larger tiles keep more bytes in flight per block).
softmax_row_fast_o16 = ct.kernel(_softmax_row_fast, occupancy=16)
softmax_row_fast_o8 = ct.kernel(_softmax_row_fast, occupancy=8)
softmax_row_fast_o4 = ct.kernel(_softmax_row_fast, occupancy=4)
softmax_online_fast_o8 = ct.kernel(_softmax_online_fast, occupancy=8)
softmax_online_fast_o4 = ct.kernel(_softmax_online_fast, occupancy=4)
softmax_online_fast_o2 = ct.kernel(_softmax_online_fast, occupancy=2)


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


def _aligned(m: int, n: int, row_strides, multiple: int) -> bool:
    """n and every row stride multiples of `multiple` elements (16-byte rows); one row has no stride
    that matters."""
    return n % multiple == 0 and (m <= 1 or all(s % multiple == 0 for s in row_strides))


def _select_fast(prefix: str, m: int, n: int) -> str:
    """16-bit rows of n and row strides multiples of 8 (`prefix` "f16_a8" or "bf16_a8"): one row per
    (1, 1024) block up to SOME_ROWS rows, four per block beyond (at occupancy 8: 1.00x the fastest on
    the H100 grid there, two per block 1.03-1.25x); the online kernel with 2048-column
    tiles for longer rows, except few rows, which take one (1, 4096) tile or 8192-column tiles
    (more bytes in flight per block where there are few blocks); rows beyond 8192 columns
    8192-column tiles."""
    if n <= 1024:
        return f"{prefix}_fast_m1_n1024" if m <= SOME_ROWS else f"{prefix}_fast_m4_n1024"
    if n <= 2048:
        return f"{prefix}_online_fast_n2048"
    if n <= 4096:
        return f"{prefix}_fast_m1_n4096" if m <= FEW_ROWS else f"{prefix}_online_fast_n2048"
    if n <= 8192 and m > FEW_ROWS:
        return f"{prefix}_online_fast_n2048"
    return f"{prefix}_online_fast_n8192"


def _select_f32(m: int, n: int, a4: bool) -> str:
    """f32: rows of up to 128 columns one per (1, 1024) block with 32-bit accesses (any layout); n
    and the row strides multiples of 4 (`_a4`, 128-bit accesses): up to 1024 columns the online
    kernel for few rows, one row per block up to SOME_ROWS, two beyond; up to 2048 columns the
    online kernel, one (1, 2048) tile per row beyond SOME_ROWS; up to 4096 a (1, 4096) tile, up to
    8192 the online kernel with 4096-column tiles, beyond it with 8192-column tiles. Other layouts
    keep the untuned kernels: the online kernel for few rows and long rows, else whole-row tiles."""
    if n <= 128 or (not a4 and n <= 1024 and m <= SOME_ROWS):
        return "f32_fast_m1_n1024"
    if not a4:
        if m <= FEW_ROWS or n > 4096:
            return "f32_online_n1024"
        return "f32_row_o8_m4_n1024" if n <= 1024 else "f32_row_m1_n4096"
    if n <= 1024:
        if m <= FEW_ROWS:
            return "f32_a4_online_fast_n1024"
        return "f32_a4_fast_m1_n1024" if m <= SOME_ROWS else "f32_a4_fast_m2_n1024"
    if n <= 2048:
        return "f32_a4_online_fast_n2048" if m <= SOME_ROWS else "f32_a4_fast_m1_n2048"
    if n <= 4096:
        return "f32_a4_fast_m1_n4096"
    return "f32_a4_online_fast_n4096" if n <= 8192 else "f32_a4_online_fast_n8192"


def select_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's choice for x, out of `dtype` (a torch dtype name) with m rows of n columns and
    the given row strides (elements; a single row has none that matters); None for a dtype no
    variant takes. Measured, not guessed: every applicable variant timed over a grid of m and n
    (scripts/gpu/bench_selection.py, docs/results/selection.json), and this choice is held within
    1.10x of the fastest at every measured point (tests/suite/test_selection_results.py). Aligned
    rows (16-bit: n and the row strides multiples of 8; f32: of 4) take the `_fast` kernels
    (_select_fast, _select_f32). Unaligned 16-bit rows keep the untuned kernels: short rows (n <=
    128) and few rows the online kernel (one row per block, no wasted tile width); many rows of up
    to 1024 columns 4 rows per block (bf16 already from FEW_ROWS when the row fills the tile);
    2048 < n <= 4096 the whole-row tile; other rows the online kernel. The Rust library's
    cutile_softmax chooses the same (tests/rust/test_selection.py)."""
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    if dtype == "float32":
        return _select_f32(m, n, _aligned(m, n, row_strides, 4))
    if _aligned(m, n, row_strides, 8):
        return _select_fast(f"{prefix}_a8", m, n)
    if 128 < n <= 1024 and (m > SOME_ROWS or (dtype == "bfloat16" and n == 1024 and m > FEW_ROWS)):
        return f"{prefix}_row_m4_n1024"
    if 2048 < n <= 4096:
        return f"{prefix}_row_m1_n4096"
    return f"{prefix}_online_n1024"
