//! Grouped GEMM over G problems sharing K and N (reference/group_gemm): c[rows of g] =
//! a[rows of g] @ op(w[g]), the group boundaries in a device int32 offsets array.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "group_gemm";

pub const GATHER: &str = "group_gemm";
pub const SLICED: &str = "group_gemm_sliced";
pub const SLICED_W8: &str = "group_gemm_sliced_w8";
/// The kernels `cutile_group_gemm` launches.
pub const ENTRIES: [&str; 3] = [GATHER, SLICED, SLICED_W8];

/// a (T, K), w (G, K, N) or (G, N, K), c (T, N): unit last stride, leading strides multiples
/// of 8 elements (16 bytes), 16-byte bases; offsets (G + 1,) int32, contiguous, 16-byte base.
/// bf16's c also has rows (N) a multiple of 8 elements (`c_rows_div`, the reference's
/// `shape_divisible_by`): tileiras then stores the output tile with stmatrix and TMA, 1.4-1.9 %
/// faster for the launched w8 kernels on the H100; f16's 64x128 kernel ran 2.4 % slower with it
/// (docs/results/tuning.md, session 27), so f16 does not declare it.
const fn params(dtype: DType, c_rows_div: i64) -> [ParamSpec; 4] {
    [
        ParamSpec::Tensor(TensorSpec::input("a", dtype, 2).unit_last().align(16).stride_div(8, 1)),
        ParamSpec::Tensor(TensorSpec::input("w", dtype, 3).unit_last().align(16).stride_div(8, 1)),
        ParamSpec::Tensor(TensorSpec::input("offsets", DType::I32, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("c", dtype, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, c_rows_div)),
    ]
}

const BF16: [ParamSpec; 4] = params(DType::BF16, 8);
const F16: [ParamSpec; 4] = params(DType::F16, 1);

const fn variant(entry: &'static str, name: &'static str, generics: &'static [&'static str], dtype: DType) -> Variant {
    Variant {
        op: OP,
        name,
        module: "group_gemm_kernel",
        entry,
        generic_names: &["E", "BM", "BN", "BK", "TRANS_W"],
        generics,
        params: match dtype {
            DType::F16 => &F16,
            _ => &BF16,
        },
    }
}

// Generics: <E, BM, BN, BK, TRANS_W>.
pub static BF16_KN_128X128X64: Variant =
    variant(GATHER, "bf16_kn_128x128x64", &["bf16", "128", "128", "64", "0"], DType::BF16);
pub static BF16_NK_128X128X64: Variant =
    variant(GATHER, "bf16_nk_128x128x64", &["bf16", "128", "128", "64", "1"], DType::BF16);
pub static F16_NK_64X128X64: Variant =
    variant(GATHER, "f16_nk_64x128x64", &["f16", "64", "128", "64", "1"], DType::F16);
pub static BF16_KN_SLICED_128X128X64: Variant =
    variant(SLICED, "bf16_kn_sliced_128x128x64", &["bf16", "128", "128", "64", "0"], DType::BF16);
pub static BF16_NK_SLICED_128X128X64: Variant =
    variant(SLICED, "bf16_nk_sliced_128x128x64", &["bf16", "128", "128", "64", "1"], DType::BF16);
pub static F16_NK_SLICED_64X128X64: Variant =
    variant(SLICED, "f16_nk_sliced_64x128x64", &["f16", "64", "128", "64", "1"], DType::F16);
pub static BF16_KN_SLICED_W8_128X256X64: Variant =
    variant(SLICED_W8, "bf16_kn_sliced_w8_128x256x64", &["bf16", "128", "256", "64", "0"], DType::BF16);
pub static BF16_NK_SLICED_W8_128X256X64: Variant =
    variant(SLICED_W8, "bf16_nk_sliced_w8_128x256x64", &["bf16", "128", "256", "64", "1"], DType::BF16);

pub static VARIANTS: &[&Variant] = &[
    &BF16_KN_128X128X64,
    &BF16_NK_128X128X64,
    &F16_NK_64X128X64,
    &BF16_KN_SLICED_128X128X64,
    &BF16_NK_SLICED_128X128X64,
    &F16_NK_SLICED_64X128X64,
    &BF16_KN_SLICED_W8_128X256X64,
    &BF16_NK_SLICED_W8_128X256X64,
];

/// The launcher's rule (`select_variant` in reference/group_gemm/kernel.py), measured on the
/// GPU (scripts/gpu/bench_selection.py, docs/results/selection.json): the sliced kernels (plain
/// tiled loads of the group's row range) beat the gather kernel at every size, 2.1-5.0x for
/// bf16: bf16 takes the sliced 128x256x64 on two consumer warpgroups, f16 (only (G, N, K)
/// weights) the sliced 64x128x64. They trust the offsets (the caller's contract, see
/// `cutile_group_gemm`); the gather kernels, which read zeros outside [0, T), and the one-
/// warpgroup bf16 sliced 128x128x64 run only when forced.
pub fn candidates(dtype: DType, trans_w: bool) -> &'static [&'static Variant] {
    static BF16_KN: [&Variant; 1] = [&BF16_KN_SLICED_W8_128X256X64];
    static BF16_NK: [&Variant; 1] = [&BF16_NK_SLICED_W8_128X256X64];
    static F16_NK: [&Variant; 1] = [&F16_NK_SLICED_64X128X64];
    match (dtype, trans_w) {
        (DType::BF16, false) => &BF16_KN,
        (DType::BF16, true) => &BF16_NK,
        (DType::F16, true) => &F16_NK,
        _ => &[],
    }
}
