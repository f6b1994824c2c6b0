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
        # The rows are scanned as the columns of the transposed tile: the same sums in the same
        # order, but for f32 tileiras compiles this form into a loop unrolled twice with twice the
        # loads in flight (the port's SASS, which ran 1.1-1.8x faster than the row form on the H200;
        # 16-bit rows compile to the same SASS either way).
        scanned = ct.transpose(ct.cumsum(ct.transpose(t), axis=0)) + carry
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


# f32 rows of up to 1024 columns: past this many rows (up to 4096) the kernel that keeps 4 rows a
# block wins (bench_selection.py, H100, 2026-12-06; H100 and H200, 2026-12-07).
FEW_ROWS = 256


def _candidates(prefix: str, m: int, n: int) -> list[tuple[str, int]]:
    """The variants for m rows of n columns, most preferred first, each with the element multiple
    its contract needs of n and the row stride (1: any layout); the launcher takes the first whose
    contract x meets. Measured (scripts/gpu/bench_selection.py, 57 cases, two passes, H100,
    2026-12-06 and 2026-12-07): 16-byte rows take the one-row `_fast` kernels (the row one up to
    1024 columns, the looped one beyond), except f32 rows that are multiples of 8: 4 rows a block
    for 257-4096 rows of up to 1024 columns. (Until the looped `_fast` body scanned its rows as
    columns, f32 rows longer than 2048 columns took 4 rows a block up to FEW_ROWS rows too; the
    one-row kernel is now 1.19-1.67x faster there.) Other rows:
    the untuned kernels, f16 rows of up to 1024 columns the looped one up to 1024 rows (the row
    kernel 1.2-1.5x slower there). The Rust library's `candidates` lists the same."""
    fast_multiple = FAST_MULTIPLE[prefix]
    row = n <= 1024
    fast = (f"row_{prefix}_a{fast_multiple}_fast_m1_n1024" if row
            else f"looped_{prefix}_a{fast_multiple}_fast_m1_n1024", fast_multiple)
    kind = "row" if row else "looped"
    if prefix == "f16" and row and m <= 1024:
        kind = "looped"
    untuned = [(f"{kind}_{prefix}_a8_m4_n1024", MULTIPLE), (f"{kind}_{prefix}_m4_n1024", 1)]
    if prefix == "f32" and row and FEW_ROWS < m <= 4096:
        return [untuned[0], fast, untuned[1]]
    return [fast] + untuned


def select_variant(dtype: str, m: int, n: int, row_stride: int) -> str | None:
    """The launcher's choice for x of `dtype` (a torch dtype name) with m rows of n columns and the
    given row stride (elements); None for a dtype no variant takes: the first of `_candidates`
    whose contract x meets."""
    prefix = _PREFIX.get(dtype)
    if prefix is None:
        return None
    for name, multiple in _candidates(prefix, m, n):
        if _aligned(m, n, row_stride, multiple):
            return name
    raise AssertionError(f"cumsum: no variant for {dtype} ({m}, {n})")  # the last takes any layout
