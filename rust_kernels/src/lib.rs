//! cuTile Rust ports of the tileir_diff reference kernels.
//!
//! Two faces, one variant table (`ops::<op>::VARIANTS`):
//! - feature `compile` (default): the `#[cutile::module]` kernels and `compile`, used by the
//!   `emit-ir` binary and the tests to write Tile IR bytecode without a GPU;
//! - always: the C ABI (`cutile_<op>` in `ops::<op>::ffi`), which validates descriptors
//!   and launches the sm_90 cubins embedded by build.rs through a dlopen'ed libcuda.
//!   Build the shared library with `--no-default-features` to leave the compiler out.

pub mod descriptor;
pub mod driver;
pub mod independent;
pub mod launch;
pub mod ops;
pub mod status;
pub mod variant;

#[cfg(feature = "compile")]
pub mod compile;

/// Version of the C ABI in include/tileir_kernels.h; bumped on any layout or prototype change.
pub const ABI_VERSION: i32 = 1;

#[unsafe(no_mangle)]
pub extern "C" fn tileir_kernels_abi_version() -> i32 {
    ABI_VERSION
}

/// 1 when this build embeds the cubin of `op`/`variant`, 0 when not (or on a null name).
///
/// # Safety
/// `op` and `variant` are null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileir_kernels_has_kernel_image(
    op: *const std::ffi::c_char,
    variant: *const std::ffi::c_char,
) -> i32 {
    if op.is_null() || variant.is_null() {
        return 0;
    }
    // SAFETY: caller contract.
    let (op, variant) = unsafe { (std::ffi::CStr::from_ptr(op), std::ffi::CStr::from_ptr(variant)) };
    match (op.to_str(), variant.to_str()) {
        (Ok(op), Ok(variant)) => launch::image(op, variant).is_some() as i32,
        _ => 0,
    }
}
