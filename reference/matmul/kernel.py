"""Tiled GEMM C = op(A) @ op(B) in cuTile Python: f16/bf16, f32 through tf32, fp8 e4m3.

One output tile (BM x BN) per block on a 1-D grid, f32 accumulator, a K loop of
``ct.mma``. Transposed operands are structural variants: ``TRANS_A``/``TRANS_B``
switch the load to ``order=(1, 0)`` so a K-major (stored transposed) operand is
read without a copy.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


def grouped_tile_coords(M, N, BM, BN, GROUP_M):
    """Map the 1-D block id to (tile_m, tile_n), GROUP_M row-tiles at a time.

    Consecutive blocks walk down a column of GROUP_M row-tiles before moving to
    the next column tile, so the B tiles they share stay hot in L2.
    """
    bid = ct.bid(0)
    tiles_m = ct.cdiv(M, BM)
    tiles_n = ct.cdiv(N, BN)
    blocks_per_group = GROUP_M * tiles_n
    group = bid // blocks_per_group
    first_m = group * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (bid % rows_in_group)
    tile_n = (bid % blocks_per_group) // rows_in_group
    return tile_m, tile_n


def gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B):
    """f32 (BM, BN) accumulator of op(A)[tile_m] @ op(B)[:, tile_n] over all of K.

    ``order=(1, 0)`` views a stored-transposed operand in logical (M, K) / (K, N)
    order. Loads pad with zeros so a ragged last K tile adds nothing.
    f32 operands are rounded to tf32 so the MMA runs on tensor cores.
    """
    a_order = ct.static_eval((1, 0) if TRANS_A else (0, 1))
    b_order = ct.static_eval((1, 0) if TRANS_B else (0, 1))
    k_tiles = ct.num_tiles(a, axis=1, shape=(BM, BK), order=a_order)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in range(k_tiles):
        ta = ct.load(a, index=(tile_m, kk), shape=(BM, BK), order=a_order,
                     padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(kk, tile_n), shape=(BK, BN), order=b_order,
                     padding_mode=ct.PaddingMode.ZERO)
        if a.dtype == ct.float32:
            ta = ct.astype(ta, ct.tfloat32)
            tb = ct.astype(tb, ct.tfloat32)
        acc = ct.mma(ta, tb, acc)
    return acc


@ct.kernel
def matmul(a, b, c,
           BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
           TRANS_A: ConstBool, TRANS_B: ConstBool):
    """c[M, N] = op(a) @ op(b); op(x) = x.T when the TRANS_ flag is set."""
    M = c.shape[0]
    N = c.shape[1]
    tile_m, tile_n = grouped_tile_coords(M, N, BM, BN, GROUP_M)
    acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


@ct.kernel
def matmul_fp8(a, b, c, scale_a, scale_b,
               BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
               TRANS_A: ConstBool, TRANS_B: ConstBool):
    """c = (scale_a * scale_b) * (op(a) @ op(b)) with e4m3 operands, f32 accumulate.

    Per-tensor dequantisation scales as in torch._scaled_mm; the product is applied
    once to the f32 accumulator before the cast to the 16-bit output.
    """
    M = c.shape[0]
    N = c.shape[1]
    tile_m, tile_n = grouped_tile_coords(M, N, BM, BN, GROUP_M)
    acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
    acc = acc * (scale_a * scale_b)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


# Same body as matmul; num_worker_warps=8: two consumer warpgroups (64 accumulator rows each) so a
# 128x256 f32 accumulator fits in registers without spilling (one warpgroup needs 256 regs/thread
# for it)
@ct.kernel(num_worker_warps=8)
def matmul_w8(a, b, c,
              BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
              TRANS_A: ConstBool, TRANS_B: ConstBool):
    """c[M, N] = op(a) @ op(b); op(x) = x.T when the TRANS_ flag is set."""
    M = c.shape[0]
    N = c.shape[1]
    tile_m, tile_n = grouped_tile_coords(M, N, BM, BN, GROUP_M)
    acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


# matmul_fp8 with num_worker_warps=8 (two consumer warpgroups): measured 0.62x -> 0.82x torch at
# 128x128x128 on the H200 (docs/results/tuning.md).
@ct.kernel(num_worker_warps=8)
def matmul_fp8_w8(a, b, c, scale_a, scale_b,
                  BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                  TRANS_A: ConstBool, TRANS_B: ConstBool):
    """matmul_fp8 scheduled on two consumer warpgroups."""
    M = c.shape[0]
    N = c.shape[1]
    tile_m, tile_n = grouped_tile_coords(M, N, BM, BN, GROUP_M)
    acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
    acc = acc * (scale_a * scale_b)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))
