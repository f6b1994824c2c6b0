//! argmax along the last axis of a 2-D array (reference/argmax): int64 index of the first maximum.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "argmax";

/// x: rows strided, columns contiguous; out: contiguous int64; both 16-byte aligned.
const fn params(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", DType::I64, 1).unit_last().align(16)),
    ]
}

/// The aligned specialization: x's last dim and row stride are multiples of 8 elements.
const fn params_a8(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::output("out", DType::I64, 1).unit_last().align(16)),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "argmax_kernel",
        entry: "argmax_rows",
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

// Generics: <E, TILE_M, TILE_N>.
pub static F16_M4_N1024: Variant = variant("f16_m4_n1024", &["f16", "4", "1024"], &params(DType::F16));
pub static BF16_M4_N1024: Variant = variant("bf16_m4_n1024", &["bf16", "4", "1024"], &params(DType::BF16));
pub static F32_M4_N1024: Variant = variant("f32_m4_n1024", &["f32", "4", "1024"], &params(DType::F32));
pub static F16_A8_M4_N1024: Variant = variant("f16_a8_m4_n1024", &["f16", "4", "1024"], &params_a8(DType::F16));
pub static BF16_A8_M4_N1024: Variant = variant("bf16_a8_m4_n1024", &["bf16", "4", "1024"], &params_a8(DType::BF16));

pub static VARIANTS: &[&Variant] = &[&F16_M4_N1024, &BF16_M4_N1024, &F32_M4_N1024, &F16_A8_M4_N1024, &BF16_A8_M4_N1024];

/// Candidates for x's dtype, most specific first (analysis.json `selects_when`): the aligned
/// variant when the last dim and row stride are multiples of 8 (f16, bf16), else the general one.
pub fn candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16S: [&Variant; 2] = [&F16_A8_M4_N1024, &F16_M4_N1024];
    static BF16S: [&Variant; 2] = [&BF16_A8_M4_N1024, &BF16_M4_N1024];
    static F32S: [&Variant; 1] = [&F32_M4_N1024];
    match dtype {
        DType::F16 => &F16S,
        DType::BF16 => &BF16S,
        DType::F32 => &F32S,
        _ => &[],
    }
}
