//! Causal prefill attention with per-head sink logits and an optional sliding window
//! (reference/attention_sink).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::ops::flash_attention::{heads, q_dtype};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "attention_sink";

/// q, k, v, o as in flash_attention; sinks (Hq,) f32, unit stride, 16-byte aligned.
const fn params(dtype: DType) -> [ParamSpec; 6] {
    [
        heads(TensorSpec::input("q", dtype, 4)),
        heads(TensorSpec::input("k", dtype, 4)),
        heads(TensorSpec::input("v", dtype, 4)),
        ParamSpec::Tensor(TensorSpec::input("sinks", DType::F32, 1).unit_last().align(16)),
        heads(TensorSpec::output("o", dtype, 4)),
        ParamSpec::F32("sm_scale"),
    ]
}

static F16: [ParamSpec; 6] = params(DType::F16);
static BF16: [ParamSpec; 6] = params(DType::BF16);

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "attention_sink_kernel",
        entry: "attention_sink",
        generic_names: &["E", "BM", "BN", "D", "QUERY_GROUP", "WINDOW"],
        generics,
        params,
    }
}

// Generics: <E, BM, BN, D, QUERY_GROUP, WINDOW>.
pub static BF16_D64_GQA8_WINDOW128: Variant =
    variant("bf16_d64_gqa8_window128", &["bf16", "128", "64", "64", "8", "128"], &BF16);
pub static BF16_D64_GQA8_FULL: Variant = variant("bf16_d64_gqa8_full", &["bf16", "128", "64", "64", "8", "0"], &BF16);
pub static F16_D128_MHA_WINDOW256: Variant =
    variant("f16_d128_mha_window256", &["f16", "128", "64", "128", "1", "256"], &F16);

pub static VARIANTS: &[&Variant] = &[&BF16_D64_GQA8_WINDOW128, &BF16_D64_GQA8_FULL, &F16_D128_MHA_WINDOW256];

/// The reference launcher's choice (reference/attention_sink/kernel.py `select_variant`): the
/// one variant built for (dtype, head dim, query group, window); None for any other.
pub fn choose(dtype: DType, head_dim: i64, group: i64, window: i64) -> Option<&'static Variant> {
    VARIANTS.iter().copied().find(|v| {
        q_dtype(v) == Some(dtype)
            && v.constant("D") == head_dim
            && v.constant("QUERY_GROUP") == group
            && v.constant("WINDOW") == window
    })
}
