//! Rotary position embedding of q and k, out of place (reference/rope).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "rope";

/// positions (T,) int32; q, k, q_out, k_out (T, H, D) with the head and token strides
/// multiples of 8 elements (16-byte rows); the f32 cos/sin tables (P, D/2) with the row
/// stride a multiple of 4 elements; every base 16-byte aligned.
const fn heads(spec: TensorSpec, d_div: i64) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(16).stride_div(8, 1).shape_div(2, d_div))
}

const fn table(name: &'static str) -> ParamSpec {
    ParamSpec::Tensor(TensorSpec::input(name, DType::F32, 2).unit_last().align(16).stride_div(4, 1))
}

/// `d_div`: D a multiple of it (8: the `_split` variants' 16-byte accesses; 1: runtime D).
const fn params(dtype: DType, d_div: i64) -> [ParamSpec; 7] {
    [
        ParamSpec::Tensor(TensorSpec::input("positions", DType::I32, 1).unit_last().align(16)),
        heads(TensorSpec::input("q", dtype, 3), d_div),
        heads(TensorSpec::input("k", dtype, 3), d_div),
        table("cos_table"),
        table("sin_table"),
        heads(TensorSpec::output("q_out", dtype, 3), d_div),
        heads(TensorSpec::output("k_out", dtype, 3), d_div),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rope_kernel",
        entry: "rope",
        generic_names: &["E", "BT", "TH", "D", "HALF_D", "IS_NEOX"],
        generics,
        params,
    }
}

/// The tuned rotate-half kernel (rope_neox_split: halves as own tiles, occupancy 4).
const fn split_variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        entry: "rope_neox_split",
        generic_names: &["E", "BT", "TH", "D", "HALF_D"],
        ..variant(name, generics, params)
    }
}

// Generics: <E, BT, TH, D, HALF_D, IS_NEOX>.
pub static BF16_NEOX_D128: Variant =
    variant("bf16_neox_d128", &["bf16", "8", "8", "128", "64", "1"], &params(DType::BF16, 1));
pub static F16_NEOX_D64: Variant = variant("f16_neox_d64", &["f16", "16", "8", "64", "32", "1"], &params(DType::F16, 1));
pub static BF16_GPTJ_D128: Variant =
    variant("bf16_gptj_d128", &["bf16", "8", "8", "128", "64", "0"], &params(DType::BF16, 1));
// Tuned (docs/results/tuning.md): with D divisible by 8 each thread's 16-byte vector holds whole
// interleaved pairs, so the pair split needs no shared memory; TH=2 keeps 128 registers.
pub static BF16_GPTJ_D128_A8_TH2: Variant =
    variant("bf16_gptj_d128_a8_th2", &["bf16", "8", "2", "128", "64", "0"], &params(DType::BF16, 8));
// Generics: <E, BT, TH, D, HALF_D>; rotate-half only.
pub static BF16_NEOX_D128_SPLIT: Variant =
    split_variant("bf16_neox_d128_split", &["bf16", "8", "4", "128", "64"], &params(DType::BF16, 8));
pub static F16_NEOX_D64_SPLIT: Variant =
    split_variant("f16_neox_d64_split", &["f16", "16", "4", "64", "32"], &params(DType::F16, 8));

/// `rope` under occupancy 8 (kernel.py `rope_o8`).
const fn o8_variant(
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant { entry: "rope_o8", ..variant(name, generics, params) }
}

/// `rope_neox_split` under occupancy 8 (kernel.py `rope_neox_split_o8`).
const fn split_o8_variant(
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant { entry: "rope_neox_split_o8", ..split_variant(name, generics, params) }
}

// Occupancy 8 (docs/results/tuning.md, "rope at occupancy 8"): 8 blocks of 4 warps per SM, 64
// registers, tiles of 1024-2048 elements; forced only until the GPU run times them.
pub static BF16_GPTJ_D128_A8_BT4_TH2_O8: Variant =
    o8_variant("bf16_gptj_d128_a8_bt4_th2_o8", &["bf16", "4", "2", "128", "64", "0"], &params(DType::BF16, 8));
pub static BF16_GPTJ_D128_A8_TH2_O8: Variant =
    o8_variant("bf16_gptj_d128_a8_th2_o8", &["bf16", "8", "2", "128", "64", "0"], &params(DType::BF16, 8));
pub static BF16_NEOX_D128_SPLIT_BT4_O8: Variant =
    split_o8_variant("bf16_neox_d128_split_bt4_o8", &["bf16", "4", "4", "128", "64"], &params(DType::BF16, 8));
pub static BF16_NEOX_D128_SPLIT_BT2_TH8_O8: Variant =
    split_o8_variant("bf16_neox_d128_split_bt2_th8_o8", &["bf16", "2", "8", "128", "64"], &params(DType::BF16, 8));
pub static F16_NEOX_D64_SPLIT_BT8_O8: Variant =
    split_o8_variant("f16_neox_d64_split_bt8_o8", &["f16", "8", "4", "64", "32"], &params(DType::F16, 8));
pub static F16_NEOX_D64_SPLIT_BT4_TH8_O8: Variant =
    split_o8_variant("f16_neox_d64_split_bt4_th8_o8", &["f16", "4", "8", "64", "32"], &params(DType::F16, 8));

pub static VARIANTS: &[&Variant] = &[
    &BF16_NEOX_D128,
    &F16_NEOX_D64,
    &BF16_GPTJ_D128,
    &BF16_NEOX_D128_SPLIT,
    &F16_NEOX_D64_SPLIT,
    &BF16_GPTJ_D128_A8_TH2,
    &BF16_GPTJ_D128_A8_BT4_TH2_O8,
    &BF16_GPTJ_D128_A8_TH2_O8,
    &BF16_NEOX_D128_SPLIT_BT4_O8,
    &BF16_NEOX_D128_SPLIT_BT2_TH8_O8,
    &F16_NEOX_D64_SPLIT_BT8_O8,
    &F16_NEOX_D64_SPLIT_BT4_TH8_O8,
];

/// What the launcher chooses from (reference/rope/kernel.py `select_variant`): the occupancy-8
/// variants, within 1.02x of the fastest for their (dtype, D, pairing) on the H100 grid (the
/// occupancy-4 tuned variants 1.08-2.64x, the untuned ones 5-18x); the others run only when forced.
static LAUNCHER_CHOICES: &[&Variant] =
    &[&BF16_NEOX_D128_SPLIT_BT2_TH8_O8, &F16_NEOX_D64_SPLIT_BT4_TH8_O8, &BF16_GPTJ_D128_A8_BT4_TH2_O8];

/// 1 for rotate-half pairs, 0 for interleaved: the `IS_NEOX` generic, or 1 for the split kernels.
pub fn is_neox_of(v: &Variant) -> i64 {
    if v.entry.starts_with("rope_neox_split") { 1 } else { v.constant("IS_NEOX") }
}

/// The reference launcher's choice (reference/rope/kernel.py `select_variant`): the one
/// variant of LAUNCHER_CHOICES built for (dtype, head dim, pairing); None for any other combination.
pub fn choose(dtype: DType, head_dim: i64, is_neox: bool) -> Option<&'static Variant> {
    LAUNCHER_CHOICES.iter().copied().find(|v| {
        v.tensor_specs().nth(1).map(|q| q.dtype) == Some(dtype)
            && v.constant("D") == head_dim
            && (is_neox_of(v) == 1) == is_neox
    })
}
