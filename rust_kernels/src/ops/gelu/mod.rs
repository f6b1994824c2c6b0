//! GELU over a 2-D array (reference/gelu): exact (erf) or tanh form, chosen by `APPROX`.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "gelu";

/// Rows may be strided (any row stride), columns are contiguous; 16-byte aligned bases.
const fn params(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16)),
    ]
}

/// The aligned specialization: the last dim and the row stride are multiples of 8 elements.
const fn params_a8(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
    ]
}

/// The f32 16-byte row contract of the `_a4_fast` variants: the last dim and the row stride are
/// multiples of 4 elements.
const fn params_a4(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(4, 1).shape_div(1, 4)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(4, 1).shape_div(1, 4)),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    entry_variant("gelu", name, generics, params)
}

/// The approximate-math kernel (`gelu_fast`): 16-bit dtypes with 8-element rows, f32 with
/// 4-element (16-byte) rows.
const fn fast(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    entry_variant("gelu_fast", name, generics, params)
}

const fn entry_variant(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "gelu_kernel",
        entry,
        generic_names: &["E", "APPROX", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

// Generics: <E, APPROX, TILE_M, TILE_N>; APPROX 0 = erf, 1 = tanh.
pub static ERF_F16: Variant = variant("erf_f16", &["f16", "0", "16", "256"], &params(DType::F16));
pub static ERF_BF16: Variant = variant("erf_bf16", &["bf16", "0", "16", "256"], &params(DType::BF16));
pub static ERF_F32: Variant = variant("erf_f32", &["f32", "0", "16", "256"], &params(DType::F32));
pub static TANH_F16: Variant = variant("tanh_f16", &["f16", "1", "16", "256"], &params(DType::F16));
pub static TANH_BF16: Variant = variant("tanh_bf16", &["bf16", "1", "16", "256"], &params(DType::BF16));
pub static TANH_F32: Variant = variant("tanh_f32", &["f32", "1", "16", "256"], &params(DType::F32));
pub static ERF_F16_A8: Variant = variant("erf_f16_a8", &["f16", "0", "16", "256"], &params_a8(DType::F16));
pub static ERF_BF16_A8: Variant = variant("erf_bf16_a8", &["bf16", "0", "16", "256"], &params_a8(DType::BF16));
pub static ERF_F32_A8: Variant = variant("erf_f32_a8", &["f32", "0", "16", "256"], &params_a8(DType::F32));
pub static TANH_F16_A8: Variant = variant("tanh_f16_a8", &["f16", "1", "16", "256"], &params_a8(DType::F16));
pub static TANH_BF16_A8: Variant = variant("tanh_bf16_a8", &["bf16", "1", "16", "256"], &params_a8(DType::BF16));
pub static TANH_F32_A8: Variant = variant("tanh_f32_a8", &["f32", "1", "16", "256"], &params_a8(DType::F32));
pub static ERF_F16_A8_FAST: Variant = fast("erf_f16_a8_fast_m1_n1024", &["f16", "0", "1", "1024"], &params_a8(DType::F16));
pub static ERF_BF16_A8_FAST: Variant =
    fast("erf_bf16_a8_fast_m1_n1024", &["bf16", "0", "1", "1024"], &params_a8(DType::BF16));
pub static TANH_F16_A8_FAST: Variant =
    fast("tanh_f16_a8_fast_m1_n1024", &["f16", "1", "1", "1024"], &params_a8(DType::F16));
pub static TANH_BF16_A8_FAST: Variant =
    fast("tanh_bf16_a8_fast_m1_n1024", &["bf16", "1", "1", "1024"], &params_a8(DType::BF16));
/// f32, 16-byte rows: (1, 1024) tiles (two 16-byte loads a thread; selected) and (1, 2048) tiles
/// (four; forced only).
pub static ERF_F32_A4_FAST: Variant = fast("erf_f32_a4_fast_m1_n1024", &["f32", "0", "1", "1024"], &params_a4(DType::F32));
pub static TANH_F32_A4_FAST: Variant =
    fast("tanh_f32_a4_fast_m1_n1024", &["f32", "1", "1", "1024"], &params_a4(DType::F32));
pub static ERF_F32_A4_FAST_N2048: Variant =
    fast("erf_f32_a4_fast_m1_n2048", &["f32", "0", "1", "2048"], &params_a4(DType::F32));
pub static TANH_F32_A4_FAST_N2048: Variant =
    fast("tanh_f32_a4_fast_m1_n2048", &["f32", "1", "1", "2048"], &params_a4(DType::F32));

pub static VARIANTS: &[&Variant] = &[
    &ERF_F16,
    &ERF_BF16,
    &ERF_F32,
    &TANH_F16,
    &TANH_BF16,
    &TANH_F32,
    &ERF_F16_A8,
    &ERF_BF16_A8,
    &ERF_F32_A8,
    &TANH_F16_A8,
    &TANH_BF16_A8,
    &TANH_F32_A8,
    &ERF_F16_A8_FAST,
    &ERF_BF16_A8_FAST,
    &TANH_F16_A8_FAST,
    &TANH_BF16_A8_FAST,
    &ERF_F32_A4_FAST,
    &TANH_F32_A4_FAST,
    &ERF_F32_A4_FAST_N2048,
    &TANH_F32_A4_FAST_N2048,
];

/// Where the (1, 1024) tiles of the `_fast` variants win (measured): rows of at least
/// FAST_MIN_N columns, or any row length up to FAST_MAX_ROWS_ANY_N rows (one wave of them).
/// `FAST_MIN_N` / `FAST_MAX_ROWS_ANY_N` in reference/gelu/kernel.py, whose `select_variant`
/// this mirrors.
pub const FAST_MIN_N: i64 = 512;
pub const FAST_MAX_ROWS_ANY_N: i64 = 2048;

/// Candidates for a formula, dtype and (m, n) shape, most specific first (`select_variant` in
/// reference/gelu/kernel.py): for 16-bit rows of at least FAST_MIN_N columns, or at most
/// FAST_MAX_ROWS_ANY_N rows, the `_fast` kernel,
/// then the aligned variant when the last dim and row strides are multiples of 8, else the
/// general one. For f32 the `_fast` kernel takes rows of 4-element multiples under the same rule
/// (`ERF_F32_A4_FAST` / `TANH_F32_A4_FAST`; the (1, 2048) ones only when forced).
pub fn candidates(approx: bool, dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static ERF_F16S: [&Variant; 2] = [&ERF_F16_A8, &ERF_F16];
    static ERF_BF16S: [&Variant; 2] = [&ERF_BF16_A8, &ERF_BF16];
    static ERF_F32S: [&Variant; 2] = [&ERF_F32_A8, &ERF_F32];
    static TANH_F16S: [&Variant; 2] = [&TANH_F16_A8, &TANH_F16];
    static TANH_BF16S: [&Variant; 2] = [&TANH_BF16_A8, &TANH_BF16];
    static TANH_F32S: [&Variant; 2] = [&TANH_F32_A8, &TANH_F32];
    static ERF_F16S_FAST: [&Variant; 3] = [&ERF_F16_A8_FAST, &ERF_F16_A8, &ERF_F16];
    static ERF_BF16S_FAST: [&Variant; 3] = [&ERF_BF16_A8_FAST, &ERF_BF16_A8, &ERF_BF16];
    static TANH_F16S_FAST: [&Variant; 3] = [&TANH_F16_A8_FAST, &TANH_F16_A8, &TANH_F16];
    static TANH_BF16S_FAST: [&Variant; 3] = [&TANH_BF16_A8_FAST, &TANH_BF16_A8, &TANH_BF16];
    static ERF_F32S_FAST: [&Variant; 3] = [&ERF_F32_A4_FAST, &ERF_F32_A8, &ERF_F32];
    static TANH_F32S_FAST: [&Variant; 3] = [&TANH_F32_A4_FAST, &TANH_F32_A8, &TANH_F32];
    let use_fast = n >= FAST_MIN_N || m <= FAST_MAX_ROWS_ANY_N;
    match (approx, dtype) {
        (false, DType::F16) if use_fast => &ERF_F16S_FAST,
        (false, DType::BF16) if use_fast => &ERF_BF16S_FAST,
        (true, DType::F16) if use_fast => &TANH_F16S_FAST,
        (true, DType::BF16) if use_fast => &TANH_BF16S_FAST,
        (false, DType::F32) if use_fast => &ERF_F32S_FAST,
        (true, DType::F32) if use_fast => &TANH_F32S_FAST,
        (false, DType::F16) => &ERF_F16S,
        (false, DType::BF16) => &ERF_BF16S,
        (false, DType::F32) => &ERF_F32S,
        (true, DType::F16) => &TANH_F16S,
        (true, DType::BF16) => &TANH_BF16S,
        (true, DType::F32) => &TANH_F32S,
        _ => &[],
    }
}
