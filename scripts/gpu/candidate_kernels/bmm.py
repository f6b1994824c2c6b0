# Candidate kernels for reference/bmm, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py. grouped_tile_coords and the ConstInt/ConstBool aliases are the
# kernel module's: this file is not a module of its own.
# ruff: noqa: F821
import cuda.tile as ct


@ct.kernel(num_worker_warps=8)
def bmm_w8_persistent(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt, TRANS_B: ConstBool,
                      NUM_BLOCKS: ConstInt):
    """bmm_w8 on a 1-D grid of at most NUM_BLOCKS blocks, each looping over the (batch, tile) pairs
    t = bid, bid + grid, ... (batch-major; within a batch the GROUP_M order), as matmul's persistent
    kernels do (session 28: 2.3-3.6 % for matmul's 16-bit tiles)."""
    M = c.shape[1]
    N = c.shape[2]
    tiles = ct.cdiv(M, BM) * ct.cdiv(N, BN)
    b_order = ct.static_eval((0, 2, 1) if TRANS_B else (0, 1, 2))
    for t in range(ct.bid(0), c.shape[0] * tiles, ct.num_blocks(0)):
        z = t // tiles
        tile_m, tile_n = grouped_tile_coords(t % tiles, M, N, BM, BN, GROUP_M)
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        for kk in range(ct.num_tiles(a, axis=2, shape=(1, BM, BK))):
            ta = ct.load(a, index=(z, tile_m, kk), shape=(1, BM, BK), padding_mode=ct.PaddingMode.ZERO)
            tb = ct.load(b, index=(z, kk, tile_n), shape=(1, BK, BN), order=b_order,
                         padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(ct.reshape(ta, (BM, BK)), ct.reshape(tb, (BK, BN)), acc)
        ct.store(c, index=(z, tile_m, tile_n), tile=ct.reshape(ct.astype(acc, c.dtype), (1, BM, BN)))
