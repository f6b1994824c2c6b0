//! SwiGLU on separate gate and up tensors (reference/swiglu): forward and backward.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "swiglu";

/// Rows may be strided (any row stride), columns are contiguous; 16-byte aligned bases. `a8`:
/// the aligned specialization, where the last dim and the row stride are multiples of 8 elements.
const fn param(name: &'static str, dtype: DType, output: bool, a8: bool) -> ParamSpec {
    let spec = if output { TensorSpec::output(name, dtype, 2) } else { TensorSpec::input(name, dtype, 2) };
    let spec = spec.unit_last().align(16);
    ParamSpec::Tensor(if a8 { spec.stride_div(8, 1).shape_div(1, 8) } else { spec })
}

const fn fwd_params(dtype: DType, a8: bool) -> [ParamSpec; 3] {
    [param("a", dtype, false, a8), param("b", dtype, false, a8), param("c", dtype, true, a8)]
}

const fn bwd_params(dtype: DType, a8: bool) -> [ParamSpec; 5] {
    [
        param("dc", dtype, false, a8),
        param("a", dtype, false, a8),
        param("b", dtype, false, a8),
        param("da", dtype, true, a8),
        param("db", dtype, true, a8),
    ]
}

const fn fwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "swiglu_kernel",
        entry: "swiglu_fwd",
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

/// The approximate-math forward kernel (`swiglu_fwd_fast`), 16-bit dtypes, aligned only.
const fn fwd_fast(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { entry: "swiglu_fwd_fast", ..fwd(name, generics, params) }
}

/// The approximate-math backward kernel (`swiglu_bwd_fast`), 16-bit dtypes, aligned only.
const fn bwd_fast(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { entry: "swiglu_bwd_fast", ..fwd(name, generics, params) }
}

const fn bwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { entry: "swiglu_bwd", ..fwd(name, generics, params) }
}

// Generics of both kernels: <E, TILE_M, TILE_N>.
pub static FWD_F16: Variant = fwd("fwd_f16", &["f16", "16", "256"], &fwd_params(DType::F16, false));
pub static FWD_BF16: Variant = fwd("fwd_bf16", &["bf16", "16", "256"], &fwd_params(DType::BF16, false));
pub static FWD_F32: Variant = fwd("fwd_f32", &["f32", "16", "256"], &fwd_params(DType::F32, false));
pub static BWD_F16: Variant = bwd("bwd_f16", &["f16", "16", "256"], &bwd_params(DType::F16, false));
pub static BWD_BF16: Variant = bwd("bwd_bf16", &["bf16", "16", "256"], &bwd_params(DType::BF16, false));
pub static BWD_F32: Variant = bwd("bwd_f32", &["f32", "16", "256"], &bwd_params(DType::F32, false));
pub static FWD_F16_A8: Variant = fwd("fwd_f16_a8", &["f16", "16", "256"], &fwd_params(DType::F16, true));
pub static FWD_BF16_A8: Variant = fwd("fwd_bf16_a8", &["bf16", "16", "256"], &fwd_params(DType::BF16, true));
pub static FWD_F32_A8: Variant = fwd("fwd_f32_a8", &["f32", "16", "256"], &fwd_params(DType::F32, true));
pub static BWD_F16_A8: Variant = bwd("bwd_f16_a8", &["f16", "16", "256"], &bwd_params(DType::F16, true));
pub static BWD_BF16_A8: Variant = bwd("bwd_bf16_a8", &["bf16", "16", "256"], &bwd_params(DType::BF16, true));
pub static BWD_F32_A8: Variant = bwd("bwd_f32_a8", &["f32", "16", "256"], &bwd_params(DType::F32, true));
pub static FWD_F16_A8_FAST: Variant =
    fwd_fast("fwd_f16_a8_fast_m1_n1024", &["f16", "1", "1024"], &fwd_params(DType::F16, true));
pub static FWD_BF16_A8_FAST: Variant =
    fwd_fast("fwd_bf16_a8_fast_m1_n1024", &["bf16", "1", "1024"], &fwd_params(DType::BF16, true));
pub static BWD_F16_A8_FAST: Variant =
    bwd_fast("bwd_f16_a8_fast_m1_n1024", &["f16", "1", "1024"], &bwd_params(DType::F16, true));
pub static BWD_BF16_A8_FAST: Variant =
    bwd_fast("bwd_bf16_a8_fast_m1_n1024", &["bf16", "1", "1024"], &bwd_params(DType::BF16, true));

pub static VARIANTS: &[&Variant] = &[
    &FWD_F16,
    &FWD_BF16,
    &FWD_F32,
    &BWD_F16,
    &BWD_BF16,
    &BWD_F32,
    &FWD_F16_A8,
    &FWD_BF16_A8,
    &FWD_F32_A8,
    &BWD_F16_A8,
    &BWD_BF16_A8,
    &BWD_F32_A8,
    &FWD_F16_A8_FAST,
    &FWD_BF16_A8_FAST,
    &BWD_F16_A8_FAST,
    &BWD_BF16_A8_FAST,
];

/// Where the (1, 1024) tiles of the `_fast` forward variants win (measured): rows of at least
/// FAST_MIN_N columns, or any row length up to FAST_MAX_ROWS_ANY_N rows. `FAST_MIN_N` /
/// `FAST_MAX_ROWS_ANY_N` in reference/swiglu/kernel.py, whose `select_variant` this mirrors.
pub const FAST_MIN_N: i64 = 256;
pub const FAST_MAX_ROWS_ANY_N: i64 = 2048;

/// Forward candidates for a dtype and (m, n) shape, most specific first (`select_variant` in
/// reference/swiglu/kernel.py): for 16-bit rows of at least FAST_MIN_N columns, or at most
/// FAST_MAX_ROWS_ANY_N rows, the `_fast` kernel, then the aligned variant when the last dim and
/// row strides are multiples of 8, else the general one.
pub fn fwd_candidates(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static F16: [&Variant; 2] = [&FWD_F16_A8, &FWD_F16];
    static BF16: [&Variant; 2] = [&FWD_BF16_A8, &FWD_BF16];
    static F32: [&Variant; 2] = [&FWD_F32_A8, &FWD_F32];
    static F16_FAST: [&Variant; 3] = [&FWD_F16_A8_FAST, &FWD_F16_A8, &FWD_F16];
    static BF16_FAST: [&Variant; 3] = [&FWD_BF16_A8_FAST, &FWD_BF16_A8, &FWD_BF16];
    let use_fast = n >= FAST_MIN_N || m <= FAST_MAX_ROWS_ANY_N;
    match dtype {
        DType::F16 if use_fast => &F16_FAST,
        DType::BF16 if use_fast => &BF16_FAST,
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}

/// Backward candidates for a dtype and (m, n) shape, most specific first (`select_bwd_variant` in
/// reference/swiglu/kernel.py): for 16-bit rows of at least FAST_MIN_N columns, or at most
/// FAST_MAX_ROWS_ANY_N rows, the `_fast` kernel, then the general one; many short 16-bit rows
/// take the general kernel (measured faster than `_a8` there); f32 the aligned variant when the
/// last dim and row strides are multiples of 8, else the general one.
pub fn bwd_candidates(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static F16: [&Variant; 1] = [&BWD_F16];
    static BF16: [&Variant; 1] = [&BWD_BF16];
    static F32: [&Variant; 2] = [&BWD_F32_A8, &BWD_F32];
    static F16_FAST: [&Variant; 2] = [&BWD_F16_A8_FAST, &BWD_F16];
    static BF16_FAST: [&Variant; 2] = [&BWD_BF16_A8_FAST, &BWD_BF16];
    let use_fast = n >= FAST_MIN_N || m <= FAST_MAX_ROWS_ANY_N;
    match dtype {
        DType::F16 if use_fast => &F16_FAST,
        DType::BF16 if use_fast => &BF16_FAST,
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}
