//! Structural variants: one prebuilt specialization of one kernel.
//!
//! A `Variant` is the single source of truth for a specialization: `emit-ir` turns it into
//! KernelCompiler generics/strides/hints, the C ABI validates descriptors against it and
//! packs the launch arguments from it. Names equal the variant names of
//! reference/<op>/analysis.json so the IR diff can pair them.

use crate::descriptor::{Tensor, TensorSpec};
use crate::status::{Error, Result, Status};

/// One entry parameter of the Rust kernel, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamSpec {
    /// Passed as: pointer, `ndim` i32 extents, `ndim` i32 strides (i64 ones where the spec is
    /// `index64`: then the Rust kernel takes `<name>: *mut E` and the scalars
    /// `<name>_shape<i>`, `<name>_stride<i>`, see `compile::raw_tensor_hints`).
    Tensor(TensorSpec),
    /// A runtime f32 (`tile<f32>`): Python float constants land here, since Rust const
    /// generics cannot be floats.
    F32(&'static str),
    /// A runtime 32-bit integer (`tile<i32>`, signless: the kernel may read it as `u32`).
    I32(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variant {
    pub op: &'static str,
    /// == the analysis.json variant name.
    pub name: &'static str,
    /// `#[cutile::module]` module name in kernel.rs.
    pub module: &'static str,
    /// Rust entry function name; the cubin symbol is `<entry>_entry`.
    pub entry: &'static str,
    /// Names of the entry's generics, in declaration order (const generics carry the
    /// Python `ct.Constant` names, so the variant table can be checked against analysis.json).
    pub generic_names: &'static [&'static str],
    /// Values of the entry's generics, in declaration order (types like "f16", consts like "1024").
    pub generics: &'static [&'static str],
    pub params: &'static [ParamSpec],
}

impl Variant {
    /// Symbol of the entry kernel in the cubin (cuTile Rust appends `_entry`).
    pub fn symbol(&self) -> String {
        format!("{}_entry", self.rust_entry())
    }

    /// The Rust function that ports `entry` (the Python kernel): `entry` itself, or
    /// `<entry>_idx64` for a variant with an i64-indexed tensor, which cuTile Rust 0.5.0 can
    /// only take as a raw pointer plus i64 extents and strides (a `&Tensor` parameter has i32
    /// ones), so the one Python kernel is a second Rust function.
    pub fn rust_entry(&self) -> String {
        if self.tensor_specs().any(|t| t.index64) { format!("{}_idx64", self.entry) } else { self.entry.to_string() }
    }

    pub fn tensor_specs(&self) -> impl Iterator<Item = &TensorSpec> {
        self.params.iter().filter_map(|p| match p {
            ParamSpec::Tensor(t) => Some(t),
            ParamSpec::F32(_) | ParamSpec::I32(_) => None,
        })
    }

    /// Checks `tensors` (in tensor-parameter order) against this variant's assumptions.
    pub fn accepts(&self, tensors: &[&Tensor]) -> Result<()> {
        let specs: Vec<&TensorSpec> = self.tensor_specs().collect();
        assert_eq!(specs.len(), tensors.len(), "{}: caller passed the wrong tensor count", self.name);
        for (spec, t) in specs.iter().zip(tensors) {
            spec.accepts(t)?;
        }
        Ok(())
    }

    /// Number of 32/64-bit kernel arguments the entry takes.
    pub fn kernel_arg_count(&self) -> usize {
        self.params
            .iter()
            .map(|p| match p {
                ParamSpec::Tensor(t) => 1 + 2 * t.ndim,
                ParamSpec::F32(_) | ParamSpec::I32(_) => 1,
            })
            .sum()
    }
}

/// The first candidate that accepts `tensors`. Candidates are ordered most specific first;
/// when none accepts, the error of the last (the most permissive) is returned: it names what
/// the caller must change at the least.
pub fn select<'a>(candidates: &[&'a Variant], tensors: &[&Tensor]) -> Result<&'a Variant> {
    let mut last_error: Option<Error> = None;
    for v in candidates {
        match v.accepts(tensors) {
            Ok(()) => return Ok(v),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| Error::new(Status::UnsupportedDtype, "no variant for these dtypes")))
}

impl Variant {
    /// The value of the const generic `name` (a tile size, a flag). Panics when the entry has
    /// no such integer generic: a bug in the variant table, not bad input.
    pub fn constant(&self, name: &str) -> i64 {
        let i = self
            .generic_names
            .iter()
            .position(|n| *n == name)
            .unwrap_or_else(|| panic!("{}/{}: no generic {name}", self.op, self.name));
        self.generics[i]
            .parse()
            .unwrap_or_else(|_| panic!("{}/{}: generic {name} is not an integer", self.op, self.name))
    }
}

/// Rejects an output that overlaps an input other than exactly (same address and strides),
/// for kernels where each block reads only the elements it writes; a shifted or interleaved
/// overlap would let one block read what another already wrote.
pub fn check_in_place(out: &Tensor, input: &Tensor) -> Result<()> {
    let identical = out.data == input.data && out.stride_slice() == input.stride_slice() && out.dims() == input.dims();
    if out.numel() > 0 && input.numel() > 0 && out.overlaps(input) && !identical {
        return Err(Error::new(
            Status::InvalidArgument,
            format!("{} partially overlaps {}: only an exact in-place call is allowed", out.name, input.name),
        ));
    }
    Ok(())
}

/// Rejects any overlap between an output and an input (kernels that read an input region
/// from many blocks, like a GEMM).
pub fn check_disjoint(out: &Tensor, input: &Tensor) -> Result<()> {
    if out.numel() > 0 && input.numel() > 0 && out.overlaps(input) {
        return Err(Error::new(Status::InvalidArgument, format!("{} overlaps input {}", out.name, input.name)));
    }
    Ok(())
}

/// All tensors share one dtype (the ops here have no mixed-precision variants).
pub fn check_same_dtype(tensors: &[&Tensor]) -> Result<()> {
    let first = tensors[0];
    for t in &tensors[1..] {
        if t.dtype != first.dtype {
            return Err(Error::new(
                Status::UnsupportedDtype,
                format!("{} is {} but {} is {}", t.name, t.dtype.torch_name(), first.name, first.dtype.torch_name()),
            ));
        }
    }
    Ok(())
}

/// Every tensor has the shape of the first.
pub fn check_same_shape(tensors: &[&Tensor]) -> Result<()> {
    let first = tensors[0];
    for t in &tensors[1..] {
        if t.dims() != first.dims() {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!("{} {:?} and {} {:?} must have one shape", first.name, first.dims(), t.name, t.dims()),
            ));
        }
    }
    Ok(())
}

/// Every tensor has rank `rank`.
pub fn check_rank(tensors: &[&Tensor], rank: usize) -> Result<()> {
    for t in tensors {
        if t.rank != rank {
            return Err(Error::new(Status::BadRank, format!("{} must have {rank} dims, got {}", t.name, t.rank)));
        }
    }
    Ok(())
}

thread_local! {
    // The variant the current (or last) cutile_<op> call on this thread passed validation for.
    static SELECTED: std::cell::RefCell<std::ffi::CString> = std::cell::RefCell::new(std::ffi::CString::default());
    // (op, variant) pairs forced on this thread by tileir_kernels_force_variant.
    static FORCED: std::cell::RefCell<Vec<(String, &'static Variant)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The variant forced for `op` on this thread, if any.
pub fn forced(op: &str) -> Option<&'static Variant> {
    FORCED.with(|f| f.borrow().iter().find(|(o, _)| o == op).map(|(_, v)| *v))
}

/// The forced variant of `op` if one is set, else `choose()`; either way checked against
/// `tensors`, so forcing never bypasses validation. `entries` are the kernels the calling C
/// function launches (a forced variant of another kernel takes other arguments).
pub fn pick(
    op: &str,
    entries: &[&str],
    tensors: &[&Tensor],
    choose: impl FnOnce() -> Result<&'static Variant>,
) -> Result<&'static Variant> {
    let v = match forced(op) {
        Some(v) if !entries.contains(&v.entry) => {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "forced variant {} is a {} kernel; this function launches {}",
                    v.name,
                    v.entry,
                    entries.join(", ")
                ),
            ));
        }
        Some(v) => v,
        None => choose()?,
    };
    v.accepts(tensors)?;
    SELECTED.with(|s| *s.borrow_mut() = std::ffi::CString::new(v.name).unwrap_or_default());
    Ok(v)
}

/// One stage of a C function that launches several kernels in order (flash_decode partial +
/// combine, moe_align histogram + sort): the forced variant of `op` when it is a kernel of this
/// stage (one of its `entries`: the kernels that can run that stage), else `choose()`; either way
/// checked against the stage's `tensors`. Record the stages' variants with `record_selected` once
/// all are picked.
pub fn pick_stage(
    op: &str,
    entries: &[&str],
    tensors: &[&Tensor],
    choose: impl FnOnce() -> Result<&'static Variant>,
) -> Result<&'static Variant> {
    let v = match forced(op) {
        Some(v) if entries.contains(&v.entry) => v,
        _ => choose()?,
    };
    v.accepts(tensors)?;
    Ok(v)
}

/// Names the variants of a multi-kernel call in launch order, comma-separated, as
/// `tileir_kernels_selected_variant` reports them.
pub fn record_selected(variants: &[&Variant]) {
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    SELECTED.with(|s| *s.borrow_mut() = std::ffi::CString::new(names.join(",")).unwrap_or_default());
}

/// Forgets the last selection; `status::guard` calls it before each C entry runs.
pub fn clear_selected() {
    SELECTED.with(|s| *s.borrow_mut() = std::ffi::CString::default());
}

/// The variant the last status-returning call on this thread chose and validated its
/// arguments against ("" when the call stopped before, or was not a cutile_<op> call),
/// whatever the call returned after that (a missing driver, a launch failure). Lets a host
/// check the selection rule without a GPU. The pointer stays valid until the next call into
/// the library from this thread.
#[unsafe(no_mangle)]
pub extern "C" fn tileir_kernels_selected_variant() -> *const std::ffi::c_char {
    SELECTED.with(|s| s.borrow().as_ptr())
}

/// Makes later `cutile_<op>` calls on this thread launch `variant` instead of choosing one
/// (testing every prebuilt variant on one shape); a null `variant` clears it. Returns
/// NO_VARIANT for an unknown name, NULL_POINTER for a null `op`.
///
/// # Safety
/// `op` and `variant` are null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileir_kernels_force_variant(
    op: *const std::ffi::c_char,
    variant: *const std::ffi::c_char,
) -> i32 {
    crate::status::guard(|| {
        if op.is_null() {
            return Err(Error::new(Status::NullPointer, "op is null"));
        }
        // SAFETY: caller contract.
        let op = unsafe { std::ffi::CStr::from_ptr(op) }.to_string_lossy().into_owned();
        FORCED.with(|f| f.borrow_mut().retain(|(o, _)| *o != op));
        if variant.is_null() {
            return Ok(());
        }
        // SAFETY: caller contract.
        let name = unsafe { std::ffi::CStr::from_ptr(variant) }.to_string_lossy().into_owned();
        let Some(v) = crate::ops::find(&op, &name) else {
            return Err(Error::new(Status::NoVariant, format!("no variant {op}/{name}")));
        };
        FORCED.with(|f| f.borrow_mut().push((op, v)));
        Ok(())
    })
}

/// Rejects rows of zero columns (M > 0, N = 0) for the row-reduction kernels: `stat` (the
/// mean, the absmax) of an empty row is undefined, and the kernel would store it anyway.
pub fn check_rows_have_columns(x: &Tensor, stat: &str) -> Result<()> {
    if x.shape[0] > 0 && x.shape[1] == 0 {
        return Err(Error::new(
            Status::UnsupportedShape,
            format!("{} has rows of zero columns: their {stat} is undefined", x.name),
        ));
    }
    Ok(())
}

/// The normalization epsilon: finite and >= 0 (a NaN or negative one would make rstd NaN).
pub fn check_eps(eps: f32) -> Result<()> {
    if !eps.is_finite() || eps < 0.0 {
        return Err(Error::new(Status::InvalidArgument, format!("eps = {eps} must be finite and >= 0")));
    }
    Ok(())
}

/// A variant (forced or chosen) must have been built with the constant `name` = `value` that
/// the call's flag asks for (a transposed weight layout, the routed-weight scale, the block size
/// the routing was aligned to); INVALID_ARGUMENT otherwise.
pub fn check_constant(v: &Variant, name: &str, value: i64) -> Result<()> {
    if v.constant(name) != value {
        return Err(Error::new(
            Status::InvalidArgument,
            format!("variant {} is built with {name} = {}, the call asks for {value}", v.name, v.constant(name)),
        ));
    }
    Ok(())
}
