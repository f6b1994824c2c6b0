//! Per-row (per-token) dynamic fp8 e4m3 quantization (reference/fp8_quantize).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "fp8_quantize";

/// x (M, N) and q (M, N) float8_e4m3fn with unit column strides and 16-byte aligned bases,
/// scales (M,) float32 contiguous. x's row stride is a multiple of 8 elements; q's of 16 (16
/// bytes), or of 8 with N a multiple of 8 in the aligned specialization (`a8`).
const fn params(dtype: DType, a8: bool) -> [ParamSpec; 3] {
    let last_div = if a8 { 8 } else { 1 };
    let q_stride_div = if a8 { 8 } else { 16 };
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, last_div)),
        ParamSpec::Tensor(
            TensorSpec::output("q", DType::F8E4M3FN, 2).unit_last().align(16).stride_div(q_stride_div, 1).shape_div(1, last_div),
        ),
        ParamSpec::Tensor(TensorSpec::output("scales", DType::F32, 1).unit_last().align(16)),
    ]
}

/// `params` for the `_a16_fast` variants: N a multiple of 16 and q's rows 16-byte multiples, so
/// q (one byte an element) is written 16 bytes at a time; x's rows 16-byte multiples as in `a8`.
const fn params_a16(dtype: DType) -> [ParamSpec; 3] {
    [
        ParamSpec::Tensor(TensorSpec::input("x", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 16)),
        ParamSpec::Tensor(TensorSpec::output("q", DType::F8E4M3FN, 2).unit_last().align(16).stride_div(16, 1).shape_div(1, 16)),
        ParamSpec::Tensor(TensorSpec::output("scales", DType::F32, 1).unit_last().align(16)),
    ]
}

const fn variant(name: &'static str, entry: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { op: OP, name, module: "fp8_quantize_kernel", entry, generic_names: &["E", "TILE_M", "TILE_N"], generics, params }
}

// Generics: <E, TILE_M, TILE_N>.
pub static BF16_ROWS_M4_N4096: Variant =
    variant("bf16_rows_m4_n4096", "fp8_quant_rows", &["bf16", "4", "4096"], &params(DType::BF16, false));
pub static F16_ROWS_M8_N1024: Variant =
    variant("f16_rows_m8_n1024", "fp8_quant_rows", &["f16", "8", "1024"], &params(DType::F16, false));
pub static BF16_LOOPED_M1_N2048: Variant =
    variant("bf16_looped_m1_n2048", "fp8_quant_rows_looped", &["bf16", "1", "2048"], &params(DType::BF16, false));
pub static BF16_ROWS_A8_M4_N4096: Variant =
    variant("bf16_rows_a8_m4_n4096", "fp8_quant_rows", &["bf16", "4", "4096"], &params(DType::BF16, true));
pub static F16_ROWS_A8_M8_N1024: Variant =
    variant("f16_rows_a8_m8_n1024", "fp8_quant_rows", &["f16", "8", "1024"], &params(DType::F16, true));
pub static BF16_ROWS_A16_FAST_M4_N4096: Variant =
    variant("bf16_rows_a16_fast_m4_n4096", "fp8_quant_rows_fast", &["bf16", "4", "4096"], &params_a16(DType::BF16));
pub static F16_ROWS_A16_FAST_M8_N1024: Variant =
    variant("f16_rows_a16_fast_m8_n1024", "fp8_quant_rows_fast", &["f16", "8", "1024"], &params_a16(DType::F16));
pub static BF16_ROWS_A8_FAST_M4_N4096: Variant =
    variant("bf16_rows_a8_fast_m4_n4096", "fp8_quant_rows_fast", &["bf16", "4", "4096"], &params(DType::BF16, true));
pub static F16_ROWS_A8_FAST_M8_N1024: Variant =
    variant("f16_rows_a8_fast_m8_n1024", "fp8_quant_rows_fast", &["f16", "8", "1024"], &params(DType::F16, true));
pub static BF16_ROWS_A8_FAST_M2_N4096: Variant =
    variant("bf16_rows_a8_fast_m2_n4096", "fp8_quant_rows_fast", &["bf16", "2", "4096"], &params(DType::BF16, true));

pub static VARIANTS: &[&Variant] = &[
    &BF16_ROWS_M4_N4096,
    &F16_ROWS_M8_N1024,
    &BF16_LOOPED_M1_N2048,
    &BF16_ROWS_A8_M4_N4096,
    &F16_ROWS_A8_M8_N1024,
    &BF16_ROWS_A16_FAST_M4_N4096,
    &F16_ROWS_A16_FAST_M8_N1024,
    &BF16_ROWS_A8_FAST_M4_N4096,
    &F16_ROWS_A8_FAST_M8_N1024,
    &BF16_ROWS_A8_FAST_M2_N4096,
];

/// The kernels `cutile_fp8_quantize` launches.
pub const ENTRIES: &[&str] = &["fp8_quant_rows", "fp8_quant_rows_looped", "fp8_quant_rows_fast"];

/// bf16 rows of up to this many columns fill at most half of a (·, 4096) tile
/// (reference/fp8_quantize/kernel.py `SHORT_ROW`).
pub const SHORT_ROW: i64 = 2048;
/// Past this many such rows the 4-row `_a8_fast` tile is faster than the 2-row one
/// (reference/fp8_quantize/kernel.py `MANY_SHORT_ROWS`).
pub const MANY_SHORT_ROWS: i64 = 4096;

/// Candidates for a dtype and row length, most specific first (the first whose specs accept the
/// tensors is taken; reference/fp8_quantize/kernel.py `select_variant` chooses the same): bf16
/// rows up to 4096 columns in one tile, longer ones looped; f16 rows up to 1024 in one tile (no f16
/// variant takes longer rows). The `_fast` kernels (one division per row, not per element) first:
/// f16 `_a16_fast` where N is a multiple of 16 and q's rows 16-byte multiples, then `_a8_fast` and
/// `_a8` where N and the row strides are multiples of 8 (bf16's `_a16_fast` tile spills and is
/// forced only; bf16 `_a8_fast` takes 2 rows a block, 4 for more than MANY_SHORT_ROWS rows of up
/// to SHORT_ROW columns), then the general kernel.
pub fn candidates(dtype: DType, m: i64, n: i64) -> &'static [&'static Variant] {
    static BF16_SHORT: [&Variant; 3] = [&BF16_ROWS_A8_FAST_M2_N4096, &BF16_ROWS_A8_M4_N4096, &BF16_ROWS_M4_N4096];
    static BF16_MANY_SHORT: [&Variant; 3] =
        [&BF16_ROWS_A8_FAST_M4_N4096, &BF16_ROWS_A8_M4_N4096, &BF16_ROWS_M4_N4096];
    static BF16_LONG: [&Variant; 1] = [&BF16_LOOPED_M1_N2048];
    static F16_SHORT: [&Variant; 4] =
        [&F16_ROWS_A16_FAST_M8_N1024, &F16_ROWS_A8_FAST_M8_N1024, &F16_ROWS_A8_M8_N1024, &F16_ROWS_M8_N1024];
    match dtype {
        DType::BF16 if n <= SHORT_ROW && m > MANY_SHORT_ROWS => &BF16_MANY_SHORT,
        DType::BF16 if n <= 4096 => &BF16_SHORT,
        DType::BF16 => &BF16_LONG,
        DType::F16 if n <= 1024 => &F16_SHORT,
        _ => &[],
    }
}
