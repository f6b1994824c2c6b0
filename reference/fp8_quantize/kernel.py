"""Dynamic per-token (per-row) fp8 e4m3 quantization in cuTile Python.

scale[r] = max(max_c |x[r, c]|, eps) / 448 and q[r, c] = clamp(x[r, c] / scale[r], -448, 448)
rounded to float8_e4m3fn (448 = largest finite e4m3fn value; eps keeps an all-zero
row finite). ``fp8_quant_rows`` holds TILE_M whole rows in one tile (N <= TILE_N);
``fp8_quant_rows_looped`` makes two passes over column tiles (absmax, then
quantize) for rows of any length. Math in f32.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]

FP8_E4M3_MAX = 448.0
MIN_ABSMAX = 1e-12


@ct.kernel(occupancy=4)
def fp8_quant_rows(x, q, scales, TILE_M: ConstInt, TILE_N: ConstInt):
    """Rows tile_m*TILE_M ... of x, each whole row in one (TILE_M, TILE_N) tile; grid (cdiv(M, TILE_M),)."""
    tile_m = ct.bid(0)
    t = ct.astype(ct.load(x, index=(tile_m, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO),
                  ct.float32)
    absmax = ct.max(ct.abs(t), axis=1, keepdims=True)
    scale = ct.maximum(absmax, MIN_ABSMAX) / FP8_E4M3_MAX
    quant = ct.minimum(ct.maximum(t / scale, -FP8_E4M3_MAX), FP8_E4M3_MAX)
    ct.store(q, index=(tile_m, 0), tile=ct.astype(quant, q.dtype))
    ct.store(scales, index=(tile_m,), tile=ct.reshape(scale, (TILE_M,)))


@ct.kernel
def fp8_quant_rows_looped(x, q, scales, TILE_M: ConstInt, TILE_N: ConstInt):
    """Same result for any row length: pass 1 reduces |x| over column tiles, pass 2 quantizes them."""
    tile_m = ct.bid(0)
    col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    absmax = ct.zeros((TILE_M, 1), dtype=ct.float32)
    for j in range(col_tiles):
        t = ct.load(x, index=(tile_m, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        absmax = ct.maximum(absmax, ct.max(ct.abs(ct.astype(t, ct.float32)), axis=1, keepdims=True))
    scale = ct.maximum(absmax, MIN_ABSMAX) / FP8_E4M3_MAX
    for j in range(col_tiles):
        t = ct.astype(ct.load(x, index=(tile_m, j), shape=(TILE_M, TILE_N)), ct.float32)
        quant = ct.minimum(ct.maximum(t / scale, -FP8_E4M3_MAX), FP8_E4M3_MAX)
        ct.store(q, index=(tile_m, j), tile=ct.astype(quant, q.dtype))
    ct.store(scales, index=(tile_m,), tile=ct.reshape(scale, (TILE_M,)))


def _quantize_fast(t, TILE_M):
    """(quant, scale) of an f32 (TILE_M, n) tile: one division per row (448 / absmax), then a
    multiply per element where the other kernels divide by the scale (an IEEE division per element
    made them ALU-bound: docs/results/tuning.md). x * (448 / a) and x / (a / 448) differ by at most
    a rounding or two of f32, which reaches q only where x / scale lies on an e4m3 rounding boundary:
    within the suite's one-e4m3-ulp tolerance. The scale written is the other kernels' exactly."""
    absmax = ct.maximum(ct.max(ct.abs(t), axis=1, keepdims=True), MIN_ABSMAX)
    inv = FP8_E4M3_MAX / absmax
    quant = ct.minimum(ct.maximum(t * inv, -FP8_E4M3_MAX), FP8_E4M3_MAX)
    return quant, absmax / FP8_E4M3_MAX


@ct.kernel(occupancy=4)
def fp8_quant_rows_fast(x, q, scales, TILE_M: ConstInt, TILE_N: ConstInt):
    """fp8_quant_rows with a multiply per element (``_quantize_fast``); grid (cdiv(M, TILE_M),)."""
    tile_m = ct.bid(0)
    t = ct.astype(ct.load(x, index=(tile_m, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO),
                  ct.float32)
    quant, scale = _quantize_fast(t, TILE_M)
    ct.store(q, index=(tile_m, 0), tile=ct.astype(quant, q.dtype))
    ct.store(scales, index=(tile_m,), tile=ct.reshape(scale, (TILE_M,)))


# Host-side choice. Each dtype's candidates in order, the first whose layout contract holds:
# (name, N multiple, x row-stride multiple, q row-stride multiple). The `_a16_fast` kernels do the
# `_a8` kernels' work with one division per row instead of one per element (half the instructions
# in the sm_90 SASS) and store q 16 bytes at a time; rows longer than one tile: bf16 looped.
# bf16's `_a16_fast` (4, 4096) tile spills (168 B of stack: the q staging for the TMA store) and was
# 1.11x the `_a8` kernel's time on the H100 (bench shape): forced only; its `_a8_fast` form stores q
# 8 bytes at a time without staging and does not spill. Its (2, 4096) tile (bf16_rows_a8_fast_m2_n4096)
# is taken before the (4, 4096) one: half the registers (32 KB less shared memory a block) at the same
# occupancy hint, 91.2 vs 89.3 % of copy bandwidth at the bench shape (H100, 2026-12-07), and
# 1.02-1.21x faster over the selection grid, except for many short rows (see MANY_SHORT_ROWS).
_ROWS = {
    "bfloat16": (4096, (("bf16_rows_a8_fast_m2_n4096", 8, 8, 8), ("bf16_rows_a8_m4_n4096", 8, 8, 8),
                        ("bf16_rows_m4_n4096", 1, 8, 16))),
    "float16": (1024, (("f16_rows_a16_fast_m8_n1024", 16, 8, 16), ("f16_rows_a8_fast_m8_n1024", 8, 8, 8),
                       ("f16_rows_a8_m8_n1024", 8, 8, 8), ("f16_rows_m8_n1024", 1, 8, 16))),
}


# bf16 rows of up to SHORT_ROW columns fill at most half of a (·, 4096) tile: past MANY_SHORT_ROWS
# rows such rows take the 4-row `_a8_fast` tile (8192 rows of 1024 / 2048: 1.05 / 1.02x faster
# than 2 rows a block, 32768 x 1024: 1.16x), up to it the 2-row one (64-4096 rows: up to 1.13x
# faster; 1024 x 2048 a tie); selection grid, two passes, H100, 2026-12-07. The bound is the last
# row count measured where 2 rows won.
SHORT_ROW = 2048
MANY_SHORT_ROWS = 4096
# Their candidates: _ROWS["bfloat16"]'s with the 4-row `_a8_fast` tile first (the same contract).
_BF16_MANY_SHORT = (("bf16_rows_a8_fast_m4_n4096", 8, 8, 8),) + _ROWS["bfloat16"][1][1:]


def select_variant(dtype: str, m: int, n: int, x_row_stride: int, q_row_stride: int) -> str | None:
    """The launcher's choice for x (m, n) of `dtype` (a torch dtype name) and q (m, n) with the
    given row strides (elements; unit column strides, 16-byte aligned bases): None where no
    variant takes it (another dtype, f16 rows past 1024 columns, x rows not 16-byte multiples or q
    rows not a multiple of 16 bytes, or 8 with N a multiple of 8). A single row's strides do not
    matter. The Rust library's cutile_fp8_quantize chooses the same (tests/rust/test_selection.py)."""
    if dtype not in _ROWS:
        return None
    xs, qs = (0, 0) if m <= 1 else (x_row_stride, q_row_stride)
    tile_n, order = _ROWS[dtype]
    if dtype == "bfloat16" and n <= SHORT_ROW and m > MANY_SHORT_ROWS:
        order = _BF16_MANY_SHORT
    if n > tile_n:
        if dtype == "bfloat16" and xs % 8 == 0 and qs % 16 == 0:
            return "bf16_looped_m1_n2048"
        return None
    for name, n_div, x_div, q_div in order:
        if n % n_div == 0 and xs % x_div == 0 and qs % q_div == 0:
            return name
    return None
