"""silu_and_mul: out = silu(x[:, :H]) * x[:, H:] for x of shape (M, 2H) (the gated-MLP activation).

The host passes x as a 3-D view (M, 2, H) (strides (row stride, H, 1)), so each half is a
plain tile load at index 0 or 1 of the middle axis and a ragged H needs no index arithmetic.
"""

import cuda.tile as ct


@ct.kernel
def silu_and_mul(x, out, TILE_M: ct.Constant[int], TILE_H: ct.Constant[int]):
    bm = ct.bid(0)
    bh = ct.bid(1)
    gate = ct.load(x, index=(bm, 0, bh), shape=(TILE_M, 1, TILE_H), padding_mode=ct.PaddingMode.ZERO)
    up = ct.load(x, index=(bm, 1, bh), shape=(TILE_M, 1, TILE_H), padding_mode=ct.PaddingMode.ZERO)
    g = ct.reshape(ct.astype(gate, ct.float32), (TILE_M, TILE_H))
    u = ct.reshape(ct.astype(up, ct.float32), (TILE_M, TILE_H))
    # silu(g) = g * sigmoid(g) = g / (1 + exp(-g))
    y = g / (1.0 + ct.exp(-g)) * u
    ct.store(out, index=(bm, bh), tile=ct.astype(y, out.dtype))
