"""argmax along the last axis of a 2-D array: out[r] = first index of the maximum of row r.

TILE_M rows per block, the rows streamed in TILE_N tiles. Per tile: the tile maximum and the
first column holding it (min over the matching column indices); a later tile replaces the
running result only when strictly greater, so ties resolve to the first index, as torch does.
"""

import cuda.tile as ct

NO_INDEX = 2147483647


@ct.kernel(occupancy=8)
def argmax_rows(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    best = ct.full((TILE_M, 1), float("-inf"), dtype=ct.float32)
    best_index = ct.zeros((TILE_M, 1), dtype=ct.int32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(block, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
        tile_max = ct.max(t, axis=1, keepdims=True)
        first = ct.min(ct.where(t == tile_max, cols + j * TILE_N, NO_INDEX), axis=1, keepdims=True)
        better = tile_max > best
        best_index = ct.where(better, first, best_index)
        best = ct.where(better, tile_max, best)
    ct.store(out, index=(block,), tile=ct.astype(ct.reshape(best_index, (TILE_M,)), out.dtype))
