//! Return codes of the C ABI (mirrored in include/tileir_kernels.h and tileir_diff/ports/_abi.py).
//!
//! Every `cutile_<op>` returns one of these as an `int32_t`. -1 is never returned: callers
//! commonly use it as an "unset" sentinel, so a -1 would be ambiguous.

use std::cell::RefCell;
use std::ffi::{CString, c_char};

#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    /// A descriptor pointer is null, or a non-empty tensor has a null data pointer.
    NullPointer = -2,
    /// Unknown dtype code, or a dtype (combination) no variant of the op accepts.
    UnsupportedDtype = -3,
    /// `ndim` is outside 1..=5 or not the rank the op expects.
    BadRank = -4,
    /// A negative or too large (> i32::MAX) dimension, or a byte extent whose end passes 2^64.
    InvalidShape = -5,
    /// Shapes of the tensors of one call disagree (e.g. matmul inner dimensions).
    ShapeMismatch = -6,
    /// A stride the kernel cannot read correctly: the wrong unit stride, negative, not
    /// divisible as the kernel assumes, or an output that overlaps itself.
    BadStride = -7,
    /// A base address not aligned as the kernel assumes.
    Misaligned = -8,
    /// A negative device id, a device that does not exist, or a non-sm_90 device.
    InvalidDevice = -9,
    /// A tensor or the stream belongs to another device than `device`.
    DeviceMismatch = -10,
    /// A scalar argument outside its domain (e.g. a non-finite eps, a bad flag).
    InvalidArgument = -11,
    /// A shape no prebuilt variant handles (e.g. a softmax row longer than the largest tile).
    UnsupportedShape = -12,
    /// libcuda.so.1 could not be loaded (no NVIDIA driver on this machine).
    DriverUnavailable = -13,
    /// A CUDA driver call failed (init, context, module load).
    DriverError = -14,
    /// The library was built without the cubin of the selected variant.
    KernelImageMissing = -15,
    /// cuLaunchKernel failed.
    LaunchFailed = -16,
    /// Valid arguments, but no prebuilt variant covers this combination of dtype, flags
    /// and layout (e.g. an f16 matmul with both operands transposed).
    NoVariant = -17,
    /// A tensor's byte extent (address + largest element offset) runs past the end of the
    /// device allocation that holds its address (`cuMemGetAddressRange`).
    OutOfBounds = -18,
}

impl Status {
    pub const ALL: [Status; 18] = [
        Status::Ok,
        Status::NullPointer,
        Status::UnsupportedDtype,
        Status::BadRank,
        Status::InvalidShape,
        Status::ShapeMismatch,
        Status::BadStride,
        Status::Misaligned,
        Status::InvalidDevice,
        Status::DeviceMismatch,
        Status::InvalidArgument,
        Status::UnsupportedShape,
        Status::DriverUnavailable,
        Status::DriverError,
        Status::KernelImageMissing,
        Status::LaunchFailed,
        Status::NoVariant,
        Status::OutOfBounds,
    ];

    pub fn code(self) -> i32 {
        self as i32
    }

    /// The C enumerator name (TILEIR_<NAME>), also used by the Python wrapper.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::NullPointer => "NULL_POINTER",
            Status::UnsupportedDtype => "UNSUPPORTED_DTYPE",
            Status::BadRank => "BAD_RANK",
            Status::InvalidShape => "INVALID_SHAPE",
            Status::ShapeMismatch => "SHAPE_MISMATCH",
            Status::BadStride => "BAD_STRIDE",
            Status::Misaligned => "MISALIGNED",
            Status::InvalidDevice => "INVALID_DEVICE",
            Status::DeviceMismatch => "DEVICE_MISMATCH",
            Status::InvalidArgument => "INVALID_ARGUMENT",
            Status::UnsupportedShape => "UNSUPPORTED_SHAPE",
            Status::DriverUnavailable => "DRIVER_UNAVAILABLE",
            Status::DriverError => "DRIVER_ERROR",
            Status::KernelImageMissing => "KERNEL_IMAGE_MISSING",
            Status::LaunchFailed => "LAUNCH_FAILED",
            Status::NoVariant => "NO_VARIANT",
            Status::OutOfBounds => "OUT_OF_BOUNDS",
        }
    }

    pub fn from_code(code: i32) -> Option<Status> {
        Status::ALL.iter().copied().find(|s| s.code() == code)
    }
}

/// A failed check: the code plus a sentence for the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub status: Status,
    pub message: String,
}

impl Error {
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Error { status, message: message.into() }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand: `fail(Status::BadStride, format!(...))`.
pub fn fail<T>(status: Status, message: impl Into<String>) -> Result<T> {
    Err(Error::new(status, message))
}

thread_local! {
    // Per thread, like errno: concurrent callers do not see each other's messages.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Turns a result into the C return code, remembering the message for
/// `tileir_kernels_last_error`.
pub fn finish(result: Result<()>) -> i32 {
    let (code, message) = match result {
        Ok(()) => (Status::Ok.code(), String::new()),
        Err(e) => (e.status.code(), format!("{}: {}", e.status.name(), e.message)),
    };
    // Interior NULs cannot come from our messages, but never panic across the C boundary.
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = c);
    code
}

/// Runs an entry body, converting a panic into DriverError instead of unwinding into C.
pub fn guard(body: impl FnOnce() -> Result<()>) -> i32 {
    crate::variant::clear_selected();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(result) => finish(result),
        Err(_) => finish(fail(Status::DriverError, "internal panic in tileir_kernels")),
    }
}

/// Message of the last failed call on this thread ("" after a success). The pointer stays
/// valid until the next call into the library from this thread.
#[unsafe(no_mangle)]
pub extern "C" fn tileir_kernels_last_error() -> *const c_char {
    LAST_ERROR.with(|slot| slot.borrow().as_ptr())
}

/// Enumerator name of a return code ("UNKNOWN" for a code this library never returns).
#[unsafe(no_mangle)]
pub extern "C" fn tileir_kernels_status_name(code: i32) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<(i32, CString)>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| Status::ALL.iter().map(|s| (s.code(), CString::new(s.name()).unwrap())).collect());
    match names.iter().find(|(c, _)| *c == code) {
        Some((_, name)) => name.as_ptr(),
        None => c"UNKNOWN".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_negative_and_skip_minus_one() {
        let mut seen = std::collections::HashSet::new();
        for s in Status::ALL {
            assert!(seen.insert(s.code()), "duplicate code {}", s.code());
            assert_ne!(s.code(), -1);
            assert!(s.code() <= 0);
            assert_eq!(Status::from_code(s.code()), Some(s));
        }
        assert_eq!(Status::from_code(-1), None);
    }

    #[test]
    fn finish_records_message_per_thread() {
        let code = finish(fail(Status::BadStride, "x: stride 3"));
        assert_eq!(code, -7);
        let msg = unsafe { std::ffi::CStr::from_ptr(tileir_kernels_last_error()) };
        assert_eq!(msg.to_str().unwrap(), "BAD_STRIDE: x: stride 3");
        std::thread::spawn(|| {
            let msg = unsafe { std::ffi::CStr::from_ptr(tileir_kernels_last_error()) };
            assert_eq!(msg.to_str().unwrap(), "");
        })
        .join()
        .unwrap();
        assert_eq!(finish(Ok(())), 0);
        let msg = unsafe { std::ffi::CStr::from_ptr(tileir_kernels_last_error()) };
        assert_eq!(msg.to_str().unwrap(), "");
    }

    #[test]
    fn panics_become_an_error_code() {
        assert_eq!(guard(|| panic!("boom")), Status::DriverError.code());
    }
}
