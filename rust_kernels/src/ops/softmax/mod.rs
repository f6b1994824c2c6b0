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

/// The tuned `_a8` contract: N and the row stride multiples of 8 elements (16-byte rows).
const fn params_a8(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
    ]
}

/// A `softmax_row` kernel: `softmax_row` or one of its occupancy-hinted entries (`softmax_row_o8`, `_o4`).
const fn row_entry(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "softmax_kernel",
        entry,
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

const fn row(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    row_entry("softmax_row", name, generics, params)
}

/// A `softmax_online` kernel: `softmax_online` or `softmax_online_o4`.
const fn online_entry(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant { op: OP, name, module: "softmax_kernel", entry, generic_names: &["E", "TILE_N"], generics, params }
}

const fn online(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    online_entry("softmax_online", name, generics, params)
}

/// Every kernel `cutile_softmax` launches; the online ones hold one row per block.
pub const ROW_ENTRIES: [&str; 3] = ["softmax_row", "softmax_row_o8", "softmax_row_o4"];
pub const ONLINE_ENTRIES: [&str; 2] = ["softmax_online", "softmax_online_o4"];

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

// Tuned on the H200 (docs/results/tuning.md): occupancy hints, and the `_a8` contract for 16-bit rows.
pub static F16_ROW_A8_O8_M4_N1024: Variant =
    row_entry("softmax_row_o8", "f16_row_a8_o8_m4_n1024", &["f16", "4", "1024"], &params_a8(DType::F16));
pub static BF16_ROW_A8_O8_M4_N1024: Variant =
    row_entry("softmax_row_o8", "bf16_row_a8_o8_m4_n1024", &["bf16", "4", "1024"], &params_a8(DType::BF16));
pub static F32_ROW_O8_M4_N1024: Variant =
    row_entry("softmax_row_o8", "f32_row_o8_m4_n1024", &["f32", "4", "1024"], &params(DType::F32));
pub static F16_ROW_A8_O4_M1_N4096: Variant =
    row_entry("softmax_row_o4", "f16_row_a8_o4_m1_n4096", &["f16", "1", "4096"], &params_a8(DType::F16));
pub static BF16_ROW_A8_O4_M1_N4096: Variant =
    row_entry("softmax_row_o4", "bf16_row_a8_o4_m1_n4096", &["bf16", "1", "4096"], &params_a8(DType::BF16));
pub static BF16_ONLINE_A8_O4_N1024: Variant =
    online_entry("softmax_online_o4", "bf16_online_a8_o4_n1024", &["bf16", "1024"], &params_a8(DType::BF16));
pub static F16_ONLINE_A8_O4_N1024: Variant =
    online_entry("softmax_online_o4", "f16_online_a8_o4_n1024", &["f16", "1024"], &params_a8(DType::F16));

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
    &F16_ROW_A8_O8_M4_N1024,
    &BF16_ROW_A8_O8_M4_N1024,
    &F32_ROW_O8_M4_N1024,
    &F16_ROW_A8_O4_M1_N4096,
    &BF16_ROW_A8_O4_M1_N4096,
    &BF16_ONLINE_A8_O4_N1024,
    &F16_ONLINE_A8_O4_N1024,
];

/// The reference launcher's choice (reference/softmax/kernel.py `select_variant`, analysis.json
/// `selects_when`), most specific first: whole rows in one tile up to 4096 columns (several
/// rows per block up to 1024), the online kernel beyond; within each, the tuned variant
/// (occupancy hint; 16-bit ones also need N and the row stride multiples of 8) before the
/// untuned one, which takes any row stride. f32 has no tuned variant beyond 1024 columns.
pub fn candidates(dtype: DType, n: i64) -> &'static [&'static Variant] {
    static F16: [[&Variant; 2]; 3] = [
        [&F16_ROW_A8_O8_M4_N1024, &F16_ROW_M4_N1024],
        [&F16_ROW_A8_O4_M1_N4096, &F16_ROW_M1_N4096],
        [&F16_ONLINE_A8_O4_N1024, &F16_ONLINE_N1024],
    ];
    static BF16: [[&Variant; 2]; 3] = [
        [&BF16_ROW_A8_O8_M4_N1024, &BF16_ROW_M4_N1024],
        [&BF16_ROW_A8_O4_M1_N4096, &BF16_ROW_M1_N4096],
        [&BF16_ONLINE_A8_O4_N1024, &BF16_ONLINE_N1024],
    ];
    // f32_row_o8 takes every layout f32_row_m4 takes: the untuned one only runs when forced.
    static F32_SHORT: [&Variant; 1] = [&F32_ROW_O8_M4_N1024];
    static F32_ROW: [&Variant; 1] = [&F32_ROW_M1_N4096];
    static F32_ONLINE: [&Variant; 1] = [&F32_ONLINE_N1024];
    let bucket = if n <= 1024 {
        0
    } else if n <= 4096 {
        1
    } else {
        2
    };
    match dtype {
        DType::F16 => &F16[bucket],
        DType::BF16 => &BF16[bucket],
        DType::F32 => [&F32_SHORT[..], &F32_ROW[..], &F32_ONLINE[..]][bucket],
        _ => &[],
    }
}
