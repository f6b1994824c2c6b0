//! Batched GEMM c[z] = a[z] @ op(b[z]) (reference/bmm): kernels `bmm` and `bmm_w8`, one body
//! under two option sets, and `bmm_w8_persistent` (bmm_w8 on a grid of at most 132 blocks looping
//! over batch x tiles) (f16, bf16, f32 operands via tf32).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::DType;
use crate::ops::matmul::aligned_operands;
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "bmm";

/// a, b, c (B, ., .): matmul's aligned operands, rank 3 (batch and row strides multiples of 16
/// bytes, c's rows too).
const fn aligned(dtype: DType, stride_div: i64) -> [ParamSpec; 3] {
    aligned_operands(dtype, 3, stride_div)
}

/// A `bmm` or `bmm_w8` variant (the same body on one or two consumer warpgroups).
const fn variant(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "bmm_kernel",
        entry,
        generic_names: &["E", "BM", "BN", "BK", "GROUP_M", "TRANS_B", "CAST_TF32"],
        generics,
        params,
    }
}

/// `bmm_w8_persistent`: `bmm_w8`'s generics and NUM_BLOCKS (the grid's bound: one block an SM).
const fn variant_persistent(
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "bmm_kernel",
        entry: "bmm_w8_persistent",
        generic_names: &["E", "BM", "BN", "BK", "GROUP_M", "TRANS_B", "CAST_TF32", "NUM_BLOCKS"],
        generics,
        params,
    }
}

/// The kernels `cutile_bmm` launches.
pub const ENTRIES: [&str; 3] = ["bmm", "bmm_w8", "bmm_w8_persistent"];

// Generics: <E, BM, BN, BK, GROUP_M, TRANS_B, CAST_TF32>.
pub static F16_NN_128X128X64: Variant =
    variant("bmm", "f16_nn_128x128x64", &["f16", "128", "128", "64", "8", "0", "0"], &aligned(DType::F16, 8));
pub static BF16_NN_128X128X64: Variant =
    variant("bmm", "bf16_nn_128x128x64", &["bf16", "128", "128", "64", "8", "0", "0"], &aligned(DType::BF16, 8));
pub static BF16_NT_128X128X64: Variant =
    variant("bmm", "bf16_nt_128x128x64", &["bf16", "128", "128", "64", "8", "1", "0"], &aligned(DType::BF16, 8));
pub static F16_NN_64X64X64: Variant =
    variant("bmm", "f16_nn_64x64x64", &["f16", "64", "64", "64", "8", "0", "0"], &aligned(DType::F16, 8));
pub static TF32_NN_128X128X32: Variant =
    variant("bmm", "tf32_nn_128x128x32", &["f32", "128", "128", "32", "8", "0", "1"], &aligned(DType::F32, 4));
pub static BF16_NT_W8_128X256X64: Variant =
    variant("bmm_w8", "bf16_nt_w8_128x256x64", &["bf16", "128", "256", "64", "8", "1", "0"], &aligned(DType::BF16, 8));
pub static F16_NT_W8_128X256X64: Variant =
    variant("bmm_w8", "f16_nt_w8_128x256x64", &["f16", "128", "256", "64", "8", "1", "0"], &aligned(DType::F16, 8));
pub static TF32_NN_W8_256X128X32: Variant =
    variant("bmm_w8", "tf32_nn_w8_256x128x32", &["f32", "256", "128", "32", "8", "0", "1"], &aligned(DType::F32, 4));
pub static TF32_NT_W8_128X256X32: Variant =
    variant("bmm_w8", "tf32_nt_w8_128x256x32", &["f32", "128", "256", "32", "8", "1", "1"], &aligned(DType::F32, 4));
pub static TF32_NT_128X128X32: Variant =
    variant("bmm", "tf32_nt_128x128x32", &["f32", "128", "128", "32", "8", "1", "1"], &aligned(DType::F32, 4));
pub static BF16_NN_W8_128X256X64: Variant =
    variant("bmm_w8", "bf16_nn_w8_128x256x64", &["bf16", "128", "256", "64", "8", "0", "0"], &aligned(DType::BF16, 8));
pub static F16_NN_W8_128X256X64: Variant =
    variant("bmm_w8", "f16_nn_w8_128x256x64", &["f16", "128", "256", "64", "8", "0", "0"], &aligned(DType::F16, 8));
pub static F16_NN_W8_128X128X64: Variant =
    variant("bmm_w8", "f16_nn_w8_128x128x64", &["f16", "128", "128", "64", "8", "0", "0"], &aligned(DType::F16, 8));

// bmm_w8_persistent (session 29): the 128x256 w8 tiles on a 1-D grid of at most 132 blocks, each
// looping over batch x tiles; `candidate` takes these where it took the w8 ones and the batch has more
// tiles than that. Generics: <E, BM, BN, BK, GROUP_M, TRANS_B, CAST_TF32, NUM_BLOCKS>.
pub static F16_NN_W8P_128X256X64: Variant = variant_persistent(
    "f16_nn_w8p_128x256x64",
    &["f16", "128", "256", "64", "8", "0", "0", "132"],
    &aligned(DType::F16, 8),
);
pub static BF16_NN_W8P_128X256X64: Variant = variant_persistent(
    "bf16_nn_w8p_128x256x64",
    &["bf16", "128", "256", "64", "8", "0", "0", "132"],
    &aligned(DType::BF16, 8),
);
pub static F16_NT_W8P_128X256X64: Variant = variant_persistent(
    "f16_nt_w8p_128x256x64",
    &["f16", "128", "256", "64", "8", "1", "0", "132"],
    &aligned(DType::F16, 8),
);
pub static BF16_NT_W8P_128X256X64: Variant = variant_persistent(
    "bf16_nt_w8p_128x256x64",
    &["bf16", "128", "256", "64", "8", "1", "0", "132"],
    &aligned(DType::BF16, 8),
);
pub static TF32_NT_W8P_128X256X32: Variant = variant_persistent(
    "tf32_nt_w8p_128x256x32",
    &["f32", "128", "256", "32", "8", "1", "1", "132"],
    &aligned(DType::F32, 4),
);

pub static VARIANTS: &[&Variant] = &[
    &F16_NN_128X128X64,
    &BF16_NN_128X128X64,
    &BF16_NT_128X128X64,
    &F16_NN_64X64X64,
    &TF32_NN_128X128X32,
    &BF16_NT_W8_128X256X64,
    &F16_NT_W8_128X256X64,
    &TF32_NN_W8_256X128X32,
    &TF32_NT_W8_128X256X32,
    &TF32_NT_128X128X32,
    &BF16_NN_W8_128X256X64,
    &F16_NN_W8_128X256X64,
    &F16_NN_W8_128X128X64,
    &F16_NN_W8P_128X256X64,
    &BF16_NN_W8P_128X256X64,
    &F16_NT_W8P_128X256X64,
    &BF16_NT_W8P_128X256X64,
    &TF32_NT_W8P_128X256X32,
];

/// Matrices at most this large in M and N count as small: the launcher gives f16 ones 128x128
/// tiles (more blocks per batch) instead of the two-warpgroup 128x256 / 256x128 ones.
pub const SMALL_MN: i64 = 128;

/// The persistent kernel's grid cap (NUM_BLOCKS): batches of at most this many 128x256 output tiles
/// in all take the one-tile w8 kernel, larger ones its persistent form (reference/bmm/kernel.py
/// `PERSISTENT_GRID`).
pub const PERSISTENT_GRID: i64 = 132;

/// The candidate for (dtype, trans_b, batch, M, N), the rule of `select_variant` in
/// reference/bmm/kernel.py, measured on the GPU (scripts/gpu/bench_selection.py,
/// docs/results/selection.json): f16 NN takes w8 128x256x64, small f16 matrices (M, N <= 128)
/// w8 128x128x64; bf16 NN and NT w8 128x256x64, small bf16 matrices the one-warpgroup
/// 128x128x64; f16 NT w8 128x256x64; f32
/// (tf32) NN 128x128x32, NT w8 128x256x32; each 128x256 choice on its persistent grid (w8p) once
/// the batch has more than PERSISTENT_GRID of those tiles in all.
pub fn candidate(dtype: DType, trans_b: bool, batch: i64, m: i64, n: i64) -> Option<&'static Variant> {
    let small = m <= SMALL_MN && n <= SMALL_MN;
    let persistent = batch.saturating_mul((m + 127) / 128).saturating_mul((n + 255) / 256) > PERSISTENT_GRID;
    match (dtype, trans_b) {
        (DType::F16, false) if small => Some(&F16_NN_W8_128X128X64),
        (DType::F16, false) if persistent => Some(&F16_NN_W8P_128X256X64),
        (DType::F16, false) => Some(&F16_NN_W8_128X256X64),
        (DType::F16, true) if persistent => Some(&F16_NT_W8P_128X256X64),
        (DType::F16, true) => Some(&F16_NT_W8_128X256X64),
        (DType::BF16, false) if small => Some(&BF16_NN_128X128X64),
        (DType::BF16, false) if persistent => Some(&BF16_NN_W8P_128X256X64),
        (DType::BF16, false) => Some(&BF16_NN_W8_128X256X64),
        (DType::BF16, true) if small => Some(&BF16_NT_128X128X64),
        (DType::BF16, true) if persistent => Some(&BF16_NT_W8P_128X256X64),
        (DType::BF16, true) => Some(&BF16_NT_W8_128X256X64),
        (DType::F32, false) => Some(&TF32_NN_128X128X32),
        (DType::F32, true) if persistent => Some(&TF32_NT_W8P_128X256X32),
        (DType::F32, true) => Some(&TF32_NT_W8_128X256X32),
        _ => None,
    }
}
