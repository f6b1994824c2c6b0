//! vector_add: out = x + y over 1-D arrays (reference/vector_add).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "vector_add";
const TILE: &str = "1024";

/// Unit stride, 16-byte aligned bases; `shape_div`: N a multiple of it (8: the `_a8` variants).
const fn contiguous(dtype: DType, shape_div: i64) -> [ParamSpec; 3] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 1).unit_last().align(16).shape_div(0, shape_div)),
        ParamSpec::Tensor(TensorSpec::input("y", dtype, 1).unit_last().align(16).shape_div(0, shape_div)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 1).unit_last().align(16).shape_div(0, shape_div)),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "vector_add_kernel",
        entry: "vector_add",
        generic_names: &["E", "TILE"],
        generics,
        params,
    }
}

pub static F16_T1024: Variant = variant("f16_t1024", &["f16", TILE], &contiguous(DType::F16, 1));
pub static BF16_T1024: Variant = variant("bf16_t1024", &["bf16", TILE], &contiguous(DType::BF16, 1));
pub static F32_T1024: Variant = variant("f32_t1024", &["f32", TILE], &contiguous(DType::F32, 1));
/// Any non-negative element stride: the stride stays a runtime value in the view type.
pub static F32_STRIDED_T1024: Variant = variant(
    "f32_strided_t1024",
    &["f32", TILE],
    &[
        ParamSpec::Tensor(TensorSpec::input("x", DType::F32, 1).align(16)),
        ParamSpec::Tensor(TensorSpec::input("y", DType::F32, 1).align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", DType::F32, 1).align(16)),
    ],
);

/// N a multiple of 8: the masked tail is whole 16-byte vectors (tuned on the H200).
pub static F16_A8_T1024: Variant = variant("f16_a8_t1024", &["f16", TILE], &contiguous(DType::F16, 8));
pub static BF16_A8_T1024: Variant = variant("bf16_a8_t1024", &["bf16", TILE], &contiguous(DType::BF16, 8));

pub static VARIANTS: &[&Variant] =
    &[&F16_T1024, &BF16_T1024, &F32_T1024, &F32_STRIDED_T1024, &F16_A8_T1024, &BF16_A8_T1024];

/// Candidates for a dtype, most specific first (reference/vector_add/kernel.py
/// `select_variant`): f16/bf16 with N a multiple of 8 take the aligned variant; f32 contiguous
/// arrays f32_t1024 (the strided variant 1.10-1.14x slower there on the H200), strided ones the
/// strided variant.
pub fn candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16: [&Variant; 2] = [&F16_A8_T1024, &F16_T1024];
    static BF16: [&Variant; 2] = [&BF16_A8_T1024, &BF16_T1024];
    static F32: [&Variant; 2] = [&F32_T1024, &F32_STRIDED_T1024];
    match dtype {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}
