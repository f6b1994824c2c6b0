# Candidate kernels for reference/softmax, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py. LOG2E and approx_div are the kernel module's: this file is
# not a module of its own.
# ruff: noqa: F821
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def softmax_row_fast_prefetch(x, out, TILE_M: ConstInt, TILE_N: ConstInt, NUM_BLOCKS: ConstInt):
    """softmax_row_fast over a grid of at most NUM_BLOCKS blocks, each looping over the row tiles
    bid, bid + grid, ... with the next tile's load issued before this tile's reductions and store
    (two tiles in flight a block; the load past the last tile reads only padding). The launched
    kernel holds one tile a block: DRAM at 71 % of peak, long-scoreboard stalls 64 % (ncu, H100)."""
    tiles = ct.num_tiles(x, axis=0, shape=(TILE_M, TILE_N))
    step = ct.num_blocks(0)
    first = ct.bid(0)
    nxt = ct.load(x, index=(first, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    for b in range(first, tiles, step):
        cur = nxt
        nxt = ct.load(x, index=(b + step, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        t = ct.astype(cur, ct.float32) * LOG2E
        row_max = ct.max(t, axis=1, keepdims=True)
        e = ct.exp2(t - row_max, flush_to_zero=True)
        inv_sum = approx_div(1.0, ct.sum(e, axis=1, keepdims=True))
        ct.store(out, index=(b, 0), tile=ct.astype(e * inv_sum, out.dtype))
