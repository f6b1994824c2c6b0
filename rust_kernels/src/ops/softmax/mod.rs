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

/// The f32 `_a4` contract: N and the row stride multiples of 4 elements (16-byte rows).
const fn params_a4(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(4, 1).shape_div(1, 4)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(4, 1).shape_div(1, 4)),
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
pub const ROW_ENTRIES: [&str; 6] =
    ["softmax_row", "softmax_row_o8", "softmax_row_o4", "softmax_row_fast_o16", "softmax_row_fast_o8", "softmax_row_fast_o4"];
pub const ONLINE_ENTRIES: [&str; 5] =
    ["softmax_online", "softmax_online_o4", "softmax_online_fast_o8", "softmax_online_fast_o4", "softmax_online_fast_o2"];

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

// The `_fast` kernels (approximate exp2 and reciprocal, occupancy hints; docs/results/tuning.md):
// 16-bit `_a8`, f32 `_a4`, and one f32 variant for any layout.
pub static F16_A8_FAST_M1_N1024: Variant =
    row_entry("softmax_row_fast_o16", "f16_a8_fast_m1_n1024", &["f16", "1", "1024"], &params_a8(DType::F16));
pub static F16_A8_FAST_M2_N1024: Variant =
    row_entry("softmax_row_fast_o8", "f16_a8_fast_m2_n1024", &["f16", "2", "1024"], &params_a8(DType::F16));
pub static F16_A8_FAST_M4_N1024: Variant =
    row_entry("softmax_row_fast_o8", "f16_a8_fast_m4_n1024", &["f16", "4", "1024"], &params_a8(DType::F16));
pub static F16_A8_FAST_M1_N4096: Variant =
    row_entry("softmax_row_fast_o4", "f16_a8_fast_m1_n4096", &["f16", "1", "4096"], &params_a8(DType::F16));
pub static F16_A8_ONLINE_FAST_N2048: Variant =
    online_entry("softmax_online_fast_o8", "f16_a8_online_fast_n2048", &["f16", "2048"], &params_a8(DType::F16));
pub static F16_A8_ONLINE_FAST_N8192: Variant =
    online_entry("softmax_online_fast_o2", "f16_a8_online_fast_n8192", &["f16", "8192"], &params_a8(DType::F16));
pub static BF16_A8_FAST_M1_N1024: Variant =
    row_entry("softmax_row_fast_o16", "bf16_a8_fast_m1_n1024", &["bf16", "1", "1024"], &params_a8(DType::BF16));
pub static BF16_A8_FAST_M2_N1024: Variant =
    row_entry("softmax_row_fast_o8", "bf16_a8_fast_m2_n1024", &["bf16", "2", "1024"], &params_a8(DType::BF16));
pub static BF16_A8_FAST_M4_N1024: Variant =
    row_entry("softmax_row_fast_o8", "bf16_a8_fast_m4_n1024", &["bf16", "4", "1024"], &params_a8(DType::BF16));
pub static BF16_A8_FAST_M1_N4096: Variant =
    row_entry("softmax_row_fast_o4", "bf16_a8_fast_m1_n4096", &["bf16", "1", "4096"], &params_a8(DType::BF16));
pub static BF16_A8_ONLINE_FAST_N2048: Variant =
    online_entry("softmax_online_fast_o8", "bf16_a8_online_fast_n2048", &["bf16", "2048"], &params_a8(DType::BF16));
pub static BF16_A8_ONLINE_FAST_N8192: Variant =
    online_entry("softmax_online_fast_o2", "bf16_a8_online_fast_n8192", &["bf16", "8192"], &params_a8(DType::BF16));
pub static F32_FAST_M1_N1024: Variant =
    row_entry("softmax_row_fast_o16", "f32_fast_m1_n1024", &["f32", "1", "1024"], &params(DType::F32));
pub static F32_A4_FAST_M1_N1024: Variant =
    row_entry("softmax_row_fast_o16", "f32_a4_fast_m1_n1024", &["f32", "1", "1024"], &params_a4(DType::F32));
pub static F32_A4_FAST_M2_N1024: Variant =
    row_entry("softmax_row_fast_o8", "f32_a4_fast_m2_n1024", &["f32", "2", "1024"], &params_a4(DType::F32));
pub static F32_A4_FAST_M1_N2048: Variant =
    row_entry("softmax_row_fast_o8", "f32_a4_fast_m1_n2048", &["f32", "1", "2048"], &params_a4(DType::F32));
pub static F32_A4_FAST_M1_N4096: Variant =
    row_entry("softmax_row_fast_o4", "f32_a4_fast_m1_n4096", &["f32", "1", "4096"], &params_a4(DType::F32));
pub static F32_A4_ONLINE_FAST_N1024: Variant =
    online_entry("softmax_online_fast_o8", "f32_a4_online_fast_n1024", &["f32", "1024"], &params_a4(DType::F32));
pub static F32_A4_ONLINE_FAST_N2048: Variant =
    online_entry("softmax_online_fast_o8", "f32_a4_online_fast_n2048", &["f32", "2048"], &params_a4(DType::F32));
pub static F32_A4_ONLINE_FAST_N4096: Variant =
    online_entry("softmax_online_fast_o4", "f32_a4_online_fast_n4096", &["f32", "4096"], &params_a4(DType::F32));
pub static F32_A4_ONLINE_FAST_N8192: Variant =
    online_entry("softmax_online_fast_o2", "f32_a4_online_fast_n8192", &["f32", "8192"], &params_a4(DType::F32));

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
    &F16_A8_FAST_M1_N1024,
    &F16_A8_FAST_M2_N1024,
    &F16_A8_FAST_M4_N1024,
    &F16_A8_FAST_M1_N4096,
    &F16_A8_ONLINE_FAST_N2048,
    &F16_A8_ONLINE_FAST_N8192,
    &BF16_A8_FAST_M1_N1024,
    &BF16_A8_FAST_M2_N1024,
    &BF16_A8_FAST_M4_N1024,
    &BF16_A8_FAST_M1_N4096,
    &BF16_A8_ONLINE_FAST_N2048,
    &BF16_A8_ONLINE_FAST_N8192,
    &F32_FAST_M1_N1024,
    &F32_A4_FAST_M1_N1024,
    &F32_A4_FAST_M2_N1024,
    &F32_A4_FAST_M1_N2048,
    &F32_A4_FAST_M1_N4096,
    &F32_A4_ONLINE_FAST_N1024,
    &F32_A4_ONLINE_FAST_N2048,
    &F32_A4_ONLINE_FAST_N4096,
    &F32_A4_ONLINE_FAST_N8192,
];

/// Up to this many rows the launch is latency-bound (a wave or two of blocks); up to
/// SOME_ROWS a few waves, beyond it bandwidth-bound. reference/softmax/kernel.py `FEW_ROWS`,
/// `SOME_ROWS`: where the measured choice changes (docs/results/selection.json).
pub const FEW_ROWS: i64 = 256;
pub const SOME_ROWS: i64 = 1024;

/// The `_fast` variant for aligned rows (reference/softmax/kernel.py `_select_fast`, `_select_f32`):
/// 16-bit `_a8` (n and the row stride multiples of 8), f32 `_a4` (multiples of 4), and f32 rows of
/// up to 128 columns, whatever their layout. None: no `_fast` variant for this dtype.
fn fast_choice(dtype: DType, m: i64, n: i64) -> Option<&'static Variant> {
    // Many rows of up to 1024 columns: four per block (1.00x the fastest on the H100 grid there; two
    // per block 1.03-1.25x).
    let (m1_n1024, m4_n1024, m1_n4096, online_n2048, online_n8192) = match dtype {
        DType::F16 => (
            &F16_A8_FAST_M1_N1024,
            &F16_A8_FAST_M4_N1024,
            &F16_A8_FAST_M1_N4096,
            &F16_A8_ONLINE_FAST_N2048,
            &F16_A8_ONLINE_FAST_N8192,
        ),
        DType::BF16 => (
            &BF16_A8_FAST_M1_N1024,
            &BF16_A8_FAST_M4_N1024,
            &BF16_A8_FAST_M1_N4096,
            &BF16_A8_ONLINE_FAST_N2048,
            &BF16_A8_ONLINE_FAST_N8192,
        ),
        DType::F32 => return Some(f32_fast_choice(m, n)),
        _ => return None,
    };
    Some(if n <= 1024 {
        if m <= SOME_ROWS { m1_n1024 } else { m4_n1024 }
    } else if n <= 2048 {
        online_n2048
    } else if n <= 4096 {
        if m <= FEW_ROWS { m1_n4096 } else { online_n2048 }
    } else if n <= 8192 && m > FEW_ROWS {
        online_n2048
    } else {
        online_n8192
    })
}

/// f32 (`_select_f32` with aligned rows): rows of up to 128 columns one per (1, 1024) block (any
/// layout); up to 1024 columns the online kernel for few rows, one row per block up to SOME_ROWS,
/// two beyond; up to 2048 the online kernel, a (1, 2048) tile beyond SOME_ROWS; up to 4096 a (1,
/// 4096) tile; longer rows the online kernel with 4096-, beyond 8192 with 8192-column tiles.
fn f32_fast_choice(m: i64, n: i64) -> &'static Variant {
    if n <= 128 {
        &F32_FAST_M1_N1024
    } else if n <= 1024 {
        if m <= FEW_ROWS {
            &F32_A4_ONLINE_FAST_N1024
        } else if m <= SOME_ROWS {
            &F32_A4_FAST_M1_N1024
        } else {
            &F32_A4_FAST_M2_N1024
        }
    } else if n <= 2048 {
        if m <= SOME_ROWS { &F32_A4_ONLINE_FAST_N2048 } else { &F32_A4_FAST_M1_N2048 }
    } else if n <= 4096 {
        &F32_A4_FAST_M1_N4096
    } else if n <= 8192 {
        &F32_A4_ONLINE_FAST_N4096
    } else {
        &F32_A4_ONLINE_FAST_N8192
    }
}

/// The untuned variant for rows the `_fast` ones do not take (any row stride): 16-bit rows of up
/// to 128 columns and few rows the online kernel, many rows (more than SOME_ROWS; bf16 from
/// FEW_ROWS when n = 1024) of up to 1024 columns 4 rows per block, 2048 < n <= 4096 the whole-row
/// tile, other rows the online kernel; f32 rows of up to 1024 columns up to SOME_ROWS rows one per
/// (1, 1024) `_fast` block, else the online kernel for few rows and long rows, whole-row tiles
/// otherwise.
fn untuned_choice(dtype: DType, m: i64, n: i64) -> Option<&'static Variant> {
    let (row_m4, row_m1, online) = match dtype {
        DType::F16 => (&F16_ROW_M4_N1024, &F16_ROW_M1_N4096, &F16_ONLINE_N1024),
        DType::BF16 => (&BF16_ROW_M4_N1024, &BF16_ROW_M1_N4096, &BF16_ONLINE_N1024),
        DType::F32 => {
            return Some(if n <= 1024 && m <= SOME_ROWS {
                &F32_FAST_M1_N1024
            } else if m <= FEW_ROWS || n > 4096 {
                &F32_ONLINE_N1024
            } else if n <= 1024 {
                &F32_ROW_O8_M4_N1024
            } else {
                &F32_ROW_M1_N4096
            });
        }
        _ => return None,
    };
    let many_rows = m > SOME_ROWS || (dtype == DType::BF16 && n == 1024 && m > FEW_ROWS);
    Some(if 128 < n && n <= 1024 && many_rows {
        row_m4
    } else if 2048 < n && n <= 4096 {
        row_m1
    } else {
        online
    })
}

/// The reference launcher's choice for m rows of n columns (reference/softmax/kernel.py
/// `select_variant`, analysis.json `selects_when`), measured on the GPU
/// (scripts/gpu/bench_selection.py, docs/results/selection.json): the `_fast` variant for the
/// shape (`fast_choice`), which takes aligned rows only (f32 rows of up to 128 columns any), then
/// the untuned one (`untuned_choice`), which takes any row stride. The 16-bit `_a8` o4/o8
/// variants and f32_row_m4_n1024 are never chosen (they run when forced).
pub fn candidates(dtype: DType, m: i64, n: i64) -> Vec<&'static Variant> {
    fast_choice(dtype, m, n).into_iter().chain(untuned_choice(dtype, m, n)).collect()
}
