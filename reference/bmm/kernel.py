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


def tile_coords_of(t, tiles_m, tiles_n, GROUP_M):
    """Output tile number t (0 .. tiles_m * tiles_n - 1 of one batch) as (tile_m, tile_n) in the
    GROUP_M order of grouped_tile_coords (the block id there, each tile a persistent block visits
    in bmm_w8_persistent). rows_in_group is at least 1 for every such t; the max(1, ...) states it
    where an interval reading of the IR sees it, so the IR comparison proves this floor division
    and modulo equal to the Rust port's truncating ones (rule nonnegative-division) without a
    launch fact."""
    blocks_per_group = GROUP_M * tiles_n
    group = t // blocks_per_group
    first_m = group * GROUP_M
    rows_in_group = max(1, min(tiles_m - first_m, GROUP_M))
    tile_m = first_m + (t % rows_in_group)
    tile_n = (t % blocks_per_group) // rows_in_group
    return tile_m, tile_n


def bmm_mainloop(a, b, z, tile_m, tile_n, BM, BN, BK, TRANS_B):
    """f32 (BM, BN) accumulator of a[z][tile_m] @ op(b[z])[:, tile_n] over all of K."""
    b_order = ct.static_eval((0, 2, 1) if TRANS_B else (0, 1, 2))
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in range(ct.num_tiles(a, axis=2, shape=(1, BM, BK))):
        ta = ct.load(a, index=(z, tile_m, kk), shape=(1, BM, BK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(z, kk, tile_n), shape=(1, BK, BN), order=b_order,
                     padding_mode=ct.PaddingMode.ZERO)
        if a.dtype == ct.float32:
            # f32 operands run on tensor cores as tf32. Rounded as loaded, before the reshape: with
            # the reshape between the load and the cast, tileiras rounds the tiles in registers
            # (F2FP.TF32, STS back to shared memory) instead of the wgmma reading them as tf32,
            # 1.4x slower on the H100 (docs/results/tuning.md, session 26)
            ta = ct.astype(ta, ct.tfloat32)
            tb = ct.astype(tb, ct.tfloat32)
        acc = ct.mma(ct.reshape(ta, (BM, BK)), ct.reshape(tb, (BK, BN)), acc)
    return acc


def _bmm(a, b, c,
         BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt, TRANS_B: ConstBool):
    """c[z, M, N] = a[z, M, K] @ (b[z].T if TRANS_B else b[z]); f32 accumulate."""
    z = ct.bid(1)
    M = c.shape[1]
    N = c.shape[2]
    tile_m, tile_n = grouped_tile_coords(ct.bid(0), M, N, BM, BN, GROUP_M)
    acc = bmm_mainloop(a, b, z, tile_m, tile_n, BM, BN, BK, TRANS_B)
    out = ct.reshape(ct.astype(acc, c.dtype), (1, BM, BN))
    ct.store(c, index=(z, tile_m, tile_n), tile=out)


# One body, two compiler-option sets.
bmm = ct.kernel(_bmm)
# num_worker_warps=8: two consumer warpgroups (64 accumulator rows each) so a 128x256 f32
# accumulator fits in registers without spilling (one warpgroup needs 256 regs/thread for it)
bmm_w8 = ct.kernel(_bmm, num_worker_warps=8)


# bmm_w8 on a persistent grid (matmul_w8_persistent's form, reference/matmul/kernel.py): a 1-D grid of at
# most NUM_BLOCKS blocks (132, one an SM of the H100 and H200), each looping over the (batch, tile) pairs
# t = bid, bid + grid, ... of all B * tiles output tiles, batch-major and within a batch in GROUP_M order.
# Measured on the H100 (scripts/gpu/ab_variants.py, interleaved, B=16 at 16 bits and 8 at tf32, 2048^3,
# docs/results/tuning.md session 29): f16 NN 0.933, bf16 NN 0.930, f16 NT 0.930, bf16 NT 0.927, tf32 NT
# 0.960 of the one-tile bmm_w8 kernels' time. NUM_BLOCKS is read by the grid only (the loop steps by ct.num_blocks), so a
# launch with any grid covers every tile; the store's token is carried from one tile's store to the next.
@ct.kernel(num_worker_warps=8)
def bmm_w8_persistent(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt, GROUP_M: ConstInt, TRANS_B: ConstBool,
                      NUM_BLOCKS: ConstInt):
    """bmm_w8 on a persistent grid: each block computes the (batch, tile) pairs bid, bid + grid, ..."""
    tiles_m = ct.cdiv(c.shape[1], BM)
    tiles_n = ct.cdiv(c.shape[2], BN)
    tiles = tiles_m * tiles_n
    # the divisor clamped to >= 1 (it is for every launched grid) where an interval reading of the IR
    # sees it: a product of two extents may wrap for all it can tell, and then the floor division and
    # modulo would not provably equal the Rust port's truncating ones (rule nonnegative-division)
    per_batch = max(1, tiles)
    for t in range(ct.bid(0), c.shape[0] * tiles, ct.num_blocks(0)):
        z = t // per_batch
        tile_m, tile_n = tile_coords_of(t % per_batch, tiles_m, tiles_n, GROUP_M)
        acc = bmm_mainloop(a, b, z, tile_m, tile_n, BM, BN, BK, TRANS_B)
        ct.store(c, index=(z, tile_m, tile_n), tile=ct.reshape(ct.astype(acc, c.dtype), (1, BM, BN)))


# The persistent kernel's grid cap (its NUM_BLOCKS): with at most this many output tiles in all batches
# every block takes one tile, as the one-tile bmm_w8 does, and the loop only costs (matmul, H100: a
# one-wave 2048^2 output 1.02-1.03x slower on the persistent grid), so the launcher takes w8p for more.
PERSISTENT_GRID = 132


# Matrices at most this large in M and N count as small: 128x128 tiles (more blocks per batch).
# H200, 2026-12-06: at 128^2 the 128x128 tiles win (128x256: 1.11x slower), at 256^2 they lose
# (1.16x slower than 128x256).
SMALL_MN = 128


def select_variant(dtype: str, batch: int, m: int, n: int, trans_b: bool, aligned: bool) -> str | None:
    """The launcher's choice for c (batch, m, n) = a @ op(b) with a, b, c of `dtype` (a torch dtype
    name); `aligned`: every base 16-byte aligned, every batch and row stride a multiple of 16
    bytes, and c's rows (n elements) a multiple of 16 bytes (matmul's contract: TMA stores); the
    only layouts the variants take. None when no variant takes the combination (another dtype,
    an unaligned layout). Measured
    (scripts/gpu/bench_selection.py, docs/results/selection.json, held within 1.10x of the fastest
    by tests/suite/test_selection_results.py): f16 NN takes w8 128x256x64, small f16 matrices
    (m, n <= 128) w8 128x128x64; bf16 NN w8 128x256x64 at every size (128x128x64 is 1.19x slower
    at 256^3 and no faster at 128^3); f16 and bf16 NT w8 128x256x64 (bf16: 423 vs 518 us for
    128x128x64 at B=16, 2048^3, H100; the grid, H100 2026-12-07: 419 vs 489 us at 2048^3, 1.02x
    slower at 128^3). f32 runs as tf32; until session 25: NN on w8 256x128x32 (1525 vs 2138 us for
    128x128x32 there; the grid: 753 vs 1109 us at B=8), small matrices 128x128x32 (the w8 tile
    1.17x slower at 128^3); NT (b stored (B, N, K), K-major: no shared-memory transpose of b) w8
    128x256x32 (1392 vs 1841 us for 128x128x32). Session 26 (H100) rounds f32 to tf32 as loaded:
    NN 128x128x32 at every size (the grid: 582 vs 866 us for w8 256x128x32 at B=8, 2048^3; 1.08-1.49x faster from 128^3
    up); NT w8 128x256x32 at every size since c's rows are a multiple of 16 bytes (TMA stores: 386
    vs 445-451 us for 128x128x32 at 2048^3, 1.00-1.05x faster below). The Rust library's cutile_bmm
    chooses the same (tests/rust/test_selection.py). Session 29: every 128x256 w8 choice runs on its
    persistent grid (w8p) once the batch has more than PERSISTENT_GRID output tiles in all (B=16,
    2048^3 on the H100, interleaved: 6.7-7.3 % faster at 16 bits, 4.0 % for tf32 NT; the grid: fastest
    at every case past 132 tiles, 1.02-1.04x slower than w8 at 128 tiles, 1.06-1.09x at 64). Small bf16
    matrices (m, n <= SMALL_MN) take the one-warpgroup 128x128x64 since session 29 (B=64 at 128^3, both
    passes: 8.6-9.0 vs 9.5-9.8 us for w8 128x256x64, NN and NT)."""
    if not aligned:
        return None
    small = m <= SMALL_MN and n <= SMALL_MN
    # the 128x256 tiles' one-tile (w8) or persistent (w8p) form: w8p once a grid of one block per
    # tile would exceed PERSISTENT_GRID blocks
    w8 = "w8p" if batch * -(-m // 128) * -(-n // 256) > PERSISTENT_GRID else "w8"
    if dtype == "float16":
        if trans_b:
            return f"f16_nt_{w8}_128x256x64"
        return "f16_nn_w8_128x128x64" if small else f"f16_nn_{w8}_128x256x64"
    if dtype == "bfloat16":
        if small:  # one warpgroup's 128x128 tile (the grid, B=64 at 128^3: 1.09-1.10x faster than w8 128x256)
            return "bf16_nt_128x128x64" if trans_b else "bf16_nn_128x128x64"
        return f"bf16_nt_{w8}_128x256x64" if trans_b else f"bf16_nn_{w8}_128x256x64"
    if dtype == "float32":
        if trans_b:
            return f"tf32_nt_{w8}_128x256x32"
        return "tf32_nn_128x128x32"
    return None
