//! One module per operator: `kernel.rs` (the cuTile Rust port), `ffi.rs` (its C entry),
//! and the variant table in `mod.rs`.
//!
//! The list of ported ops is the `ops!` invocation below and nowhere else in the crate: it
//! declares the modules and builds `OPS` (name, variant table, kernel module), from which
//! `all_variants`, `find` and the compiler's module lookup (`compile.rs`) are derived.

use crate::variant::Variant;

/// A ported operator: `reference/<name>/` on the Python side.
pub struct Op {
    /// == `OP` of the op's module == the reference folder name.
    pub name: &'static str,
    /// Every variant, in a stable order (names = analysis.json names).
    pub variants: &'static [&'static Variant],
    /// The `#[cutile::module]` in kernel.rs that holds the op's entries.
    pub module: &'static str,
    /// Its `__module_ast_self`, what `KernelCompiler` compiles.
    #[cfg(feature = "compile")]
    pub module_ast: fn() -> cutile::cutile_compiler::ast::Module,
}

/// `op => kernel_module, ...`: declares `pub mod op;` for each and the `OPS` table.
macro_rules! ops {
    ($($op:ident => $module:ident),* $(,)?) => {
        $(pub mod $op;)*

        /// Every ported op, in a stable order.
        pub static OPS: &[Op] = &[$(
            Op {
                name: $op::OP,
                variants: $op::VARIANTS,
                module: stringify!($module),
                #[cfg(feature = "compile")]
                module_ast: $op::kernel::$module::__module_ast_self,
            }
        ),*];
    };
}

ops! {
    vector_add => vector_add_kernel,
    softmax => softmax_kernel,
    rms_norm => rms_norm_kernel,
    matmul => matmul_kernel,
    silu_and_mul => silu_and_mul_kernel,
    swiglu => swiglu_kernel,
    gelu => gelu_kernel,
    dropout => dropout_kernel,
    argmax => argmax_kernel,
    cross_entropy => cross_entropy_kernel,
    cumsum => cumsum_kernel,
    embedding => embedding_kernel,
    transpose => transpose_kernel,
    fp8_quantize => fp8_quantize_kernel,
    layer_norm => layer_norm_kernel,
    rope => rope_kernel,
    flash_attention => flash_attention_kernel,
    attention_sink => attention_sink_kernel,
    bmm => bmm_kernel,
    splitk_matmul => splitk_matmul_kernel,
    group_gemm => group_gemm_kernel,
    fused_moe => group_gemm_kernel,
    flash_decode => flash_decode_kernel,
    moe_align_block_size => moe_align_block_size_kernel,
}

/// Every variant of every op, in a stable order.
pub fn all_variants() -> Vec<&'static Variant> {
    OPS.iter().flat_map(|op| op.variants.iter().copied()).collect()
}

pub fn op(name: &str) -> Option<&'static Op> {
    OPS.iter().find(|op| op.name == name)
}

pub fn find(op: &str, variant: &str) -> Option<&'static Variant> {
    self::op(op)?.variants.iter().copied().find(|v| v.name == variant)
}
