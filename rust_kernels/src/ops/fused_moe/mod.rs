//! Fused MoE expert GEMM (reference/fused_moe): out[id] = hidden[id // TOPK] @ w[expert].T
//! (* topk_weights[id]) over the rows moe_align_block_size grouped by expert. The kernel lives
//! in the group_gemm module (`group_gemm_kernel::fused_moe`): both write with one row scatter.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "fused_moe";
pub const ENTRY: &str = "fused_moe";

/// hidden (T, K), w (E, N, K), out (T * TOPK, N): unit last stride, leading strides multiples of
/// 8 elements, 16-byte bases; sorted_token_ids (EM,) int32 16-byte aligned; expert_ids (NB,),
/// num_tokens_post_padded (1,) int32 and topk_weights (T * TOPK,) f32, contiguous.
const fn params(dtype: DType) -> [ParamSpec; 7] {
    [
        ParamSpec::Tensor(TensorSpec::input("hidden", dtype, 2).unit_last().align(16).stride_div(8, 1)),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 3).unit_last().align(16).stride_div(8, 1)),
        ParamSpec::Tensor(TensorSpec::input("sorted_token_ids", DType::I32, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("expert_ids", DType::I32, 1).unit_last().align(4)),
        ParamSpec::Tensor(TensorSpec::input("num_tokens_post_padded", DType::I32, 1).unit_last().align(4)),
        ParamSpec::Tensor(TensorSpec::input("topk_weights", DType::F32, 1).unit_last().align(4)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(8, 1)),
    ]
}

const BF16: [ParamSpec; 7] = params(DType::BF16);
const F16: [ParamSpec; 7] = params(DType::F16);

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "group_gemm_kernel",
        entry: ENTRY,
        generic_names: &["E", "BM", "BN", "BK", "TOPK", "MUL_ROUTED_WEIGHT"],
        generics,
        params,
    }
}

// Generics: <E, BM, BN, BK, TOPK, MUL_ROUTED_WEIGHT>.
pub static BF16_TOP2_BM64_MUL: Variant = variant("bf16_top2_bm64_mul", &["bf16", "64", "128", "64", "2", "1"], &BF16);
pub static BF16_TOP2_BM64_NOMUL: Variant =
    variant("bf16_top2_bm64_nomul", &["bf16", "64", "128", "64", "2", "0"], &BF16);
pub static F16_TOP8_BM16_MUL: Variant = variant("f16_top8_bm16_mul", &["f16", "16", "128", "64", "8", "1"], &F16);

pub static VARIANTS: &[&Variant] = &[&BF16_TOP2_BM64_MUL, &BF16_TOP2_BM64_NOMUL, &F16_TOP8_BM16_MUL];

/// The launcher's rule (`select_variant` in reference/fused_moe/kernel.py): the variant built for
/// the dtype, the block size the routing was aligned to (`block_m`), the experts per token
/// (`topk`, out's rows over hidden's; None when there are no tokens: any) and whether the routed
/// weight scales the rows.
pub fn candidates(
    dtype: DType,
    block_m: i64,
    topk: Option<i64>,
    mul_routed_weight: bool,
) -> &'static [&'static Variant] {
    static BF16_MUL: [&Variant; 1] = [&BF16_TOP2_BM64_MUL];
    static BF16_NOMUL: [&Variant; 1] = [&BF16_TOP2_BM64_NOMUL];
    static F16_MUL: [&Variant; 1] = [&F16_TOP8_BM16_MUL];
    let found: &'static [&'static Variant] = match (dtype, block_m, mul_routed_weight) {
        (DType::BF16, 64, true) => &BF16_MUL,
        (DType::BF16, 64, false) => &BF16_NOMUL,
        (DType::F16, 16, true) => &F16_MUL,
        _ => &[],
    };
    match topk {
        Some(k) if found.iter().any(|v| v.constant("TOPK") != k) => &[],
        _ => found,
    }
}
