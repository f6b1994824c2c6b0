//! MoE routing alignment (reference/moe_align_block_size). `cutile_moe_align_block_size` launches
//! the two single-block kernels (histogram, sort) in order on the caller's stream; the counts and
//! offsets the sort reads are the caller's expert_counts / expert_offsets, written by the
//! histogram. `cutile_moe_align_block_size_tiled` launches the parallel pair (count_sub,
//! place_sub), one block per 256 ids, through the caller's tile_counts scratch.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "moe_align_block_size";
pub const HISTOGRAM: &str = "moe_align_histogram";
pub const SORT: &str = "moe_align_sort";
pub const COUNT_SUB: &str = "moe_align_count_sub";
pub const PLACE_SUB: &str = "moe_align_place_sub";

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

const COUNT_PARAMS: [ParamSpec; 2] = [
    ids(TensorSpec::input("topk_ids", DType::I32, 1)),
    ids(TensorSpec::output("tile_counts", DType::I32, 2)),
];

const PLACE_PARAMS: [ParamSpec; 7] = [
    ids(TensorSpec::input("topk_ids", DType::I32, 1)),
    ids(TensorSpec::input("tile_counts", DType::I32, 2)),
    ids(TensorSpec::output("expert_counts", DType::I32, 1)),
    ids(TensorSpec::output("expert_offsets", DType::I32, 1)),
    ids(TensorSpec::output("expert_ids", DType::I32, 1)),
    ids(TensorSpec::output("num_tokens_post_padded", DType::I32, 1)),
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

const fn count_sub(name: &'static str, generics: &'static [&'static str]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "moe_align_block_size_kernel",
        entry: COUNT_SUB,
        generic_names: &["TILE", "SUB", "E_PAD"],
        generics,
        params: &COUNT_PARAMS,
    }
}

const fn place_sub(name: &'static str, generics: &'static [&'static str]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "moe_align_block_size_kernel",
        entry: PLACE_SUB,
        generic_names: &["BLOCK_M", "TILE", "E_PAD", "CH", "SUB", "PAD_TILE", "NB_TILE"],
        generics,
        params: &PLACE_PARAMS,
    }
}

// moe_align_histogram: <BLOCK_M, TILE, E_PAD, NB_TILE>; moe_align_sort: <TILE, E_PAD, PAD_TILE>.
pub static HIST_BM64_E128: Variant = histogram("hist_bm64_e128", &["64", "128", "128", "256"]);
pub static HIST_BM16_E256: Variant = histogram("hist_bm16_e256", &["16", "128", "256", "256"]);
pub static SORT_BM64_E128: Variant = sort("sort_bm64_e128", &["128", "128", "256"]);
pub static SORT_BM16_E256: Variant = sort("sort_bm16_e256", &["128", "256", "256"]);

// moe_align_count_sub: <TILE, SUB, E_PAD>; moe_align_place_sub: <BLOCK_M, TILE, E_PAD, CH, SUB, PAD_TILE, NB_TILE>.
pub static COUNT_T256_E128_S64: Variant = count_sub("count_t256_e128_s64", &["256", "64", "128"]);
pub static PLACE_BM64_E128_S64: Variant = place_sub("place_bm64_e128_s64", &["64", "256", "128", "64", "64", "256", "64"]);
pub static COUNT_T256_E256_S32: Variant = count_sub("count_t256_e256_s32", &["256", "32", "256"]);
pub static PLACE_BM16_E256_S32: Variant = place_sub("place_bm16_e256_s32", &["16", "256", "256", "32", "32", "256", "64"]);

pub static VARIANTS: &[&Variant] = &[
    &HIST_BM64_E128,
    &HIST_BM16_E256,
    &SORT_BM64_E128,
    &SORT_BM16_E256,
    &COUNT_T256_E128_S64,
    &PLACE_BM64_E128_S64,
    &COUNT_T256_E256_S32,
    &PLACE_BM16_E256_S32,
];

/// The reference launcher's choice (reference/moe_align_block_size/kernel.py `select_variant`):
/// the (histogram, sort) pair built for BLOCK_M = `block_m` with E < E_PAD experts.
pub fn choose(block_m: i64, experts: i64) -> Option<(&'static Variant, &'static Variant)> {
    [(&HIST_BM64_E128, &SORT_BM64_E128), (&HIST_BM16_E256, &SORT_BM16_E256)]
        .into_iter()
        .find(|(h, _)| h.constant("BLOCK_M") == block_m && experts < h.constant("E_PAD"))
}

/// The reference launcher's choice with a tile_counts scratch (`select_variant(..., tile_counts=True)`):
/// the parallel (count, place) pair built for BLOCK_M = `block_m` with E < E_PAD experts.
pub fn choose_tiled(block_m: i64, experts: i64) -> Option<(&'static Variant, &'static Variant)> {
    [(&COUNT_T256_E128_S64, &PLACE_BM64_E128_S64), (&COUNT_T256_E256_S32, &PLACE_BM16_E256_S32)]
        .into_iter()
        .find(|(_, p)| p.constant("BLOCK_M") == block_m && experts < p.constant("E_PAD"))
}
