//! Per-row cross-entropy with a fused logsumexp (reference/cross_entropy): loss and lse.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "cross_entropy";

/// logits: rows strided, columns contiguous; target (int64), loss, lse (float32): contiguous;
/// all 16-byte aligned. `aligned`: logits' last dim and row stride are multiples of 8.
const fn params(dtype: DType, aligned: bool) -> [ParamSpec; 4] {
    let logits = TensorSpec::input("logits", dtype, 2).unit_last().align(16);
    let logits = if aligned { logits.stride_div(8, 1).shape_div(1, 8) } else { logits };
    [
        ParamSpec::Tensor(logits),
        ParamSpec::Tensor(TensorSpec::input("target", DType::I64, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("loss", DType::F32, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("lse", DType::F32, 1).unit_last().align(16)),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "cross_entropy_kernel",
        entry: "cross_entropy_fwd",
        generic_names: &["E", "TILE_V", "IGNORE_INDEX"],
        generics,
        params,
    }
}

/// Rows whose target is this get loss 0 (torch's default `ignore_index`).
pub const IGNORE_INDEX: i64 = -100;

// Generics: <E, TILE_V, IGNORE_INDEX>.
pub static F16_V2048: Variant = variant("f16_v2048", &["f16", "2048", "-100"], &params(DType::F16, false));
pub static BF16_V2048: Variant = variant("bf16_v2048", &["bf16", "2048", "-100"], &params(DType::BF16, false));
pub static F32_V2048: Variant = variant("f32_v2048", &["f32", "2048", "-100"], &params(DType::F32, false));
pub static BF16_A8_V2048: Variant = variant("bf16_a8_v2048", &["bf16", "2048", "-100"], &params(DType::BF16, true));

pub static VARIANTS: &[&Variant] = &[&F16_V2048, &BF16_V2048, &F32_V2048, &BF16_A8_V2048];

/// Candidates for the logits dtype, most specific first (analysis.json `selects_when`): bf16
/// takes the aligned variant when V and the row stride are multiples of 8.
pub fn candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16S: [&Variant; 1] = [&F16_V2048];
    static BF16S: [&Variant; 2] = [&BF16_A8_V2048, &BF16_V2048];
    static F32S: [&Variant; 1] = [&F32_V2048];
    match dtype {
        DType::F16 => &F16S,
        DType::BF16 => &BF16S,
        DType::F32 => &F32S,
        _ => &[],
    }
}
