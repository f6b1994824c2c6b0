"""Batched GEMM c[z] = a[z] @ op(b[z]) in cuTile Python (f16/bf16, f32 via tf32).

Grid axis 1 is the batch; axis 0 walks the (M, N) output tiles of one batch in
grouped order. Tiles are loaded as (1, BM, BK) slabs of the 3-D arrays and
reshaped to 2-D for ``ct.mma``. ``TRANS_B`` reads b stored as (batch, N, K)
through ``order=(0, 2, 1)``.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


def grouped_tile_coords(bid, M, N, BM, BN, GROUP_M):
    """(tile_m, tile_n) for a 1-D block id, GROUP_M row-tiles per column sweep (L2 reuse of b)."""
    tiles_m = ct.cdiv(M, BM)
    tiles_n = ct.cdiv(N, BN)
    blocks_per_group = GROUP_M * tiles_n
    group = bid // blocks_per_group
    first_m = group * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    return first_m + (bid % rows_in_group), (bid % blocks_per_group) // rows_in_group


def _bmm(a, b, c,
         BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt, TRANS_B: ConstBool):
    """c[z, M, N] = a[z, M, K] @ (b[z].T if TRANS_B else b[z]); f32 accumulate."""
    z = ct.bid(1)
    M = c.shape[1]
    N = c.shape[2]
    tile_m, tile_n = grouped_tile_coords(ct.bid(0), M, N, BM, BN, GROUP_M)
    b_order = ct.static_eval((0, 2, 1) if TRANS_B else (0, 1, 2))
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in range(ct.num_tiles(a, axis=2, shape=(1, BM, BK))):
        ta = ct.load(a, index=(z, tile_m, kk), shape=(1, BM, BK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(z, kk, tile_n), shape=(1, BK, BN), order=b_order,
                     padding_mode=ct.PaddingMode.ZERO)
        ta = ct.reshape(ta, (BM, BK))
        tb = ct.reshape(tb, (BK, BN))
        if a.dtype == ct.float32:
            # f32 operands run on tensor cores as tf32
            ta = ct.astype(ta, ct.tfloat32)
            tb = ct.astype(tb, ct.tfloat32)
        acc = ct.mma(ta, tb, acc)
    out = ct.reshape(ct.astype(acc, c.dtype), (1, BM, BN))
    ct.store(c, index=(z, tile_m, tile_n), tile=out)


# One body, two compiler-option sets.
bmm = ct.kernel(_bmm)
# num_worker_warps=8: two consumer warpgroups (64 accumulator rows each) so a 128x256 f32
# accumulator fits in registers without spilling (one warpgroup needs 256 regs/thread for it)
bmm_w8 = ct.kernel(_bmm, num_worker_warps=8)
