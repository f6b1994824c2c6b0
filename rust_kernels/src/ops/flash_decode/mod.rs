//! Split-KV decode attention, partial + combine (reference/flash_decode). One C call launches
//! both kernels in order on the caller's stream, into the caller's partial_o / partial_lse.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "flash_decode";
pub const PARTIAL: &str = "flash_decode_partial";
pub const COMBINE: &str = "flash_decode_combine";
pub const COMBINE_O8: &str = "flash_decode_combine_o8";
/// The kernels that can run the combine stage.
pub const COMBINE_ENTRIES: [&str; 2] = [COMBINE, COMBINE_O8];
pub const PARTIAL_TP: &str = "flash_decode_partial_tp";
pub const PARTIAL_TP_O4: &str = "flash_decode_partial_tp_o4";
pub const PARTIAL_V: &str = "flash_decode_partial_v";
/// The kernels that can run the partial stage (a forced variant of any of them replaces the pick).
pub const PARTIAL_ENTRIES: [&str; 4] = [PARTIAL, PARTIAL_TP, PARTIAL_TP_O4, PARTIAL_V];

/// 16-bit q (B, Hq, D), k, v (B, Hkv, Smax, D): unit last stride, the others multiples of 8
/// elements, 16-byte aligned.
const fn kv_input(name: &'static str, dtype: DType, ndim: usize) -> ParamSpec {
    ParamSpec::Tensor(TensorSpec::input(name, dtype, ndim).unit_last().align(16).stride_div(8, 1))
}

/// partial_o (B, Hq, S, D) f32: unit last stride, the others multiples of 4, 16-byte aligned.
const fn partial_o(spec: TensorSpec) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(16).stride_div(4, 1))
}

/// partial_lse (B, Hq, S) f32: unit last stride, 4-byte aligned, no stride assumption (S is arbitrary).
const fn partial_lse(spec: TensorSpec) -> ParamSpec {
    ParamSpec::Tensor(spec.unit_last().align(4))
}

const fn partial_params(dtype: DType) -> [ParamSpec; 7] {
    [
        kv_input("q", dtype, 3),
        kv_input("k", dtype, 4),
        kv_input("v", dtype, 4),
        ParamSpec::Tensor(TensorSpec::input("seq_lens", DType::I32, 1).unit_last().align(16)),
        partial_o(TensorSpec::output("partial_o", DType::F32, 4)),
        partial_lse(TensorSpec::output("partial_lse", DType::F32, 3)),
        ParamSpec::F32("sm_scale"),
    ]
}

const fn combine_params(dtype: DType) -> [ParamSpec; 3] {
    [
        partial_o(TensorSpec::input("partial_o", DType::F32, 4)),
        partial_lse(TensorSpec::input("partial_lse", DType::F32, 3)),
        ParamSpec::Tensor(TensorSpec::output("o", dtype, 3).unit_last().align(16).stride_div(8, 1)),
    ]
}

const fn partial(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "flash_decode_kernel",
        entry: PARTIAL,
        generic_names: &["E", "BN", "D", "QUERY_GROUP"],
        generics,
        params,
    }
}

const fn partial_tp(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    partial_tp_entry(PARTIAL_TP, name, generics, params)
}

/// A variant of flash_decode_partial_tp or its occupancy twin `entry` (one body).
const fn partial_tp_entry(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "flash_decode_kernel",
        entry,
        generic_names: &["E", "BN", "D", "QUERY_GROUP", "QUERY_PAD"],
        generics,
        params,
    }
}

const fn partial_v(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "flash_decode_kernel",
        entry: PARTIAL_V,
        generic_names: &["E", "BN", "D", "QUERY_GROUP"],
        generics,
        params,
    }
}

/// A variant of flash_decode_combine or its occupancy twin `entry` (one body).
const fn combine(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "flash_decode_kernel",
        entry,
        generic_names: &["EOut", "MAX_SPLITS", "D"],
        generics,
        params,
    }
}

// flash_decode_partial: <E, BN, D, QUERY_GROUP>; flash_decode_combine: <EOut, MAX_SPLITS, D>.
pub static PARTIAL_BF16_D128_G1: Variant =
    partial("partial_bf16_d128_g1", &["bf16", "128", "128", "1"], &partial_params(DType::BF16));
pub static PARTIAL_BF16_D128_G4: Variant =
    partial("partial_bf16_d128_g4", &["bf16", "128", "128", "4"], &partial_params(DType::BF16));
pub static PARTIAL_F16_D64_G8: Variant =
    partial("partial_f16_d64_g8", &["f16", "128", "64", "8"], &partial_params(DType::F16));
// flash_decode_partial_tp: <E, BN, D, QUERY_GROUP, QUERY_PAD>; flash_decode_partial_v: <E, BN, D, QUERY_GROUP>.
pub static TP_BF16_D128_G4_BN64: Variant =
    partial_tp("tp_bf16_d128_g4_bn64", &["bf16", "64", "128", "4", "8"], &partial_params(DType::BF16));
pub static TP_BF16_D128_G4_BN128: Variant =
    partial_tp("tp_bf16_d128_g4_bn128", &["bf16", "128", "128", "4", "8"], &partial_params(DType::BF16));
pub static TP_F16_D64_G8_BN64: Variant =
    partial_tp("tp_f16_d64_g8_bn64", &["f16", "64", "64", "8", "16"], &partial_params(DType::F16));
pub static TP_F16_D64_G8_BN128: Variant =
    partial_tp("tp_f16_d64_g8_bn128", &["f16", "128", "64", "8", "16"], &partial_params(DType::F16));
pub static TP_F16_D64_G8_BN64_O4: Variant = partial_tp_entry(
    PARTIAL_TP_O4,
    "tp_f16_d64_g8_bn64_o4",
    &["f16", "64", "64", "8", "16"],
    &partial_params(DType::F16),
);
pub static V_BF16_D128_G1_BN32: Variant =
    partial_v("v_bf16_d128_g1_bn32", &["bf16", "32", "128", "1"], &partial_params(DType::BF16));
pub static V_BF16_D128_G1_BN64: Variant =
    partial_v("v_bf16_d128_g1_bn64", &["bf16", "64", "128", "1"], &partial_params(DType::BF16));
pub static COMBINE_BF16_D128: Variant =
    combine(COMBINE, "combine_bf16_d128", &["bf16", "16", "128"], &combine_params(DType::BF16));
pub static COMBINE_BF16_D128_O8: Variant =
    combine(COMBINE_O8, "combine_bf16_d128_o8", &["bf16", "16", "128"], &combine_params(DType::BF16));
pub static COMBINE_F16_D64: Variant =
    combine(COMBINE, "combine_f16_d64", &["f16", "16", "64"], &combine_params(DType::F16));
pub static COMBINE_F16_D64_O8: Variant =
    combine(COMBINE_O8, "combine_f16_d64_o8", &["f16", "16", "64"], &combine_params(DType::F16));

pub static VARIANTS: &[&Variant] = &[
    &PARTIAL_BF16_D128_G1,
    &PARTIAL_BF16_D128_G4,
    &PARTIAL_F16_D64_G8,
    &TP_BF16_D128_G4_BN64,
    &TP_BF16_D128_G4_BN128,
    &TP_F16_D64_G8_BN64,
    &TP_F16_D64_G8_BN128,
    &TP_F16_D64_G8_BN64_O4,
    &V_BF16_D128_G1_BN32,
    &V_BF16_D128_G1_BN64,
    &COMBINE_BF16_D128,
    &COMBINE_BF16_D128_O8,
    &COMBINE_F16_D64,
    &COMBINE_F16_D64_O8,
];

/// The q/k/v (partial) or o (combine) dtype of a variant: its type generic.
fn dtype_of(v: &Variant) -> &'static str {
    v.generics[0]
}

/// The partials the launcher picks, one per (dtype, head dim, query group): measured fastest
/// (docs/results/selection.json): the vector form for one query head per kv head, the transposed
/// tensor-core form at BN 128 for four, at BN 64 with occupancy 4 for eight. The others run only
/// when forced.
static LAUNCHED_PARTIALS: [&Variant; 3] = [&V_BF16_D128_G1_BN64, &TP_BF16_D128_G4_BN128, &TP_F16_D64_G8_BN64_O4];

/// The reference launcher's choice (reference/flash_decode/kernel.py `select_variant`): the
/// partial kernel for (dtype, head dim, Hq / Hkv); None for any other combination.
pub fn choose_partial(dtype: DType, head_dim: i64, query_group: i64) -> Option<&'static Variant> {
    LAUNCHED_PARTIALS.iter().copied().find(|v| {
        dtype_of(v) == dtype.rust_name() && v.constant("D") == head_dim && v.constant("QUERY_GROUP") == query_group
    })
}

/// The combines the launcher picks, one per (dtype, head dim): the occupancy-8 twins (the unhinted
/// combine is 2.0-2.8x slower at the bench shapes; it runs only when forced).
static LAUNCHED_COMBINES: [&Variant; 2] = [&COMBINE_BF16_D128_O8, &COMBINE_F16_D64_O8];

/// The combine kernel for (dtype, head dim) that merges `splits` partials (S <= MAX_SPLITS).
pub fn choose_combine(dtype: DType, head_dim: i64, splits: i64) -> Option<&'static Variant> {
    LAUNCHED_COMBINES
        .iter()
        .copied()
        .find(|v| dtype_of(v) == dtype.rust_name() && v.constant("D") == head_dim && splits <= v.constant("MAX_SPLITS"))
}
