# Candidate kernels for reference/splitk_matmul, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py (not a module of its own).
# ruff: noqa: F821
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def splitk_partial_lat(a, b, partial, BM: ConstInt, BN: ConstInt, BK: ConstInt, LAT_A: ConstInt, LAT_B: ConstInt):
    """splitk_partial with a latency hint on each operand's load (Tile IR optimization_hints.latency:
    the software pipeline's depth follows it). Session 30: the partial streams b's 128 MB at 75 % of
    copy bandwidth on the H200 with the default hints."""
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
        ta = ct.load(a, index=(tile_m, kk), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO, latency=LAT_A)
        tb = ct.load(b, index=(kk, tile_n), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO, latency=LAT_B)
        acc = ct.mma(ta, tb, acc)
    ct.store(partial, index=(split, tile_m, tile_n), tile=ct.reshape(acc, (1, BM, BN)))

