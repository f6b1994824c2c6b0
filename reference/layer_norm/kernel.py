"""LayerNorm over the last axis of a 2-D array: forward and backward, statistics in float32.

y = (x - mean) * rstd * w + b, rstd = 1 / sqrt(var + eps) (biased variance).

layer_norm_fwd: TILE_M whole rows per block (TILE_N >= N), writes out, mean and rstd.
layer_norm_bwd: with xhat = (x - mean) * rstd and g = dy * w:
dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); per block, one f32 row each of dw and db
partial sums over its TILE_M * ROW_TILES rows (reduced on the host).
layer_norm_fwd_fast (the 16-byte `_a8_fast` forward variants, forced only): the forward with one-row
tiles, the three loads issued before any conversion, and 1/n as an approximate reciprocal
(docs/results/tuning.md).
layer_norm_fwd_fast2_o{16,8,4}: the same body under occupancy 16 / 8 / 4 for one-row tiles of 1024
to 8192 columns, the 8-byte row `_fast` variants (`_a4` 16-bit, `_a2` f32); select_variant says
where the launcher takes them.
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
# Row contracts, in elements of n and of the row strides of x and out: `_a8` 16-byte rows (16-bit),
# the 8-byte `_fast` kernels `_a4` (16-bit) and `_a2` (f32); the general variants take any layout.
A8 = 8
FAST_MULTIPLE = {"f16": 4, "bf16": 4, "f32": 2}
# Measured (scripts/gpu/bench_selection.py, 84 cases, two passes, H100, docs/results/selection.json;
# docs/results/tuning.md): rows of up to 1024 columns one to a block (the 8-byte `_fast` tile)
# while the array holds at most FAST_MAX_ELEMENTS elements, or for full 1024-column rows
# (FAST_MIN_N); beyond, four rows to a block (f16 1024 x 1000: one-row 1.11x, `_a8_m4` 1.05x;
# f16 262144 x 128: 1.40x vs 1.00x).
FAST_MAX_ELEMENTS = {"f16": 1 << 19, "bf16": 1 << 19, "f32": 1 << 22}
FAST_MIN_N = 1024
# 16-bit rows of 1025-2048 columns: the 4096 tile up to FEW_ROWS rows (1.00x; the 2048 tile 1.12-
# 1.21x at 64 and 256 rows), the 2048 tile beyond (1.00x; the 4096 tile 1.45-1.57x at 1024 rows).
FEW_ROWS = 512
# bf16 rows of at most this many columns in arrays past FAST_MAX_ELEMENTS: the general four-row
# kernel (262144 x 128 on the H100: 1.00x; `_a8_m4` 1.13x, the one-row `_fast` 1.18x).
BF16_GENERAL_MAX_N = 256


def _candidates(prefix: str, m: int, n: int) -> list[tuple[str, int]]:
    """The forward variants for m rows of n columns (n <= 8192), most preferred first, each with the
    element multiple its contract needs of n and the row strides (1: any layout); the launcher
    takes the first whose contract x and out meet. The Rust library's `fwd_candidates` lists the
    same."""
    fast = FAST_MULTIPLE[prefix]
    if n <= 1024:
        one_row = (f"fwd_{prefix}_a{fast}_fast_m1_n1024", fast)
        general = (f"fwd_{prefix}_m4_n1024", 1)
        if n >= FAST_MIN_N or m * n <= FAST_MAX_ELEMENTS[prefix]:
            return [one_row, general]
        if prefix == "f32" or (prefix == "bf16" and n <= BF16_GENERAL_MAX_N):
            return [general]
        return [(f"fwd_{prefix}_a8_m4_n1024", A8), one_row, general]
    general = (f"fwd_{prefix}_m1_n8192", 1)
    if prefix != "f32" and n > 4096:
        return [(f"fwd_{prefix}_a8_m1_n8192", A8), (f"fwd_{prefix}_a{fast}_fast_m1_n8192", fast), general]
    tile = 2048 if n <= 2048 else 4096 if n <= 4096 else 8192
    if prefix != "f32" and tile == 2048 and m <= FEW_ROWS:
        tile = 4096
    return [(f"fwd_{prefix}_a{fast}_fast_m1_n{tile}", fast), general]


def select_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's forward choice for x, out of `dtype` (a torch dtype name) with m rows of n
    columns and the given row strides (x, out; elements; a single row has none that matters); None
    for a dtype no variant takes or rows longer than 8192: the first of `_candidates` whose
    contract n and the row strides meet. Rows of up to 1024 columns one to a block (the 8-byte
    `_fast` kernel) in small arrays (FAST_MAX_ELEMENTS) and for full 1024-column rows, else four to
    a block (`_a8` where 16-byte rows; f32 and short bf16 rows the general kernel); longer rows one
    to a block, the 8-byte `_fast` tile of 2048 or 4096 columns (4096 for few 16-bit rows of up to
    2048), f32 the 8192 one too, 16-bit rows beyond 4096 `_a8_m1_n8192`. Measured over a grid
    (scripts/gpu/bench_selection.py, docs/results/selection.json; tests/suite/
    test_selection_results.py). The Rust library's cutile_layer_norm chooses the same
    (tests/rust/test_selection.py)."""
    prefix = _PREFIX.get(dtype)
    if prefix is None or n > 8192:
        return None
    for name, multiple in _candidates(prefix, m, n):
        if n % multiple == 0 and (m <= 1 or all(s % multiple == 0 for s in row_strides)):
            return name
    raise AssertionError(f"layer_norm: no variant for {dtype} ({m}, {n})")  # the last takes any layout
