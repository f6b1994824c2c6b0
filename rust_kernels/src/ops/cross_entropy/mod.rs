//! Per-row cross-entropy with a fused logsumexp (reference/cross_entropy): loss and lse.

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "cross_entropy";

/// logits: rows strided, columns contiguous; target (int64), loss, lse (float32): contiguous;
/// all 16-byte aligned. `multiple` > 1: logits' last dim and row stride are multiples of it
/// (8 for the 16-bit `_a8` variants, 4 for the f32 `_a4` ones: 16-byte rows).
const fn params(dtype: DType, multiple: i64) -> [ParamSpec; 4] {
    let logits = TensorSpec::input("logits", dtype, 2).unit_last().align(16);
    let logits = if multiple > 1 { logits.stride_div(multiple, 1).shape_div(1, multiple) } else { logits };
    [
        ParamSpec::Tensor(logits),
        ParamSpec::Tensor(TensorSpec::input("target", DType::I64, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("loss", DType::F32, 1).unit_last().align(16)),
        ParamSpec::Tensor(TensorSpec::output("lse", DType::F32, 1).unit_last().align(16)),
    ]
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    fast("cross_entropy_fwd", name, generics, params)
}

/// A variant of `entry`: `cross_entropy_fwd` or one of the `cross_entropy_fast_o*` entries.
const fn fast(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "cross_entropy_kernel",
        entry,
        generic_names: &["E", "TILE_V", "IGNORE_INDEX"],
        generics,
        params,
    }
}

/// Rows whose target is this get loss 0 (torch's default `ignore_index`).
pub const IGNORE_INDEX: i64 = -100;

// Generics: <E, TILE_V, IGNORE_INDEX>.
pub static F16_V2048: Variant = variant("f16_v2048", &["f16", "2048", "-100"], &params(DType::F16, 1));
pub static BF16_V2048: Variant = variant("bf16_v2048", &["bf16", "2048", "-100"], &params(DType::BF16, 1));
pub static F32_V2048: Variant = variant("f32_v2048", &["f32", "2048", "-100"], &params(DType::F32, 1));
pub static BF16_A8_V2048: Variant = variant("bf16_a8_v2048", &["bf16", "2048", "-100"], &params(DType::BF16, 8));

// The `_fast` kernels (docs/results/tuning.md, "cross_entropy: `_fast` kernels"): one block max per
// tile, a (1, TILE_V) accumulator of exponentials, the target logit loaded once; occupancy hints.
pub static F16_A8_FAST_V2048: Variant =
    fast("cross_entropy_fast_o8", "f16_a8_fast_v2048", &["f16", "2048", "-100"], &params(DType::F16, 8));
pub static F16_A8_FAST_V4096: Variant =
    fast("cross_entropy_fast_o4", "f16_a8_fast_v4096", &["f16", "4096", "-100"], &params(DType::F16, 8));
pub static F16_A8_FAST_V8192: Variant =
    fast("cross_entropy_fast_o2", "f16_a8_fast_v8192", &["f16", "8192", "-100"], &params(DType::F16, 8));
pub static BF16_A8_FAST_V2048: Variant =
    fast("cross_entropy_fast_o8", "bf16_a8_fast_v2048", &["bf16", "2048", "-100"], &params(DType::BF16, 8));
pub static BF16_A8_FAST_V4096: Variant =
    fast("cross_entropy_fast_o4", "bf16_a8_fast_v4096", &["bf16", "4096", "-100"], &params(DType::BF16, 8));
pub static BF16_A8_FAST_V8192: Variant =
    fast("cross_entropy_fast_o2", "bf16_a8_fast_v8192", &["bf16", "8192", "-100"], &params(DType::BF16, 8));
pub static F32_A4_FAST_V1024: Variant =
    fast("cross_entropy_fast_o8", "f32_a4_fast_v1024", &["f32", "1024", "-100"], &params(DType::F32, 4));
pub static F32_A4_FAST_V2048: Variant =
    fast("cross_entropy_fast_o8", "f32_a4_fast_v2048", &["f32", "2048", "-100"], &params(DType::F32, 4));
pub static F32_A4_FAST_V4096: Variant =
    fast("cross_entropy_fast_o4", "f32_a4_fast_v4096", &["f32", "4096", "-100"], &params(DType::F32, 4));

/// Every kernel `cutile_cross_entropy` launches (one row per block each).
pub const ENTRIES: [&str; 4] =
    ["cross_entropy_fwd", "cross_entropy_fast_o8", "cross_entropy_fast_o4", "cross_entropy_fast_o2"];

pub static VARIANTS: &[&Variant] = &[
    &F16_V2048,
    &BF16_V2048,
    &F32_V2048,
    &BF16_A8_V2048,
    &F16_A8_FAST_V2048,
    &F16_A8_FAST_V4096,
    &F16_A8_FAST_V8192,
    &BF16_A8_FAST_V2048,
    &BF16_A8_FAST_V4096,
    &BF16_A8_FAST_V8192,
    &F32_A4_FAST_V1024,
    &F32_A4_FAST_V2048,
    &F32_A4_FAST_V4096,
];

/// The `_fast` variant for m rows of v columns (reference/cross_entropy/kernel.py `_select_fast`),
/// which takes aligned rows only (16-bit: v and the row stride multiples of 8; f32: of 4).
fn fast_choice(dtype: DType, m: i64, v: i64) -> Option<&'static Variant> {
    if dtype == DType::F32 {
        return Some(if v <= 1024 {
            &F32_A4_FAST_V1024
        } else if v <= 4096 {
            &F32_A4_FAST_V2048
        } else {
            &F32_A4_FAST_V4096
        });
    }
    let (v2048, v4096, v8192) = match dtype {
        DType::F16 => (&F16_A8_FAST_V2048, &F16_A8_FAST_V4096, &F16_A8_FAST_V8192),
        DType::BF16 => (&BF16_A8_FAST_V2048, &BF16_A8_FAST_V4096, &BF16_A8_FAST_V8192),
        _ => return None,
    };
    // One row is one block: few rows (under four blocks per SM) take the wider tile.
    let few_rows = m <= 512;
    Some(if v <= 2048 {
        v2048
    } else if v <= 4096 {
        if few_rows { v4096 } else { v2048 }
    } else if few_rows {
        v8192
    } else {
        v4096
    })
}

/// The untuned variant of the dtype (any row stride).
fn untuned_choice(dtype: DType) -> Option<&'static Variant> {
    match dtype {
        DType::F16 => Some(&F16_V2048),
        DType::BF16 => Some(&BF16_V2048),
        DType::F32 => Some(&F32_V2048),
        _ => None,
    }
}

/// The reference launcher's choice for m rows of v columns (reference/cross_entropy/kernel.py
/// `select_variant`), most specific first: the `_fast` variant for the shape, which takes aligned
/// rows only, then the untuned one, which takes any row stride. `bf16_a8_v2048` runs only when
/// forced.
pub fn candidates(dtype: DType, m: i64, v: i64) -> Vec<&'static Variant> {
    fast_choice(dtype, m, v).into_iter().chain(untuned_choice(dtype)).collect()
}
