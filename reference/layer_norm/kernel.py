"""LayerNorm over the last axis of a 2-D array: forward and backward, statistics in float32.

y = (x - mean) * rstd * w + b, rstd = 1 / sqrt(var + eps) (biased variance).

layer_norm_fwd: TILE_M whole rows per block (TILE_N >= N), writes out, mean and rstd.
layer_norm_bwd: with xhat = (x - mean) * rstd and g = dy * w:
dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); per block, one f32 row each of dw and db
partial sums over its TILE_M * ROW_TILES rows (reduced on the host).
layer_norm_fwd_fast (the 16-bit `_fast` forward variants): the forward with one-row tiles, the three
loads issued before any conversion, and 1/n as an approximate reciprocal (docs/results/tuning.md).
layer_norm_fwd_fast2_o{16,8,4}: the same body under occupancy 16 / 8 / 4 for one-row tiles of 1024
to 8192 columns, the 8-byte row `_fast` variants (`_a4` 16-bit, `_a2` f32), forced-only until measured.
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


# ---- layer_norm_fwd_fast: one-row tiles, 16 blocks per SM, 1/n through MUFU.RCP ---------------
# For 16-bit outputs: rcp.approx(n) is within one f32 ulp of 1/n, so mean = sum * (1/n) stays within
# a few f32 ulps (the f32 mean/rstd tolerances are far wider); it drops the IEEE division's
# refinement and slow path. rsqrt stays precise (one per row). With its reductions tileiras moves
# the tiles by TMA and, without a hint, warp-specializes the kernel (255 registers, one block per
# SM); occupancy=16 keeps 32 registers and 16 one-row blocks per SM (docs/results/tuning.md).
def approx_div(num, den):
    """num / den as num * rcp.approx(den), subnormals flushed (MUFU.RCP + one multiply)."""
    return ct.truediv(num, den, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)


@ct.kernel(occupancy=16)
def layer_norm_fwd_fast(x, w, b, out, mean, rstd, eps, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    x_raw = ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    w_raw = ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO)
    b_raw = ct.load(b, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO)
    t = ct.astype(x_raw, ct.float32)
    inv_n = approx_div(1.0, ct.astype(n, ct.float32))
    mu = ct.sum(t, axis=1, keepdims=True) * inv_n
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    centered = ct.where(cols < n, t - mu, 0.0)
    var = ct.sum(centered * centered, axis=1, keepdims=True) * inv_n
    r = ct.rsqrt(var + eps)
    wv = ct.reshape(ct.astype(w_raw, ct.float32), (1, TILE_N))
    bv = ct.reshape(ct.astype(b_raw, ct.float32), (1, TILE_N))
    ct.store(out, index=(block, 0), tile=ct.astype(centered * r * wv + bv, out.dtype))
    ct.store(mean, index=(block,), tile=ct.reshape(mu, (TILE_M,)))
    ct.store(rstd, index=(block,), tile=ct.reshape(r, (TILE_M,)))


# ---- layer_norm_fwd_fast2: the `_fast` forward under the 8-byte row contract ------------------
# The body of layer_norm_fwd_fast (three loads before any conversion, mean and variance as sums
# times rcp.approx(n), rsqrt precise) for rows of 1024-8192 columns and f32 too. The variants'
# 8-byte contract (`_a4` 16-bit, `_a2` f32: n and the row strides multiples of 4 or 2 elements)
# leaves the rows not provably 16-byte multiples, so tileiras cannot move them by TMA (which the
# two reductions otherwise force) and issues 64-bit LDG/STG instead, as rms_norm's `_fast`
# kernels (docs/results/tuning.md, "layer_norm forward: 8-byte `_fast` kernels").
def _layer_norm_fwd_fast2(x, w, b, out, mean, rstd, eps, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    block = ct.bid(0)
    n = x.shape[1]
    x_raw = ct.load(x, index=(block, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    w_raw = ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO)
    b_raw = ct.load(b, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO)
    t = ct.astype(x_raw, ct.float32)
    inv_n = approx_div(1.0, ct.astype(n, ct.float32))
    mu = ct.sum(t, axis=1, keepdims=True) * inv_n
    # Padded columns must not add (0 - mu)^2 to the variance: mask them.
    cols = ct.reshape(ct.arange(TILE_N, dtype=ct.int32), (1, TILE_N))
    centered = ct.where(cols < n, t - mu, 0.0)
    r = ct.rsqrt(ct.sum(centered * centered, axis=1, keepdims=True) * inv_n + eps)
    wv = ct.reshape(ct.astype(w_raw, ct.float32), (1, TILE_N))
    bv = ct.reshape(ct.astype(b_raw, ct.float32), (1, TILE_N))
    ct.store(out, index=(block, 0), tile=ct.astype(centered * r * wv + bv, out.dtype))
    ct.store(mean, index=(block,), tile=ct.reshape(mu, (TILE_M,)))
    ct.store(rstd, index=(block,), tile=ct.reshape(r, (TILE_M,)))


# One row per block, many blocks per SM: occupancy 16 for 1024-column rows, 8 for 2048, 4 for
# 4096 and 8192 (the hints of rms_norm's `_fast` kernels; registers and spills: tuning.md).
layer_norm_fwd_fast2_o16 = ct.kernel(_layer_norm_fwd_fast2, occupancy=16)
layer_norm_fwd_fast2_o8 = ct.kernel(_layer_norm_fwd_fast2, occupancy=8)
layer_norm_fwd_fast2_o4 = ct.kernel(_layer_norm_fwd_fast2, occupancy=4)


_PREFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
# Where the one-row `_fast` blocks win over four rows per block (measured, docs/results/
# selection.json, H100): up to FAST_MAX_ROWS_ANY_N rows at any width, and full 1024-column rows.
# Many shorter rows waste most of each (1, 1024) tile: 262144 x 128 f16 583 us vs 347 us.
FAST_MAX_ROWS_ANY_N = 256
FAST_MIN_N = 1024


def select_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's forward choice for x, out of `dtype` (a torch dtype name) with m rows of n
    columns and the given row strides (x, out; elements; a single row has none that matters); None
    for a dtype no variant takes or rows longer than 8192. Rows up to 1024 columns: 16-bit aligned
    rows (n and the row strides multiples of 8) one to a block (`_fast`) up to FAST_MAX_ROWS_ANY_N
    rows or from FAST_MIN_N columns, otherwise four to a block (`_a8`); unaligned and f32 rows four
    to a block; up to 8192 columns one row to a block, `_a8` where aligned. Measured over a grid
    (scripts/gpu/bench_selection.py, docs/results/selection.json; tests/suite/
    test_selection_results.py). The Rust library's cutile_layer_norm chooses the same
    (tests/rust/test_selection.py)."""
    prefix = _PREFIX.get(dtype)
    if prefix is None or n > 8192:
        return None
    a8 = dtype != "float32" and n % 8 == 0 and (m <= 1 or all(s % 8 == 0 for s in row_strides))
    if n <= 1024:
        if not a8:
            return f"fwd_{prefix}_m4_n1024"
        if m <= FAST_MAX_ROWS_ANY_N or n >= FAST_MIN_N:
            return f"fwd_{prefix}_a8_fast_m1_n1024"
        return f"fwd_{prefix}_a8_m4_n1024"
    return f"fwd_{prefix}_a8_m1_n8192" if a8 else f"fwd_{prefix}_m1_n8192"
