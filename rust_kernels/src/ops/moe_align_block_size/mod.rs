//! MoE routing alignment, histogram + sort (reference/moe_align_block_size). One C call launches
//! both single-block kernels in order on the caller's stream; the counts and offsets the sort
//! reads are the caller's expert_counts / expert_offsets, written by the histogram.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "moe_align_block_size";
pub const HISTOGRAM: &str = "moe_align_histogram";
pub const SORT: &str = "moe_align_sort";

/// Every array: int32, 1-D, contiguous, 4-byte aligned.
const fn ids(spec: TensorSpec) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(4))
}

const HISTOGRAM_PARAMS: [ParamSpec; 5] = [
    ids(TensorSpec::input("topk_ids", DType::I32, 1)),
    ids(TensorSpec::output("expert_counts", DType::I32, 1)),
    ids(TensorSpec::output("expert_offsets", DType::I32, 1)),
    ids(TensorSpec::output("expert_ids", DType::I32, 1)),
    ids(TensorSpec::output("num_tokens_post_padded", DType::I32, 1)),
];

const SORT_PARAMS: [ParamSpec; 4] = [
    ids(TensorSpec::input("topk_ids", DType::I32, 1)),
    ids(TensorSpec::input("expert_counts", DType::I32, 1)),
    ids(TensorSpec::input("expert_offsets", DType::I32, 1)),
    ids(TensorSpec::output("sorted_token_ids", DType::I32, 1)),
];

const fn histogram(name: &'static str, generics: &'static [&'static str]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "moe_align_block_size_kernel",
        entry: HISTOGRAM,
        generic_names: &["BLOCK_M", "TILE", "E_PAD", "NB_TILE"],
        generics,
        params: &HISTOGRAM_PARAMS,
    }
}

const fn sort(name: &'static str, generics: &'static [&'static str]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "moe_align_block_size_kernel",
        entry: SORT,
        generic_names: &["TILE", "E_PAD", "PAD_TILE"],
        generics,
        params: &SORT_PARAMS,
    }
}

// moe_align_histogram: <BLOCK_M, TILE, E_PAD, NB_TILE>; moe_align_sort: <TILE, E_PAD, PAD_TILE>.
pub static HIST_BM64_E128: Variant = histogram("hist_bm64_e128", &["64", "128", "128", "256"]);
pub static HIST_BM16_E256: Variant = histogram("hist_bm16_e256", &["16", "128", "256", "256"]);
pub static SORT_BM64_E128: Variant = sort("sort_bm64_e128", &["128", "128", "256"]);
pub static SORT_BM16_E256: Variant = sort("sort_bm16_e256", &["128", "256", "256"]);

pub static VARIANTS: &[&Variant] = &[&HIST_BM64_E128, &HIST_BM16_E256, &SORT_BM64_E128, &SORT_BM16_E256];

/// The reference launcher's choice (reference/moe_align_block_size/kernel.py `select_variant`):
/// the (histogram, sort) pair built for BLOCK_M = `block_m` with E < E_PAD experts.
pub fn choose(block_m: i64, experts: i64) -> Option<(&'static Variant, &'static Variant)> {
    [(&HIST_BM64_E128, &SORT_BM64_E128), (&HIST_BM16_E256, &SORT_BM16_E256)]
        .into_iter()
        .find(|(h, _)| h.constant("BLOCK_M") == block_m && experts < h.constant("E_PAD"))
}
