//! Inclusive prefix sum along the last axis of a 2-D array (reference/cumsum).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "cumsum";

/// Rows strided, columns contiguous, 16-byte aligned bases. `aligned`: the last dim and the
/// row strides are multiples of 8 elements.
const fn params(dtype: DType, aligned: bool) -> [ParamSpec; 2] {
    params_multiple(dtype, if aligned { 8 } else { 1 })
}

/// As `params`, the last dim and the row strides multiples of `multiple` elements (1: any).
/// The `_fast` variants take 16-byte rows: 8 elements for f16/bf16, 4 for f32.
const fn params_multiple(dtype: DType, multiple: i64) -> [ParamSpec; 2] {
    let x = TensorSpec::input("x", dtype, 2).unit_last().align(16);
    let out = TensorSpec::output("out", dtype, 2).unit_last().align(16);
    if multiple > 1 {
        [
            ParamSpec::Tensor(x.stride_div(multiple, 1).shape_div(1, multiple)),
            ParamSpec::Tensor(out.stride_div(multiple, 1).shape_div(1, multiple)),
        ]
    } else {
        [ParamSpec::Tensor(x), ParamSpec::Tensor(out)]
    }
}

const fn variant(
    name: &'static str,
    entry: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "cumsum_kernel",
        entry,
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

const ROW: &str = "cumsum_row";
const LOOPED: &str = "cumsum_looped";
const ROW_FAST_O16: &str = "cumsum_row_fast_o16";
const LOOPED_FAST_O8: &str = "cumsum_looped_fast_o8";
const LOOPED_FAST_O4: &str = "cumsum_looped_fast_o4";

/// The kernels `cutile_cumsum` launches.
pub const ENTRIES: [&str; 5] = [ROW, LOOPED, ROW_FAST_O16, LOOPED_FAST_O8, LOOPED_FAST_O4];

// Generics of both kernels: <E, TILE_M, TILE_N>.
pub static ROW_F16: Variant = variant("row_f16_m4_n1024", ROW, &["f16", "4", "1024"], &params(DType::F16, false));
pub static ROW_BF16: Variant = variant("row_bf16_m4_n1024", ROW, &["bf16", "4", "1024"], &params(DType::BF16, false));
pub static ROW_F32: Variant = variant("row_f32_m4_n1024", ROW, &["f32", "4", "1024"], &params(DType::F32, false));
pub static LOOPED_F16: Variant =
    variant("looped_f16_m4_n1024", LOOPED, &["f16", "4", "1024"], &params(DType::F16, false));
pub static LOOPED_BF16: Variant =
    variant("looped_bf16_m4_n1024", LOOPED, &["bf16", "4", "1024"], &params(DType::BF16, false));
pub static LOOPED_F32: Variant =
    variant("looped_f32_m4_n1024", LOOPED, &["f32", "4", "1024"], &params(DType::F32, false));
pub static ROW_F16_A8: Variant = variant("row_f16_a8_m4_n1024", ROW, &["f16", "4", "1024"], &params(DType::F16, true));
pub static ROW_BF16_A8: Variant =
    variant("row_bf16_a8_m4_n1024", ROW, &["bf16", "4", "1024"], &params(DType::BF16, true));
pub static ROW_F32_A8: Variant = variant("row_f32_a8_m4_n1024", ROW, &["f32", "4", "1024"], &params(DType::F32, true));
pub static LOOPED_F16_A8: Variant =
    variant("looped_f16_a8_m4_n1024", LOOPED, &["f16", "4", "1024"], &params(DType::F16, true));
pub static LOOPED_BF16_A8: Variant =
    variant("looped_bf16_a8_m4_n1024", LOOPED, &["bf16", "4", "1024"], &params(DType::BF16, true));
pub static LOOPED_F32_A8: Variant =
    variant("looped_f32_a8_m4_n1024", LOOPED, &["f32", "4", "1024"], &params(DType::F32, true));

// The `_fast` variants (the same scans, one row per block or the committed four, under an
// occupancy hint; 16-byte rows): forced only until measured (docs/results/tuning.md).
pub static ROW_F16_A8_FAST: Variant =
    variant("row_f16_a8_fast_m1_n1024", ROW_FAST_O16, &["f16", "1", "1024"], &params_multiple(DType::F16, 8));
pub static ROW_BF16_A8_FAST: Variant =
    variant("row_bf16_a8_fast_m1_n1024", ROW_FAST_O16, &["bf16", "1", "1024"], &params_multiple(DType::BF16, 8));
pub static ROW_F32_A4_FAST: Variant =
    variant("row_f32_a4_fast_m1_n1024", ROW_FAST_O16, &["f32", "1", "1024"], &params_multiple(DType::F32, 4));
pub static LOOPED_F16_A8_FAST_M1: Variant =
    variant("looped_f16_a8_fast_m1_n1024", LOOPED_FAST_O8, &["f16", "1", "1024"], &params_multiple(DType::F16, 8));
pub static LOOPED_BF16_A8_FAST_M1: Variant =
    variant("looped_bf16_a8_fast_m1_n1024", LOOPED_FAST_O8, &["bf16", "1", "1024"], &params_multiple(DType::BF16, 8));
pub static LOOPED_F32_A4_FAST_M1: Variant =
    variant("looped_f32_a4_fast_m1_n1024", LOOPED_FAST_O8, &["f32", "1", "1024"], &params_multiple(DType::F32, 4));
pub static LOOPED_F16_A8_FAST_M4: Variant =
    variant("looped_f16_a8_fast_m4_n1024", LOOPED_FAST_O4, &["f16", "4", "1024"], &params_multiple(DType::F16, 8));
pub static LOOPED_BF16_A8_FAST_M4: Variant =
    variant("looped_bf16_a8_fast_m4_n1024", LOOPED_FAST_O4, &["bf16", "4", "1024"], &params_multiple(DType::BF16, 8));
pub static LOOPED_F32_A4_FAST_M4: Variant =
    variant("looped_f32_a4_fast_m4_n1024", LOOPED_FAST_O4, &["f32", "4", "1024"], &params_multiple(DType::F32, 4));

pub static VARIANTS: &[&Variant] = &[
    &ROW_F16,
    &ROW_BF16,
    &ROW_F32,
    &LOOPED_F16,
    &LOOPED_BF16,
    &LOOPED_F32,
    &ROW_F16_A8,
    &ROW_BF16_A8,
    &ROW_F32_A8,
    &LOOPED_F16_A8,
    &LOOPED_BF16_A8,
    &LOOPED_F32_A8,
    &ROW_F16_A8_FAST,
    &ROW_BF16_A8_FAST,
    &ROW_F32_A4_FAST,
    &LOOPED_F16_A8_FAST_M1,
    &LOOPED_BF16_A8_FAST_M1,
    &LOOPED_F32_A4_FAST_M1,
    &LOOPED_F16_A8_FAST_M4,
    &LOOPED_BF16_A8_FAST_M4,
    &LOOPED_F32_A4_FAST_M4,
];

/// Whether `v` scans whole rows in one tile (so N must fit its TILE_N).
pub fn whole_row(v: &Variant) -> bool {
    v.entry == ROW || v.entry == ROW_FAST_O16
}

/// f32 rows of up to 1024 columns: past this many rows (up to 4096) the kernel that keeps 4 rows
/// a block wins (reference/cumsum/kernel.py `FEW_ROWS`).
pub const FEW_ROWS: i64 = 256;

/// Candidates for m rows of n columns, most preferred first (reference/cumsum/kernel.py
/// `_candidates`, measured on the selection grid): 16-byte rows the one-row `_fast` kernels (row
/// up to 1024 columns, looped beyond), except f32 rows of multiples of 8 with 257-4096 rows of
/// up to 1024 columns (4 rows a block); other rows the untuned kernels, f16 rows of up to 1024
/// columns the looped one up to 1024 rows.
pub fn candidates(dtype: DType, m: i64, n: i64) -> Vec<&'static Variant> {
    let row = n <= ROW_F16.constant("TILE_N");
    let (fast, a8, plain): (&'static Variant, &'static Variant, &'static Variant) = match (dtype, row) {
        (DType::F16, true) if m <= 1024 => (&ROW_F16_A8_FAST, &LOOPED_F16_A8, &LOOPED_F16),
        (DType::F16, true) => (&ROW_F16_A8_FAST, &ROW_F16_A8, &ROW_F16),
        (DType::BF16, true) => (&ROW_BF16_A8_FAST, &ROW_BF16_A8, &ROW_BF16),
        (DType::F32, true) => (&ROW_F32_A4_FAST, &ROW_F32_A8, &ROW_F32),
        (DType::F16, false) => (&LOOPED_F16_A8_FAST_M1, &LOOPED_F16_A8, &LOOPED_F16),
        (DType::BF16, false) => (&LOOPED_BF16_A8_FAST_M1, &LOOPED_BF16_A8, &LOOPED_BF16),
        (DType::F32, false) => (&LOOPED_F32_A4_FAST_M1, &LOOPED_F32_A8, &LOOPED_F32),
        _ => return Vec::new(),
    };
    let four_rows = dtype == DType::F32 && row && FEW_ROWS < m && m <= 4096;
    if four_rows { vec![a8, fast, plain] } else { vec![fast, a8, plain] }
}
