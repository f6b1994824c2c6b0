//! Compile-only path (feature `compile`): a `Variant` -> Tile IR bytecode through cuTile
//! Rust's `KernelCompiler`. No GPU, no driver, no tileiras.
//!
//! The specialization mirrors the Python reference export (cuda.tile.compilation with an
//! `ArrayConstraint` per array): `stride_constant` -> `.strides` (1 static / -1 dynamic),
//! `base_addr_divisible_by`, `shape_divisible_by`, `stride_divisible_by` -> `.spec_args`,
//! `ct.Constant[...]` -> `.generics`, and the bytecode version is pinned like the export's
//! `bytecode_version`.

use cutile::compile_api::{CompileArtifacts, KernelCompiler};
use cutile::cutile_compiler::ast::Module as AstModule;
use cutile::cutile_compiler::specialization::{DivHint, SpecializationBits};
use cutile_ir::bytecode::BytecodeVersion;

use crate::descriptor::TensorSpec;
use crate::ops;
use crate::variant::Variant;

/// The Python reference exports are pinned to 13.3 (the version both frontends write and
/// tileiras 13.x accepts for sm_90); tileir_diff's reader covers 13.1-13.5.
pub const DEFAULT_BYTECODE_VERSION: &str = "13.3";

/// The entry hints key cuTile Rust writes for this target. The bytecode itself is
/// architecture independent (13.3+), tileiras picks the GPU.
pub const DEFAULT_TARGET: &str = "sm_90";

pub fn parse_bytecode_version(text: &str) -> Result<BytecodeVersion, String> {
    BytecodeVersion::SUPPORTED.iter().copied().find(|v| v.to_string() == text).ok_or_else(|| {
        let known: Vec<String> = BytecodeVersion::SUPPORTED.iter().map(|v| v.to_string()).collect();
        format!("unsupported bytecode version {text:?}; cuTile Rust writes {}", known.join(", "))
    })
}

/// `__module_ast_self` of the `#[cutile::module]` holding a variant's kernel (ops::OPS).
fn module_ast(v: &Variant) -> fn() -> AstModule {
    match ops::op(v.op) {
        Some(op) if op.module == v.module => op.module_ast,
        _ => panic!("no kernel module {} registered for op {} (ops! in src/ops/mod.rs)", v.module, v.op),
    }
}

/// Divisibility hint with the cap raised so a declared divisor is never clipped.
fn div(value: i64) -> DivHint {
    let value = value.max(1) as i32;
    DivHint { divisor: value, max: value }
}

/// The facts an `ArrayConstraint` asserts, as cuTile Rust specialization bits.
fn spec_bits(t: &TensorSpec) -> SpecializationBits {
    SpecializationBits {
        shape_div: (0..t.ndim).map(|i| div(t.shape_div[i])).collect(),
        // cuTile Rust indexes stride_div over the *dynamic* strides only, in order.
        stride_div: (0..t.ndim).filter(|&i| !t.unit_stride(i)).map(|i| div(t.stride_div[i])).collect(),
        stride_one: (0..t.ndim).map(|i| t.unit_stride(i)).collect(),
        base_ptr_div: div(t.base_align as i64),
        // may_alias_internally=False in the reference export.
        elements_disjoint: true,
    }
}

pub struct Options {
    pub target: String,
    pub bytecode_version: BytecodeVersion,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: DEFAULT_TARGET.to_string(),
            bytecode_version: parse_bytecode_version(DEFAULT_BYTECODE_VERSION).unwrap(),
        }
    }
}

/// What one compile needs: the module, the entry, its generics, the tensor parameters'
/// specializations and the divisibility hints of scalar and raw-pointer parameters.
pub struct Job {
    /// `<op>/<variant>` (or `independent/<port>`), for messages.
    pub label: String,
    pub module_ast: fn() -> AstModule,
    pub module: &'static str,
    pub entry: String,
    pub generics: Vec<String>,
    pub tensors: Vec<TensorSpec>,
    /// `(parameter, divisor)`: `assume div_by` on an integer scalar or a raw pointer.
    pub scalar_hints: Vec<(String, i32)>,
}

/// Compiles one job. Runs on a thread with a large stack: the compiler recurses deeply.
pub fn compile_job(job: Job, opts: &Options) -> Result<CompileArtifacts, String> {
    let target = opts.target.clone();
    let version = opts.bytecode_version;
    let label = job.label.clone();
    let worker = std::thread::Builder::new()
        .name(format!("compile-{label}"))
        .stack_size(64 << 20)
        .spawn(move || {
            let strides: Vec<(String, Vec<i32>)> =
                job.tensors.iter().map(|t| (t.name.to_string(), t.static_strides())).collect();
            let stride_refs: Vec<(&str, &[i32])> = strides.iter().map(|(n, s)| (n.as_str(), s.as_slice())).collect();
            let bits: Vec<(&str, SpecializationBits)> = job.tensors.iter().map(|t| (t.name, spec_bits(t))).collect();
            let hints: Vec<(&str, DivHint)> =
                job.scalar_hints.iter().map(|(n, d)| (n.as_str(), div(*d as i64))).collect();
            KernelCompiler::new(job.module_ast, job.module, &job.entry)
                .target(&target)
                .bytecode_version(version)
                .generics(job.generics)
                .strides(&stride_refs)
                .spec_args(&bits)
                .scalar_hints(&hints)
                .compile()
                .map_err(|e| format!("{}: {e}", job.label))
        })
        .map_err(|e| format!("cannot start compiler thread: {e}"))?;
    worker.join().map_err(|_| format!("{label}: the compiler panicked"))?
}

/// Compiles one port of the independent-style corpus (src/independent/).
pub fn compile_port(p: &'static crate::independent::Port, opts: &Options) -> Result<CompileArtifacts, String> {
    compile_job(
        Job {
            label: format!("independent/{}", p.name),
            module_ast: crate::independent::kernels::independent_kernels::__module_ast_self,
            module: crate::independent::MODULE,
            entry: p.entry.to_string(),
            generics: p.generics.iter().map(|g| g.to_string()).collect(),
            tensors: p.tensors.to_vec(),
            scalar_hints: p.scalar_hints.iter().map(|(n, d)| (n.to_string(), *d)).collect(),
        },
        opts,
    )
}

/// The assumptions of an i64-indexed tensor, which the kernel takes as the raw pointer
/// `<name>` and the i64 scalars `<name>_shape<i>`, `<name>_stride<i>` (cuTile Rust 0.5.0 gives a
/// `&Tensor` i32 extents and strides): `div_by` on the pointer (the base alignment), on each
/// dynamic stride and on each extent with a divisor. A unit stride is not an assumption the raw
/// form can state; the kernel ignores that argument (the C ABI checks it is 1).
fn raw_tensor_hints(t: &TensorSpec) -> Vec<(String, i32)> {
    let mut hints = vec![(t.name.to_string(), t.base_align as i32)];
    for i in 0..t.ndim {
        if t.shape_div[i] > 1 {
            hints.push((format!("{}_shape{i}", t.name), t.shape_div[i] as i32));
        }
        if !t.unit_stride(i) && t.stride_div[i] > 1 {
            hints.push((format!("{}_stride{i}", t.name), t.stride_div[i] as i32));
        }
    }
    hints
}

/// Compiles one variant of a ported op.
pub fn compile(v: &'static Variant, opts: &Options) -> Result<CompileArtifacts, String> {
    compile_job(
        Job {
            label: format!("{}/{}", v.op, v.name),
            module_ast: module_ast(v),
            module: v.module,
            entry: v.rust_entry(),
            generics: v.generics.iter().map(|g| g.to_string()).collect(),
            tensors: v.tensor_specs().filter(|t| !t.index64).copied().collect(),
            scalar_hints: v.tensor_specs().filter(|t| t.index64).flat_map(raw_tensor_hints).collect(),
        },
        opts,
    )
}

/// Compiles and serializes one variant to bytecode.
pub fn bytecode(v: &'static Variant, opts: &Options) -> Result<Vec<u8>, String> {
    let artifacts = compile(v, opts)?;
    artifacts.bytecode().map_err(|e| format!("{}/{}: bytecode: {e}", v.op, v.name))
}
