//! Token embedding lookup out[t, :] = weight[ids[t], :] (reference/embedding).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "embedding";

/// ids: contiguous; weight, out: rows strided by a multiple of `row_div` elements (16-byte
/// rows), columns contiguous; all 16-byte aligned.
const fn params(dtype: DType, ids: DType, row_div: i64) -> [ParamSpec; 3] {
    [
        ParamSpec::Tensor(TensorSpec::input("ids", ids, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("weight", dtype, 2).unit_last().align(16).stride_div(row_div, 1)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(row_div, 1)),
    ]
}

pub const ROWS: &str = "embedding_rows";
pub const GATHER: &str = "embedding_gather";

const fn rows(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "embedding_kernel",
        entry: ROWS,
        generic_names: &["E", "EIdx", "WIDE_IDS", "TILE_H"],
        generics,
        params,
    }
}

const fn gather(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "embedding_kernel",
        entry: GATHER,
        generic_names: &["E", "EIdx", "WIDE_IDS", "BT", "TILE_H"],
        generics,
        params,
    }
}

// embedding_rows: <E, EIdx, WIDE_IDS, TILE_H>; embedding_gather: <E, EIdx, WIDE_IDS, BT, TILE_H>.
// WIDE_IDS = 1 narrows int64 ids to the i32 tile-space row index, as Python does.
pub static F16_I32_ROWS: Variant =
    rows("f16_i32_rows_h1024", &["f16", "i32", "0", "1024"], &params(DType::F16, DType::I32, 8));
pub static BF16_I32_ROWS: Variant =
    rows("bf16_i32_rows_h1024", &["bf16", "i32", "0", "1024"], &params(DType::BF16, DType::I32, 8));
pub static F32_I32_ROWS: Variant =
    rows("f32_i32_rows_h1024", &["f32", "i32", "0", "1024"], &params(DType::F32, DType::I32, 4));
pub static BF16_I64_ROWS: Variant =
    rows("bf16_i64_rows_h1024", &["bf16", "i64", "1", "1024"], &params(DType::BF16, DType::I64, 8));
pub static BF16_I32_GATHER: Variant =
    gather("bf16_i32_gather_bt8_h256", &["bf16", "i32", "0", "8", "256"], &params(DType::BF16, DType::I32, 8));
pub static F32_I32_GATHER: Variant =
    gather("f32_i32_gather_bt8_h256", &["f32", "i32", "0", "8", "256"], &params(DType::F32, DType::I32, 4));

pub static VARIANTS: &[&Variant] =
    &[&F16_I32_ROWS, &BF16_I32_ROWS, &F32_I32_ROWS, &BF16_I64_ROWS, &BF16_I32_GATHER, &F32_I32_GATHER];

/// From this many tokens on (prefill), the gather kernel, where the table dtype and id dtype
/// have one; fewer (decode), one token per block. analysis.json names no number ("few tokens
/// (decode)" vs "many tokens (prefill)"): 64 tokens make 8 gather blocks of BT = 8.
pub const GATHER_FROM_TOKENS: i64 = 64;

/// Candidates for the table and id dtypes and T tokens, in order of preference.
pub fn candidates(dtype: DType, ids: DType, tokens: i64) -> &'static [&'static Variant] {
    static F16_I32: [&Variant; 1] = [&F16_I32_ROWS];
    static BF16_I32_FEW: [&Variant; 1] = [&BF16_I32_ROWS];
    static BF16_I32_MANY: [&Variant; 2] = [&BF16_I32_GATHER, &BF16_I32_ROWS];
    static F32_I32_FEW: [&Variant; 1] = [&F32_I32_ROWS];
    static F32_I32_MANY: [&Variant; 2] = [&F32_I32_GATHER, &F32_I32_ROWS];
    static BF16_I64: [&Variant; 1] = [&BF16_I64_ROWS];
    let many = tokens >= GATHER_FROM_TOKENS;
    match (dtype, ids, many) {
        (DType::F16, DType::I32, _) => &F16_I32,
        (DType::BF16, DType::I32, false) => &BF16_I32_FEW,
        (DType::BF16, DType::I32, true) => &BF16_I32_MANY,
        (DType::F32, DType::I32, false) => &F32_I32_FEW,
        (DType::F32, DType::I32, true) => &F32_I32_MANY,
        (DType::BF16, DType::I64, _) => &BF16_I64,
        _ => &[],
    }
}

/// Tokens per block of a variant: BT for the gather kernel, one for the rows kernel.
pub fn tokens_per_block(v: &Variant) -> i64 {
    if v.entry == GATHER { v.constant("BT") } else { 1 }
}
