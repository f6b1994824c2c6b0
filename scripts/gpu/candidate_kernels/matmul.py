# Candidate kernels for reference/matmul, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py. gemm_mainloop and the ConstInt/ConstBool aliases are the kernel
# module's: this file is not a module of its own.
# ruff: noqa: F821
import cuda.tile as ct


def _grouped_coords_of(t, tiles_m, tiles_n, GROUP_M):
    """grouped_tile_coords for tile number t instead of the block id (the same GROUP_M order)."""
    blocks_per_group = GROUP_M * tiles_n
    first_m = (t // blocks_per_group) * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    return first_m + (t % rows_in_group), (t % blocks_per_group) // rows_in_group


@ct.kernel(num_worker_warps=8)
def matmul_w8_persistent(a, b, c,
                         BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                         TRANS_A: ConstBool, TRANS_B: ConstBool, NUM_BLOCKS: ConstInt):
    """matmul_w8 on a grid of at most NUM_BLOCKS blocks (one an SM: the 128x256 tiles take 225 KB of
    shared memory), each looping over the output tiles t = bid, bid + grid, ... in GROUP_M order,
    as cuBLAS's persistent Hopper kernels do: a block's next tile's loads can start while its last
    tile's TMA store drains, and the launch has no tail of block starts."""
    tiles_m = ct.cdiv(c.shape[0], BM)
    tiles_n = ct.cdiv(c.shape[1], BN)
    for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        tile_m, tile_n = _grouped_coords_of(t, tiles_m, tiles_n, GROUP_M)
        acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
        ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


@ct.kernel(num_worker_warps=8)
def matmul_fp8_w8_persistent(a, b, c, scale_a, scale_b,
                             BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                             TRANS_A: ConstBool, TRANS_B: ConstBool, NUM_BLOCKS: ConstInt):
    """matmul_fp8_w8 on the persistent grid of matmul_w8_persistent."""
    tiles_m = ct.cdiv(c.shape[0], BM)
    tiles_n = ct.cdiv(c.shape[1], BN)
    for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        tile_m, tile_n = _grouped_coords_of(t, tiles_m, tiles_n, GROUP_M)
        acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
        ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc * (scale_a * scale_b), c.dtype))
