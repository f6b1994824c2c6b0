"""SwiGLU on separate gate and up tensors: forward c = silu(a) * b, and its backward.

swiglu_fwd: (TILE_M, TILE_N) tiles of a, b -> c.
swiglu_bwd: from dc, a, b: da = dc * b * silu'(a), db = dc * silu(a), with
silu'(a) = s * (1 + a * (1 - s)), s = sigmoid(a). Math in float32.
"""

import cuda.tile as ct


@ct.kernel
def swiglu_fwd(a, b, c, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    av = ct.astype(ct.load(a, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    bv = ct.astype(ct.load(b, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    sig = 1.0 / (1.0 + ct.exp(-av))
    ct.store(c, index=(bm, bn), tile=ct.astype(av * sig * bv, c.dtype))


@ct.kernel
def swiglu_bwd(dc, a, b, da, db, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    g = ct.astype(ct.load(dc, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    av = ct.astype(ct.load(a, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    bv = ct.astype(ct.load(b, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    sig = 1.0 / (1.0 + ct.exp(-av))
    silu = av * sig
    dsilu = sig * (1.0 + av * (1.0 - sig))
    ct.store(da, index=(bm, bn), tile=ct.astype(g * bv * dsilu, da.dtype))
    ct.store(db, index=(bm, bn), tile=ct.astype(g * silu, db.dtype))
