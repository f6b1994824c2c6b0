//! RMSNorm over the last axis of a 2-D array (reference/rms_norm): forward and backward.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "rms_norm";

/// x, out: rows strided, columns contiguous; w, rstd: contiguous; all 16-byte aligned.
/// rstd is always f32. eps is a runtime f32 (a scalar in the Python kernel as well).
const fn params(dtype: DType) -> [ParamSpec; 5] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("rstd", DType::F32, 1).unit_last().align(16)),
        ParamSpec::F32("eps"),
    ]
}

/// The tuned `_a8` contract: x and out with N and the row stride multiples of 8 elements.
const fn params_a8(dtype: DType) -> [ParamSpec; 5] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::output("rstd", DType::F32, 1).unit_last().align(16)),
        ParamSpec::F32("eps"),
    ]
}

/// The `_fast` contract (`_a4` 16-bit, `_a2` f32): N and the row strides of x and out multiples
/// of `multiple` elements (8-byte rows), w's length too. Rows not provably 16-byte multiples
/// keep tileiras from TMA: 64-bit loads and stores (docs/results/tuning.md, "rms_norm forward").
const fn params_fast(dtype: DType, multiple: i64) -> [ParamSpec; 5] {
    [
        ParamSpec::Tensor(
            TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(multiple, 1).shape_div(1, multiple),
        ),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 1).unit_last().align(16).shape_div(0, multiple)),
        ParamSpec::Tensor(
            TensorSpec::output("out", dtype, 2).unit_last().align(16).stride_div(multiple, 1).shape_div(1, multiple),
        ),
        ParamSpec::Tensor(TensorSpec::output("rstd", DType::F32, 1).unit_last().align(16)),
        ParamSpec::F32("eps"),
    ]
}

/// The forward kernels `cutile_rms_norm` launches; the looped ones hold one row per block.
pub const FWD_ENTRIES: [&str; 6] = [
    "rms_norm_fwd",
    "rms_norm_fwd_o4",
    "rms_norm_fwd_o2",
    "rms_norm_fwd_fast_o16",
    "rms_norm_fwd_fast_o8",
    "rms_norm_fwd_fast_o4",
];
pub const LOOPED_ENTRIES: [&str; 2] = ["rms_norm_fwd_looped", "rms_norm_fwd_looped_o4"];
pub const BWD_ENTRIES: [&str; 2] = ["rms_norm_bwd", "rms_norm_bwd_o2"];

/// An `rms_norm_fwd` kernel: the plain entry or an occupancy-hinted one (one body).
const fn fwd_entry(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rms_norm_kernel",
        entry,
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

const fn looped_entry(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant { op: OP, name, module: "rms_norm_kernel", entry, generic_names: &["E", "TILE_N"], generics, params }
}

const fn fwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    fwd_entry("rms_norm_fwd", name, generics, params)
}

const fn looped(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    looped_entry("rms_norm_fwd_looped", name, generics, params)
}

// rms_norm_fwd generics: <E, TILE_M, TILE_N>; rms_norm_fwd_looped: <E, TILE_N>.
pub static FWD_F16_M4_N1024: Variant = fwd("fwd_f16_m4_n1024", &["f16", "4", "1024"], &params(DType::F16));
pub static FWD_F16_M1_N8192: Variant = fwd("fwd_f16_m1_n8192", &["f16", "1", "8192"], &params(DType::F16));
pub static FWD_BF16_M4_N1024: Variant = fwd("fwd_bf16_m4_n1024", &["bf16", "4", "1024"], &params(DType::BF16));
pub static FWD_BF16_M1_N8192: Variant = fwd("fwd_bf16_m1_n8192", &["bf16", "1", "8192"], &params(DType::BF16));
pub static FWD_F32_M4_N1024: Variant = fwd("fwd_f32_m4_n1024", &["f32", "4", "1024"], &params(DType::F32));
pub static FWD_F32_M1_N8192: Variant = fwd("fwd_f32_m1_n8192", &["f32", "1", "8192"], &params(DType::F32));
pub static FWD_LOOPED_F16_N2048: Variant = looped("fwd_looped_f16_n2048", &["f16", "2048"], &params(DType::F16));
pub static FWD_LOOPED_BF16_N2048: Variant = looped("fwd_looped_bf16_n2048", &["bf16", "2048"], &params(DType::BF16));
pub static FWD_LOOPED_F32_N2048: Variant = looped("fwd_looped_f32_n2048", &["f32", "2048"], &params(DType::F32));

/// Backward: dy, x, dx (M, N) rows strided; w (N,), rstd (M,) f32 input; dw_partial
/// (blocks, N) f32 output.
const fn bwd_params(dtype: DType) -> [ParamSpec; 6] {
    [
        ParamSpec::Tensor(TensorSpec::input("dy", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("rstd", DType::F32, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("dx", dtype, 2).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("dw_partial", DType::F32, 2).unit_last().align(16)),
    ]
}

/// The backward's `_a8` contract: the 2-D arrays with N and the row stride multiples of 8.
const fn bwd_params_a8(dtype: DType) -> [ParamSpec; 6] {
    [
        ParamSpec::Tensor(TensorSpec::input("dy", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::input("rstd", DType::F32, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("dx", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::Tensor(
            TensorSpec::output("dw_partial", DType::F32, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8),
        ),
    ]
}

const fn bwd_entry(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rms_norm_kernel",
        entry,
        generic_names: &["E", "TILE_M", "TILE_N", "ROW_TILES"],
        generics,
        params,
    }
}

const fn bwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    bwd_entry("rms_norm_bwd", name, generics, params)
}

// rms_norm_bwd generics: <E, TILE_M, TILE_N, ROW_TILES>.
pub static BWD_F16_M4_N1024: Variant = bwd("bwd_f16_m4_n1024", &["f16", "4", "1024", "16"], &bwd_params(DType::F16));
pub static BWD_BF16_M4_N1024: Variant =
    bwd("bwd_bf16_m4_n1024", &["bf16", "4", "1024", "16"], &bwd_params(DType::BF16));
pub static BWD_F32_M4_N1024: Variant = bwd("bwd_f32_m4_n1024", &["f32", "4", "1024", "16"], &bwd_params(DType::F32));

// Tuned on the H200 (docs/results/tuning.md): occupancy hints, and the `_a8` contract for 16-bit rows.
pub static FWD_F16_A8_O4_M8_N1024: Variant =
    fwd_entry("rms_norm_fwd_o4", "fwd_f16_a8_o4_m8_n1024", &["f16", "8", "1024"], &params_a8(DType::F16));
pub static FWD_BF16_A8_O4_M8_N1024: Variant =
    fwd_entry("rms_norm_fwd_o4", "fwd_bf16_a8_o4_m8_n1024", &["bf16", "8", "1024"], &params_a8(DType::BF16));
pub static FWD_F32_O4_M4_N1024: Variant =
    fwd_entry("rms_norm_fwd_o4", "fwd_f32_o4_m4_n1024", &["f32", "4", "1024"], &params(DType::F32));
pub static FWD_F16_A8_O4_M1_N8192: Variant =
    fwd_entry("rms_norm_fwd_o4", "fwd_f16_a8_o4_m1_n8192", &["f16", "1", "8192"], &params_a8(DType::F16));
pub static FWD_BF16_A8_O4_M1_N8192: Variant =
    fwd_entry("rms_norm_fwd_o4", "fwd_bf16_a8_o4_m1_n8192", &["bf16", "1", "8192"], &params_a8(DType::BF16));
pub static FWD_F32_O2_M1_N8192: Variant =
    fwd_entry("rms_norm_fwd_o2", "fwd_f32_o2_m1_n8192", &["f32", "1", "8192"], &params(DType::F32));
pub static FWD_LOOPED_F16_A8_O4_N2048: Variant =
    looped_entry("rms_norm_fwd_looped_o4", "fwd_looped_f16_a8_o4_n2048", &["f16", "2048"], &params_a8(DType::F16));
pub static FWD_LOOPED_BF16_A8_O4_N2048: Variant =
    looped_entry("rms_norm_fwd_looped_o4", "fwd_looped_bf16_a8_o4_n2048", &["bf16", "2048"], &params_a8(DType::BF16));
pub static BWD_F16_A8_O2_M4_N1024: Variant =
    bwd_entry("rms_norm_bwd_o2", "bwd_f16_a8_o2_m4_n1024", &["f16", "4", "1024", "16"], &bwd_params_a8(DType::F16));
pub static BWD_BF16_A8_O2_M4_N1024: Variant =
    bwd_entry("rms_norm_bwd_o2", "bwd_bf16_a8_o2_m4_n1024", &["bf16", "4", "1024", "16"], &bwd_params_a8(DType::BF16));

// The `_fast` kernels (one row per block, 1/n approximate, occupancy 16 / 8 / 4 / 4 for 1024- /
// 2048- / 4096- / 8192-column rows): 16-bit `_a4`, f32 `_a2` (docs/results/tuning.md).
pub static FWD_F16_A4_FAST_M1_N1024: Variant =
    fwd_entry("rms_norm_fwd_fast_o16", "fwd_f16_a4_fast_m1_n1024", &["f16", "1", "1024"], &params_fast(DType::F16, 4));
pub static FWD_F16_A4_FAST_M1_N2048: Variant =
    fwd_entry("rms_norm_fwd_fast_o8", "fwd_f16_a4_fast_m1_n2048", &["f16", "1", "2048"], &params_fast(DType::F16, 4));
pub static FWD_F16_A4_FAST_M1_N4096: Variant =
    fwd_entry("rms_norm_fwd_fast_o4", "fwd_f16_a4_fast_m1_n4096", &["f16", "1", "4096"], &params_fast(DType::F16, 4));
pub static FWD_F16_A4_FAST_M1_N8192: Variant =
    fwd_entry("rms_norm_fwd_fast_o4", "fwd_f16_a4_fast_m1_n8192", &["f16", "1", "8192"], &params_fast(DType::F16, 4));
pub static FWD_BF16_A4_FAST_M1_N1024: Variant = fwd_entry(
    "rms_norm_fwd_fast_o16",
    "fwd_bf16_a4_fast_m1_n1024",
    &["bf16", "1", "1024"],
    &params_fast(DType::BF16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N2048: Variant = fwd_entry(
    "rms_norm_fwd_fast_o8",
    "fwd_bf16_a4_fast_m1_n2048",
    &["bf16", "1", "2048"],
    &params_fast(DType::BF16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N4096: Variant = fwd_entry(
    "rms_norm_fwd_fast_o4",
    "fwd_bf16_a4_fast_m1_n4096",
    &["bf16", "1", "4096"],
    &params_fast(DType::BF16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N8192: Variant = fwd_entry(
    "rms_norm_fwd_fast_o4",
    "fwd_bf16_a4_fast_m1_n8192",
    &["bf16", "1", "8192"],
    &params_fast(DType::BF16, 4),
);
pub static FWD_F32_A2_FAST_M1_N1024: Variant =
    fwd_entry("rms_norm_fwd_fast_o16", "fwd_f32_a2_fast_m1_n1024", &["f32", "1", "1024"], &params_fast(DType::F32, 2));
pub static FWD_F32_A2_FAST_M1_N2048: Variant =
    fwd_entry("rms_norm_fwd_fast_o8", "fwd_f32_a2_fast_m1_n2048", &["f32", "1", "2048"], &params_fast(DType::F32, 2));
pub static FWD_F32_A2_FAST_M1_N4096: Variant =
    fwd_entry("rms_norm_fwd_fast_o4", "fwd_f32_a2_fast_m1_n4096", &["f32", "1", "4096"], &params_fast(DType::F32, 2));
pub static FWD_F32_A2_FAST_M1_N8192: Variant =
    fwd_entry("rms_norm_fwd_fast_o4", "fwd_f32_a2_fast_m1_n8192", &["f32", "1", "8192"], &params_fast(DType::F32, 2));

/// Rows of x each backward block covers (TILE_M * ROW_TILES of every bwd variant): dw_partial
/// has ceil(M / BWD_ROWS_PER_BLOCK) rows.
pub const BWD_ROWS_PER_BLOCK: i64 = 64;

/// The reference launcher's backward choice, most specific first: the tuned `_a8` kernel
/// (16-bit, N and row strides multiples of 8), else the plain one.
pub fn bwd_candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16: [&Variant; 2] = [&BWD_F16_A8_O2_M4_N1024, &BWD_F16_M4_N1024];
    static BF16: [&Variant; 2] = [&BWD_BF16_A8_O2_M4_N1024, &BWD_BF16_M4_N1024];
    static F32: [&Variant; 1] = [&BWD_F32_M4_N1024];
    match dtype {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}

pub static VARIANTS: &[&Variant] = &[
    &FWD_F16_M4_N1024,
    &FWD_F16_M1_N8192,
    &FWD_BF16_M4_N1024,
    &FWD_BF16_M1_N8192,
    &FWD_F32_M4_N1024,
    &FWD_F32_M1_N8192,
    &FWD_LOOPED_F16_N2048,
    &FWD_LOOPED_BF16_N2048,
    &FWD_LOOPED_F32_N2048,
    &BWD_F16_M4_N1024,
    &BWD_BF16_M4_N1024,
    &BWD_F32_M4_N1024,
    &FWD_F16_A8_O4_M8_N1024,
    &FWD_BF16_A8_O4_M8_N1024,
    &FWD_F32_O4_M4_N1024,
    &FWD_F16_A8_O4_M1_N8192,
    &FWD_BF16_A8_O4_M1_N8192,
    &FWD_F32_O2_M1_N8192,
    &FWD_LOOPED_F16_A8_O4_N2048,
    &FWD_LOOPED_BF16_A8_O4_N2048,
    &BWD_F16_A8_O2_M4_N1024,
    &BWD_BF16_A8_O2_M4_N1024,
    &FWD_F16_A4_FAST_M1_N1024,
    &FWD_F16_A4_FAST_M1_N2048,
    &FWD_F16_A4_FAST_M1_N4096,
    &FWD_F16_A4_FAST_M1_N8192,
    &FWD_BF16_A4_FAST_M1_N1024,
    &FWD_BF16_A4_FAST_M1_N2048,
    &FWD_BF16_A4_FAST_M1_N4096,
    &FWD_BF16_A4_FAST_M1_N8192,
    &FWD_F32_A2_FAST_M1_N1024,
    &FWD_F32_A2_FAST_M1_N2048,
    &FWD_F32_A2_FAST_M1_N4096,
    &FWD_F32_A2_FAST_M1_N8192,
];

/// Up to this many rows the forward launch is latency-bound (a wave or two of blocks) and one
/// row per block wins: reference/rms_norm/kernel.py `FEW_ROWS` (docs/results/selection.json).
pub const FEW_ROWS: i64 = 256;

/// Beyond this many rows of up to 1024 columns, several rows per block beat one row per block
/// (reference/rms_norm/kernel.py `MANY_ROWS`); f32 only for rows of up to `F32_SHORT_ROW` columns.
pub const MANY_ROWS: i64 = 4096;
pub const F32_SHORT_ROW: i64 = 768;

/// The reference launcher's forward choice for m rows of n columns (reference/rms_norm/kernel.py
/// `select_variant` and `_candidates`), measured on the GPU (scripts/gpu/bench_selection.py,
/// docs/results/selection.json), most preferred first; the launcher takes the first whose
/// contract the tensors meet. Rows of 8-byte multiples of up to 8192 columns: one row per block
/// (`fast_choice`), except many rows of up to 1024 columns (16-bit `_a8`: 8 rows per block; f32
/// rows of up to 768 columns: 4 rows per block) and 16-bit `_a8` rows of 4097-8192 columns.
/// Other layouts as `untuned_choice`.
pub fn candidates(dtype: DType, m: i64, n: i64) -> Vec<&'static Variant> {
    let fast = fast_choice(dtype, m, n);
    let untuned = untuned_choice(dtype, m, n);
    if dtype == DType::F32 {
        if m > MANY_ROWS && n <= F32_SHORT_ROW {
            return vec![&FWD_F32_O4_M4_N1024];
        }
        return fast.into_iter().chain(untuned.iter().copied()).collect();
    }
    // The `_a8` several-rows (many short rows) and one-row 8192 kernels come before the `_fast`
    // tile; the plain kernel of the same shape after it.
    if (n <= 1024 && m > MANY_ROWS) || (4096 < n && n <= 8192) {
        return untuned[..1].iter().copied().chain(fast).chain(untuned[1..].iter().copied()).collect();
    }
    fast.into_iter().chain(untuned.iter().copied()).collect()
}

/// The `_fast` variant (reference/rms_norm/kernel.py `_fast_tile`) for rows of up to 8192
/// columns: f32 the smallest one-row tile that holds the row; 16-bit rows of up to 2048 columns
/// a wider tile at some row counts (measured). It takes rows of 8-byte multiples only (n and the
/// row strides multiples of 4 elements for 16-bit, 2 for f32). None: no `_fast` variant for this
/// dtype or row length.
fn fast_choice(dtype: DType, m: i64, n: i64) -> Option<&'static Variant> {
    let tiles: [&'static Variant; 4] = match dtype {
        DType::F16 => {
            [&FWD_F16_A4_FAST_M1_N1024, &FWD_F16_A4_FAST_M1_N2048, &FWD_F16_A4_FAST_M1_N4096, &FWD_F16_A4_FAST_M1_N8192]
        }
        DType::BF16 => [
            &FWD_BF16_A4_FAST_M1_N1024,
            &FWD_BF16_A4_FAST_M1_N2048,
            &FWD_BF16_A4_FAST_M1_N4096,
            &FWD_BF16_A4_FAST_M1_N8192,
        ],
        DType::F32 => {
            [&FWD_F32_A2_FAST_M1_N1024, &FWD_F32_A2_FAST_M1_N2048, &FWD_F32_A2_FAST_M1_N4096, &FWD_F32_A2_FAST_M1_N8192]
        }
        _ => return None,
    };
    let width = if dtype == DType::F32 {
        n
    } else if n <= 1024 {
        if FEW_ROWS / 2 < m && m <= 2 * FEW_ROWS { 1024 } else { 2048 }
    } else if n <= 2048 {
        if m <= 1024 { 4096 } else { 2048 }
    } else {
        n
    };
    tiles.into_iter().find(|v| width <= v.constant("TILE_N"))
}

/// The choice for rows the `_fast` variants do not take (any layout).
fn untuned_choice(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static F16_ROWS: [&Variant; 2] = [&FWD_F16_A8_O4_M8_N1024, &FWD_F16_M4_N1024];
    static F16_ROW: [&Variant; 2] = [&FWD_F16_A8_O4_M1_N8192, &FWD_F16_M1_N8192];
    static F16_LOOPED: [&Variant; 2] = [&FWD_LOOPED_F16_A8_O4_N2048, &FWD_LOOPED_F16_N2048];
    static BF16_ROWS: [&Variant; 2] = [&FWD_BF16_A8_O4_M8_N1024, &FWD_BF16_M4_N1024];
    static BF16_ROW: [&Variant; 2] = [&FWD_BF16_A8_O4_M1_N8192, &FWD_BF16_M1_N8192];
    static BF16_LOOPED: [&Variant; 2] = [&FWD_LOOPED_BF16_A8_O4_N2048, &FWD_LOOPED_BF16_N2048];
    static F32_FEW_ROWS: [&Variant; 1] = [&FWD_F32_M4_N1024];
    static F32_ROWS: [&Variant; 1] = [&FWD_F32_O4_M4_N1024];
    static F32_ROW: [&Variant; 1] = [&FWD_F32_O2_M1_N8192];
    static F32_LOOPED: [&Variant; 1] = [&FWD_LOOPED_F32_N2048];
    // 0: several rows per block, 1: one row in one tile, 2: the looped kernel.
    let shape = if n <= 1024 && m > FEW_ROWS {
        0
    } else if 4096 < n && n <= 8192 {
        1
    } else {
        2
    };
    match dtype {
        DType::F16 => [&F16_ROWS[..], &F16_ROW[..], &F16_LOOPED[..]][shape],
        DType::BF16 => [&BF16_ROWS[..], &BF16_ROW[..], &BF16_LOOPED[..]][shape],
        DType::F32 if n <= 1024 => {
            if m <= FEW_ROWS {
                &F32_FEW_ROWS
            } else {
                &F32_ROWS
            }
        }
        DType::F32 if n <= 8192 => &F32_ROW,
        DType::F32 => &F32_LOOPED,
        _ => &[],
    }
}
