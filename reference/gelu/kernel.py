"""GELU over a 2-D array in (TILE_M, TILE_N) tiles; APPROX selects the formula at compile time.

APPROX = 0: exact gelu(x) = x/2 * (1 + erf(x / sqrt(2))). cuTile has no erf, so erf is the
Abramowitz-Stegun 7.1.26 rational approximation (|error| < 1.5e-7) on |z|, with erf's oddness.
APPROX = 1: tanh form x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
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
