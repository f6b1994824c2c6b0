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


@ct.kernel
def splitk_reduce_chunked(partial, c, TM: ConstInt, TN: ConstInt, SP: ConstInt, TMA: ct.Constant[bool]):
    """splitk_reduce loading SP slabs at once (one (SP, TM, TN) tile, zero-padded past S) and summing
    them along axis 0: the S loads of a block in flight together instead of one per iteration of a
    dynamic loop. Session 30: the reduce is 7.6 us of split-K's 51.7 (H200), the partial alone
    (44.0 us) is faster than cuBLAS's whole product (46.6 us). TMA False: plain vector loads (a TMA
    load of the 3-D tile stages it through ~200 KB of shared memory, one block an SM)."""
    tile_m = ct.bid(0)
    tile_n = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for s in range(ct.cdiv(partial.shape[0], SP)):
        slabs = ct.load(partial, index=(s, tile_m, tile_n), shape=(SP, TM, TN), padding_mode=ct.PaddingMode.ZERO,
                        allow_tma=TMA)
        acc = acc + ct.sum(slabs, axis=0)
    ct.store(c, index=(tile_m, tile_n), tile=ct.astype(acc, c.dtype))
