//! cuTile Rust port of reference/gelu/kernel.py: GELU over a 2-D array in (TILE_M, TILE_N)
//! tiles, math in f32. `APPROX` (a `ct.Constant[int]` in Python, an i32 const generic here)
//! picks the formula at compile time: 0 = exact, with erf as the Abramowitz-Stegun 7.1.26
//! rational approximation (cuTile has no erf), 1 = the tanh form. The compiler folds the `if`.
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
}
