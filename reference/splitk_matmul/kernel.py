"""Split-K GEMM in cuTile Python: partial products over K slices, then a reduce.

For small M*N with long K one tile per block leaves most SMs idle. Split-K adds
grid axis 1 = split: split s multiplies the K tiles
[s*per, min((s+1)*per, k_tiles)) with per = cdiv(k_tiles, S) into its own f32
slab partial[s]; ``splitk_reduce`` then sums the S slabs and casts to the
output dtype. Deterministic (no atomics): every slab is fully written, an empty
split writes zeros.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def splitk_partial(a, b, partial, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    """partial[s] = a[:, K slice s] @ b[K slice s, :] in f32; grid (tiles_m * tiles_n, S)."""
    split = ct.bid(1)
    num_splits = partial.shape[0]
    tiles_n = ct.cdiv(partial.shape[2], BN)
    tile_m = ct.bid(0) // tiles_n
    tile_n = ct.bid(0) % tiles_n
    k_tiles = ct.num_tiles(a, axis=1, shape=(BM, BK))
    per_split = ct.cdiv(k_tiles, num_splits)
    k_begin = min(split * per_split, k_tiles)
    k_end = min(k_begin + per_split, k_tiles)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in range(k_begin, k_end):
        ta = ct.load(a, index=(tile_m, kk), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(kk, tile_n), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(partial, index=(split, tile_m, tile_n), tile=ct.reshape(acc, (1, BM, BN)))


@ct.kernel
def splitk_reduce(partial, c, TM: ConstInt, TN: ConstInt):
    """c = sum_s partial[s] (f32 sum, one cast at the end); grid (cdiv(M, TM), cdiv(N, TN))."""
    tile_m = ct.bid(0)
    tile_n = ct.bid(1)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for s in range(partial.shape[0]):
        acc = acc + ct.load(partial, index=(s, tile_m, tile_n), shape=(1, TM, TN))
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(ct.reshape(acc, (TM, TN)), c.dtype))


# The partial kernels' output tile (BM, BN) and K tile: every partial variant's.
PARTIAL_TILE = (64, 128, 64)


def splits_for(m: int, n: int, k: int, sms: int) -> int:
    """The split count S (partial.shape[0], the caller's choice) for c (m, n) = a (m, k) @ b:
    about one wave of partial blocks, S = round(sms / output tiles), at least 1 and at most 16
    and the K tile count. One wave, not two: the partial kernel streams b, so more splits buy no
    bandwidth and cost slab traffic (S x m x n x 4 bytes written, then read by the reduce). H100,
    2026-12-07, M=64, N=4096, K=16384 (32 tiles, 132 SMs): partial + reduce 60.0 + 8.1 us at
    S=4 (this rule), 62.3 + 11.2 at S=8, 64.8 + 18.3 at S=16 (the earlier two-wave rule)."""
    bm, bn, bk = PARTIAL_TILE
    tiles = -(-m // bm) * -(-n // bn)
    return max(1, min(16, -(-k // bk), round(sms / tiles)))


def select_variant(dtype: str, aligned: bool) -> tuple[str, str] | None:
    """The launcher's (partial, reduce) pair for a, b, c of `dtype` (a torch dtype name) and any
    M, N, K and split count S (the caller's choice, partial.shape[0]); `aligned`: every base
    16-byte aligned and every row and slab stride a multiple of 16 bytes. None for another dtype
    or an unaligned layout. The dtype's one partial kernel and the 4x256 reduce at every shape:
    16.2 vs 108.8 us (f16) and 15.8 vs 108.8 us (bf16) for 64x128 at M=64, N=4096, S=16 on the
    H200 (docs/results/reference_results.md), where 64x128's 32 blocks leave most of 132 SMs
    idle; split-K is for small M * N. S: see splits_for. The 64x128 reduce runs only when forced.
    The Rust library's cutile_splitk_matmul chooses the same (tests/rust/test_selection.py)."""
    prefix = {"float16": "f16", "bfloat16": "bf16"}.get(dtype)
    if prefix is None or not aligned:
        return None
    return f"partial_{prefix}_64x128x64", f"reduce_{prefix}_4x256"
