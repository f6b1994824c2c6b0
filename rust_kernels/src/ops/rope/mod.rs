//! Rotary position embedding of q and k, out of place (reference/rope).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "rope";

/// positions (T,) int32; q, k, q_out, k_out (T, H, D) with the head and token strides
/// multiples of 8 elements (16-byte rows); the f32 cos/sin tables (P, D/2) with the row
/// stride a multiple of 4 elements; every base 16-byte aligned.
const fn heads(spec: TensorSpec) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(16).stride_div(8, 1))
}

const fn table(name: &'static str) -> ParamSpec {
    ParamSpec::Tensor(TensorSpec::input(name, DType::F32, 2).unit_last().align(16).stride_div(4, 1))
}

const fn params(dtype: DType) -> [ParamSpec; 7] {
    [
        ParamSpec::Tensor(TensorSpec::input("positions", DType::I32, 1).unit_last().align(16)),
        heads(TensorSpec::input("q", dtype, 3)),
        heads(TensorSpec::input("k", dtype, 3)),
        table("cos_table"),
        table("sin_table"),
        heads(TensorSpec::output("q_out", dtype, 3)),
        heads(TensorSpec::output("k_out", dtype, 3)),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rope_kernel",
        entry: "rope",
        generic_names: &["E", "BT", "TH", "D", "HALF_D", "IS_NEOX"],
        generics,
        params,
    }
}

// Generics: <E, BT, TH, D, HALF_D, IS_NEOX>.
pub static BF16_NEOX_D128: Variant =
    variant("bf16_neox_d128", &["bf16", "8", "8", "128", "64", "1"], &params(DType::BF16));
pub static F16_NEOX_D64: Variant = variant("f16_neox_d64", &["f16", "16", "8", "64", "32", "1"], &params(DType::F16));
pub static BF16_GPTJ_D128: Variant =
    variant("bf16_gptj_d128", &["bf16", "8", "8", "128", "64", "0"], &params(DType::BF16));

pub static VARIANTS: &[&Variant] = &[&BF16_NEOX_D128, &F16_NEOX_D64, &BF16_GPTJ_D128];

/// The reference launcher's choice (reference/rope/kernel.py `select_variant`): the one
/// variant built for (dtype, head dim, pairing); None for any other combination.
pub fn choose(dtype: DType, head_dim: i64, is_neox: bool) -> Option<&'static Variant> {
    VARIANTS.iter().copied().find(|v| {
        v.tensor_specs().nth(1).map(|q| q.dtype) == Some(dtype)
            && v.constant("D") == head_dim
            && (v.constant("IS_NEOX") == 1) == is_neox
    })
}
