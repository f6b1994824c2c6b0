# Candidate kernels for reference/gelu, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py. The constants and helpers (TANH_K0, ERF_T, approx_div, ...)
# are the kernel module's: this file is not a module of its own.
# ruff: noqa: F821
import cuda.tile as ct

ConstInt = ct.Constant[int]


def _gelu_f32(v, APPROX):
    """gelu_fast's math on an f32 tile (the tanh form for APPROX 1, the erf polynomial otherwise)."""
    s = v * v
    if APPROX == 1:
        e = ct.exp2(v * (TANH_K0 + TANH_K1 * s), flush_to_zero=True)
        return approx_div(v, 1.0 + e)
    t = approx_div(1.0, 1.0 + ERF_T * ct.abs(v))
    poly_half = ((((HALF_A5 * t + HALF_A4) * t + HALF_A3) * t + HALF_A2) * t + HALF_A1) * t
    h = poly_half * ct.exp2(s * ERF_EXP2, flush_to_zero=True)
    return v * ct.where(v < 0.0, h, 1.0 - h)


@ct.kernel
def gelu_fast_persistent(x, out, APPROX: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt, NUM_BLOCKS: ConstInt):
    """gelu_fast over a grid of at most NUM_BLOCKS blocks, each looping over the tiles t = bid,
    bid + grid, ... in row-major order: at the bench shape gelu_fast launches 65,536 blocks of
    one 2 KB tile each (16-bit), and torch's gelu runs at a same-size copy's speed, ours 3.5 %
    slower."""
    tiles_n = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    total = ct.num_tiles(x, axis=0, shape=(TILE_M, TILE_N)) * tiles_n
    for t in range(ct.bid(0), total, ct.num_blocks(0)):
        bm = t // tiles_n
        bn = t % tiles_n
        v = ct.astype(ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO),
                      ct.float32)
        ct.store(out, index=(bm, bn), tile=ct.astype(_gelu_f32(v, APPROX), out.dtype))


@ct.kernel
def gelu_fast_prefetch(x, out, APPROX: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt, NUM_BLOCKS: ConstInt):
    """gelu_fast_persistent with the next tile's load issued before this tile's math and store
    (two tiles in flight a block; the load past the last tile reads only padding)."""
    tiles_n = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    total = ct.num_tiles(x, axis=0, shape=(TILE_M, TILE_N)) * tiles_n
    step = ct.num_blocks(0)
    first = ct.bid(0)
    nxt = ct.load(x, index=(first // tiles_n, first % tiles_n), shape=(TILE_M, TILE_N),
                  padding_mode=ct.PaddingMode.ZERO)
    for t in range(first, total, step):
        cur = nxt
        n = t + step
        nxt = ct.load(x, index=(n // tiles_n, n % tiles_n), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(t // tiles_n, t % tiles_n), tile=ct.astype(_gelu_f32(ct.astype(cur, ct.float32), APPROX),
                                                                       out.dtype))
