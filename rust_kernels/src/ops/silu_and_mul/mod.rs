//! silu_and_mul: out = silu(x[:, :H]) * x[:, H:] (reference/silu_and_mul), the gated-MLP
//! activation. The kernel reads x (M, 2H) as its (M, 2, H) view.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "silu_and_mul";

/// x: the (M, 2, H) view, last dim contiguous, other strides free; out: (M, H), rows strided,
/// columns contiguous; 16-byte aligned bases. `a8`: the aligned specialization, where H and
/// every row stride (x's middle stride H included) are multiples of 8 elements.
const fn params(dtype: DType, a8: bool) -> [ParamSpec; 2] {
    let x = TensorSpec::input("x", dtype, 3).unit_last().align(16);
    let out = TensorSpec::output("out", dtype, 2).unit_last().align(16);
    if a8 {
        [
            ParamSpec::Tensor(x.stride_div(8, 1).shape_div(2, 8)),
            ParamSpec::Tensor(out.stride_div(8, 1).shape_div(1, 8)),
        ]
    } else {
        [ParamSpec::Tensor(x), ParamSpec::Tensor(out)]
    }
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    entry_variant("silu_and_mul", name, generics, params)
}

/// The approximate-math kernel (`silu_and_mul_fast`), 16-bit dtypes, aligned only.
const fn fast(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    entry_variant("silu_and_mul_fast", name, generics, params)
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
        module: "silu_and_mul_kernel",
        entry,
        generic_names: &["E", "TILE_M", "TILE_H"],
        generics,
        params,
    }
}

// Generics: <E, TILE_M, TILE_H>.
pub static F16_M8_H512: Variant = variant("f16_m8_h512", &["f16", "8", "512"], &params(DType::F16, false));
pub static BF16_M8_H512: Variant = variant("bf16_m8_h512", &["bf16", "8", "512"], &params(DType::BF16, false));
pub static F32_M8_H512: Variant = variant("f32_m8_h512", &["f32", "8", "512"], &params(DType::F32, false));
pub static F16_A8_M8_H512: Variant = variant("f16_a8_m8_h512", &["f16", "8", "512"], &params(DType::F16, true));
pub static BF16_A8_M8_H512: Variant = variant("bf16_a8_m8_h512", &["bf16", "8", "512"], &params(DType::BF16, true));
pub static F32_A8_M8_H512: Variant = variant("f32_a8_m8_h512", &["f32", "8", "512"], &params(DType::F32, true));

pub static F16_A8_FAST_M1_H1024: Variant =
    fast("f16_a8_fast_m1_h1024", &["f16", "1", "1024"], &params(DType::F16, true));
pub static BF16_A8_FAST_M1_H1024: Variant =
    fast("bf16_a8_fast_m1_h1024", &["bf16", "1", "1024"], &params(DType::BF16, true));

pub static VARIANTS: &[&Variant] = &[
    &F16_M8_H512,
    &BF16_M8_H512,
    &F32_M8_H512,
    &F16_A8_M8_H512,
    &BF16_A8_M8_H512,
    &F32_A8_M8_H512,
    &F16_A8_FAST_M1_H1024,
    &BF16_A8_FAST_M1_H1024,
];

/// Candidates for a dtype, most specific first (`select_variant` in
/// reference/silu_and_mul/kernel.py): for 16-bit the `_fast` kernel (its (1, 1024) tiles won
/// every measured shape), then the aligned variant when H and the row strides are multiples of 8,
/// else the general one.
pub fn candidates(dtype: DType) -> &'static [&'static Variant] {
    static F16: [&Variant; 3] = [&F16_A8_FAST_M1_H1024, &F16_A8_M8_H512, &F16_M8_H512];
    static BF16: [&Variant; 3] = [&BF16_A8_FAST_M1_H1024, &BF16_A8_M8_H512, &BF16_M8_H512];
    static F32: [&Variant; 2] = [&F32_A8_M8_H512, &F32_M8_H512];
    match dtype {
        DType::F16 => &F16,
        DType::BF16 => &BF16,
        DType::F32 => &F32,
        _ => &[],
    }
}
