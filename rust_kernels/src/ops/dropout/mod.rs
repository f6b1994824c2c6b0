//! dropout with a stateless counter-based hash RNG computed in the kernel (reference/dropout).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "dropout";
const TILE: &str = "1024";

/// Unit stride, 16-byte aligned bases (`shape_div`: N a multiple of it, the aligned variants).
const fn contiguous(dtype: DType, shape_div: i64) -> [ParamSpec; 4] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 1).unit_last().align(16).shape_div(0, shape_div)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 1).unit_last().align(16).shape_div(0, shape_div)),
        ParamSpec::I32("seed"),
        ParamSpec::F32("p"),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { op: OP, name, module: "dropout_kernel", entry: "dropout", generic_names: &["E", "TILE"], generics, params }
}

const fn fast(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { entry: "dropout_fast", ..variant(name, generics, params) }
}

// Generics: <E, TILE>.
pub static F16_T1024: Variant = variant("f16_t1024", &["f16", TILE], &contiguous(DType::F16, 1));
pub static BF16_T1024: Variant = variant("bf16_t1024", &["bf16", TILE], &contiguous(DType::BF16, 1));
pub static F32_T1024: Variant = variant("f32_t1024", &["f32", TILE], &contiguous(DType::F32, 1));
/// Any non-negative element stride: the stride stays a runtime value in the view type.
pub static F32_STRIDED_T1024: Variant = variant(
    "f32_strided_t1024",
    &["f32", TILE],
    &[
        ParamSpec::Tensor(TensorSpec::input("x", DType::F32, 1).align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", DType::F32, 1).align(16)),
        ParamSpec::I32("seed"),
        ParamSpec::F32("p"),
    ],
);
pub static F16_A8_T1024: Variant = variant("f16_a8_t1024", &["f16", TILE], &contiguous(DType::F16, 8));
pub static BF16_A8_T1024: Variant = variant("bf16_a8_t1024", &["bf16", TILE], &contiguous(DType::BF16, 8));
/// The `dropout_fast` kernel (the same mask and values, fewer instructions per element).
pub static F16_A8_FAST_T1024: Variant = fast("f16_a8_fast_t1024", &["f16", TILE], &contiguous(DType::F16, 8));
pub static BF16_A8_FAST_T1024: Variant = fast("bf16_a8_fast_t1024", &["bf16", TILE], &contiguous(DType::BF16, 8));
/// 2048 elements per block: 16 per thread, so the per-thread set-up (block index, threshold,
/// the IEEE division) is paid once per 16 elements.
pub static F16_A8_FAST_T2048: Variant = fast("f16_a8_fast_t2048", &["f16", "2048"], &contiguous(DType::F16, 8));
pub static BF16_A8_FAST_T2048: Variant = fast("bf16_a8_fast_t2048", &["bf16", "2048"], &contiguous(DType::BF16, 8));

pub static VARIANTS: &[&Variant] = &[
    &F16_T1024,
    &BF16_T1024,
    &F32_T1024,
    &F32_STRIDED_T1024,
    &F16_A8_T1024,
    &BF16_A8_T1024,
    &F16_A8_FAST_T1024,
    &BF16_A8_FAST_T1024,
    &F16_A8_FAST_T2048,
    &BF16_A8_FAST_T2048,
];

/// Candidates for a dtype, most specific first (`select_variant` in reference/dropout/kernel.py):
/// f16/bf16 with N a multiple of 8 take the `dropout_fast` kernel (the same mask and values as
/// the aligned `dropout` variant, which stays forcible), other lengths the general one; f32 with a
/// non-unit stride the strided one.
pub fn candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16: [&Variant; 2] = [&F16_A8_FAST_T1024, &F16_T1024];
    static BF16: [&Variant; 2] = [&BF16_A8_FAST_T1024, &BF16_T1024];
    static F32: [&Variant; 2] = [&F32_T1024, &F32_STRIDED_T1024];
    match dtype {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}
