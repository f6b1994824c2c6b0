//! The independent-style port corpus: second cuTile Rust ports of reference operators,
//! written in another team's style (kernels.rs says how), and wrong variants of them.
//! Nothing here is launched: `emit-ir --corpus independent` writes their bytecode to
//! tests/corpus/independent/, where each pairs with a reference variant's IR and an
//! expectations file. This list is the corpus's single source of truth on the Rust side.

#[cfg(feature = "compile")]
pub mod kernels;

use crate::descriptor::{DType, TensorSpec};

/// One corpus port: an entry of `independent_kernels` at one specialization.
pub struct Port {
    /// File stem under tests/corpus/independent/ (`<name>.tileirbc`).
    pub name: &'static str,
    /// The reference variant it pairs with: `reference/<op>/`, analysis.json variant name.
    pub reference: (&'static str, &'static str),
    pub entry: &'static str,
    pub generics: &'static [&'static str],
    /// `&Tensor` parameters (by name) and what they assume.
    pub tensors: &'static [TensorSpec],
    /// `assume div_by` on raw pointers (bytes) and integer scalars (elements).
    pub scalar_hints: &'static [(&'static str, i32)],
}

pub const MODULE: &str = "independent_kernels";

const fn t16(name: &'static str, ndim: usize) -> TensorSpec {
    TensorSpec::input(name, DType::F16, ndim).unit_last().align(16)
}

const fn o16(name: &'static str, ndim: usize) -> TensorSpec {
    TensorSpec::output(name, DType::F16, ndim).unit_last().align(16)
}

const GEMM_HINTS: &[(&str, i32)] = &[("c", 16), ("a", 16), ("b", 16), ("ldc", 8), ("lda", 8), ("ldb", 8)];

pub static PORTS: &[Port] = &[
    Port {
        name: "vector_add_ptr",
        reference: ("vector_add", "f32_t1024"),
        entry: "vadd_ptr",
        generics: &["f32", "1024"],
        tensors: &[],
        scalar_hints: &[("z", 16), ("x", 16), ("y", 16)],
    },
    Port {
        name: "vector_add_persistent",
        reference: ("vector_add", "f32_t1024"),
        entry: "vadd_persistent",
        generics: &["f32", "1024"],
        tensors: &[],
        scalar_hints: &[("z", 16), ("x", 16), ("y", 16)],
    },
    Port {
        name: "matmul_rowmajor",
        reference: ("matmul", "f16_nn_128x128x64"),
        entry: "gemm_rowmajor",
        generics: &["f16", "128", "128", "64"],
        tensors: &[],
        scalar_hints: GEMM_HINTS,
    },
    Port {
        name: "matmul_nt_unused_transpose",
        reference: ("matmul", "f16_nt_128x128x64"),
        entry: "gemm_nt_unused_transpose",
        generics: &["f16", "128", "128", "64"],
        tensors: &[],
        scalar_hints: GEMM_HINTS,
    },
    Port {
        name: "bmm_out_first",
        reference: ("bmm", "f16_nn_128x128x64"),
        entry: "batched_gemm",
        generics: &["f16", "128", "128", "64"],
        tensors: &[o16("c", 3).stride_div(8, 1), t16("a", 3).stride_div(8, 1), t16("b", 3).stride_div(8, 1)],
        scalar_hints: &[],
    },
    Port {
        name: "rms_norm_ptr",
        reference: ("rms_norm", "fwd_f16_m4_n1024"),
        entry: "rmsnorm_rows",
        generics: &["f16", "4", "1024"],
        tensors: &[],
        scalar_hints: &[("y", 16), ("inv_rms", 16), ("x", 16), ("w", 16)],
    },
    Port {
        name: "rms_norm_missing_store",
        reference: ("rms_norm", "fwd_f16_m4_n1024"),
        entry: "rmsnorm_rows_no_rstd",
        generics: &["f16", "4", "1024"],
        tensors: &[],
        scalar_hints: &[("y", 16), ("inv_rms", 16), ("x", 16), ("w", 16)],
    },
    Port {
        name: "silu_and_mul_ptr",
        reference: ("silu_and_mul", "f16_m8_h512"),
        entry: "silu_mul_ptr",
        generics: &["f16", "8", "512"],
        tensors: &[],
        scalar_hints: &[("out", 16), ("x", 16)],
    },
    Port {
        name: "silu_and_mul_exp2_sigmoid",
        reference: ("silu_and_mul", "f16_m8_h512"),
        entry: "silu_mul_exp2",
        generics: &["f16", "8", "512"],
        tensors: &[],
        scalar_hints: &[("out", 16), ("x", 16)],
    },
    Port {
        name: "swiglu_out_first",
        reference: ("swiglu", "fwd_f16"),
        entry: "swiglu_out_first",
        generics: &["f16", "16", "256"],
        tensors: &[o16("c", 2), t16("a", 2), t16("b", 2)],
        scalar_hints: &[],
    },
    Port {
        name: "softmax_ptr",
        reference: ("softmax", "f32_row_m4_n1024"),
        entry: "softmax_rows_ptr",
        generics: &["f32", "4", "1024"],
        tensors: &[TensorSpec::input("x", DType::F32, 2).unit_last().align(16)],
        scalar_hints: &[("y", 16)],
    },
    Port {
        name: "flash_decode_split",
        reference: ("flash_decode", "partial_f16_d64_g8"),
        entry: "decode_split",
        generics: &["f16", "128", "64", "8"],
        tensors: DECODE_TENSORS,
        scalar_hints: &[],
    },
    Port {
        name: "flash_decode_mask_off_by_one",
        reference: ("flash_decode", "partial_f16_d64_g8"),
        entry: "decode_split_mask_le",
        generics: &["f16", "128", "64", "8"],
        tensors: DECODE_TENSORS,
        scalar_hints: &[],
    },
];

/// flash_decode_partial's arrays as the reference export constrains them.
const DECODE_TENSORS: &[TensorSpec] = &[
    TensorSpec::output("out_o", DType::F32, 4).unit_last().align(16).stride_div(4, 1),
    TensorSpec::output("out_lse", DType::F32, 3).unit_last().align(4),
    t16("q", 3).stride_div(8, 1),
    t16("k", 4).stride_div(8, 1),
    t16("v", 4).stride_div(8, 1),
    TensorSpec::input("lens", DType::I32, 1).unit_last().align(16),
];

pub fn find(name: &str) -> Option<&'static Port> {
    PORTS.iter().find(|p| p.name == name)
}
