"""SwiGLU on separate gate and up tensors: forward c = silu(a) * b, and its backward.

swiglu_fwd: (TILE_M, TILE_N) tiles of a, b -> c.
swiglu_bwd: from dc, a, b: da = dc * b * silu'(a), db = dc * silu(a), with
silu'(a) = s * (1 + a * (1 - s)), s = sigmoid(a). Math in float32.

`swiglu_fwd` computes in f32 with IEEE division and the precise exp; `swiglu_fwd_fast` (the 16-bit
`_fast` forward variants) and `swiglu_bwd_fast` (the 16-bit `_fast` backward ones) compute the same
formulas with the hardware approximations, which the 16-bit outputs cannot tell apart, in one-row
tiles (docs/results/tuning.md, "swiglu and silu_and_mul 16-bit").
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


# ---- swiglu_fwd_fast: silu through MUFU.EX2 and MUFU.RCP, one-row tiles --------------------
# For 16-bit outputs only: the approximate reciprocal and exp2 (flush-to-zero) are within a few
# f32 ulps, far below half an f16/bf16 ulp, and they drop the IEEE division's refinement and slow
# path and exp's range reduction. silu(a) = a / (1 + exp2(-a * log2(e))); for a < -88 exp2
# overflows to +inf and a / inf = -0, silu's limit.
NEG_LOG2E = -1.4426950408889634


def approx_div(num, den):
    """num / den as num * rcp.approx(den), subnormals flushed (MUFU.RCP + one multiply)."""
    return ct.truediv(num, den, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)


@ct.kernel
def swiglu_fwd_fast(a, b, c, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    # Both loads before either conversion. tileiras still puts each load in its own bounds branch
    # with its conversion (a and b are separate views): two round trips per thread, which the 48
    # warps per SM of these (1, 1024) tiles hide (docs/results/tuning.md).
    a_raw = ct.load(a, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    b_raw = ct.load(b, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    av = ct.astype(a_raw, ct.float32)
    bv = ct.astype(b_raw, ct.float32)
    silu = approx_div(av, 1.0 + ct.exp2(av * NEG_LOG2E, flush_to_zero=True))
    ct.store(c, index=(bm, bn), tile=ct.astype(silu * bv, c.dtype))


# ---- swiglu_bwd_fast: the backward with MUFU.EX2 and MUFU.RCP, one-row tiles --------------
# For 16-bit outputs only, as swiglu_fwd_fast: s = rcp.approx(1 + exp2(-a log2 e)). For a < -88
# exp2 overflows to +inf and s = rcp(inf) = 0: silu = a * 0 = -0 and silu' = 0 * (1 + a) = 0, the
# limits; for a > 88, s = 1. Three loads before any conversion, two stores.
@ct.kernel
def swiglu_bwd_fast(dc, a, b, da, db, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    g_raw = ct.load(dc, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    a_raw = ct.load(a, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    b_raw = ct.load(b, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    g = ct.astype(g_raw, ct.float32)
    av = ct.astype(a_raw, ct.float32)
    bv = ct.astype(b_raw, ct.float32)
    sig = approx_div(1.0, 1.0 + ct.exp2(av * NEG_LOG2E, flush_to_zero=True))
    silu = av * sig
    dsilu = sig * (1.0 + av * (1.0 - sig))
    ct.store(da, index=(bm, bn), tile=ct.astype(g * bv * dsilu, da.dtype))
    ct.store(db, index=(bm, bn), tile=ct.astype(g * silu, db.dtype))


# Where the (1, 1024) tiles of the `_fast` variants win (docs/results/selection.json, H100): rows
# of at least FAST_MIN_N columns (256 columns, 65536 rows: 1.13-1.15x faster than `_a8`), and any
# row length while the launch is about one wave of them (up to FAST_MAX_ROWS_ANY_N rows, gelu's
# bound; 64 rows of 64 columns: 1.8x faster). Many rows of 64 columns (32 MiB) take the (16, 256)
# tiles of `_a8`: 1.08-1.09x faster there.
FAST_MIN_N = 256
FAST_MAX_ROWS_ANY_N = 2048


def select_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's forward choice for c = silu(a) * b of `dtype` (a torch dtype name), m rows
    of n columns, `row_strides` (a, b, c; elements); None for a dtype no variant takes. Aligned
    arrays (n and the row strides multiples of 8; a single row has no stride that matters) take
    the `_a8` variants, 16-bit ones the `_fast` kernel from FAST_MIN_N columns or up to
    FAST_MAX_ROWS_ANY_N rows; otherwise the general variant. The backward takes the same rule
    (`select_bwd_variant`). The Rust library's cutile_swiglu chooses the same (tests/rust/test_selection.py)."""
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    if n % 8 or (m > 1 and any(s % 8 for s in row_strides)):
        return f"fwd_{prefix}"
    if dtype != "float32" and (n >= FAST_MIN_N or m <= FAST_MAX_ROWS_ANY_N):
        return f"fwd_{prefix}_a8_fast_m1_n1024"
    return f"fwd_{prefix}_a8"


def select_bwd_variant(dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's backward choice for da, db of `dtype`, m rows of n columns, `row_strides`
    (dc, a, b, da, db; elements): as the forward's (`select_variant`), the 16-bit `_fast` kernel
    from FAST_MIN_N columns or up to FAST_MAX_ROWS_ANY_N rows; but many short rows of 16-bit
    data take the general (16, 256) kernel, not `_a8` (docs/results/selection.json, H100:
    262144 rows of 64 columns, bf16 general 282 us, `_fast` 328, `_a8` 348; f16 `_a8` 278,
    general 291, `_fast` 329). f32 takes `_a8` when aligned. The Rust library's
    cutile_swiglu_bwd chooses the same (tests/rust/test_selection.py)."""
    forward = select_variant(dtype, m, n, row_strides)
    if forward is None:
        return None
    if forward.endswith("_a8") and dtype != "float32":
        return "bwd_" + forward.removeprefix("fwd_").removesuffix("_a8")
    return "bwd_" + forward.removeprefix("fwd_")
