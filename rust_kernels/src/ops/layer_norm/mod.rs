//! LayerNorm over the last axis of a 2-D array, forward and backward (reference/layer_norm).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "layer_norm";

/// A row-major (M, N) array: unit column stride, 16-byte aligned base; `a8` adds N and the row
/// stride multiples of 8 elements.
const fn rows(spec: TensorSpec, a8: bool) -> ParamSpec {
    let spec = spec.unit_last().align(16);
    ParamSpec::Tensor(if a8 { spec.stride_div(8, 1).shape_div(1, 8) } else { spec })
}

/// A contiguous 1-D array (w, b, mean, rstd), 16-byte aligned.
const fn vector(spec: TensorSpec) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(16))
}

/// x, w, b, out, mean, rstd, eps.
const fn fwd_params(dtype: DType, a8: bool) -> [ParamSpec; 7] {
    [
        rows(TensorSpec::input("x", dtype, 2), a8),
        vector(TensorSpec::input("w", dtype, 1)),
        vector(TensorSpec::input("b", dtype, 1)),
        rows(TensorSpec::output("out", dtype, 2), a8),
        vector(TensorSpec::output("mean", DType::F32, 1)),
        vector(TensorSpec::output("rstd", DType::F32, 1)),
        ParamSpec::F32("eps"),
    ]
}

/// dy, x, w, mean, rstd, dx, dw_partial, db_partial.
const fn bwd_params(dtype: DType, a8: bool) -> [ParamSpec; 8] {
    [
        rows(TensorSpec::input("dy", dtype, 2), a8),
        rows(TensorSpec::input("x", dtype, 2), a8),
        vector(TensorSpec::input("w", dtype, 1)),
        vector(TensorSpec::input("mean", DType::F32, 1)),
        vector(TensorSpec::input("rstd", DType::F32, 1)),
        rows(TensorSpec::output("dx", dtype, 2), a8),
        rows(TensorSpec::output("dw_partial", DType::F32, 2), a8),
        rows(TensorSpec::output("db_partial", DType::F32, 2), a8),
    ]
}

const fn fwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "layer_norm_kernel",
        entry: "layer_norm_fwd",
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

/// x, w, b, out, mean, rstd, eps of the `_fast` variants: aligned rows, and w and b of a length
/// that is a multiple of 8 (N, as x's last dim) so that their loads vectorize too.
const fn fwd_fast_params(dtype: DType) -> [ParamSpec; 7] {
    [
        rows(TensorSpec::input("x", dtype, 2), true),
        vector(TensorSpec::input("w", dtype, 1).shape_div(0, 8)),
        vector(TensorSpec::input("b", dtype, 1).shape_div(0, 8)),
        rows(TensorSpec::output("out", dtype, 2), true),
        vector(TensorSpec::output("mean", DType::F32, 1)),
        vector(TensorSpec::output("rstd", DType::F32, 1)),
        ParamSpec::F32("eps"),
    ]
}

/// The one-row, approximate-reciprocal forward kernel (`layer_norm_fwd_fast`), 16-bit, aligned only.
const fn fwd_fast(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { entry: "layer_norm_fwd_fast", ..fwd(name, generics, params) }
}

/// x, w, b, out, mean, rstd, eps of the 8-byte `_fast` variants (`_a4` 16-bit, `_a2` f32): N and
/// the row strides of x and out multiples of `multiple` elements, w's and b's length too. Rows not
/// provably 16-byte multiples keep tileiras from TMA: 64-bit loads and stores (docs/results/
/// tuning.md, "layer_norm forward: 8-byte `_fast` kernels").
const fn fwd_fast2_params(dtype: DType, multiple: i64) -> [ParamSpec; 7] {
    const fn rows8(spec: TensorSpec, multiple: i64) -> ParamSpec {
        ParamSpec::Tensor(spec.unit_last().align(16).stride_div(multiple, 1).shape_div(1, multiple))
    }
    [
        rows8(TensorSpec::input("x", dtype, 2), multiple),
        vector(TensorSpec::input("w", dtype, 1).shape_div(0, multiple)),
        vector(TensorSpec::input("b", dtype, 1).shape_div(0, multiple)),
        rows8(TensorSpec::output("out", dtype, 2), multiple),
        vector(TensorSpec::output("mean", DType::F32, 1)),
        vector(TensorSpec::output("rstd", DType::F32, 1)),
        ParamSpec::F32("eps"),
    ]
}

/// A `layer_norm_fwd_fast2_o*` variant (one body, the occupancy hint in the entry's name).
const fn fwd_fast2(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant { entry, ..fwd(name, generics, params) }
}

/// The forward entries `cutile_layer_norm` may launch (a forced variant included).
pub const FWD_ENTRIES: [&str; 5] = [
    "layer_norm_fwd",
    "layer_norm_fwd_fast",
    "layer_norm_fwd_fast2_o16",
    "layer_norm_fwd_fast2_o8",
    "layer_norm_fwd_fast2_o4",
];

const fn bwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "layer_norm_kernel",
        entry: "layer_norm_bwd",
        generic_names: &["E", "TILE_M", "TILE_N", "ROW_TILES"],
        generics,
        params,
    }
}

// Forward generics: <E, TILE_M, TILE_N>.
pub static FWD_F16_M4_N1024: Variant = fwd("fwd_f16_m4_n1024", &["f16", "4", "1024"], &fwd_params(DType::F16, false));
pub static FWD_F16_M1_N8192: Variant = fwd("fwd_f16_m1_n8192", &["f16", "1", "8192"], &fwd_params(DType::F16, false));
pub static FWD_BF16_M4_N1024: Variant =
    fwd("fwd_bf16_m4_n1024", &["bf16", "4", "1024"], &fwd_params(DType::BF16, false));
pub static FWD_BF16_M1_N8192: Variant =
    fwd("fwd_bf16_m1_n8192", &["bf16", "1", "8192"], &fwd_params(DType::BF16, false));
pub static FWD_F32_M4_N1024: Variant = fwd("fwd_f32_m4_n1024", &["f32", "4", "1024"], &fwd_params(DType::F32, false));
pub static FWD_F32_M1_N8192: Variant = fwd("fwd_f32_m1_n8192", &["f32", "1", "8192"], &fwd_params(DType::F32, false));
pub static FWD_F16_A8_M4_N1024: Variant =
    fwd("fwd_f16_a8_m4_n1024", &["f16", "4", "1024"], &fwd_params(DType::F16, true));
pub static FWD_BF16_A8_M4_N1024: Variant =
    fwd("fwd_bf16_a8_m4_n1024", &["bf16", "4", "1024"], &fwd_params(DType::BF16, true));
pub static FWD_F16_A8_M1_N8192: Variant =
    fwd("fwd_f16_a8_m1_n8192", &["f16", "1", "8192"], &fwd_params(DType::F16, true));
pub static FWD_BF16_A8_M1_N8192: Variant =
    fwd("fwd_bf16_a8_m1_n8192", &["bf16", "1", "8192"], &fwd_params(DType::BF16, true));
pub static FWD_F16_A8_FAST_M1_N1024: Variant =
    fwd_fast("fwd_f16_a8_fast_m1_n1024", &["f16", "1", "1024"], &fwd_fast_params(DType::F16));
pub static FWD_BF16_A8_FAST_M1_N1024: Variant =
    fwd_fast("fwd_bf16_a8_fast_m1_n1024", &["bf16", "1", "1024"], &fwd_fast_params(DType::BF16));

// The 8-byte `_fast` kernels (one row per block, occupancy 16 / 8 / 4 / 4 for 1024- / 2048- /
// 4096- / 8192-column tiles; `fwd_candidates` says where they are taken).
pub static FWD_F16_A4_FAST_M1_N1024: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o16",
    "fwd_f16_a4_fast_m1_n1024",
    &["f16", "1", "1024"],
    &fwd_fast2_params(DType::F16, 4),
);
pub static FWD_F16_A4_FAST_M1_N2048: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o8",
    "fwd_f16_a4_fast_m1_n2048",
    &["f16", "1", "2048"],
    &fwd_fast2_params(DType::F16, 4),
);
pub static FWD_F16_A4_FAST_M1_N4096: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o4",
    "fwd_f16_a4_fast_m1_n4096",
    &["f16", "1", "4096"],
    &fwd_fast2_params(DType::F16, 4),
);
pub static FWD_F16_A4_FAST_M1_N8192: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o4",
    "fwd_f16_a4_fast_m1_n8192",
    &["f16", "1", "8192"],
    &fwd_fast2_params(DType::F16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N1024: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o16",
    "fwd_bf16_a4_fast_m1_n1024",
    &["bf16", "1", "1024"],
    &fwd_fast2_params(DType::BF16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N2048: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o8",
    "fwd_bf16_a4_fast_m1_n2048",
    &["bf16", "1", "2048"],
    &fwd_fast2_params(DType::BF16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N4096: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o4",
    "fwd_bf16_a4_fast_m1_n4096",
    &["bf16", "1", "4096"],
    &fwd_fast2_params(DType::BF16, 4),
);
pub static FWD_BF16_A4_FAST_M1_N8192: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o4",
    "fwd_bf16_a4_fast_m1_n8192",
    &["bf16", "1", "8192"],
    &fwd_fast2_params(DType::BF16, 4),
);
pub static FWD_F32_A2_FAST_M1_N1024: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o16",
    "fwd_f32_a2_fast_m1_n1024",
    &["f32", "1", "1024"],
    &fwd_fast2_params(DType::F32, 2),
);
pub static FWD_F32_A2_FAST_M1_N2048: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o8",
    "fwd_f32_a2_fast_m1_n2048",
    &["f32", "1", "2048"],
    &fwd_fast2_params(DType::F32, 2),
);
pub static FWD_F32_A2_FAST_M1_N4096: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o4",
    "fwd_f32_a2_fast_m1_n4096",
    &["f32", "1", "4096"],
    &fwd_fast2_params(DType::F32, 2),
);
pub static FWD_F32_A2_FAST_M1_N8192: Variant = fwd_fast2(
    "layer_norm_fwd_fast2_o4",
    "fwd_f32_a2_fast_m1_n8192",
    &["f32", "1", "8192"],
    &fwd_fast2_params(DType::F32, 2),
);

// Backward generics: <E, TILE_M, TILE_N, ROW_TILES>.
pub static BWD_F16_M4_N1024: Variant =
    bwd("bwd_f16_m4_n1024", &["f16", "4", "1024", "16"], &bwd_params(DType::F16, false));
pub static BWD_BF16_M4_N1024: Variant =
    bwd("bwd_bf16_m4_n1024", &["bf16", "4", "1024", "16"], &bwd_params(DType::BF16, false));
pub static BWD_F32_M4_N1024: Variant =
    bwd("bwd_f32_m4_n1024", &["f32", "4", "1024", "16"], &bwd_params(DType::F32, false));
pub static BWD_F16_A8_M4_N1024: Variant =
    bwd("bwd_f16_a8_m4_n1024", &["f16", "4", "1024", "16"], &bwd_params(DType::F16, true));
pub static BWD_BF16_A8_M4_N1024: Variant =
    bwd("bwd_bf16_a8_m4_n1024", &["bf16", "4", "1024", "16"], &bwd_params(DType::BF16, true));

pub static VARIANTS: &[&Variant] = &[
    &FWD_F16_M4_N1024,
    &FWD_F16_M1_N8192,
    &FWD_BF16_M4_N1024,
    &FWD_BF16_M1_N8192,
    &FWD_F32_M4_N1024,
    &FWD_F32_M1_N8192,
    &BWD_F16_M4_N1024,
    &BWD_BF16_M4_N1024,
    &BWD_F32_M4_N1024,
    &FWD_F16_A8_M4_N1024,
    &FWD_BF16_A8_M4_N1024,
    &FWD_F16_A8_M1_N8192,
    &FWD_BF16_A8_M1_N8192,
    &BWD_F16_A8_M4_N1024,
    &BWD_BF16_A8_M4_N1024,
    &FWD_F16_A8_FAST_M1_N1024,
    &FWD_BF16_A8_FAST_M1_N1024,
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

/// Rows of dw_partial and db_partial: one per block of TILE_M * ROW_TILES rows (every backward
/// variant has 4 * 16).
pub const BWD_ROWS_PER_BLOCK: i64 = 64;

/// Rows of up to 1024 columns go one to a block (the 8-byte `_fast` kernel) while the array holds at
/// most this many elements (`FAST_MAX_ELEMENTS` in reference/layer_norm/kernel.py: 2^19 16-bit,
/// 2^22 f32) ...
pub const fn fast_max_elements(dtype: DType) -> i64 {
    if matches!(dtype, DType::F32) { 1 << 22 } else { 1 << 19 }
}
/// ... or when they are this long (`FAST_MIN_N`).
pub const FAST_MIN_N: i64 = 1024;
/// 16-bit rows of 1025-2048 columns take the 4096-column tile up to this many rows (`FEW_ROWS`).
pub const FEW_ROWS: i64 = 512;
/// bf16 rows of at most this many columns past `fast_max_elements`: the general four-row kernel
/// (`BF16_GENERAL_MAX_N`).
pub const BF16_GENERAL_MAX_N: i64 = 256;

/// Forward candidates for a dtype and (m, n) shape, most preferred first; `select` takes the first
/// whose contract the tensors meet (`_candidates` in reference/layer_norm/kernel.py, measured:
/// docs/results/tuning.md). Rows of up to 1024 columns one to a block (`_a4`/`_a2` `_fast`) in small
/// arrays and for full 1024-column rows, else four to a block (`_a8` where 16-byte rows; f32 and
/// short bf16 rows the general kernel); longer rows one to a block, the `_fast` tile of 2048 or
/// 4096 columns (4096 for few 16-bit rows of up to 2048), f32 the 8192 one too, 16-bit rows
/// beyond 4096 `_a8_m1_n8192`; the general variant last (any layout).
pub fn fwd_candidates(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static F16_ONE_ROW: [&Variant; 2] = [&FWD_F16_A4_FAST_M1_N1024, &FWD_F16_M4_N1024];
    static F16_FOUR_ROWS: [&Variant; 3] = [&FWD_F16_A8_M4_N1024, &FWD_F16_A4_FAST_M1_N1024, &FWD_F16_M4_N1024];
    static F16_N2048: [&Variant; 2] = [&FWD_F16_A4_FAST_M1_N2048, &FWD_F16_M1_N8192];
    static F16_N4096: [&Variant; 2] = [&FWD_F16_A4_FAST_M1_N4096, &FWD_F16_M1_N8192];
    static F16_N8192: [&Variant; 3] = [&FWD_F16_A8_M1_N8192, &FWD_F16_A4_FAST_M1_N8192, &FWD_F16_M1_N8192];
    static BF16_ONE_ROW: [&Variant; 2] = [&FWD_BF16_A4_FAST_M1_N1024, &FWD_BF16_M4_N1024];
    static BF16_FOUR_ROWS: [&Variant; 3] = [&FWD_BF16_A8_M4_N1024, &FWD_BF16_A4_FAST_M1_N1024, &FWD_BF16_M4_N1024];
    static BF16_GENERAL: [&Variant; 1] = [&FWD_BF16_M4_N1024];
    static BF16_N2048: [&Variant; 2] = [&FWD_BF16_A4_FAST_M1_N2048, &FWD_BF16_M1_N8192];
    static BF16_N4096: [&Variant; 2] = [&FWD_BF16_A4_FAST_M1_N4096, &FWD_BF16_M1_N8192];
    static BF16_N8192: [&Variant; 3] = [&FWD_BF16_A8_M1_N8192, &FWD_BF16_A4_FAST_M1_N8192, &FWD_BF16_M1_N8192];
    static F32_ONE_ROW: [&Variant; 2] = [&FWD_F32_A2_FAST_M1_N1024, &FWD_F32_M4_N1024];
    static F32_GENERAL: [&Variant; 1] = [&FWD_F32_M4_N1024];
    static F32_N2048: [&Variant; 2] = [&FWD_F32_A2_FAST_M1_N2048, &FWD_F32_M1_N8192];
    static F32_N4096: [&Variant; 2] = [&FWD_F32_A2_FAST_M1_N4096, &FWD_F32_M1_N8192];
    static F32_N8192: [&Variant; 2] = [&FWD_F32_A2_FAST_M1_N8192, &FWD_F32_M1_N8192];
    if !matches!(dtype, DType::F16 | DType::BF16 | DType::F32) || n > 8192 {
        return &[];
    }
    if n <= 1024 {
        let one_row = n >= FAST_MIN_N || m.saturating_mul(n) <= fast_max_elements(dtype);
        return match (dtype, one_row) {
            (DType::F16, true) => &F16_ONE_ROW,
            (DType::F16, false) => &F16_FOUR_ROWS,
            (DType::BF16, true) => &BF16_ONE_ROW,
            (DType::BF16, false) if n <= BF16_GENERAL_MAX_N => &BF16_GENERAL,
            (DType::BF16, false) => &BF16_FOUR_ROWS,
            (_, true) => &F32_ONE_ROW,
            (_, false) => &F32_GENERAL,
        };
    }
    // The tile: the smallest of 2048 / 4096 / 8192 columns that holds the row, 16-bit 4096 for
    // few rows of up to 2048 columns.
    let tile = if n > 4096 {
        8192
    } else if n > 2048 || (dtype != DType::F32 && m <= FEW_ROWS) {
        4096
    } else {
        2048
    };
    match (dtype, tile) {
        (DType::F16, 2048) => &F16_N2048,
        (DType::F16, 4096) => &F16_N4096,
        (DType::F16, _) => &F16_N8192,
        (DType::BF16, 2048) => &BF16_N2048,
        (DType::BF16, 4096) => &BF16_N4096,
        (DType::BF16, _) => &BF16_N8192,
        (_, 2048) => &F32_N2048,
        (_, 4096) => &F32_N4096,
        _ => &F32_N8192,
    }
}

/// Backward candidates for a dtype (rows up to 1024 columns), the aligned variant first.
pub fn bwd_candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16: [&Variant; 2] = [&BWD_F16_A8_M4_N1024, &BWD_F16_M4_N1024];
    static BF16: [&Variant; 2] = [&BWD_BF16_A8_M4_N1024, &BWD_BF16_M4_N1024];
    static F32: [&Variant; 1] = [&BWD_F32_M4_N1024];
    match dtype {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}
