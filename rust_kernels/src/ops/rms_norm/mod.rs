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

const fn fwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rms_norm_kernel",
        entry: "rms_norm_fwd",
        generic_names: &["E", "TILE_M", "TILE_N"],
        generics,
        params,
    }
}

const fn looped(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rms_norm_kernel",
        entry: "rms_norm_fwd_looped",
        generic_names: &["E", "TILE_N"],
        generics,
        params,
    }
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

const fn bwd(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    Variant {
        op: OP,
        name,
        module: "rms_norm_kernel",
        entry: "rms_norm_bwd",
        generic_names: &["E", "TILE_M", "TILE_N", "ROW_TILES"],
        generics,
        params,
    }
}

// rms_norm_bwd generics: <E, TILE_M, TILE_N, ROW_TILES>.
pub static BWD_F16_M4_N1024: Variant = bwd("bwd_f16_m4_n1024", &["f16", "4", "1024", "16"], &bwd_params(DType::F16));
pub static BWD_BF16_M4_N1024: Variant =
    bwd("bwd_bf16_m4_n1024", &["bf16", "4", "1024", "16"], &bwd_params(DType::BF16));
pub static BWD_F32_M4_N1024: Variant = bwd("bwd_f32_m4_n1024", &["f32", "4", "1024", "16"], &bwd_params(DType::F32));

/// Rows of x each backward block covers (TILE_M * ROW_TILES of every bwd variant): dw_partial
/// has ceil(M / BWD_ROWS_PER_BLOCK) rows.
pub const BWD_ROWS_PER_BLOCK: i64 = 64;

pub fn choose_bwd(dtype: DType) -> Option<&'static Variant> {
    match dtype {
        DType::F16 => Some(&BWD_F16_M4_N1024),
        DType::BF16 => Some(&BWD_BF16_M4_N1024),
        DType::F32 => Some(&BWD_F32_M4_N1024),
        _ => None,
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
];

/// The reference's host-side choice: several rows per block up to 1024 columns, one row
/// in one tile up to 8192, the looped kernel beyond.
pub fn choose(dtype: DType, n: i64) -> Option<&'static Variant> {
    let by_dtype = match dtype {
        DType::F16 => [&FWD_F16_M4_N1024, &FWD_F16_M1_N8192, &FWD_LOOPED_F16_N2048],
        DType::BF16 => [&FWD_BF16_M4_N1024, &FWD_BF16_M1_N8192, &FWD_LOOPED_BF16_N2048],
        DType::F32 => [&FWD_F32_M4_N1024, &FWD_F32_M1_N8192, &FWD_LOOPED_F32_N2048],
        _ => return None,
    };
    Some(if n <= 1024 {
        by_dtype[0]
    } else if n <= 8192 {
        by_dtype[1]
    } else {
        by_dtype[2]
    })
}
