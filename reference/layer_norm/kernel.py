"""LayerNorm over the last axis of a 2-D array: forward and backward, statistics in float32.

y = (x - mean) * rstd * w + b, rstd = 1 / sqrt(var + eps) (biased variance).

layer_norm_fwd: TILE_M whole rows per block (TILE_N >= N), writes out, mean and rstd.
layer_norm_bwd: with xhat = (x - mean) * rstd and g = dy * w:
dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); per block, one f32 row each of dw and db
partial sums over its TILE_M * ROW_TILES rows (reduced on the host).
"""

import cuda.tile as ct


@ct.kernel(occupancy=4)
def layer_norm_fwd(x, w, b, out, mean, rstd, eps, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    t = ct.astype(ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    mu = ct.sum(t, axis=1, keepdims=True) / n
    # Padded columns must not add (0 - mu)^2 to the variance: mask them.
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    centered = ct.where(cols < n, t - mu, 0.0)
    var = ct.sum(centered * centered, axis=1, keepdims=True) / n
    r = ct.rsqrt(var + eps)
    wv = ct.reshape(ct.astype(ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32), (1, TILE_N))
    bv = ct.reshape(ct.astype(ct.load(b, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32), (1, TILE_N))
    ct.store(out, index=(block, 0), tile=ct.astype(centered * r * wv + bv, out.dtype))
    ct.store(mean, index=(block,), tile=ct.reshape(mu, (TILE_M,)))
    ct.store(rstd, index=(block,), tile=ct.reshape(r, (TILE_M,)))


@ct.kernel(occupancy=2)
def layer_norm_bwd(dy, x, w, mean, rstd, dx, dw_partial, db_partial,
                   TILE_M: ct.Constant[int], TILE_N: ct.Constant[int], ROW_TILES: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    num_row_tiles = ct.cdiv(x.shape[0], TILE_M)
    first = block * ROW_TILES
    count = min(ROW_TILES, num_row_tiles - first)
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    wv = ct.reshape(ct.astype(ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32), (1, TILE_N))
    dw_acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    db_acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for k in range(count):
        i = first + k
        t = ct.astype(ct.load(x, index=(i, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        d = ct.astype(ct.load(dy, index=(i, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
        mu = ct.reshape(ct.load(mean, index=(i,), shape=(TILE_M,), padding_mode=ct.PaddingMode.ZERO), (TILE_M, 1))
        # rstd pads with 0: padded rows then give xhat = 0 and add nothing below.
        r = ct.reshape(ct.load(rstd, index=(i,), shape=(TILE_M,), padding_mode=ct.PaddingMode.ZERO), (TILE_M, 1))
        xhat = ct.where(cols < n, (t - mu) * r, 0.0)
        g = d * wv
        mean_g = ct.sum(g, axis=1, keepdims=True) / n
        mean_gx = ct.sum(g * xhat, axis=1, keepdims=True) / n
        ct.store(dx, index=(i, 0), tile=ct.astype(r * (g - mean_g - xhat * mean_gx), dx.dtype))
        dw_acc = dw_acc + d * xhat
        db_acc = db_acc + d
    ct.store(dw_partial, index=(block, 0), tile=ct.sum(dw_acc, axis=0, keepdims=True))
    ct.store(db_partial, index=(block, 0), tile=ct.sum(db_acc, axis=0, keepdims=True))
