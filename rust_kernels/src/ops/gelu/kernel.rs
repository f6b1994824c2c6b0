//! cuTile Rust port of reference/gelu/kernel.py: GELU over a 2-D array in (TILE_M, TILE_N)
//! tiles, math in f32. `APPROX` (a `ct.Constant[int]` in Python, an i32 const generic here)
//! picks the formula at compile time: 0 = exact, with erf as the Abramowitz-Stegun 7.1.26
//! rational approximation (cuTile has no erf), 1 = the tanh form. The compiler folds the `if`.
//!
//! `gelu_fast` (reference `gelu_fast`, the 16-bit and f32 `_fast` variants) computes the same formulas
//! with the approximate reciprocal and exp2 (flush-to-zero), the tanh form as x / (1 + exp(-2u)).
//!
//! The Python literals are f32 `const`s. Every `a * b + c` that cuTile Python contracts into
//! an `fma` is written `fma(...)` here, at the same places, for the same IR and rounding.

#[cutile::module]
pub mod gelu_kernel {
    use cutile::core::*;

    const INV_SQRT2: f32 = 0.7071067811865476f32;
    const SQRT_2_OVER_PI: f32 = 0.7978845608028654f32;
    const TANH_CUBIC: f32 = 0.044715f32;
    // Abramowitz & Stegun 7.1.26 coefficients.
    const AS_P: f32 = 0.3275911f32;
    const AS_A1: f32 = 0.254829592f32;
    const AS_A2: f32 = -0.284496736f32;
    const AS_A3: f32 = 1.421413741f32;
    const AS_A4: f32 = -1.453152027f32;
    const AS_A5: f32 = 1.061405429f32;
    // gelu_fast: the constants Python folds from the ones above (f64, then rounded to f32).
    // TANH_K0 = -2 * SQRT_2_OVER_PI * log2(e), TANH_K1 = TANH_K0 * 0.044715.
    const TANH_K0: f32 = -2.302208198144325f32;
    const TANH_K1: f32 = -0.1029432395800235f32;
    // ERF_EXP2 = -log2(e) / 2, ERF_T = AS_P / sqrt(2), HALF_Ak = AS_Ak / 2.
    const ERF_EXP2: f32 = -0.7213475204444817f32;
    const ERF_T: f32 = 0.23164188826636045f32;
    const HALF_A1: f32 = 0.127414796f32;
    const HALF_A2: f32 = -0.142248368f32;
    const HALF_A3: f32 = 0.7107068705f32;
    const HALF_A4: f32 = -0.7265760135f32;
    const HALF_A5: f32 = 0.5307027145f32;

    /// erf(z) ~ sign(z) * (1 - poly(t) * exp(-z^2)), t = 1 / (1 + p|z|), |error| < 1.5e-7.
    fn erf_approx<const TILE_M: i32, const TILE_N: i32>(
        z: Tile<f32, { [TILE_M, TILE_N] }>,
    ) -> Tile<f32, { [TILE_M, TILE_N] }> {
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        let a: Tile<f32, { [TILE_M, TILE_N] }> = absf(z);
        // 1.0 / (1.0 + AS_P * a): the denominator is one fma; IEEE division like Python's `/`.
        let denom: Tile<f32, { [TILE_M, TILE_N] }> = fma(
            broadcast_scalar(AS_P, shape![TILE_M, TILE_N]),
            a,
            one,
            rounding::NearestEven,
            ftz::Disabled,
        );
        let t: Tile<f32, { [TILE_M, TILE_N] }> = divf(one, denom, rounding::NearestEven, ftz::Disabled);
        // ((((A5 t + A4) t + A3) t + A2) t + A1) t: four fma, then one multiply.
        let p: Tile<f32, { [TILE_M, TILE_N] }> = fma(
            broadcast_scalar(AS_A5, shape![TILE_M, TILE_N]),
            t,
            broadcast_scalar(AS_A4, shape![TILE_M, TILE_N]),
            rounding::NearestEven,
            ftz::Disabled,
        );
        let p: Tile<f32, { [TILE_M, TILE_N] }> =
            fma(p, t, broadcast_scalar(AS_A3, shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
        let p: Tile<f32, { [TILE_M, TILE_N] }> =
            fma(p, t, broadcast_scalar(AS_A2, shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
        let p: Tile<f32, { [TILE_M, TILE_N] }> =
            fma(p, t, broadcast_scalar(AS_A1, shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
        let poly: Tile<f32, { [TILE_M, TILE_N] }> = p * t;
        // 1.0 - poly * exp(-(a * a)), contracted as fma(-poly, exp(..), 1).
        let g: Tile<f32, { [TILE_M, TILE_N] }> = exp(negf(a * a));
        let e: Tile<f32, { [TILE_M, TILE_N] }> = fma(negf(poly), g, one, rounding::NearestEven, ftz::Disabled);
        // erf is odd: where(z < 0, -e, e).
        let negative: Tile<bool, { [TILE_M, TILE_N] }> = lt_tile(z, broadcast_scalar(0.0f32, shape![TILE_M, TILE_N]));
        select(negative, negf(e), e)
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn gelu<E: ElementType, const APPROX: i32, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // `partition` pads with zero, like padding_mode=ZERO.
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let v: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        let half: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(0.5f32, shape![TILE_M, TILE_N]);
        let y: Tile<f32, { [TILE_M, TILE_N] }> = if APPROX == 1i32 {
            // SQRT_2_OVER_PI * (v + 0.044715 * v * v * v): the cubic term's last multiply and
            // the add are one fma, as Python contracts them.
            let cubic: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(TANH_CUBIC, shape![TILE_M, TILE_N]) * v * v;
            let inner: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(SQRT_2_OVER_PI, shape![TILE_M, TILE_N])
                * fma(cubic, v, v, rounding::NearestEven, ftz::Disabled);
            half * v * (one + tanh(inner))
        } else {
            let z: Tile<f32, { [TILE_M, TILE_N] }> = v * broadcast_scalar(INV_SQRT2, shape![TILE_M, TILE_N]);
            half * v * (one + erf_approx(z))
        };
        let y_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(y);
        // `out` is read-only in the signature (Python's calling convention); the store goes
        // through a full-tensor mutable view at the block's tile, as ct.store(out, index=...).
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y_out, [block.0, block.1]) };
    }

    /// num / den as num * rcp.approx(den), subnormals flushed (Python's `approx_div`).
    fn approx_div<const TILE_M: i32, const TILE_N: i32>(
        num: Tile<f32, { [TILE_M, TILE_N] }>,
        den: Tile<f32, { [TILE_M, TILE_N] }>,
    ) -> Tile<f32, { [TILE_M, TILE_N] }> {
        divf(num, den, rounding::Approx, ftz::Enabled)
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn gelu_fast<E: ElementType, const APPROX: i32, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let v: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let s: Tile<f32, { [TILE_M, TILE_N] }> = v * v;
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        let y: Tile<f32, { [TILE_M, TILE_N] }> = if APPROX == 1i32 {
            // x / (1 + exp2(x * (K0 + K1 x^2))): K1 x^2 + K0 is one fma, as Python contracts it.
            let k: Tile<f32, { [TILE_M, TILE_N] }> = fma(
                broadcast_scalar(TANH_K1, shape![TILE_M, TILE_N]),
                s,
                broadcast_scalar(TANH_K0, shape![TILE_M, TILE_N]),
                rounding::NearestEven,
                ftz::Disabled,
            );
            let e: Tile<f32, { [TILE_M, TILE_N] }> = exp2(v * k, ftz::Enabled);
            approx_div(v, one + e)
        } else {
            // t = 1 / (1 + ERF_T |x|), the denominator one fma.
            let denom: Tile<f32, { [TILE_M, TILE_N] }> = fma(
                broadcast_scalar(ERF_T, shape![TILE_M, TILE_N]),
                absf(v),
                one,
                rounding::NearestEven,
                ftz::Disabled,
            );
            let t: Tile<f32, { [TILE_M, TILE_N] }> = approx_div(one, denom);
            // ((((A5 t + A4) t + A3) t + A2) t + A1) t with halved coefficients: four fma, one multiply.
            let p: Tile<f32, { [TILE_M, TILE_N] }> = fma(
                broadcast_scalar(HALF_A5, shape![TILE_M, TILE_N]),
                t,
                broadcast_scalar(HALF_A4, shape![TILE_M, TILE_N]),
                rounding::NearestEven,
                ftz::Disabled,
            );
            let p: Tile<f32, { [TILE_M, TILE_N] }> =
                fma(p, t, broadcast_scalar(HALF_A3, shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
            let p: Tile<f32, { [TILE_M, TILE_N] }> =
                fma(p, t, broadcast_scalar(HALF_A2, shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
            let p: Tile<f32, { [TILE_M, TILE_N] }> =
                fma(p, t, broadcast_scalar(HALF_A1, shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
            let poly_half: Tile<f32, { [TILE_M, TILE_N] }> = p * t;
            // h = 0.5 (1 - erf(|z|)); x/2 (1 + erf(z)) = x * (h if x < 0 else 1 - h).
            let g: Tile<f32, { [TILE_M, TILE_N] }> =
                exp2(s * broadcast_scalar(ERF_EXP2, shape![TILE_M, TILE_N]), ftz::Enabled);
            let h: Tile<f32, { [TILE_M, TILE_N] }> = poly_half * g;
            let zero: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(0.0f32, shape![TILE_M, TILE_N]);
            let negative: Tile<bool, { [TILE_M, TILE_N] }> = lt_tile(v, zero);
            let w: Tile<f32, { [TILE_M, TILE_N] }> = select(negative, h, one - h);
            v * w
        };
        let y_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(y);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y_out, [block.0, block.1]) };
    }
}
