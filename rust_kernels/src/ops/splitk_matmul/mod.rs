//! Split-K GEMM c = a @ b (reference/splitk_matmul): `splitk_partial` writes S f32 partial
//! products over contiguous K-tile ranges, `splitk_reduce` sums them and casts. One C call,
//! `cutile_splitk_matmul`, launches both on the caller's stream into the caller's slabs.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "splitk_matmul";

/// The f32 slabs (S, M, N): unit last stride, slab and row strides multiples of 4 elements.
const fn slabs(output: bool) -> TensorSpec {
    let spec =
        if output { TensorSpec::output("partial", DType::F32, 3) } else { TensorSpec::input("partial", DType::F32, 3) };
    spec.unit_last().align(16).stride_div(4, 1)
}

/// a (M, K), b (K, N) row-major with 16-byte rows and bases; the slabs written.
const fn partial_params(dtype: DType) -> [ParamSpec; 3] {
    [
        ParamSpec::Tensor(TensorSpec::input("a", dtype, 2).unit_last().align(16).stride_div(8, 1)),
        ParamSpec::Tensor(TensorSpec::input("b", dtype, 2).unit_last().align(16).stride_div(8, 1)),
        ParamSpec::Tensor(slabs(true)),
    ]
}

/// The slabs read, c (M, N) written.
const fn reduce_params(dtype: DType) -> [ParamSpec; 2] {
    [
        ParamSpec::Tensor(slabs(false)),
        ParamSpec::Tensor(TensorSpec::output("c", dtype, 2).unit_last().align(16).stride_div(8, 1)),
    ]
}

const fn partial(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "splitk_matmul_kernel",
        entry: "splitk_partial",
        generic_names: &["E", "BM", "BN", "BK"],
        generics,
        params,
    }
}

const fn reduce(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "splitk_matmul_kernel",
        entry: "splitk_reduce",
        generic_names: &["EOut", "TM", "TN"],
        generics,
        params,
    }
}

/// The kernels `cutile_splitk_matmul` launches, in launch order.
pub const PARTIAL_ENTRY: &str = "splitk_partial";
pub const REDUCE_ENTRY: &str = "splitk_reduce";

// splitk_partial generics: <E, BM, BN, BK>; splitk_reduce: <EOut, TM, TN>.
pub static PARTIAL_F16_64X128X64: Variant =
    partial("partial_f16_64x128x64", &["f16", "64", "128", "64"], &partial_params(DType::F16));
pub static REDUCE_F16_64X128: Variant = reduce("reduce_f16_64x128", &["f16", "64", "128"], &reduce_params(DType::F16));
pub static PARTIAL_BF16_64X128X64: Variant =
    partial("partial_bf16_64x128x64", &["bf16", "64", "128", "64"], &partial_params(DType::BF16));
pub static REDUCE_BF16_64X128: Variant =
    reduce("reduce_bf16_64x128", &["bf16", "64", "128"], &reduce_params(DType::BF16));
pub static REDUCE_F16_4X256: Variant = reduce("reduce_f16_4x256", &["f16", "4", "256"], &reduce_params(DType::F16));
pub static REDUCE_BF16_4X256: Variant = reduce("reduce_bf16_4x256", &["bf16", "4", "256"], &reduce_params(DType::BF16));

pub static VARIANTS: &[&Variant] = &[
    &PARTIAL_F16_64X128X64,
    &REDUCE_F16_64X128,
    &PARTIAL_BF16_64X128X64,
    &REDUCE_BF16_64X128,
    &REDUCE_F16_4X256,
    &REDUCE_BF16_4X256,
];

/// The (partial, reduce) pair for the operands' dtype, the rule of `select_variant` in
/// reference/splitk_matmul/kernel.py: the dtype's one partial kernel, and the 4x256 reduce at
/// every shape (H200, M=64, N=4096, S=16: 16.2 vs 108.8 us f16, 15.8 vs 108.8 us bf16 for
/// 64x128, whose 32 blocks leave most of the 132 SMs idle; split-K is for small M * N). The
/// 64x128 reduce runs only when forced.
pub fn candidates(dtype: DType) -> Option<(&'static Variant, &'static Variant)> {
    match dtype {
        DType::F16 => Some((&PARTIAL_F16_64X128X64, &REDUCE_F16_4X256)),
        DType::BF16 => Some((&PARTIAL_BF16_64X128X64, &REDUCE_BF16_4X256)),
        _ => None,
    }
}
