//! Out-of-place transpose y = x.T of a 2-D array, or of the last two axes of a 3-D one
//! (reference/transpose).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "transpose";

/// x and y of rank `ndim`: unit last stride, 16-byte aligned bases, leading strides multiples
/// of 16 bytes (`stride_div` elements); `last_div` > 1 is the aligned specialization (the last
/// dim of both a multiple of it).
const fn params(dtype: DType, ndim: usize, stride_div: i64, last_div: i64) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(
            TensorSpec::input("x", dtype, ndim).unit_last().align(16).stride_div(stride_div, 1).shape_div(ndim - 1, last_div),
        ),
        ParamSpec::Tensor(
            TensorSpec::output("y", dtype, ndim).unit_last().align(16).stride_div(stride_div, 1).shape_div(ndim - 1, last_div),
        ),
    ]
}

const fn variant(name: &'static str, entry: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant { op: OP, name, module: "transpose_kernel", entry, generic_names: &["E", "TM", "TN"], generics, params }
}

// Generics: <E, TM, TN>.
pub static F16_TILE_64X64: Variant =
    variant("f16_tile_64x64", "transpose_2d", &["f16", "64", "64"], &params(DType::F16, 2, 8, 1));
pub static BF16_ORDER_64X64: Variant =
    variant("bf16_order_64x64", "transpose_2d_order", &["bf16", "64", "64"], &params(DType::BF16, 2, 8, 1));
pub static F32_TILE_32X64: Variant =
    variant("f32_tile_32x64", "transpose_2d", &["f32", "32", "64"], &params(DType::F32, 2, 4, 1));
pub static BF16_BATCHED_64X64: Variant =
    variant("bf16_batched_64x64", "transpose_batched", &["bf16", "64", "64"], &params(DType::BF16, 3, 8, 1));
pub static F16_TILE_A8_64X64: Variant =
    variant("f16_tile_a8_64x64", "transpose_2d", &["f16", "64", "64"], &params(DType::F16, 2, 8, 8));
pub static BF16_ORDER_A8_64X64: Variant =
    variant("bf16_order_a8_64x64", "transpose_2d_order", &["bf16", "64", "64"], &params(DType::BF16, 2, 8, 8));
pub static BF16_BATCHED_A8_64X64: Variant =
    variant("bf16_batched_a8_64x64", "transpose_batched", &["bf16", "64", "64"], &params(DType::BF16, 3, 8, 8));

pub static VARIANTS: &[&Variant] = &[
    &F16_TILE_64X64,
    &BF16_ORDER_64X64,
    &F32_TILE_32X64,
    &BF16_BATCHED_64X64,
    &F16_TILE_A8_64X64,
    &BF16_ORDER_A8_64X64,
    &BF16_BATCHED_A8_64X64,
];

/// The kernels `cutile_transpose` launches.
pub const ENTRIES: &[&str] = &["transpose_2d", "transpose_2d_order", "transpose_batched"];

/// Candidates for a rank and dtype, most specific first (analysis.json `selects_when`): f16
/// 2-D takes the in-register transpose, bf16 2-D the transposed load, f32 2-D the 32x64 tile,
/// bf16 3-D the batched kernel; the aligned variant first where the last dims (M and N) and the
/// row strides are multiples of 8 elements. Other combinations have no variant.
pub fn candidates(rank: usize, dtype: DType) -> &'static [&'static Variant] {
    static F16_2D: [&Variant; 2] = [&F16_TILE_A8_64X64, &F16_TILE_64X64];
    static BF16_2D: [&Variant; 2] = [&BF16_ORDER_A8_64X64, &BF16_ORDER_64X64];
    static F32_2D: [&Variant; 1] = [&F32_TILE_32X64];
    static BF16_3D: [&Variant; 2] = [&BF16_BATCHED_A8_64X64, &BF16_BATCHED_64X64];
    match (rank, dtype) {
        (2, DType::F16) => &F16_2D,
        (2, DType::BF16) => &BF16_2D,
        (2, DType::F32) => &F32_2D,
        (3, DType::BF16) => &BF16_3D,
        _ => &[],
    }
}
