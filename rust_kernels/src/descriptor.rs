//! The tensor descriptor of the C ABI and the only place descriptors are validated.
//!
//! A descriptor is checked in two steps: `read` checks what holds for any tensor (non-null,
//! rank, dtype code, non-negative dims and strides that fit the kernels' i32 index math),
//! then `TensorSpec::accepts` checks what one kernel variant assumed when its IR was
//! specialized (dtype, rank, unit last stride, divisibility, base alignment, no self-overlap
//! for outputs). The same `TensorSpec` drives `emit-ir`'s specialization, so a descriptor the
//! ABI accepts satisfies every `assume` in the launched cubin.

use crate::status::{Result, Status, fail};

pub const MAX_RANK: usize = 5;

/// C layout, see include/tileir_kernels.h (`tileir_tensor_t`). 96 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileirTensor {
    /// Device address of element [0, ..., 0].
    pub data: u64,
    /// Extents; entries past `ndim` are ignored.
    pub shape: [i64; MAX_RANK],
    /// Strides in elements (not bytes); entries past `ndim` are ignored.
    pub strides: [i64; MAX_RANK],
    pub ndim: i32,
    /// A `DType` code.
    pub dtype: i32,
}

/// Element type codes (TILEIR_DTYPE_* in the header).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32 = 0,
    F16 = 1,
    BF16 = 2,
    I32 = 3,
    I64 = 4,
    F8E4M3FN = 5,
    F8E5M2 = 6,
    F64 = 7,
}

impl DType {
    pub const ALL: [DType; 8] =
        [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::F8E4M3FN, DType::F8E5M2, DType::F64];

    pub fn from_code(code: i32) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| *d as i32 == code)
    }

    pub const fn bytes(self) -> u64 {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I64 | DType::F64 => 8,
            DType::F8E4M3FN | DType::F8E5M2 => 1,
        }
    }

    /// The Rust type name cuTile Rust takes as a type generic (`.generics(["f16", ...])`).
    pub const fn rust_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F8E4M3FN => "f8e4m3fn",
            DType::F8E5M2 => "f8e5m2",
            DType::F64 => "f64",
        }
    }

    /// The torch / analysis.json spelling.
    pub const fn torch_name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F8E4M3FN => "float8_e4m3fn",
            DType::F8E5M2 => "float8_e5m2",
            DType::F64 => "float64",
        }
    }
}

/// A descriptor that passed the generic checks of `read`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub name: &'static str,
    pub data: u64,
    pub dtype: DType,
    pub rank: usize,
    pub shape: [i64; MAX_RANK],
    pub strides: [i64; MAX_RANK],
}

/// Largest extent, stride and element offset the kernels can index: their shape and stride
/// arguments are i32 (`tile<i32>` in the entry signature).
pub const MAX_INDEX: i64 = i32::MAX as i64;

/// How a kernel parameter indexes its tensor: the width of its extent and stride arguments
/// and of its offset math (analysis.json `index_dtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWidth {
    /// i32 extents, strides and element offsets (every `&Tensor` parameter of cuTile Rust).
    I32,
    /// i64 extents and strides, i64 offsets: the largest element offset may pass 2^31 - 1
    /// (a raw-pointer parameter; `TensorSpec::index64`).
    I64,
}

/// Reads and checks one descriptor.
///
/// # Safety
/// `desc` is null or points to a readable `TileirTensor`.
pub unsafe fn read(desc: *const TileirTensor, name: &'static str) -> Result<Tensor> {
    // SAFETY: forwarded caller contract.
    unsafe { read_indexed(desc, name, IndexWidth::I32) }
}

/// `read` for a tensor that some variant indexes with `width`: with `IndexWidth::I64` the
/// largest element offset may pass the i32 range (the variant's `TensorSpec::accepts` then
/// rejects it for an i32-indexed variant); extents and strides stay within 0..=INT32_MAX.
///
/// # Safety
/// `desc` is null or points to a readable `TileirTensor`.
pub unsafe fn read_indexed(desc: *const TileirTensor, name: &'static str, width: IndexWidth) -> Result<Tensor> {
    if desc.is_null() {
        return fail(Status::NullPointer, format!("{name}: descriptor pointer is null"));
    }
    // SAFETY: non-null and, per the contract, points to a descriptor; read_unaligned
    // because a C caller may pack descriptors anywhere.
    let d = unsafe { desc.read_unaligned() };
    check_indexed(&d, name, width)
}

/// The checks of `read` on a descriptor value.
pub fn check(d: &TileirTensor, name: &'static str) -> Result<Tensor> {
    check_indexed(d, name, IndexWidth::I32)
}

/// The checks of `read_indexed` on a descriptor value.
pub fn check_indexed(d: &TileirTensor, name: &'static str, width: IndexWidth) -> Result<Tensor> {
    if d.ndim < 1 || d.ndim as usize > MAX_RANK {
        return fail(Status::BadRank, format!("{name}: ndim {} is outside 1..={MAX_RANK}", d.ndim));
    }
    let rank = d.ndim as usize;
    let Some(dtype) = DType::from_code(d.dtype) else {
        return fail(Status::UnsupportedDtype, format!("{name}: unknown dtype code {}", d.dtype));
    };
    for i in 0..rank {
        if d.shape[i] < 0 || d.shape[i] > MAX_INDEX {
            return fail(
                Status::InvalidShape,
                format!("{name}: shape[{i}] = {} is outside 0..={MAX_INDEX}", d.shape[i]),
            );
        }
    }
    let mut t = Tensor { name, data: d.data, dtype, rank, shape: [0; MAX_RANK], strides: [0; MAX_RANK] };
    t.shape[..rank].copy_from_slice(&d.shape[..rank]);
    t.strides[..rank].copy_from_slice(&d.strides[..rank]);
    if t.numel() == 0 {
        // Nothing is read or written; strides and address are irrelevant.
        return Ok(t);
    }
    // An i32-indexed kernel takes strides as i32; an i64-indexed one as i64.
    let max_stride = match width {
        IndexWidth::I32 => MAX_INDEX,
        IndexWidth::I64 => i64::MAX,
    };
    for i in 0..rank {
        let s = d.strides[i];
        // The kernels assume strides >= 0 (`assume bounded<0, ?>`).
        if !(0..=max_stride).contains(&s) {
            return fail(Status::BadStride, format!("{name}: stride[{i}] = {s} is outside 0..={max_stride}"));
        }
    }
    if t.checked_max_offset().is_none() {
        return fail(
            Status::InvalidShape,
            format!(
                "{name}: largest element offset of shape {:?}, strides {:?} overflows i64",
                t.dims(),
                t.stride_slice()
            ),
        );
    }
    if width == IndexWidth::I32 {
        t.check_i32_offsets()?;
    }
    if t.data == 0 {
        return fail(Status::NullPointer, format!("{name}: data pointer is null for a non-empty tensor"));
    }
    if t.checked_byte_range().is_none() {
        return fail(
            Status::InvalidShape,
            format!(
                "{name}: byte extent of shape {:?}, strides {:?} ({} bytes each) from address {:#x} overflows the 64-bit address space",
                t.dims(),
                t.stride_slice(),
                t.dtype.bytes(),
                t.data
            ),
        );
    }
    Ok(t)
}

impl Tensor {
    pub fn dims(&self) -> &[i64] {
        &self.shape[..self.rank]
    }

    pub fn stride_slice(&self) -> &[i64] {
        &self.strides[..self.rank]
    }

    /// The element count, saturating at i64::MAX (five extents of up to 2^31 - 1 can pass
    /// i64; a wrapped product could read as 0, an empty tensor that skips every check).
    pub fn numel(&self) -> i64 {
        if self.dims().contains(&0) {
            return 0;
        }
        self.dims().iter().try_fold(1i64, |n, &d| n.checked_mul(d)).unwrap_or(i64::MAX)
    }

    /// Offset in elements of the last element (0 for an empty tensor). `check_indexed`
    /// rejects a tensor for which it overflows; for one that did not pass it saturates.
    pub fn max_offset(&self) -> i64 {
        self.checked_max_offset().unwrap_or(i64::MAX)
    }

    /// `max_offset` in checked arithmetic: `None` when it overflows i64.
    pub fn checked_max_offset(&self) -> Option<i64> {
        if self.numel() == 0 {
            return Some(0);
        }
        let mut sum = 0i64;
        for (&d, &s) in self.dims().iter().zip(self.stride_slice()) {
            sum = sum.checked_add((d - 1).checked_mul(s)?)?;
        }
        Some(sum)
    }

    /// Rejects a tensor whose largest element offset passes the i32 index math of a kernel.
    pub fn check_i32_offsets(&self) -> Result<()> {
        if self.max_offset() > MAX_INDEX {
            return fail(
                Status::UnsupportedShape,
                format!(
                    "{}: largest element offset {} exceeds the kernels' i32 index range",
                    self.name,
                    self.max_offset()
                ),
            );
        }
        Ok(())
    }

    /// Byte range [start, end) touched by the tensor, in checked arithmetic: `None` when the
    /// end would pass 2^64. Strides are non-negative (checked in `check`), so the lowest byte
    /// is `data`; the end is data + (sum over dims of (shape-1)*stride + 1) * elem_size.
    pub fn checked_byte_range(&self) -> Option<(u64, u64)> {
        if self.numel() == 0 {
            return Some((self.data, self.data));
        }
        let mut last: u64 = 0;
        for (&d, &s) in self.dims().iter().zip(self.stride_slice()) {
            let d = u64::try_from(d).ok()?;
            let s = u64::try_from(s).ok()?;
            last = last.checked_add(d.checked_sub(1)?.checked_mul(s)?)?;
        }
        let bytes = last.checked_add(1)?.checked_mul(self.dtype.bytes())?;
        Some((self.data, self.data.checked_add(bytes)?))
    }

    /// Byte range [start, end) touched by the tensor. `check` rejects a tensor whose range
    /// overflows; for one that did not pass it the end saturates at 2^64 - 1.
    pub fn byte_range(&self) -> (u64, u64) {
        self.checked_byte_range().unwrap_or((self.data, u64::MAX))
    }

    /// True when two distinct elements share an address (zero or interleaved strides).
    pub fn overlaps_itself(&self) -> bool {
        let mut dims: Vec<(i64, i64)> =
            self.dims().iter().zip(self.stride_slice()).filter(|(d, _)| **d > 1).map(|(d, s)| (*s, *d)).collect();
        dims.sort_unstable();
        // Sorted by stride, each stride must step past everything the smaller ones reach.
        let mut reach = 0i64;
        for (stride, extent) in dims {
            if stride <= reach {
                return true;
            }
            reach += (extent - 1) * stride;
        }
        false
    }

    /// Strides as passed to the kernel: a dimension of extent 1 never moves the address, so
    /// its stride is replaced by one that satisfies the kernel's assumptions (1 where the
    /// kernel folded a unit stride, else 0, which is divisible by anything).
    pub fn kernel_strides(&self, spec: &TensorSpec) -> [i64; MAX_RANK] {
        let mut out = self.strides;
        for (i, stride) in out.iter_mut().enumerate().take(self.rank) {
            if self.shape[i] <= 1 {
                *stride = if spec.unit_stride(i) { 1 } else { 0 };
            }
        }
        out
    }

    pub fn overlaps(&self, other: &Tensor) -> bool {
        let (a0, a1) = self.byte_range();
        let (b0, b1) = other.byte_range();
        a0 < b1 && b0 < a1
    }
}

/// What a kernel variant assumed about one array parameter when its IR was specialized.
/// Mirrors a cuTile Python `ArrayConstraint` of the reference export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    pub name: &'static str,
    pub dtype: DType,
    pub ndim: usize,
    /// `stride_constant=(None, ..., 1)`: the last stride is folded into the view type as 1.
    pub unit_last_stride: bool,
    /// `base_addr_divisible_by`, in bytes.
    pub base_align: u64,
    /// `shape_divisible_by`, per dimension, in elements.
    pub shape_div: [i64; MAX_RANK],
    /// `stride_divisible_by`, per dimension, in elements.
    pub stride_div: [i64; MAX_RANK],
    /// Written by the kernel: must not overlap itself.
    pub output: bool,
    /// analysis.json `index_dtype` int64: the kernel takes the tensor as a raw pointer with
    /// i64 extents and strides (cuTile Rust 0.5.0 gives a `&Tensor` parameter i32 ones), so
    /// its element offsets may pass 2^31 - 1.
    pub index64: bool,
}

impl TensorSpec {
    /// An input array with no assumptions beyond non-negative strides.
    pub const fn input(name: &'static str, dtype: DType, ndim: usize) -> Self {
        TensorSpec {
            name,
            dtype,
            ndim,
            unit_last_stride: false,
            base_align: 1,
            shape_div: [1; MAX_RANK],
            stride_div: [1; MAX_RANK],
            output: false,
            index64: false,
        }
    }

    pub const fn output(name: &'static str, dtype: DType, ndim: usize) -> Self {
        let mut s = Self::input(name, dtype, ndim);
        s.output = true;
        s
    }

    pub const fn unit_last(mut self) -> Self {
        self.unit_last_stride = true;
        self
    }

    /// i64 extents, strides and offsets (analysis.json `index_dtype` int64).
    pub const fn index64(mut self) -> Self {
        self.index64 = true;
        self
    }

    pub const fn index_width(&self) -> IndexWidth {
        if self.index64 { IndexWidth::I64 } else { IndexWidth::I32 }
    }

    pub const fn align(mut self, bytes: u64) -> Self {
        self.base_align = bytes;
        self
    }

    /// `stride_divisible_by` for the leading dimension(s): every dimension but the last
    /// gets `div` (the last is the unit stride or gets `last`).
    pub const fn stride_div(mut self, leading: i64, last: i64) -> Self {
        let mut i = 0;
        while i + 1 < self.ndim {
            self.stride_div[i] = leading;
            i += 1;
        }
        self.stride_div[self.ndim - 1] = last;
        self
    }

    pub const fn shape_div(mut self, dim: usize, div: i64) -> Self {
        self.shape_div[dim] = div;
        self
    }

    /// Whether dimension `i` has the stride folded to 1 in the view type.
    pub const fn unit_stride(&self, i: usize) -> bool {
        self.unit_last_stride && i + 1 == self.ndim
    }

    /// `.strides(...)` value for KernelCompiler: 1 = static unit stride, -1 = dynamic.
    pub fn static_strides(&self) -> Vec<i32> {
        (0..self.ndim).map(|i| if self.unit_stride(i) { 1 } else { -1 }).collect()
    }

    /// Checks a tensor against this parameter's assumptions.
    pub fn accepts(&self, t: &Tensor) -> Result<()> {
        let name = t.name;
        if t.rank != self.ndim {
            return fail(Status::BadRank, format!("{name}: expected {} dims, got {}", self.ndim, t.rank));
        }
        if t.dtype != self.dtype {
            return fail(
                Status::UnsupportedDtype,
                format!("{name}: expected {}, got {}", self.dtype.torch_name(), t.dtype.torch_name()),
            );
        }
        for i in 0..t.rank {
            if t.shape[i] % self.shape_div[i] != 0 {
                return fail(
                    Status::UnsupportedShape,
                    format!("{name}: shape[{i}] = {} is not a multiple of {}", t.shape[i], self.shape_div[i]),
                );
            }
        }
        if t.numel() == 0 {
            return Ok(());
        }
        if !self.index64 {
            t.check_i32_offsets()?;
        }
        let strides = t.kernel_strides(self);
        for (i, &stride) in strides.iter().enumerate().take(t.rank) {
            if self.unit_stride(i) && stride != 1 {
                return fail(
                    Status::BadStride,
                    format!("{name}: stride[{i}] = {stride} but this kernel reads the last dimension with unit stride"),
                );
            }
            if stride % self.stride_div[i] != 0 {
                return fail(
                    Status::BadStride,
                    format!("{name}: stride[{i}] = {stride} is not a multiple of {} elements", self.stride_div[i]),
                );
            }
        }
        if !t.data.is_multiple_of(self.base_align) {
            return fail(
                Status::Misaligned,
                format!("{name}: address {:#x} is not {}-byte aligned", t.data, self.base_align),
            );
        }
        if self.output && t.overlaps_itself() {
            return fail(
                Status::BadStride,
                format!("{name}: output strides {:?} make elements overlap", t.stride_slice()),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(dtype: DType, shape: &[i64], strides: &[i64], data: u64) -> TileirTensor {
        let mut d = TileirTensor { data, ndim: shape.len() as i32, dtype: dtype as i32, ..Default::default() };
        d.shape[..shape.len()].copy_from_slice(shape);
        d.strides[..strides.len()].copy_from_slice(strides);
        d
    }

    fn contiguous(dtype: DType, shape: &[i64]) -> TileirTensor {
        let mut strides = vec![1i64; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1];
        }
        desc(dtype, shape, &strides, 0x1000)
    }

    fn status_of<T: std::fmt::Debug>(r: Result<T>) -> Status {
        r.expect_err("expected a rejection").status
    }

    const MATRIX: TensorSpec = TensorSpec::input("a", DType::F16, 2).unit_last().align(16).stride_div(8, 1);

    #[test]
    fn layout_matches_the_header() {
        assert_eq!(std::mem::size_of::<TileirTensor>(), 96);
        assert_eq!(std::mem::offset_of!(TileirTensor, shape), 8);
        assert_eq!(std::mem::offset_of!(TileirTensor, strides), 48);
        assert_eq!(std::mem::offset_of!(TileirTensor, ndim), 88);
        assert_eq!(std::mem::offset_of!(TileirTensor, dtype), 92);
    }

    #[test]
    fn null_descriptor_and_null_data_are_rejected() {
        assert_eq!(status_of(unsafe { read(std::ptr::null(), "x") }), Status::NullPointer);
        let d = desc(DType::F32, &[4], &[1], 0);
        assert_eq!(status_of(check(&d, "x")), Status::NullPointer);
        // An empty tensor may have a null address (torch gives 0 for empty CUDA tensors).
        assert!(check(&desc(DType::F32, &[0], &[1], 0), "x").is_ok());
    }

    #[test]
    fn rank_dtype_shape_and_stride_ranges() {
        assert_eq!(status_of(check(&desc(DType::F32, &[], &[], 16), "x")), Status::BadRank);
        let mut d = contiguous(DType::F32, &[2, 2]);
        d.ndim = 6;
        assert_eq!(status_of(check(&d, "x")), Status::BadRank);
        let mut d = contiguous(DType::F32, &[4]);
        d.dtype = 42;
        assert_eq!(status_of(check(&d, "x")), Status::UnsupportedDtype);
        assert_eq!(status_of(check(&desc(DType::F32, &[-1], &[1], 16), "x")), Status::InvalidShape);
        assert_eq!(status_of(check(&desc(DType::F32, &[1 << 31], &[1], 16), "x")), Status::InvalidShape);
        assert_eq!(status_of(check(&desc(DType::F32, &[4], &[-1], 16), "x")), Status::BadStride);
        assert_eq!(
            status_of(check(&desc(DType::F32, &[65536, 65536], &[65536, 1], 16), "x")),
            Status::UnsupportedShape
        );
    }

    #[test]
    fn i64_indexed_tensors_may_pass_the_i32_offset_range() {
        // (131072, 16400) f16: the largest offset 2,149,580,799 passes 2^31 - 1.
        let huge = contiguous(DType::F16, &[131072, 16400]);
        assert_eq!(status_of(check(&huge, "w")), Status::UnsupportedShape);
        let t = check_indexed(&huge, "w", IndexWidth::I64).unwrap();
        assert_eq!(t.max_offset(), 131071 * 16400 + 16399);
        assert_eq!(t.byte_range(), (0x1000, 0x1000 + 131072 * 16400 * 2));
        let wide = MATRIX.index64();
        assert!(wide.accepts(&t).is_ok());
        assert_eq!(status_of(MATRIX.accepts(&t)), Status::UnsupportedShape);
        // Strides past INT32_MAX only for an i64-indexed read; offsets past i64 never.
        let d = desc(DType::F16, &[3, 16], &[(1 << 31) + 8, 1], 0x1000);
        assert_eq!(status_of(check(&d, "w")), Status::BadStride);
        assert!(wide.accepts(&check_indexed(&d, "w", IndexWidth::I64).unwrap()).is_ok());
        let d = desc(DType::F16, &[4, 16], &[1 << 62, 1], 0x1000);
        assert_eq!(status_of(check_indexed(&d, "w", IndexWidth::I64)), Status::InvalidShape);
        let d = desc(DType::F16, &[4, 16], &[-8, 1], 0x1000);
        assert_eq!(status_of(check_indexed(&d, "w", IndexWidth::I64)), Status::BadStride);
        // Rank 5 of i32-sized extents and strides: the i64 sum overflows, it does not wrap.
        let d = desc(DType::F16, &[1 << 30; 5], &[(1 << 31) - 1; 5], 0x1000);
        assert_eq!(status_of(check(&d, "w")), Status::InvalidShape);
    }

    #[test]
    fn spec_rejects_each_violated_assumption() {
        let ok = check(&contiguous(DType::F16, &[64, 64]), "a").unwrap();
        assert!(MATRIX.accepts(&ok).is_ok());
        // Transposed view: last stride is not 1.
        let t = check(&desc(DType::F16, &[64, 64], &[1, 64], 0x1000), "a").unwrap();
        assert_eq!(status_of(MATRIX.accepts(&t)), Status::BadStride);
        // Row stride not a multiple of 8 elements (16 bytes).
        let t = check(&desc(DType::F16, &[64, 60], &[60, 1], 0x1000), "a").unwrap();
        assert_eq!(status_of(MATRIX.accepts(&t)), Status::BadStride);
        let t = check(&desc(DType::F16, &[64, 64], &[64, 1], 0x1002), "a").unwrap();
        assert_eq!(status_of(MATRIX.accepts(&t)), Status::Misaligned);
        let t = check(&contiguous(DType::BF16, &[64, 64]), "a").unwrap();
        assert_eq!(status_of(MATRIX.accepts(&t)), Status::UnsupportedDtype);
        let t = check(&contiguous(DType::F16, &[64]), "a").unwrap();
        assert_eq!(status_of(MATRIX.accepts(&t)), Status::BadRank);
        let spec = MATRIX.shape_div(1, 16);
        let t = check(&desc(DType::F16, &[64, 40], &[64, 1], 0x1000), "a").unwrap();
        assert_eq!(status_of(spec.accepts(&t)), Status::UnsupportedShape);
    }

    #[test]
    fn extent_one_dimensions_ignore_their_stride() {
        // A (1, 7) row: stride[0] = 7 is not a multiple of 8, but never moves the address.
        let t = check(&desc(DType::F16, &[1, 7], &[7, 1], 0x1000), "a").unwrap();
        assert!(MATRIX.accepts(&t).is_ok());
        assert_eq!(t.kernel_strides(&MATRIX)[..2], [0, 1]);
        // (8, 1): the unit last stride is folded even if torch reports another value.
        let t = check(&desc(DType::F16, &[8, 1], &[8, 5], 0x1000), "a").unwrap();
        assert_eq!(t.kernel_strides(&MATRIX)[..2], [8, 1]);
        assert!(MATRIX.accepts(&t).is_ok());
    }

    #[test]
    fn outputs_must_not_overlap_themselves() {
        let out = TensorSpec::output("out", DType::F32, 2).unit_last();
        let t = check(&desc(DType::F32, &[4, 8], &[0, 1], 0x1000), "out").unwrap();
        assert_eq!(status_of(out.accepts(&t)), Status::BadStride);
        let t = check(&desc(DType::F32, &[4, 8], &[4, 1], 0x1000), "out").unwrap();
        assert_eq!(status_of(out.accepts(&t)), Status::BadStride);
        let t = check(&desc(DType::F32, &[4, 8], &[8, 1], 0x1000), "out").unwrap();
        assert!(out.accepts(&t).is_ok());
        // The same broadcast layout is fine for an input.
        let inp = TensorSpec::input("x", DType::F32, 2).unit_last();
        let t = check(&desc(DType::F32, &[4, 8], &[0, 1], 0x1000), "x").unwrap();
        assert!(inp.accepts(&t).is_ok());
    }

    #[test]
    fn byte_extents_that_wrap_the_address_space_are_rejected() {
        // 4 f32 end exactly at 2^64: representable as [start, 2^64) only by wrapping to 0.
        let top = u64::MAX - 15;
        assert_eq!(status_of(check(&desc(DType::F32, &[4], &[1], top), "x")), Status::InvalidShape);
        let t = check(&desc(DType::F32, &[3], &[1], top), "x").unwrap();
        assert_eq!(t.byte_range(), (top, u64::MAX - 3));
        // Strided 2-D: offset (2^31-2)*1 + 0 elements of 8 bytes past a high address.
        let d = desc(DType::F64, &[2, 1 << 30], &[1 << 30, 1], u64::MAX - (1 << 33));
        let e = status_of(check(&d, "x"));
        assert_eq!(e, Status::InvalidShape);
        let msg = check(&d, "x").unwrap_err().message;
        assert!(msg.starts_with("x: byte extent") && msg.contains("overflows"), "{msg}");
        // An empty tensor at any address has an empty range.
        let t = check(&desc(DType::F32, &[0, 4], &[4, 1], u64::MAX), "x").unwrap();
        assert_eq!(t.checked_byte_range(), Some((u64::MAX, u64::MAX)));
    }

    #[test]
    fn byte_ranges_detect_aliasing() {
        let a = check(&desc(DType::F32, &[4, 4], &[4, 1], 0x1000), "a").unwrap();
        let b = check(&desc(DType::F32, &[4], &[1], 0x1000 + 60), "b").unwrap();
        let c = check(&desc(DType::F32, &[4], &[1], 0x1000 + 64), "c").unwrap();
        assert!(a.overlaps(&b));
        assert!(!a.overlaps(&c));
    }
}
