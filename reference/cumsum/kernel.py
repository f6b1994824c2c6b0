"""Inclusive prefix sum along the last axis of a 2-D array, accumulated in float32.

cumsum_row: TILE_M whole rows per block (TILE_N >= N), one tile scan.
cumsum_looped: TILE_M rows per block, the rows streamed in TILE_N tiles; each tile is scanned
and offset by the running row total (the carry) of the tiles before it.
"""

import cuda.tile as ct


@ct.kernel
def cumsum_row(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    t = ct.astype(ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, index=(block, 0), tile=ct.astype(ct.cumsum(t, axis=1), out.dtype))


@ct.kernel
def cumsum_looped(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    carry = ct.zeros((TILE_M, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(x, index=(block, j), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        scanned = ct.cumsum(t, axis=1) + carry
        ct.store(out, index=(block, j), tile=ct.astype(scanned, out.dtype))
        carry = carry + ct.sum(t, axis=1, keepdims=True)
