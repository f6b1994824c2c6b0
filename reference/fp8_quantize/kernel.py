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
