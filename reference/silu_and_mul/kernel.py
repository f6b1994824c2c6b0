"""silu_and_mul: out = silu(x[:, :H]) * x[:, H:] for x of shape (M, 2H) (the gated-MLP activation).

The host passes x as a 3-D view (M, 2, H) (strides (row stride, H, 1)), so each half is a
plain tile load at index 0 or 1 of the middle axis and a ragged H needs no index arithmetic.

`silu_and_mul` computes in f32 with IEEE division and the precise exp; `silu_and_mul_fast` (the
16-bit `_fast` variants) computes the same formula with the hardware approximations, which the
16-bit outputs cannot tell apart, in one-row tiles (docs/results/tuning.md, "swiglu and
silu_and_mul 16-bit").
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


# ---- silu_and_mul_fast: silu through MUFU.EX2 and MUFU.RCP, one-row tiles ------------------
# For 16-bit outputs only: the approximate reciprocal and exp2 (flush-to-zero) are within a few
# f32 ulps, far below half an f16/bf16 ulp. silu(g) = g / (1 + exp2(-g * log2(e))); for g < -88
# exp2 overflows to +inf and g / inf = -0, silu's limit.
NEG_LOG2E = -1.4426950408889634


def approx_div(num, den):
    """num / den as num * rcp.approx(den), subnormals flushed (MUFU.RCP + one multiply)."""
    return ct.truediv(num, den, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)


@ct.kernel
def silu_and_mul_fast(x, out, TILE_M: ct.Constant[int], TILE_H: ct.Constant[int]):
    bm = ct.bid(0)
    bh = ct.bid(1)
    gate = ct.load(x, index=(bm, 0, bh), shape=(TILE_M, 1, TILE_H), padding_mode=ct.PaddingMode.ZERO)
    up = ct.load(x, index=(bm, 1, bh), shape=(TILE_M, 1, TILE_H), padding_mode=ct.PaddingMode.ZERO)
    g = ct.reshape(ct.astype(gate, ct.float32), (TILE_M, TILE_H))
    u = ct.reshape(ct.astype(up, ct.float32), (TILE_M, TILE_H))
    y = approx_div(g, 1.0 + ct.exp2(g * NEG_LOG2E, flush_to_zero=True)) * u
    ct.store(out, index=(bm, bh), tile=ct.astype(y, out.dtype))


def select_variant(dtype: str, m: int, h: int, row_strides) -> str | None:
    """The launcher's choice for out = silu(x[:, :h]) * x[:, h:] of `dtype` (a torch dtype name),
    x (m, 2h), `row_strides` (x, out; elements); None for a dtype no variant takes. Aligned arrays
    (h and the row strides multiples of 8; a single row has no row stride that matters) take the
    `_a8` variants, 16-bit ones the `_fast` kernel; otherwise the general variant. The (1, 1024)
    tiles of `_fast` won every case of the selection grid, 64 to 4096 columns, 64 rows to 32 MiB
    (1.2-2.7x faster than the (8, 512) tiles of `_a8`: docs/results/selection.json), so there is
    no shape rule. The Rust library's cutile_silu_and_mul chooses the same
    (tests/rust/test_selection.py)."""
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    if h % 8 or (m > 1 and any(s % 8 for s in row_strides)):
        return f"{prefix}_m8_h512"
    if dtype != "float32":
        return f"{prefix}_a8_fast_m1_h1024"
    return f"{prefix}_a8_m8_h512"
