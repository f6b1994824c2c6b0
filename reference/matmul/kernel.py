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


def tile_coords_of(t, tiles_m, tiles_n, GROUP_M):
    """Output tile number t (0 .. tiles_m * tiles_n - 1) as (tile_m, tile_n) in the GROUP_M order
    of grouped_tile_coords (the block id there, each tile a persistent block visits here).
    rows_in_group is at least 1 for every such t; the max(1, ...) states it where an interval
    reading of the IR can see it, so the IR comparison proves this floor division and modulo
    equal to the Rust port's truncating ones (rule nonnegative-division) without knowing that
    t < tiles_m * tiles_n."""
    blocks_per_group = GROUP_M * tiles_n
    group = t // blocks_per_group
    first_m = group * GROUP_M
    rows_in_group = max(1, min(tiles_m - first_m, GROUP_M))
    tile_m = first_m + (t % rows_in_group)
    tile_n = (t % blocks_per_group) // rows_in_group
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


# Persistent forms of matmul_w8 and matmul_fp8_w8: a grid of at most NUM_BLOCKS blocks (132, one an SM
# of the H100 and H200: these tiles take 160-225 KB of shared memory), each looping over the output tiles
# t = bid, bid + grid, ... in GROUP_M order, as cuBLAS's Hopper kernels do: no block starts after the first
# wave, and a block's next tile may begin while its last TMA store drains (not profiled). Measured on the
# H100 (scripts/gpu/ab_variants.py, interleaved, docs/results/tuning.md, session 28): 2.3-2.5 % faster for
# the 16-bit 128x256x64 tiles and 1.7 % for tf32 at 4096^3, 9.1 % for fp8 at 8192^3; with at most NUM_BLOCKS
# tiles every block takes one, as the one-tile kernels do. NUM_BLOCKS is read by the grid only (the
# kernel steps by ct.num_blocks), so a launch with any grid covers every tile.
@ct.kernel(num_worker_warps=8)
def matmul_w8_persistent(a, b, c,
                         BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                         TRANS_A: ConstBool, TRANS_B: ConstBool, NUM_BLOCKS: ConstInt):
    """matmul_w8 on a persistent grid: each block computes tiles bid, bid + grid, ..."""
    tiles_m = ct.cdiv(c.shape[0], BM)
    tiles_n = ct.cdiv(c.shape[1], BN)
    for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        tile_m, tile_n = tile_coords_of(t, tiles_m, tiles_n, GROUP_M)
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
        tile_m, tile_n = tile_coords_of(t, tiles_m, tiles_n, GROUP_M)
        acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
        acc = acc * (scale_a * scale_b)
        ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))


# Outputs at least this large (M*N, about one wave of 128x256 tiles on 132 SMs) take the 128x256
# tile on two consumer warpgroups (docs/results/selection.json: 11-18 % faster from 2048^2 on,
# slower at 512^2).
WIDE_TILE_MIN_MN = 2048 * 2048
# The persistent kernels' grid cap (their NUM_BLOCKS): with at most this many 128x256 output tiles every
# block of a persistent grid takes one tile, as the one-tile w8 kernel does, and the loop only costs
# (docs/results/selection.json, H100: 2048^2 f16 NN w8 29.3 us, w8p 30.1 us; 8192x8192x4096 w8p 744 vs
# w8 769 us), so the launcher takes w8p only for outputs of more tiles.
PERSISTENT_GRID = 132


def select_variant(dtype: str, m: int, n: int, trans_a: bool, trans_b: bool, aligned: bool) -> str | None:
    """The launcher's choice for c (m, n) = op(a) @ op(b) with a, b, c of `dtype` (a torch dtype
    name); `aligned`: every base address 16-byte aligned, every row stride a multiple of 16
    bytes, and c's rows (n elements) a multiple of 16 bytes (with that contract,
    `shape_divisible_by` on c, tileiras writes the output tile with stmatrix and TMA stores
    instead of one 2-byte STG per element: 1-3.5 % faster on the H100, docs/results/tuning.md
    session 26). None when no variant takes the combination (an f16 TT product, an unaligned
    bf16 or f32 one). Measured (scripts/gpu/bench_selection.py, docs/results/selection.json, held within
    1.10x of the fastest by tests/suite/test_selection_results.py): NN, TN and NT take w8
    128x256x64 from WIDE_TILE_MIN_MN outputs on, on its persistent grid (w8p) once the output has
    more than PERSISTENT_GRID tiles, 128x128x64 below (the one-warpgroup 128x256x64 spills its
    accumulator: never picked); bf16 TT has 128x128x64 only; odd strides take the f16 64x64x32
    fallback; f32 (tf32) NT takes w8 / w8p 128x256x32 likewise from WIDE_TILE_MIN_MN outputs on
    (1.19x faster than 128x128x32 at 4096^3 on the H100, interleaved; persistent another 1.7 %),
    NN and smaller NT 128x128x32. The Rust library's cutile_matmul chooses the same
    (tests/rust/test_selection.py; docs/rust_ports.md, "GEMM variant selection")."""
    layout = ("t" if trans_a else "n") + ("t" if trans_b else "n")
    wide = m * n >= WIDE_TILE_MIN_MN
    w8 = "w8p" if -(-m // 128) * -(-n // 256) > PERSISTENT_GRID else "w8"
    if dtype == "float32":
        if not aligned or layout not in ("nn", "nt"):
            return None
        return f"tf32_nt_{w8}_128x256x32" if layout == "nt" and wide else f"tf32_{layout}_128x128x32"
    prefix = {"float16": "f16", "bfloat16": "bf16"}.get(dtype)
    if prefix is None or (layout == "tt" and dtype != "bfloat16"):
        return None
    if not aligned:
        return "f16_nn_unaligned_64x64x32" if dtype == "float16" and layout == "nn" else None
    if layout != "tt" and wide:
        return f"{prefix}_{layout}_{w8}_128x256x64"
    return f"{prefix}_{layout}_128x128x64"


def select_fp8_variant(out_dtype: str, m: int, n: int, trans_a: bool, trans_b: bool) -> str | None:
    """The fp8 launcher's choice for c (m, n) (its variants take row strides of 16 bytes and a c of N
    a multiple of 8; the caller checks the layout): e4m3 a (M, K) and b stored (N, K) only, on
    128x128x128 with two consumer warpgroups (1048 us vs 1286 us on one and 22497 us at 128x256x128,
    whose accumulator spills, f16 out at 8192^3 on the H200), on its persistent grid (w8p: 9.1 %
    faster than w8 at 8192^3 on the H100, interleaved) once the output has more than PERSISTENT_GRID
    128x128 tiles; the one-tile w8 below (the grid, H100: 10.9 vs 11.8 us f16 out and 9.7 vs 10.5 us
    bf16 out at 1024^3, 64 tiles; since session 29: before, w8p at every size)."""
    prefix = {"float16": "f16", "bfloat16": "bf16"}.get(out_dtype)
    if prefix is None or trans_a or not trans_b:
        return None
    w8 = "w8p" if -(-m // 128) * -(-n // 128) > PERSISTENT_GRID else "w8"
    return f"fp8e4m3_{prefix}_nt_{w8}_128x128x128"


# matmul_fp8_w8 with num_ctas=2: the block is a two-CTA cluster (the cubin's
# EIATTR_BLOCKS_ARE_CLUSTERS: the launch grid is read as clusters, so the launch stays as it is; the
# first GPU run checks this). The two CTAs split the BM x BN tile and tileiras multicasts the operand
# tile they share (UTMALDG.2D.MULTICAST): 256x128 gives each CTA matmul_fp8_w8's 128x128x128 tile with
# B loaded once per pair. Slower than w8 on the H100 (docs/results/tuning.md): select_fp8_variant skips it.
@ct.kernel(num_worker_warps=8, num_ctas=2)
def matmul_fp8_w8_c2(a, b, c, scale_a, scale_b,
                     BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt,
                     TRANS_A: ConstBool, TRANS_B: ConstBool):
    """matmul_fp8_w8 in two-CTA clusters."""
    M = c.shape[0]
    N = c.shape[1]
    tile_m, tile_n = grouped_tile_coords(M, N, BM, BN, GROUP_M)
    acc = gemm_mainloop(a, b, tile_m, tile_n, BM, BN, BK, TRANS_A, TRANS_B)
    acc = acc * (scale_a * scale_b)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))
