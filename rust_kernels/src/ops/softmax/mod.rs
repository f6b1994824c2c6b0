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

/// Up to this many rows the launch is latency-bound (a wave or two of blocks); up to
/// SOME_ROWS a few waves, beyond it bandwidth-bound. reference/softmax/kernel.py `FEW_ROWS`,
/// `SOME_ROWS`: where the measured choice changes (docs/results/selection.json).
pub const FEW_ROWS: i64 = 256;
pub const SOME_ROWS: i64 = 1024;

/// The reference launcher's choice for m rows of n columns (reference/softmax/kernel.py
/// `select_variant`, analysis.json `selects_when`), measured on the GPU
/// (scripts/gpu/bench_selection.py, docs/results/selection.json): short rows (n <= 128) and few
/// rows take the online kernel (one row per block, no wasted tile width); many rows (more than
/// SOME_ROWS) of up to 1024 columns take 4 rows per block (bf16 already from FEW_ROWS when the
/// row fills the tile, n = 1024); 1024 < n <= 2048 the online kernel, 2048 < n <= 4096 the
/// whole-row tile, longer rows the online kernel. f32 takes the online kernel for few rows
/// (m <= FEW_ROWS) and for long rows (n > 4096) at every row count.
///
/// Most specific first: where the launcher takes a tuned variant, it comes before the untuned
/// one of the same shape, which takes any row stride (the 16-bit `_a8` ones need N and the row
/// stride multiples of 8). Where the launcher takes the untuned online kernel even for an `_a8`
/// layout (16-bit n <= 128; bf16 n <= 1024 with few or some rows, bf16 1024 < n <= 2048 with
/// many rows) it is the only candidate. f32_row_o8 takes every layout f32_row_m4 takes: the
/// untuned one only runs when forced.
pub fn candidates(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static F16_ROW_M4: [&Variant; 2] = [&F16_ROW_A8_O8_M4_N1024, &F16_ROW_M4_N1024];
    static F16_ROW_M1: [&Variant; 2] = [&F16_ROW_A8_O4_M1_N4096, &F16_ROW_M1_N4096];
    static F16_ONLINE: [&Variant; 2] = [&F16_ONLINE_A8_O4_N1024, &F16_ONLINE_N1024];
    static F16_ONLINE_UNTUNED: [&Variant; 1] = [&F16_ONLINE_N1024];
    static BF16_ROW_M4: [&Variant; 2] = [&BF16_ROW_A8_O8_M4_N1024, &BF16_ROW_M4_N1024];
    static BF16_ROW_M1: [&Variant; 2] = [&BF16_ROW_A8_O4_M1_N4096, &BF16_ROW_M1_N4096];
    static BF16_ONLINE: [&Variant; 2] = [&BF16_ONLINE_A8_O4_N1024, &BF16_ONLINE_N1024];
    static BF16_ONLINE_UNTUNED: [&Variant; 1] = [&BF16_ONLINE_N1024];
    static F32_ROW_M4: [&Variant; 1] = [&F32_ROW_O8_M4_N1024];
    static F32_ROW_M1: [&Variant; 1] = [&F32_ROW_M1_N4096];
    static F32_ONLINE: [&Variant; 1] = [&F32_ONLINE_N1024];
    match dtype {
        DType::F16 => {
            if n <= 128 {
                &F16_ONLINE_UNTUNED
            } else if n <= 1024 && m > SOME_ROWS {
                &F16_ROW_M4
            } else if n <= 2048 || n > 4096 {
                &F16_ONLINE
            } else {
                &F16_ROW_M1
            }
        }
        DType::BF16 => {
            if n <= 128 {
                &BF16_ONLINE_UNTUNED
            } else if n <= 1024 {
                if m > SOME_ROWS || (n == 1024 && m > FEW_ROWS) { &BF16_ROW_M4 } else { &BF16_ONLINE_UNTUNED }
            } else if n <= 2048 {
                if m > SOME_ROWS { &BF16_ONLINE_UNTUNED } else { &BF16_ONLINE }
            } else if n <= 4096 {
                &BF16_ROW_M1
            } else {
                &BF16_ONLINE
            }
        }
        DType::F32 => {
            if m <= FEW_ROWS || n > 4096 {
                &F32_ONLINE
            } else if n <= 1024 {
                &F32_ROW_M4
            } else {
                &F32_ROW_M1
            }
        }
        _ => &[],
    }
}
