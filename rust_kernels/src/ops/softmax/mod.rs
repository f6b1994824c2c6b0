//! softmax over the last axis of a 2-D array (reference/softmax).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "softmax";

/// Rows may be strided (any row stride), columns are contiguous; 16-byte aligned bases.
const fn params(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16)),
    ]
}

const fn row(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "softmax_kernel",
        entry: "softmax_row",
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

const fn online(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "softmax_kernel",
        entry: "softmax_online",
        generic_names: &["E", "TILE_N"],
        generics,
        params,
    }
}

// softmax_row generics: <E, TILE_M, TILE_N>; softmax_online: <E, TILE_N>.
pub static F16_ROW_M4_N1024: Variant = row("f16_row_m4_n1024", &["f16", "4", "1024"], &params(DType::F16));
pub static F16_ROW_M1_N4096: Variant = row("f16_row_m1_n4096", &["f16", "1", "4096"], &params(DType::F16));
pub static BF16_ROW_M4_N1024: Variant = row("bf16_row_m4_n1024", &["bf16", "4", "1024"], &params(DType::BF16));
pub static BF16_ROW_M1_N4096: Variant = row("bf16_row_m1_n4096", &["bf16", "1", "4096"], &params(DType::BF16));
pub static F32_ROW_M4_N1024: Variant = row("f32_row_m4_n1024", &["f32", "4", "1024"], &params(DType::F32));
pub static F32_ROW_M1_N4096: Variant = row("f32_row_m1_n4096", &["f32", "1", "4096"], &params(DType::F32));
pub static F16_ONLINE_N1024: Variant = online("f16_online_n1024", &["f16", "1024"], &params(DType::F16));
pub static BF16_ONLINE_N1024: Variant = online("bf16_online_n1024", &["bf16", "1024"], &params(DType::BF16));
pub static F32_ONLINE_N1024: Variant = online("f32_online_n1024", &["f32", "1024"], &params(DType::F32));

pub static VARIANTS: &[&Variant] = &[
    &F16_ROW_M4_N1024,
    &F16_ROW_M1_N4096,
    &BF16_ROW_M4_N1024,
    &BF16_ROW_M1_N4096,
    &F32_ROW_M4_N1024,
    &F32_ROW_M1_N4096,
    &F16_ONLINE_N1024,
    &BF16_ONLINE_N1024,
    &F32_ONLINE_N1024,
];

/// The reference's host-side choice (analysis.json `selects_when`): whole rows in one tile
/// up to 4096 columns (several rows per block up to 1024), the online kernel beyond.
pub fn choose(dtype: DType, n: i64) -> Option<&'static Variant> {
    let by_dtype = match dtype {
        DType::F16 => [&F16_ROW_M4_N1024, &F16_ROW_M1_N4096, &F16_ONLINE_N1024],
        DType::BF16 => [&BF16_ROW_M4_N1024, &BF16_ROW_M1_N4096, &BF16_ONLINE_N1024],
        DType::F32 => [&F32_ROW_M4_N1024, &F32_ROW_M1_N4096, &F32_ONLINE_N1024],
        _ => return None,
    };
    Some(if n <= 1024 {
        by_dtype[0]
    } else if n <= 4096 {
        by_dtype[1]
    } else {
        by_dtype[2]
    })
}
