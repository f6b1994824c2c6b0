"""Inclusive prefix sum along the last axis of a 2-D array, accumulated in float32.

cumsum_row: TILE_M whole rows per block (TILE_N >= N), one tile scan.
cumsum_looped: TILE_M rows per block, the rows streamed in TILE_N tiles; each tile is scanned
and offset by the running row total (the carry) of the tiles before it.
"""

import cuda.tile as ct


@ct.kernel
def cumsum_row(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    t = ct.astype(ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, index=(block, 0), tile=ct.astype(ct.cumsum(t, axis=1), out.dtype))


@ct.kernel
def cumsum_looped(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    carry = ct.zeros((TILE_M, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(block, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        scanned = ct.cumsum(t, axis=1) + carry
        ct.store(out, index=(block, j), tile=ct.astype(scanned, out.dtype))
        carry = carry + ct.sum(t, axis=1, keepdims=True)


# ---- cumsum _fast: one row per block (TILE_M rows in general) and an occupancy hint ----------
# The committed kernels give each block 4 rows, which tileiras compiles to 67 registers (row) or
# 255 (looped, TMA-staged) a thread: 7 and 1 blocks of 4 and 8 warps per SM, and the Nsight profile
# of the row kernel is latency-bound (long_scoreboard 66 %, achieved occupancy 41 %). The `_fast`
# bodies are the same scans (the row scanned in f32, in the same order, then offset by the carry
# of the tiles before it), declared with an occupancy hint so that more blocks share an SM and
# hide the load latency. Only the rows per block and the hint differ from cumsum_row and
# cumsum_looped; their results stay within the same tolerances (the f32 scan of one row does not
# depend on how many rows share the tile).
def _cumsum_row_fast(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    t = ct.astype(ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, index=(block, 0), tile=ct.astype(ct.cumsum(t, axis=1), out.dtype))


def _cumsum_looped_fast(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    carry = ct.zeros((TILE_M, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(block, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        scanned = ct.cumsum(t, axis=1) + carry
        ct.store(out, index=(block, j), tile=ct.astype(scanned, out.dtype))
        carry = carry + ct.sum(t, axis=1, keepdims=True)


cumsum_row_fast_o16 = ct.kernel(_cumsum_row_fast, occupancy=16)
cumsum_looped_fast_o8 = ct.kernel(_cumsum_looped_fast, occupancy=8)
cumsum_looped_fast_o4 = ct.kernel(_cumsum_looped_fast, occupancy=4)


_PREFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}

# The `_a8` variants' element multiple (the last dim and the row strides); the `_fast` variants
# use 16-byte rows: 8 elements for 16-bit, 4 for f32.
MULTIPLE = 8
FAST_MULTIPLE = {"f16": 8, "bf16": 8, "f32": 4}


def _aligned(m: int, n: int, row_stride: int, multiple: int) -> bool:
    """n and the row stride multiples of `multiple` elements; one row has no stride that matters."""
    return n % multiple == 0 and (m <= 1 or row_stride % multiple == 0)


def select_variant(dtype: str, m: int, n: int, row_stride: int) -> str | None:
    """The launcher's choice for x of `dtype` (a torch dtype name) with m rows of n columns and the
    given row stride (elements); None for a dtype no variant takes. Rows of up to 1024 columns take
    the one-tile row kernel, longer rows the looped one; the `_a8` variant where n and the row
    stride are multiples of 8 elements. This is the committed rule (analysis.json `selects_when`,
    the Rust library's `candidates`); the `_fast` variants run only when forced, pending their
    GPU measurement on the selection grid (scripts/gpu/bench_selection.py)."""
    prefix = _PREFIX.get(dtype)
    if prefix is None:
        return None
    kind = "row" if n <= 1024 else "looped"
    aligned = "_a8" if _aligned(m, n, row_stride, MULTIPLE) else ""
    return f"{kind}_{prefix}{aligned}_m4_n1024"
