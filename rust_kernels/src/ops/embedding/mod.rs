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
        ParamSpec::Tensor(table(dtype, row_div)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(row_div, 1)),
    ]
}

const fn table(dtype: DType, row_div: i64) -> TensorSpec {
    TensorSpec::input("weight", dtype, 2).unit_last().align(16).stride_div(row_div, 1)
}

/// `params` with H a multiple of 8 (the `_a8` rows variants): every row, and so every
/// (1, TILE_H) tile and its ragged last part, starts and ends on a 16-byte boundary, and
/// tileiras moves the rows in 16-byte accesses (LDG/STG.E.128) instead of one element at a time.
const fn params_a8(dtype: DType, ids: DType) -> [ParamSpec; 3] {
    let [ids, _, _] = params(dtype, ids, 8);
    [
        ids,
        ParamSpec::Tensor(table(dtype, 8).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
    ]
}

/// `params` with the table indexed in i64 (the `_idx64` variant: `embedding_gather_idx64`).
const fn params_idx64(dtype: DType, ids: DType, row_div: i64) -> [ParamSpec; 3] {
    let [ids, _, out] = params(dtype, ids, row_div);
    [ids, ParamSpec::Tensor(table(dtype, row_div).index64()), out]
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
pub static F16_I32_ROWS_A8: Variant =
    rows("f16_i32_rows_a8_h1024", &["f16", "i32", "0", "1024"], &params_a8(DType::F16, DType::I32));
pub static BF16_I32_ROWS_A8: Variant =
    rows("bf16_i32_rows_a8_h1024", &["bf16", "i32", "0", "1024"], &params_a8(DType::BF16, DType::I32));
pub static BF16_I64_ROWS_A8: Variant =
    rows("bf16_i64_rows_a8_h1024", &["bf16", "i64", "1", "1024"], &params_a8(DType::BF16, DType::I64));
pub static BF16_I32_GATHER: Variant =
    gather("bf16_i32_gather_bt8_h256", &["bf16", "i32", "0", "8", "256"], &params(DType::BF16, DType::I32, 8));
pub static F32_I32_GATHER: Variant =
    gather("f32_i32_gather_bt8_h256", &["f32", "i32", "0", "8", "256"], &params(DType::F32, DType::I32, 4));
pub static F16_I64_GATHER_IDX64: Variant =
    gather("f16_i64_gather_bt8_h256_idx64", &["f16", "i64", "1", "8", "256"], &params_idx64(DType::F16, DType::I64, 8));

pub static VARIANTS: &[&Variant] = &[
    &F16_I32_ROWS,
    &BF16_I32_ROWS,
    &F32_I32_ROWS,
    &BF16_I64_ROWS,
    &F16_I32_ROWS_A8,
    &BF16_I32_ROWS_A8,
    &BF16_I64_ROWS_A8,
    &BF16_I32_GATHER,
    &F32_I32_GATHER,
    &F16_I64_GATHER_IDX64,
];

/// Rows longer than this many elements (several (1, 1024) tiles per row) take the `_a8` rows form.
pub const A8_ABOVE_H: i64 = 1024;

/// Candidates for the table and id dtypes and row length `hidden`, in order of preference (the
/// first whose specs accept the tensors is taken), as reference/embedding/kernel.py chooses: the
/// rows kernel (one token per block) at every T where the dtypes have one; for 16-bit tables of
/// rows longer than one tile (`hidden` > A8_ABOVE_H) its `_a8` form first, which takes H a
/// multiple of 8 (16-byte accesses: 0.75-0.96x the plain form's time at H = 4096 on the H100
/// grid, every T; at H = 1024 1.12-1.14x it at 16384 tokens, so one-tile rows keep the plain
/// form; docs/results/selection.json). The gather kernels are slower at every size measured on
/// the H200 (T=16384, H=4096: bf16 119.0 us vs 79.2 us, f32 166.7 vs 138.2;
/// docs/results/reference_results.json) and run only when forced; f16 tables with int64 ids have
/// only the i64-indexed gather kernel, at every T.
pub fn candidates(dtype: DType, ids: DType, hidden: i64) -> &'static [&'static Variant] {
    static F16_I32: [&Variant; 2] = [&F16_I32_ROWS_A8, &F16_I32_ROWS];
    static BF16_I32: [&Variant; 2] = [&BF16_I32_ROWS_A8, &BF16_I32_ROWS];
    static F32_I32: [&Variant; 1] = [&F32_I32_ROWS];
    static BF16_I64: [&Variant; 2] = [&BF16_I64_ROWS_A8, &BF16_I64_ROWS];
    static F16_I64: [&Variant; 1] = [&F16_I64_GATHER_IDX64];
    let long_rows = hidden > A8_ABOVE_H;
    let rows = |both: &'static [&'static Variant]| if long_rows { both } else { &both[1..] };
    match (dtype, ids) {
        (DType::F16, DType::I32) => rows(&F16_I32),
        (DType::BF16, DType::I32) => rows(&BF16_I32),
        (DType::F32, DType::I32) => &F32_I32,
        (DType::BF16, DType::I64) => rows(&BF16_I64),
        // The one f16 kernel for int64 ids, at every T: it gathers tables of any size.
        (DType::F16, DType::I64) => &F16_I64,
        _ => &[],
    }
}

/// Tokens per block of a variant: BT for the gather kernel, one for the rows kernel.
pub fn tokens_per_block(v: &Variant) -> i64 {
    if v.entry == GATHER { v.constant("BT") } else { 1 }
}
