//! argmax along the last axis of a 2-D array (reference/argmax): int64 index of the first maximum.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "argmax";

/// x: rows strided, columns contiguous; out: contiguous int64; both 16-byte aligned.
const fn params(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", DType::I64, 1).unit_last().align(16)),
    ]
}

/// The aligned specialization: x's last dim and row stride are multiples of 8 elements.
const fn params_a8(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::output("out", DType::I64, 1).unit_last().align(16)),
    ]
}

/// The `_fast` aligned specialization: x's last dim and row stride multiples of `multiple`
/// elements (16-byte rows: 8 for f16/bf16, 4 for f32), so the loads are 128 bits wide.
const fn params_aligned(dtype: DType, multiple: i64) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(
            TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(multiple, 1).shape_div(1, multiple),
        ),
        ParamSpec::Tensor(TensorSpec::output("out", DType::I64, 1).unit_last().align(16)),
    ]
}

/// The kernels `cutile_argmax` launches.
pub const ENTRIES: [&str; 3] = ["argmax_rows", "argmax_fast_o16", "argmax_fast_o8"];

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    entry_variant("argmax_rows", name, generics, params)
}

const fn entry_variant(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "argmax_kernel",
        entry,
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

// Generics: <E, TILE_M, TILE_N>.
pub static F16_M4_N1024: Variant = variant("f16_m4_n1024", &["f16", "4", "1024"], &params(DType::F16));
pub static BF16_M4_N1024: Variant = variant("bf16_m4_n1024", &["bf16", "4", "1024"], &params(DType::BF16));
pub static F32_M4_N1024: Variant = variant("f32_m4_n1024", &["f32", "4", "1024"], &params(DType::F32));
pub static F16_A8_M4_N1024: Variant = variant("f16_a8_m4_n1024", &["f16", "4", "1024"], &params_a8(DType::F16));
pub static BF16_A8_M4_N1024: Variant = variant("bf16_a8_m4_n1024", &["bf16", "4", "1024"], &params_a8(DType::BF16));

// The `_fast` kernels (one row per block, a running max and tile index per column position, one
// block reduction per row; occupancy 16 for 1024-column tiles, 8 for 2048): docs/results/tuning.md.
pub static F16_A8_FAST_M1_N1024: Variant =
    entry_variant("argmax_fast_o16", "f16_a8_fast_m1_n1024", &["f16", "1", "1024"], &params_aligned(DType::F16, 8));
pub static F16_A8_FAST_M1_N2048: Variant =
    entry_variant("argmax_fast_o8", "f16_a8_fast_m1_n2048", &["f16", "1", "2048"], &params_aligned(DType::F16, 8));
pub static BF16_A8_FAST_M1_N1024: Variant =
    entry_variant("argmax_fast_o16", "bf16_a8_fast_m1_n1024", &["bf16", "1", "1024"], &params_aligned(DType::BF16, 8));
pub static BF16_A8_FAST_M1_N2048: Variant =
    entry_variant("argmax_fast_o8", "bf16_a8_fast_m1_n2048", &["bf16", "1", "2048"], &params_aligned(DType::BF16, 8));
pub static F32_A4_FAST_M1_N1024: Variant =
    entry_variant("argmax_fast_o16", "f32_a4_fast_m1_n1024", &["f32", "1", "1024"], &params_aligned(DType::F32, 4));
pub static F32_A4_FAST_M1_N2048: Variant =
    entry_variant("argmax_fast_o8", "f32_a4_fast_m1_n2048", &["f32", "1", "2048"], &params_aligned(DType::F32, 4));
pub static F16_FAST_M1_N1024: Variant =
    entry_variant("argmax_fast_o16", "f16_fast_m1_n1024", &["f16", "1", "1024"], &params(DType::F16));
pub static BF16_FAST_M1_N1024: Variant =
    entry_variant("argmax_fast_o16", "bf16_fast_m1_n1024", &["bf16", "1", "1024"], &params(DType::BF16));
pub static F32_FAST_M1_N1024: Variant =
    entry_variant("argmax_fast_o16", "f32_fast_m1_n1024", &["f32", "1", "1024"], &params(DType::F32));

pub static VARIANTS: &[&Variant] = &[
    &F16_M4_N1024,
    &BF16_M4_N1024,
    &F32_M4_N1024,
    &F16_A8_M4_N1024,
    &BF16_A8_M4_N1024,
    &F16_A8_FAST_M1_N1024,
    &F16_A8_FAST_M1_N2048,
    &BF16_A8_FAST_M1_N1024,
    &BF16_A8_FAST_M1_N2048,
    &F32_A4_FAST_M1_N1024,
    &F32_A4_FAST_M1_N2048,
    &F16_FAST_M1_N1024,
    &BF16_FAST_M1_N1024,
    &F32_FAST_M1_N1024,
];

/// float32 launches of at least this many rows of <= 1024 columns take four rows a block.
pub const MANY_ROWS: i64 = 4096;

/// Candidates for x's dtype and shape, most specific first (reference/argmax/kernel.py
/// `select_variant`): the aligned `_fast` variant (16-byte rows: n and the row stride multiples
/// of 8 elements for 16-bit, 4 for f32; 1024-column tiles up to n = 1024, 2048 beyond), then the
/// unaligned `_fast` one, which takes every layout; float32 rows of <= 1024 columns, MANY_ROWS
/// or more, f32_m4_n1024 (any layout; the one-row kernel is 1.08-1.10x slower there on the
/// H200). The other `_m4` variants run only when forced. Measured on the selection grid.
pub fn candidates(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static F16_SHORT: [&Variant; 2] = [&F16_A8_FAST_M1_N1024, &F16_FAST_M1_N1024];
    static F16_LONG: [&Variant; 2] = [&F16_A8_FAST_M1_N2048, &F16_FAST_M1_N1024];
    static BF16_SHORT: [&Variant; 2] = [&BF16_A8_FAST_M1_N1024, &BF16_FAST_M1_N1024];
    static BF16_LONG: [&Variant; 2] = [&BF16_A8_FAST_M1_N2048, &BF16_FAST_M1_N1024];
    static F32_SHORT: [&Variant; 2] = [&F32_A4_FAST_M1_N1024, &F32_FAST_M1_N1024];
    static F32_LONG: [&Variant; 2] = [&F32_A4_FAST_M1_N2048, &F32_FAST_M1_N1024];
    static F32_MANY: [&Variant; 1] = [&F32_M4_N1024];
    let short = n <= 1024;
    match dtype {
        DType::F32 if short && m >= MANY_ROWS => &F32_MANY,
        DType::F16 if short => &F16_SHORT,
        DType::F16 => &F16_LONG,
        DType::BF16 if short => &BF16_SHORT,
        DType::BF16 => &BF16_LONG,
        DType::F32 if short => &F32_SHORT,
        DType::F32 => &F32_LONG,
        _ => &[],
    }
}
