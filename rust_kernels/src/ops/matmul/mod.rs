//! GEMM C = op(A) @ op(B) (reference/matmul): kernel `matmul` (f16, bf16, tf32) and
//! `matmul_fp8` (e4m3 operands, per-tensor scales, 16-bit output).

pub mod ffi;
#[cfg(feature = "compile")]
pub mod kernel;

use crate::descriptor::{DType, TensorSpec};
use crate::variant::{ParamSpec, Variant};

pub const OP: &str = "matmul";

/// GEMM operands a, b (inputs) and c (output) of rank `ndim`, as stored (not logical): row-major,
/// unit last stride, every other stride a multiple of 16 bytes (`stride_div` elements), 16-byte
/// aligned bases, and c's rows (its last dimension) a multiple of 16 bytes too: with it tileiras
/// stores the output tile with stmatrix and TMA instead of one element per `STG` (1-3.5 % faster;
/// the reference's `shape_divisible_by`). Shared with bmm (rank 3).
pub(crate) const fn aligned_operands(dtype: DType, ndim: usize, stride_div: i64) -> [ParamSpec; 3] {
    [
        ParamSpec::Tensor(TensorSpec::input("a", dtype, ndim).unit_last().align(16).stride_div(stride_div, 1)),
        ParamSpec::Tensor(TensorSpec::input("b", dtype, ndim).unit_last().align(16).stride_div(stride_div, 1)),
        ParamSpec::Tensor(
            TensorSpec::output("c", dtype, ndim)
                .unit_last()
                .align(16)
                .stride_div(stride_div, 1)
                .shape_div(ndim - 1, stride_div),
        ),
    ]
}

/// 2-D `aligned_operands`.
const fn aligned(dtype: DType, stride_div: i64) -> [ParamSpec; 3] {
    aligned_operands(dtype, 2, stride_div)
}

/// No divisibility beyond element alignment (odd K or N, offset views).
const fn unaligned(dtype: DType) -> [ParamSpec; 3] {
    let bytes = dtype.bytes();
    [
        ParamSpec::Tensor(TensorSpec::input("a", dtype, 2).unit_last().align(bytes)),
        ParamSpec::Tensor(TensorSpec::input("b", dtype, 2).unit_last().align(bytes)),
        ParamSpec::Tensor(TensorSpec::output("c", dtype, 2).unit_last().align(bytes)),
    ]
}

/// A `matmul` kernel: `matmul` or `matmul_w8` (the same body on two consumer warpgroups).
const fn variant_of(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "matmul_kernel",
        entry,
        generic_names: &["E", "BM", "BN", "BK", "GROUP_M", "TRANS_A", "TRANS_B", "CAST_TF32"],
        generics,
        params,
    }
}

const fn variant(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    variant_of("matmul", name, generics, params)
}

/// `matmul_w8_persistent`: `matmul_w8`'s generics and NUM_BLOCKS (the grid's bound: one block an SM).
const fn variant_persistent(
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "matmul_kernel",
        entry: "matmul_w8_persistent",
        generic_names: &["E", "BM", "BN", "BK", "GROUP_M", "TRANS_A", "TRANS_B", "CAST_TF32", "NUM_BLOCKS"],
        generics,
        params,
    }
}

/// The kernels `cutile_matmul` and `cutile_matmul_fp8` launch.
pub const MATMUL_ENTRIES: [&str; 3] = ["matmul", "matmul_w8", "matmul_w8_persistent"];
pub const FP8_ENTRIES: [&str; 4] = ["matmul_fp8", "matmul_fp8_w8", "matmul_fp8_w8_persistent", "matmul_fp8_w8_c2"];

// Generics: <E, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B, CAST_TF32>.
pub static F16_NN_128X128X64: Variant =
    variant("f16_nn_128x128x64", &["f16", "128", "128", "64", "8", "0", "0", "0"], &aligned(DType::F16, 8));
pub static F16_NN_128X256X64: Variant =
    variant("f16_nn_128x256x64", &["f16", "128", "256", "64", "8", "0", "0", "0"], &aligned(DType::F16, 8));
pub static F16_TN_128X128X64: Variant =
    variant("f16_tn_128x128x64", &["f16", "128", "128", "64", "8", "1", "0", "0"], &aligned(DType::F16, 8));
pub static F16_NT_128X128X64: Variant =
    variant("f16_nt_128x128x64", &["f16", "128", "128", "64", "8", "0", "1", "0"], &aligned(DType::F16, 8));
pub static BF16_NN_128X128X64: Variant =
    variant("bf16_nn_128x128x64", &["bf16", "128", "128", "64", "8", "0", "0", "0"], &aligned(DType::BF16, 8));
pub static BF16_NN_128X256X64: Variant =
    variant("bf16_nn_128x256x64", &["bf16", "128", "256", "64", "8", "0", "0", "0"], &aligned(DType::BF16, 8));
pub static BF16_TN_128X128X64: Variant =
    variant("bf16_tn_128x128x64", &["bf16", "128", "128", "64", "8", "1", "0", "0"], &aligned(DType::BF16, 8));
pub static BF16_NT_128X128X64: Variant =
    variant("bf16_nt_128x128x64", &["bf16", "128", "128", "64", "8", "0", "1", "0"], &aligned(DType::BF16, 8));
pub static BF16_TT_128X128X64: Variant =
    variant("bf16_tt_128x128x64", &["bf16", "128", "128", "64", "8", "1", "1", "0"], &aligned(DType::BF16, 8));
pub static F16_NN_UNALIGNED_64X64X32: Variant =
    variant("f16_nn_unaligned_64x64x32", &["f16", "64", "64", "32", "8", "0", "0", "0"], &unaligned(DType::F16));
pub static TF32_NN_128X128X32: Variant =
    variant("tf32_nn_128x128x32", &["f32", "128", "128", "32", "8", "0", "0", "1"], &aligned(DType::F32, 4));
pub static TF32_NT_128X128X32: Variant =
    variant("tf32_nt_128x128x32", &["f32", "128", "128", "32", "8", "0", "1", "1"], &aligned(DType::F32, 4));

// matmul_w8 (num_worker_warps=8): the 128x256 tiles on two consumer warpgroups.
pub static F16_NN_W8_128X256X64: Variant = variant_of(
    "matmul_w8",
    "f16_nn_w8_128x256x64",
    &["f16", "128", "256", "64", "8", "0", "0", "0"],
    &aligned(DType::F16, 8),
);
pub static BF16_NN_W8_128X256X64: Variant = variant_of(
    "matmul_w8",
    "bf16_nn_w8_128x256x64",
    &["bf16", "128", "256", "64", "8", "0", "0", "0"],
    &aligned(DType::BF16, 8),
);
pub static F16_TN_W8_128X256X64: Variant = variant_of(
    "matmul_w8",
    "f16_tn_w8_128x256x64",
    &["f16", "128", "256", "64", "8", "1", "0", "0"],
    &aligned(DType::F16, 8),
);
pub static F16_NT_W8_128X256X64: Variant = variant_of(
    "matmul_w8",
    "f16_nt_w8_128x256x64",
    &["f16", "128", "256", "64", "8", "0", "1", "0"],
    &aligned(DType::F16, 8),
);
pub static BF16_TN_W8_128X256X64: Variant = variant_of(
    "matmul_w8",
    "bf16_tn_w8_128x256x64",
    &["bf16", "128", "256", "64", "8", "1", "0", "0"],
    &aligned(DType::BF16, 8),
);
pub static BF16_NT_W8_128X256X64: Variant = variant_of(
    "matmul_w8",
    "bf16_nt_w8_128x256x64",
    &["bf16", "128", "256", "64", "8", "0", "1", "0"],
    &aligned(DType::BF16, 8),
);
// tf32 NT on two consumer warpgroups (forced only: `candidates` takes its persistent form).
pub static TF32_NT_W8_128X256X32: Variant = variant_of(
    "matmul_w8",
    "tf32_nt_w8_128x256x32",
    &["f32", "128", "256", "32", "8", "0", "1", "1"],
    &aligned(DType::F32, 4),
);

// matmul_w8_persistent (session 28): the w8 tiles on a grid of at most 132 blocks, each looping over
// the output tiles; `candidates` takes these where it took the w8 ones. Generics: <E, BM, BN, BK,
// GROUP_M, TRANS_A, TRANS_B, CAST_TF32, NUM_BLOCKS>.
pub static F16_NN_W8P_128X256X64: Variant = variant_persistent(
    "f16_nn_w8p_128x256x64",
    &["f16", "128", "256", "64", "8", "0", "0", "0", "132"],
    &aligned(DType::F16, 8),
);
pub static BF16_NN_W8P_128X256X64: Variant = variant_persistent(
    "bf16_nn_w8p_128x256x64",
    &["bf16", "128", "256", "64", "8", "0", "0", "0", "132"],
    &aligned(DType::BF16, 8),
);
pub static F16_TN_W8P_128X256X64: Variant = variant_persistent(
    "f16_tn_w8p_128x256x64",
    &["f16", "128", "256", "64", "8", "1", "0", "0", "132"],
    &aligned(DType::F16, 8),
);
pub static F16_NT_W8P_128X256X64: Variant = variant_persistent(
    "f16_nt_w8p_128x256x64",
    &["f16", "128", "256", "64", "8", "0", "1", "0", "132"],
    &aligned(DType::F16, 8),
);
pub static BF16_TN_W8P_128X256X64: Variant = variant_persistent(
    "bf16_tn_w8p_128x256x64",
    &["bf16", "128", "256", "64", "8", "1", "0", "0", "132"],
    &aligned(DType::BF16, 8),
);
pub static BF16_NT_W8P_128X256X64: Variant = variant_persistent(
    "bf16_nt_w8p_128x256x64",
    &["bf16", "128", "256", "64", "8", "0", "1", "0", "132"],
    &aligned(DType::BF16, 8),
);
pub static TF32_NT_W8P_128X256X32: Variant = variant_persistent(
    "tf32_nt_w8p_128x256x32",
    &["f32", "128", "256", "32", "8", "0", "1", "1", "132"],
    &aligned(DType::F32, 4),
);

/// fp8: a (M, K) and b stored (N, K) (trans_b), row strides a multiple of 16 elements; c 16-bit, its
/// rows a multiple of 16 bytes (N a multiple of 8, as `aligned_operands`).
const fn fp8(out: DType) -> [ParamSpec; 5] {
    [
        ParamSpec::Tensor(TensorSpec::input("a", DType::F8E4M3FN, 2).unit_last().align(16).stride_div(16, 1)),
        ParamSpec::Tensor(TensorSpec::input("b", DType::F8E4M3FN, 2).unit_last().align(16).stride_div(16, 1)),
        ParamSpec::Tensor(TensorSpec::output("c", out, 2).unit_last().align(16).stride_div(8, 1).shape_div(1, 8)),
        ParamSpec::F32("scale_a"),
        ParamSpec::F32("scale_b"),
    ]
}

const fn variant_fp8_of(
    entry: &'static str,
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "matmul_kernel",
        entry,
        generic_names: &["EIn", "EOut", "BM", "BN", "BK", "GROUP_M", "TRANS_A", "TRANS_B"],
        generics,
        params,
    }
}

const fn variant_fp8(name: &'static str, generics: &'static [&'static str], params: &'static [ParamSpec]) -> Variant {
    variant_fp8_of("matmul_fp8", name, generics, params)
}

// Generics: <EIn, EOut, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B>.
pub static FP8E4M3_F16_NT_128X256X128: Variant = variant_fp8(
    "fp8e4m3_f16_nt_128x256x128",
    &["f8e4m3fn", "f16", "128", "256", "128", "8", "0", "1"],
    &fp8(DType::F16),
);
pub static FP8E4M3_BF16_NT_128X256X128: Variant = variant_fp8(
    "fp8e4m3_bf16_nt_128x256x128",
    &["f8e4m3fn", "bf16", "128", "256", "128", "8", "0", "1"],
    &fp8(DType::BF16),
);
pub static FP8E4M3_F16_NT_128X128X128: Variant = variant_fp8(
    "fp8e4m3_f16_nt_128x128x128",
    &["f8e4m3fn", "f16", "128", "128", "128", "8", "0", "1"],
    &fp8(DType::F16),
);
pub static FP8E4M3_BF16_NT_128X128X128: Variant = variant_fp8(
    "fp8e4m3_bf16_nt_128x128x128",
    &["f8e4m3fn", "bf16", "128", "128", "128", "8", "0", "1"],
    &fp8(DType::BF16),
);
pub static FP8E4M3_F16_NT_W8_128X128X128: Variant = variant_fp8_of(
    "matmul_fp8_w8",
    "fp8e4m3_f16_nt_w8_128x128x128",
    &["f8e4m3fn", "f16", "128", "128", "128", "8", "0", "1"],
    &fp8(DType::F16),
);
pub static FP8E4M3_BF16_NT_W8_128X128X128: Variant = variant_fp8_of(
    "matmul_fp8_w8",
    "fp8e4m3_bf16_nt_w8_128x128x128",
    &["f8e4m3fn", "bf16", "128", "128", "128", "8", "0", "1"],
    &fp8(DType::BF16),
);

// matmul_fp8_w8_persistent: matmul_fp8_w8 on the persistent grid (`fp8_candidates` takes these).
// Generics: <EIn, EOut, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B, NUM_BLOCKS>.
const fn variant_fp8_persistent(
    name: &'static str,
    generics: &'static [&'static str],
    params: &'static [ParamSpec],
) -> Variant {
    Variant {
        op: OP,
        name,
        module: "matmul_kernel",
        entry: "matmul_fp8_w8_persistent",
        generic_names: &["EIn", "EOut", "BM", "BN", "BK", "GROUP_M", "TRANS_A", "TRANS_B", "NUM_BLOCKS"],
        generics,
        params,
    }
}
pub static FP8E4M3_F16_NT_W8P_128X128X128: Variant = variant_fp8_persistent(
    "fp8e4m3_f16_nt_w8p_128x128x128",
    &["f8e4m3fn", "f16", "128", "128", "128", "8", "0", "1", "132"],
    &fp8(DType::F16),
);
pub static FP8E4M3_BF16_NT_W8P_128X128X128: Variant = variant_fp8_persistent(
    "fp8e4m3_bf16_nt_w8p_128x128x128",
    &["f8e4m3fn", "bf16", "128", "128", "128", "8", "0", "1", "132"],
    &fp8(DType::BF16),
);

// matmul_fp8_w8_c2 (num_worker_warps=8, num_ctas=2): two-CTA clusters that split the tile and multicast
// the shared operand. Slower than w8 on the H100 (docs/results/tuning.md): fp8_candidates leaves them out.
pub static FP8E4M3_F16_NT_W8C2_256X128X128: Variant = variant_fp8_of(
    "matmul_fp8_w8_c2",
    "fp8e4m3_f16_nt_w8c2_256x128x128",
    &["f8e4m3fn", "f16", "256", "128", "128", "8", "0", "1"],
    &fp8(DType::F16),
);
pub static FP8E4M3_BF16_NT_W8C2_256X128X128: Variant = variant_fp8_of(
    "matmul_fp8_w8_c2",
    "fp8e4m3_bf16_nt_w8c2_256x128x128",
    &["f8e4m3fn", "bf16", "256", "128", "128", "8", "0", "1"],
    &fp8(DType::BF16),
);
pub static FP8E4M3_F16_NT_W8C2_128X256X128: Variant = variant_fp8_of(
    "matmul_fp8_w8_c2",
    "fp8e4m3_f16_nt_w8c2_128x256x128",
    &["f8e4m3fn", "f16", "128", "256", "128", "8", "0", "1"],
    &fp8(DType::F16),
);
pub static FP8E4M3_BF16_NT_W8C2_128X256X128: Variant = variant_fp8_of(
    "matmul_fp8_w8_c2",
    "fp8e4m3_bf16_nt_w8c2_128x256x128",
    &["f8e4m3fn", "bf16", "128", "256", "128", "8", "0", "1"],
    &fp8(DType::BF16),
);

/// fp8 candidates for c (M, N): only the (M, K) x (N, K) layout Hopper's fp8 MMA wants, on the
/// 128x128x128 tile with two consumer warpgroups (measured fastest at 8192^3: 1048 us vs
/// 1286 us on one warpgroup and 22497 us at 128x256x128, whose accumulator spills; f16 out),
/// on its persistent grid (9.1 % faster than one tile a block at 8192^3, bf16 out, H100) once
/// the output has more than PERSISTENT_GRID 128x128 tiles, the one-tile w8 below (1.08x faster
/// at 1024^3): `select_fp8_variant` in reference/matmul/kernel.py.
pub fn fp8_candidates(out: DType, trans_a: bool, trans_b: bool, m: i64, n: i64) -> Vec<&'static Variant> {
    let persistent = (m + 127) / 128 * ((n + 127) / 128) > PERSISTENT_GRID;
    match (out, trans_a, trans_b) {
        (DType::F16, false, true) if persistent => vec![&FP8E4M3_F16_NT_W8P_128X128X128],
        (DType::F16, false, true) => vec![&FP8E4M3_F16_NT_W8_128X128X128],
        (DType::BF16, false, true) if persistent => vec![&FP8E4M3_BF16_NT_W8P_128X128X128],
        (DType::BF16, false, true) => vec![&FP8E4M3_BF16_NT_W8_128X128X128],
        _ => vec![],
    }
}

pub static VARIANTS: &[&Variant] = &[
    &F16_NN_128X128X64,
    &F16_NN_128X256X64,
    &F16_TN_128X128X64,
    &F16_NT_128X128X64,
    &BF16_NN_128X128X64,
    &BF16_NN_128X256X64,
    &BF16_TN_128X128X64,
    &BF16_NT_128X128X64,
    &BF16_TT_128X128X64,
    &F16_NN_UNALIGNED_64X64X32,
    &TF32_NN_128X128X32,
    &TF32_NT_128X128X32,
    &FP8E4M3_F16_NT_128X256X128,
    &FP8E4M3_BF16_NT_128X256X128,
    &F16_NN_W8_128X256X64,
    &BF16_NN_W8_128X256X64,
    &F16_TN_W8_128X256X64,
    &F16_NT_W8_128X256X64,
    &BF16_TN_W8_128X256X64,
    &BF16_NT_W8_128X256X64,
    &TF32_NT_W8_128X256X32,
    &FP8E4M3_F16_NT_128X128X128,
    &FP8E4M3_BF16_NT_128X128X128,
    &FP8E4M3_F16_NT_W8_128X128X128,
    &FP8E4M3_BF16_NT_W8_128X128X128,
    &F16_NN_W8P_128X256X64,
    &BF16_NN_W8P_128X256X64,
    &F16_TN_W8P_128X256X64,
    &F16_NT_W8P_128X256X64,
    &BF16_TN_W8P_128X256X64,
    &BF16_NT_W8P_128X256X64,
    &TF32_NT_W8P_128X256X32,
    &FP8E4M3_F16_NT_W8P_128X128X128,
    &FP8E4M3_BF16_NT_W8P_128X128X128,
    &FP8E4M3_F16_NT_W8C2_256X128X128,
    &FP8E4M3_BF16_NT_W8C2_256X128X128,
    &FP8E4M3_F16_NT_W8C2_128X256X128,
    &FP8E4M3_BF16_NT_W8C2_128X256X128,
];

/// Outputs at least this large (M*N, about one wave of 128x256 tiles on 132 SMs) take the
/// 128x256 tile on two consumer warpgroups (reference/matmul/kernel.py `WIDE_TILE_MIN_MN`).
pub const WIDE_TILE_MIN_MN: i64 = 2048 * 2048;

/// The persistent kernels' grid cap (NUM_BLOCKS): outputs of at most this many 128x256 tiles take
/// the one-tile w8 kernel, larger ones its persistent form (reference/matmul/kernel.py
/// `PERSISTENT_GRID`).
pub const PERSISTENT_GRID: i64 = 132;

/// Candidates for (dtype, flags, problem size), most specific first; the unaligned f16
/// kernel is the fallback when an aligned one rejects the layout. The rule is the reference
/// launcher's (reference/matmul/kernel.py `select_variant`), measured on the GPU
/// (scripts/gpu/bench_selection.py, docs/results/selection.json; docs/rust_ports.md, "GEMM
/// variant selection"): NN, TN and NT take w8 128x256x64 from WIDE_TILE_MIN_MN outputs on
/// (1.10-1.18x faster from 2048^2 on, 1.2-1.3x slower at 512^2), on its persistent grid (w8p) once
/// the output has more than PERSISTENT_GRID tiles, 128x128x64 below; the one-warpgroup 128x256x64
/// spills its accumulator and is never picked; bf16 TT has 128x128x64 only; f32 (tf32) NT takes
/// w8 / w8p 128x256x32 likewise from WIDE_TILE_MIN_MN on, NN and smaller NT 128x128x32.
pub fn candidates(dtype: DType, trans_a: bool, trans_b: bool, m: i64, n: i64) -> Vec<&'static Variant> {
    let wide = m * n >= WIDE_TILE_MIN_MN;
    let persistent = (m + 127) / 128 * ((n + 255) / 256) > PERSISTENT_GRID;
    match (dtype, trans_a, trans_b) {
        (DType::F16, false, false) if wide && !persistent => vec![&F16_NN_W8_128X256X64, &F16_NN_UNALIGNED_64X64X32],
        (DType::F16, true, false) if wide && !persistent => vec![&F16_TN_W8_128X256X64],
        (DType::F16, false, true) if wide && !persistent => vec![&F16_NT_W8_128X256X64],
        (DType::BF16, false, false) if wide && !persistent => vec![&BF16_NN_W8_128X256X64],
        (DType::BF16, true, false) if wide && !persistent => vec![&BF16_TN_W8_128X256X64],
        (DType::BF16, false, true) if wide && !persistent => vec![&BF16_NT_W8_128X256X64],
        (DType::F32, false, true) if wide && !persistent => vec![&TF32_NT_W8_128X256X32],
        (DType::F16, false, false) if wide => vec![&F16_NN_W8P_128X256X64, &F16_NN_UNALIGNED_64X64X32],
        (DType::F16, false, false) => vec![&F16_NN_128X128X64, &F16_NN_UNALIGNED_64X64X32],
        (DType::F16, true, false) if wide => vec![&F16_TN_W8P_128X256X64],
        (DType::F16, true, false) => vec![&F16_TN_128X128X64],
        (DType::F16, false, true) if wide => vec![&F16_NT_W8P_128X256X64],
        (DType::F16, false, true) => vec![&F16_NT_128X128X64],
        (DType::BF16, false, false) if wide => vec![&BF16_NN_W8P_128X256X64],
        (DType::BF16, false, false) => vec![&BF16_NN_128X128X64],
        (DType::BF16, true, false) if wide => vec![&BF16_TN_W8P_128X256X64],
        (DType::BF16, true, false) => vec![&BF16_TN_128X128X64],
        (DType::BF16, false, true) if wide => vec![&BF16_NT_W8P_128X256X64],
        (DType::BF16, false, true) => vec![&BF16_NT_128X128X64],
        (DType::BF16, true, true) => vec![&BF16_TT_128X128X64],
        (DType::F32, false, false) => vec![&TF32_NN_128X128X32],
        (DType::F32, false, true) if wide => vec![&TF32_NT_W8P_128X256X32],
        (DType::F32, false, true) => vec![&TF32_NT_128X128X32],
        _ => vec![],
    }
}
