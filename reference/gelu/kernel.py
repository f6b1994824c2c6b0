"""GELU over a 2-D array in (TILE_M, TILE_N) tiles; APPROX selects the formula at compile time.

APPROX = 0: exact gelu(x) = x/2 * (1 + erf(x / sqrt(2))). cuTile has no erf, so erf is the
Abramowitz-Stegun 7.1.26 rational approximation (|error| < 1.5e-7) on |z|, with erf's oddness.
APPROX = 1: tanh form x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).

`gelu` computes in f32 with IEEE division and the precise exp/tanh; `gelu_fast` (the `_fast`
variants) computes the same formulas with the hardware approximations, which the 16-bit outputs
cannot tell apart and which keep f32 outputs within a tenth of the f32 tolerances
(docs/results/tuning.md, "gelu 16-bit" and "gelu f32 `_fast`").
"""

import cuda.tile as ct

INV_SQRT2 = 0.7071067811865476
SQRT_2_OVER_PI = 0.7978845608028654
# Abramowitz & Stegun 7.1.26 coefficients
AS_P = 0.3275911
AS_A1 = 0.254829592
AS_A2 = -0.284496736
AS_A3 = 1.421413741
AS_A4 = -1.453152027
AS_A5 = 1.061405429


def erf_approx(z):
    a = ct.abs(z)
    t = 1.0 / (1.0 + AS_P * a)
    poly = ((((AS_A5 * t + AS_A4) * t + AS_A3) * t + AS_A2) * t + AS_A1) * t
    e = 1.0 - poly * ct.exp(-(a * a))
    return ct.where(z < 0.0, -e, e)


@ct.kernel
def gelu(x, out, APPROX: ct.Constant[int], TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v = ct.astype(ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    if APPROX == 1:
        inner = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)
        y = 0.5 * v * (1.0 + ct.tanh(inner))
    else:
        y = 0.5 * v * (1.0 + erf_approx(v * INV_SQRT2))
    ct.store(out, index=(bm, bn), tile=ct.astype(y, out.dtype))


# ---- gelu_fast: the same formulas through MUFU.EX2 and MUFU.RCP --------------------------
# The approximate reciprocal and exp2 (flush-to-zero) are within a few f32 ulps, far below half
# an f16/bf16 ulp, and they drop the IEEE division's refinement and slow path and exp's range
# reduction (SASS in docs/results/tuning.md). For f32 outputs the error stays within 0.11 of the
# f32 tolerance (|err| <= 2e-6 + 1e-5 |gelu|) over |x| <= 20 even with the reciprocal 2 ulps and
# exp2 4 ulps off (NumPy model, tuning.md "gelu f32 `_fast`"): the A&S erf error (< 1.5e-7)
# dominates, as in `gelu`; flushed subnormals are below the 2e-6 absolute tolerance.
LOG2E = 1.4426950408889634
# tanh form: x/2 * (1 + tanh(u)) = x / (1 + exp(-2u)), u = SQRT_2_OVER_PI * (x + 0.044715 x^3),
# so the exp2 argument is x * (TANH_K0 + TANH_K1 * x^2): no tanh, one exp2 and one reciprocal.
TANH_K0 = -2.0 * SQRT_2_OVER_PI * LOG2E
TANH_K1 = TANH_K0 * 0.044715
# erf form: exp(-z^2) with z = x / sqrt(2) is exp2(x^2 * ERF_EXP2); t = 1 / (1 + AS_P |z|)
# = 1 / (1 + ERF_T * |x|); the A&S polynomial with halved coefficients is 0.5 * (1 - erf(|z|)),
# so x/2 * (1 + erf(z)) = x * (h if x < 0 else 1 - h) with h = poly_half(t) * exp(-z^2).
ERF_EXP2 = -0.5 * LOG2E
ERF_T = AS_P * INV_SQRT2
HALF_A1 = 0.5 * AS_A1
HALF_A2 = 0.5 * AS_A2
HALF_A3 = 0.5 * AS_A3
HALF_A4 = 0.5 * AS_A4
HALF_A5 = 0.5 * AS_A5


def approx_div(num, den):
    """num / den as num * rcp.approx(den), subnormals flushed (MUFU.RCP + one multiply)."""
    return ct.truediv(num, den, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)


@ct.kernel
def gelu_fast(x, out, APPROX: ct.Constant[int], TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v = ct.astype(ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    s = v * v
    if APPROX == 1:
        # exp2 overflows to +inf for x < -10: x / inf = -0, gelu's limit.
        e = ct.exp2(v * (TANH_K0 + TANH_K1 * s), flush_to_zero=True)
        y = approx_div(v, 1.0 + e)
    else:
        t = approx_div(1.0, 1.0 + ERF_T * ct.abs(v))
        poly_half = ((((HALF_A5 * t + HALF_A4) * t + HALF_A3) * t + HALF_A2) * t + HALF_A1) * t
        h = poly_half * ct.exp2(s * ERF_EXP2, flush_to_zero=True)
        y = v * ct.where(v < 0.0, h, 1.0 - h)
    ct.store(out, index=(bm, bn), tile=ct.astype(y, out.dtype))


# Where the (1, 1024) tiles of the `_fast` variants win (docs/results/selection.json, H100): rows
# of at least FAST_MIN_N columns, and any row length while the launch is one wave of them (up to
# FAST_MAX_ROWS_ANY_N rows: 16 blocks of 28-32 registers per SM on 132 SMs = 2112 blocks), where
# latency, not the masked tile width, bounds it (measured at 64 rows: 1.4-1.8x faster than `_a8`
# at 64 and 256 columns). Many short rows (32 MiB at 64 and 256 columns) take the (16, 256) tiles
# of `_a8`: 1.2-2.1x faster there. The f32 `_a4_fast_m1_n1024` variants (26 registers, 16 blocks
# per SM as well) take the same rule, the 16-bit measurement carried over (to be confirmed by the f32
# cases of `bench_selection.py --op gelu`). Their (1, 2048) siblings run only when forced.
FAST_MIN_N = 512
FAST_MAX_ROWS_ANY_N = 2048


def _aligned(m: int, n: int, row_strides, k: int) -> bool:
    """n and the row strides multiples of k elements (a single row has no stride that matters)."""
    return n % k == 0 and (m <= 1 or all(s % k == 0 for s in row_strides))


def select_variant(approximate: str, dtype: str, m: int, n: int, row_strides) -> str | None:
    """The launcher's choice for gelu(x) -> out of `dtype` (a torch dtype name), m rows of n
    columns, `row_strides` (x, out; elements); None for a dtype or form no variant takes.
    `approximate` is torch's "none" (erf) or "tanh". The `_fast` kernel takes rows of at least
    FAST_MIN_N columns or launches of up to FAST_MAX_ROWS_ANY_N rows when the rows are 16-byte
    multiples: n and the row strides multiples of 8 elements for 16-bit (`_a8_fast`), of 4 for
    f32 (`_a4_fast`). Otherwise rows of 8-element multiples take the `_a8` variants and the rest
    the general one. The Rust library's cutile_gelu chooses the same (tests/rust/test_selection.py)."""
    form = {"none": "erf", "tanh": "tanh"}.get(approximate)
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if form is None or prefix is None:
        return None
    use_fast = n >= FAST_MIN_N or m <= FAST_MAX_ROWS_ANY_N
    if dtype == "float32" and use_fast and _aligned(m, n, row_strides, 4):
        return f"{form}_f32_a4_fast_m1_n1024"
    if not _aligned(m, n, row_strides, 8):
        return f"{form}_{prefix}"
    if dtype != "float32" and use_fast:
        return f"{form}_{prefix}_a8_fast_m1_n1024"
    return f"{form}_{prefix}_a8"
