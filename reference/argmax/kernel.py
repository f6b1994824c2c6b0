"""argmax along the last axis of a 2-D array: out[r] = first index of the maximum of row r.

TILE_M rows per block, the rows streamed in TILE_N tiles. Per tile: the tile maximum and the
first column holding it (min over the matching column indices); a later tile replaces the
running result only when strictly greater, so ties resolve to the first index, as torch does.
"""

import cuda.tile as ct

NO_INDEX = 2147483647


@ct.kernel(occupancy=8)
def argmax_rows(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    best = ct.full((TILE_M, 1), float("-inf"), dtype=ct.float32)
    best_index = ct.zeros((TILE_M, 1), dtype=ct.int32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(block, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
        tile_max = ct.max(t, axis=1, keepdims=True)
        first = ct.min(ct.where(t == tile_max, cols + j * TILE_N, NO_INDEX), axis=1, keepdims=True)
        better = tile_max > best
        best_index = ct.where(better, first, best_index)
        best = ct.where(better, tile_max, best)
    ct.store(out, index=(block,), tile=ct.astype(ct.reshape(best_index, (TILE_M,)), out.dtype))


# ---- argmax_fast: a running (max, tile) per column, one block reduction per row ----------------
# argmax_rows reduces every (TILE_M, TILE_N) tile across the block twice (the tile max, then the
# first matching column): two cross-warp reductions, with their barriers, per tile. The fast body
# keeps, per element position of the tile, the largest value seen so far and the tile it came
# from, updated without leaving the thread (one compare, one max, one select per element, in x's
# own dtype: ordering is exact, no conversion), and reduces across the block once per row, after
# the loop. Same result as argmax_rows, bit for bit: a position takes a later tile's value only
# when strictly greater, so each position keeps its first maximum, and the row's answer is the
# smallest column among the positions holding the row max (ties: the first index); NaN compares
# false and maxf without propagate_nan ignores it, so NaNs are skipped as in argmax_rows; a row of
# -inf (or NaN and -inf) gives 0 as there.
def _argmax_fast(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    # -inf made in f32 and converted (tileiras folds it): cuTile Rust has no generic -inf of x's dtype.
    best = ct.astype(ct.full((TILE_M, TILE_N), float("-inf"), dtype=ct.float32), x.dtype)
    best_tile = ct.zeros((TILE_M, TILE_N), dtype=ct.int32)
    for j in range(num_col_tiles):
        t = ct.load(x, index=(block, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        best_tile = ct.where(t > best, j, best_tile)
        best = ct.maximum(best, t)
    row_max = ct.max(best, axis=1, keepdims=True)
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    first = ct.min(ct.where(best == row_max, best_tile * TILE_N + cols, NO_INDEX), axis=1)
    ct.store(out, index=(block,), tile=ct.astype(first, out.dtype))


argmax_fast_o16 = ct.kernel(_argmax_fast, occupancy=16)
argmax_fast_o8 = ct.kernel(_argmax_fast, occupancy=8)


_PREFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}

# The aligned `_fast` variants' element multiple: 16-byte rows (n and the row stride multiples of 8
# elements for 16-bit, 4 for f32), which give 128-bit loads.
FAST_MULTIPLE = {"f16": 8, "bf16": 8, "f32": 4}


def _aligned(m: int, n: int, row_stride: int, multiple: int) -> bool:
    """n and the row stride multiples of `multiple` elements; one row has no stride that matters."""
    return n % multiple == 0 and (m <= 1 or row_stride % multiple == 0)


# float32 launches of at least this many rows of <= 1024 columns take four rows a block (the
# grid's 1,024-row cases are a tie, its 33,554-row ones 1.08-1.10x in favour of f32_m4_n1024).
MANY_ROWS = 4096


def select_variant(dtype: str, m: int, n: int, row_stride: int) -> str | None:
    """The launcher's choice for x of `dtype` (a torch dtype name) with m rows of n columns and the
    given row stride (elements); None for a dtype no variant takes. Every row takes the `_fast`
    kernel (one row per block): rows of 16-byte multiples (n and the row stride multiples of 8
    elements for 16-bit, 4 for f32) the aligned variant, 1024-column tiles up to n = 1024 and
    2048-column tiles (two 128-bit loads a thread per step) beyond; other rows the unaligned one.
    The exception: float32 rows of at most 1024 columns, MANY_ROWS or more of them, take
    f32_m4_n1024 (four rows a block; any layout): on the H200 the one-row `_fast` kernel is
    1.08-1.10x slower there (46.6 vs 42.2 us at 33,554 x 1000, two passes; on the H100 the two
    were within 1 %).
    The other `_m4` variants run only when forced. Measured (bench_selection.py,
    docs/results/selection.json, H200 2026-12-07). The Rust library's cutile_argmax chooses the
    same (tests/rust/test_selection.py)."""
    prefix = _PREFIX.get(dtype)
    if prefix is None:
        return None
    if prefix == "f32" and n <= 1024 and m >= MANY_ROWS:
        return "f32_m4_n1024"
    multiple = FAST_MULTIPLE[prefix]
    if _aligned(m, n, row_stride, multiple):
        return f"{prefix}_a{multiple}_fast_m1_n{1024 if n <= 1024 else 2048}"
    return f"{prefix}_fast_m1_n1024"
