//! Flash attention forward for prefill (reference/flash_attention): kernel `flash_attention`
//! and its tuned entries `flash_attention_w8` (two consumer warpgroups) and
//! `flash_attention_o2` (occupancy 2), one body.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "flash_attention";

/// The kernels `cutile_flash_attention` launches.
pub const ENTRIES: [&str; 3] = ["flash_attention", "flash_attention_w8", "flash_attention_o2"];

/// A (B, H, S, D) array as the kernels take it: unit last stride, the other strides multiples
/// of 8 elements (16-byte rows), 16-byte aligned base.
pub const fn heads(spec: TensorSpec) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(16).stride_div(8, 1))
}

/// `o_rows_div`: o's rows (D) declared a multiple of it. bf16 (D = 128 in every variant) declares
/// 8, the reference's `shape_divisible_by`: tileiras then stores the output tile with stmatrix and
/// TMA, 2.1-2.8 % faster for the launched w8 kernels on the H100; the f16 D = 64 occupancy-2
/// kernels ran 0.5-0.7 % slower with it (docs/results/tuning.md, session 27).
const fn params(dtype: DType, o_rows_div: i64) -> [ParamSpec; 5] {
    [
        heads(TensorSpec::input("q", dtype, 4)),
        heads(TensorSpec::input("k", dtype, 4)),
        heads(TensorSpec::input("v", dtype, 4)),
        heads(TensorSpec::output("o", dtype, 4).shape_div(3, o_rows_div)),
        ParamSpec::F32("sm_scale"),
    ]
}

const fn variant(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "flash_attention_kernel",
        entry,
        generic_names: &["E", "BM", "BN", "D", "QUERY_GROUP", "CAUSAL"],
        generics,
        params,
    }
}

static F16: [ParamSpec; 5] = params(DType::F16, 1);
static BF16: [ParamSpec; 5] = params(DType::BF16, 8);

// Generics: <E, BM, BN, D, QUERY_GROUP, CAUSAL>.
pub static F16_D64_NONCAUSAL: Variant =
    variant("flash_attention", "f16_d64_noncausal", &["f16", "128", "128", "64", "1", "0"], &F16);
pub static F16_D64_CAUSAL: Variant =
    variant("flash_attention", "f16_d64_causal", &["f16", "128", "128", "64", "1", "1"], &F16);
pub static BF16_D128_CAUSAL: Variant =
    variant("flash_attention", "bf16_d128_causal", &["bf16", "128", "64", "128", "1", "1"], &BF16);
pub static BF16_D128_CAUSAL_GQA4: Variant =
    variant("flash_attention", "bf16_d128_causal_gqa4", &["bf16", "128", "64", "128", "4", "1"], &BF16);
pub static BF16_D128_NONCAUSAL_GQA8: Variant =
    variant("flash_attention", "bf16_d128_noncausal_gqa8", &["bf16", "128", "64", "128", "8", "0"], &BF16);
pub static F16_D64_NONCAUSAL_O2: Variant =
    variant("flash_attention_o2", "f16_d64_noncausal_o2", &["f16", "128", "128", "64", "1", "0"], &F16);
pub static F16_D64_CAUSAL_O2: Variant =
    variant("flash_attention_o2", "f16_d64_causal_o2", &["f16", "128", "128", "64", "1", "1"], &F16);
pub static BF16_D128_CAUSAL_W8_BN128: Variant =
    variant("flash_attention_w8", "bf16_d128_causal_w8_bn128", &["bf16", "128", "128", "128", "1", "1"], &BF16);
pub static BF16_D128_CAUSAL_GQA4_W8_BN128: Variant =
    variant("flash_attention_w8", "bf16_d128_causal_gqa4_w8_bn128", &["bf16", "128", "128", "128", "4", "1"], &BF16);
pub static BF16_D128_NONCAUSAL_GQA8_W8_BN128: Variant =
    variant("flash_attention_w8", "bf16_d128_noncausal_gqa8_w8_bn128", &["bf16", "128", "128", "128", "8", "0"], &BF16);

pub static VARIANTS: &[&Variant] = &[
    &F16_D64_NONCAUSAL,
    &F16_D64_CAUSAL,
    &BF16_D128_CAUSAL,
    &BF16_D128_CAUSAL_GQA4,
    &BF16_D128_NONCAUSAL_GQA8,
    &F16_D64_NONCAUSAL_O2,
    &F16_D64_CAUSAL_O2,
    &BF16_D128_CAUSAL_W8_BN128,
    &BF16_D128_CAUSAL_GQA4_W8_BN128,
    &BF16_D128_NONCAUSAL_GQA8_W8_BN128,
];

/// The dtype of a variant's q (its first tensor).
pub fn q_dtype(v: &Variant) -> Option<DType> {
    v.tensor_specs().next().map(|q| q.dtype)
}

/// The reference launcher's choice (reference/flash_attention/kernel.py `select_variant`):
/// the tuned variant built for (dtype, head dim, query group, causal), which the H200 runs
/// faster than its untuned twin at the bench shape (occupancy 2 for f16 d64, two warpgroups
/// on 128x128 score tiles for bf16 d128; docs/results/reference_results.md). The untuned ones
/// take the same layouts and run only when forced. None for any other combination.
pub fn choose(dtype: DType, head_dim: i64, group: i64, causal: bool) -> Option<&'static Variant> {
    let tuned = [
        &F16_D64_NONCAUSAL_O2,
        &F16_D64_CAUSAL_O2,
        &BF16_D128_CAUSAL_W8_BN128,
        &BF16_D128_CAUSAL_GQA4_W8_BN128,
        &BF16_D128_NONCAUSAL_GQA8_W8_BN128,
    ];
    tuned.into_iter().find(|v| {
        q_dtype(v) == Some(dtype)
            && v.constant("D") == head_dim
            && v.constant("QUERY_GROUP") == group
            && (v.constant("CAUSAL") == 1) == causal
    })
}
