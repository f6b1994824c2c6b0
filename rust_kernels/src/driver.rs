//! The CUDA driver API, loaded at run time with dlopen.
//!
//! Nothing links against libcuda: the library builds and loads on a machine without an
//! NVIDIA driver and answers DRIVER_UNAVAILABLE there. On a GPU machine it attaches to the
//! device's primary context (the one PyTorch uses), loads each prebuilt cubin once per
//! device, and launches on the caller's stream. It never allocates device memory.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::sync::{Mutex, OnceLock};

use libloading::Library;

use crate::status::{Result, Status, fail};

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuModule = *mut c_void;
type CuFunction = *mut c_void;
type CuStream = *mut c_void;

const CUDA_SUCCESS: CuResult = 0;
const CUDA_ERROR_INVALID_VALUE: CuResult = 1;
const CUDA_ERROR_NOT_FOUND: CuResult = 500;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: c_int = 76;
const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: c_int = 9;
const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: c_int = 97;
const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: c_int = 1;
const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: c_int = 8;
/// Special stream handles: 0 (legacy default), CU_STREAM_LEGACY, CU_STREAM_PER_THREAD.
/// They belong to whatever context is current, so there is no context to compare.
const SPECIAL_STREAMS: [u64; 3] = [0, 1, 2];

/// Compute capability major the embedded cubins were built for (sm_90).
pub const CUBIN_ARCH_MAJOR: i32 = 9;

struct Api {
    cu_init: unsafe extern "C" fn(c_uint) -> CuResult,
    cu_device_get_count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    cu_device_get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult,
    cu_device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, CuDevice) -> CuResult,
    cu_device_primary_ctx_retain: unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult,
    cu_ctx_push_current: unsafe extern "C" fn(CuContext) -> CuResult,
    cu_ctx_pop_current: unsafe extern "C" fn(*mut CuContext) -> CuResult,
    cu_module_load_data: unsafe extern "C" fn(*mut CuModule, *const c_void) -> CuResult,
    cu_module_get_function: unsafe extern "C" fn(*mut CuFunction, CuModule, *const c_char) -> CuResult,
    cu_launch_kernel: unsafe extern "C" fn(
        CuFunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        CuStream,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CuResult,
    cu_pointer_get_attribute: unsafe extern "C" fn(*mut c_void, c_int, u64) -> CuResult,
    /// cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr).
    cu_mem_get_address_range: unsafe extern "C" fn(*mut u64, *mut usize, u64) -> CuResult,
    cu_stream_get_ctx: unsafe extern "C" fn(CuStream, *mut CuContext) -> CuResult,
    cu_get_error_name: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
    cu_func_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, CuFunction) -> CuResult,
    cu_func_set_attribute: unsafe extern "C" fn(CuFunction, c_int, c_int) -> CuResult,
    /// CUDA 12.4+: lets us check the cubin's parameter layout against our packing.
    cu_func_get_param_info: Option<unsafe extern "C" fn(CuFunction, usize, *mut usize, *mut usize) -> CuResult>,
    // Keeps the function pointers above valid: the library is never unloaded.
    _lib: Library,
}

// SAFETY: the struct only holds function pointers into a library that stays loaded.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

impl Api {
    fn load() -> std::result::Result<Api, String> {
        // SAFETY: loading libcuda runs its initializers, which is what any CUDA user does.
        let lib = unsafe { Library::new("libcuda.so.1") }.map_err(|e| format!("cannot load libcuda.so.1: {e}"))?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the declared type matches the CUDA driver API prototype.
                *unsafe { lib.get($name) }.map_err(|e| format!("libcuda.so.1 lacks {}: {e}", stringify!($name)))?
            };
        }
        let api = Api {
            cu_init: sym!(b"cuInit\0"),
            cu_device_get_count: sym!(b"cuDeviceGetCount\0"),
            cu_device_get: sym!(b"cuDeviceGet\0"),
            cu_device_get_attribute: sym!(b"cuDeviceGetAttribute\0"),
            cu_device_primary_ctx_retain: sym!(b"cuDevicePrimaryCtxRetain\0"),
            cu_ctx_push_current: sym!(b"cuCtxPushCurrent_v2\0"),
            cu_ctx_pop_current: sym!(b"cuCtxPopCurrent_v2\0"),
            cu_module_load_data: sym!(b"cuModuleLoadData\0"),
            cu_module_get_function: sym!(b"cuModuleGetFunction\0"),
            cu_launch_kernel: sym!(b"cuLaunchKernel\0"),
            cu_pointer_get_attribute: sym!(b"cuPointerGetAttribute\0"),
            cu_mem_get_address_range: sym!(b"cuMemGetAddressRange_v2\0"),
            cu_stream_get_ctx: sym!(b"cuStreamGetCtx\0"),
            cu_get_error_name: sym!(b"cuGetErrorName\0"),
            cu_func_get_attribute: sym!(b"cuFuncGetAttribute\0"),
            cu_func_set_attribute: sym!(b"cuFuncSetAttribute\0"),
            // SAFETY: as above; absent on drivers older than 12.4.
            cu_func_get_param_info: unsafe { lib.get(b"cuFuncGetParamInfo\0") }.ok().map(|s| *s),
            _lib: lib,
        };
        Ok(api)
    }

    fn error_name(&self, code: CuResult) -> String {
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a static string pointer or leaves it null.
        let rc = unsafe { (self.cu_get_error_name)(code, &mut name) };
        if rc == CUDA_SUCCESS && !name.is_null() {
            // SAFETY: a NUL-terminated static string owned by the driver.
            unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
        } else {
            format!("CUresult {code}")
        }
    }

    fn check(&self, rc: CuResult, status: Status, what: &str) -> Result<()> {
        if rc == CUDA_SUCCESS { Ok(()) } else { fail(status, format!("{what} failed: {}", self.error_name(rc))) }
    }
}

/// Loads libcuda and runs cuInit once per process.
fn api() -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, (Status, String)>> = OnceLock::new();
    let loaded = API.get_or_init(|| {
        let api = Api::load().map_err(|e| (Status::DriverUnavailable, e))?;
        // SAFETY: cuInit takes flags 0.
        let rc = unsafe { (api.cu_init)(0) };
        if rc != CUDA_SUCCESS {
            return Err((Status::DriverError, format!("cuInit failed: {}", api.error_name(rc))));
        }
        Ok(api)
    });
    match loaded {
        Ok(api) => Ok(api),
        Err((status, message)) => fail(*status, message.clone()),
    }
}

/// Whether libcuda can be loaded and initialized here (used by tests and the wrapper).
pub fn available() -> bool {
    api().is_ok()
}

struct Device {
    context: CuContext,
    /// CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN.
    max_shared_optin: c_int,
    /// (op, variant) -> function, loaded from the embedded cubin on first use.
    functions: HashMap<(&'static str, &'static str), CuFunction>,
}

// SAFETY: contexts and functions are process-wide driver handles, usable from any thread.
unsafe impl Send for Device {}

static DEVICES: OnceLock<Mutex<HashMap<i32, Device>>> = OnceLock::new();

/// Makes the device's primary context current for the guard's lifetime, then restores the
/// caller's context.
struct ContextGuard<'a> {
    api: &'a Api,
}

impl<'a> ContextGuard<'a> {
    fn push(api: &'a Api, context: CuContext) -> Result<Self> {
        // SAFETY: a context retained by this module, never released.
        api.check(unsafe { (api.cu_ctx_push_current)(context) }, Status::DriverError, "cuCtxPushCurrent")?;
        Ok(ContextGuard { api })
    }
}

impl Drop for ContextGuard<'_> {
    fn drop(&mut self) {
        let mut popped: CuContext = std::ptr::null_mut();
        // SAFETY: pops exactly the context pushed in `push`.
        unsafe { (self.api.cu_ctx_pop_current)(&mut popped) };
    }
}

fn open_device(api: &Api, ordinal: i32) -> Result<Device> {
    let mut count = 0;
    // SAFETY: out-pointer to a local.
    api.check(unsafe { (api.cu_device_get_count)(&mut count) }, Status::DriverError, "cuDeviceGetCount")?;
    if ordinal >= count {
        return fail(Status::InvalidDevice, format!("device {ordinal} does not exist ({count} visible)"));
    }
    let mut dev: CuDevice = 0;
    // SAFETY: out-pointer to a local; ordinal checked above.
    api.check(unsafe { (api.cu_device_get)(&mut dev, ordinal) }, Status::InvalidDevice, "cuDeviceGet")?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: out-pointers to locals, valid device.
    unsafe {
        api.check(
            (api.cu_device_get_attribute)(&mut major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
            Status::DriverError,
            "cuDeviceGetAttribute",
        )?;
        api.check(
            (api.cu_device_get_attribute)(&mut minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
            Status::DriverError,
            "cuDeviceGetAttribute",
        )?;
    }
    if major != CUBIN_ARCH_MAJOR {
        return fail(
            Status::InvalidDevice,
            format!("device {ordinal} is sm_{major}{minor}; the embedded cubins are built for sm_{CUBIN_ARCH_MAJOR}0"),
        );
    }
    let mut max_shared_optin = 0;
    // SAFETY: out-pointer to a local, valid device.
    let rc = unsafe {
        (api.cu_device_get_attribute)(&mut max_shared_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev)
    };
    api.check(rc, Status::DriverError, "cuDeviceGetAttribute")?;
    let mut context: CuContext = std::ptr::null_mut();
    // SAFETY: out-pointer; the primary context is shared with PyTorch and stays retained.
    api.check(
        unsafe { (api.cu_device_primary_ctx_retain)(&mut context, dev) },
        Status::DriverError,
        "cuDevicePrimaryCtxRetain",
    )?;
    Ok(Device { context, max_shared_optin, functions: HashMap::new() })
}

/// One 4- or 8-byte kernel argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    Ptr(u64),
    I32(i32),
    /// An i64 extent or stride (an i64-indexed tensor, `TensorSpec::index64`).
    I64(i64),
    F32(f32),
}

impl Arg {
    pub fn size(self) -> usize {
        match self {
            Arg::Ptr(_) | Arg::I64(_) => 8,
            Arg::I32(_) | Arg::F32(_) => 4,
        }
    }
}

/// Everything a launch needs, already validated against the variant.
pub struct Launch<'a> {
    pub op: &'static str,
    pub variant: &'static str,
    pub symbol: String,
    pub image: &'static [u8],
    pub grid: (u32, u32, u32),
    pub args: &'a [Arg],
    /// Byte ranges [start, end) of the non-empty tensors: each start must live on `device`
    /// and each range inside the allocation that holds its start.
    pub addresses: &'a [(&'static str, u64, u64)],
    pub device: i32,
    pub stream: u64,
}

fn check_param_layout(api: &Api, f: CuFunction, l: &Launch) -> Result<()> {
    let Some(param_info) = api.cu_func_get_param_info else { return Ok(()) };
    for (i, arg) in l.args.iter().enumerate() {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: out-pointers to locals; an index past the end returns an error code.
        let rc = unsafe { param_info(f, i, &mut offset, &mut size) };
        if rc != CUDA_SUCCESS || size != arg.size() {
            return fail(
                Status::DriverError,
                format!(
                    "{}/{}: cubin parameter {i} does not match the packed argument {arg:?} (size {size})",
                    l.op, l.variant
                ),
            );
        }
    }
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: as above.
    if unsafe { param_info(f, l.args.len(), &mut offset, &mut size) } == CUDA_SUCCESS {
        return fail(
            Status::DriverError,
            format!("{}/{}: cubin takes more than {} parameters", l.op, l.variant, l.args.len()),
        );
    }
    Ok(())
}

/// Lets the kernel use all opt-in shared memory beyond its static part, as cuTile's own
/// launchers do: tileiras sizes the tiles' staging buffers for the architecture, and a launch
/// over the default 48 KiB limit would fail otherwise.
fn allow_optin_shared_memory(api: &Api, f: CuFunction, max_shared_optin: c_int) -> Result<()> {
    let mut static_shared: c_int = 0;
    // SAFETY: out-pointer to a local, function from a loaded module.
    let rc = unsafe { (api.cu_func_get_attribute)(&mut static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) };
    api.check(rc, Status::DriverError, "cuFuncGetAttribute(SHARED_SIZE_BYTES)")?;
    let dynamic = (max_shared_optin - static_shared).max(0);
    // SAFETY: as above.
    let rc = unsafe { (api.cu_func_set_attribute)(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic) };
    api.check(rc, Status::DriverError, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
}

/// Checks that [address, end) lies inside the device allocation holding `address`.
///
/// Memory mapped with the virtual memory API (torch's `expandable_segments`) is reported one
/// mapped chunk at a time, so while the extent runs past a range, the range that starts exactly
/// at its end (if any) extends it: the limit is the end of the contiguously mapped memory.
///
/// Runs after the DEVICE_ORDINAL check passed. Where the driver knows no allocation for the
/// address (CUDA_ERROR_INVALID_VALUE / NOT_FOUND, e.g. host memory mapped for the device),
/// there is nothing to compare with and the device check alone stands, as before this check
/// existed; any other driver error is DRIVER_ERROR.
fn check_allocation_range(api: &Api, name: &str, address: u64, end: u64) -> Result<()> {
    let (mut base, mut size) = (0u64, 0usize);
    // SAFETY: out-pointers to locals; any address is accepted and answered with an error code.
    let rc = unsafe { (api.cu_mem_get_address_range)(&mut base, &mut size, address) };
    if rc == CUDA_ERROR_INVALID_VALUE || rc == CUDA_ERROR_NOT_FOUND {
        return Ok(());
    }
    api.check(rc, Status::DriverError, &format!("cuMemGetAddressRange({name})"))?;
    // A limit past 2^64 cannot be exceeded by an end that fits u64.
    let mut limit = base.saturating_add(size as u64);
    while end > limit {
        let (mut next, mut next_size) = (0u64, 0usize);
        // SAFETY: as above.
        let rc = unsafe { (api.cu_mem_get_address_range)(&mut next, &mut next_size, limit) };
        if rc != CUDA_SUCCESS || next != limit || next_size == 0 {
            break;
        }
        limit = next.saturating_add(next_size as u64);
    }
    if address < base || end > limit {
        return fail(
            Status::OutOfBounds,
            format!(
                "{name}: bytes [{address:#x}, {end:#x}) run past its allocation [{base:#x}, {limit:#x}) \
                 ({} bytes): the shape and strides claim {} bytes more than it holds",
                limit - base,
                end.saturating_sub(limit)
            ),
        );
    }
    Ok(())
}

/// Device checks, module load (cached) and cuLaunchKernel on the caller's stream.
pub fn launch(l: &Launch) -> Result<()> {
    let api = api()?;
    let devices = DEVICES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut devices = devices.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dev = match devices.entry(l.device) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => e.insert(open_device(api, l.device)?),
    };
    let _current = ContextGuard::push(api, dev.context)?;

    for &(name, address, end) in l.addresses {
        let mut ordinal: c_int = -1;
        // SAFETY: out-pointer to a local c_int, as the attribute requires.
        let rc = unsafe {
            (api.cu_pointer_get_attribute)(
                &mut ordinal as *mut c_int as *mut c_void,
                CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                address,
            )
        };
        if rc != CUDA_SUCCESS {
            return fail(
                Status::DeviceMismatch,
                format!("{name}: {address:#x} is not CUDA device memory ({})", api.error_name(rc)),
            );
        }
        if ordinal != l.device {
            return fail(
                Status::DeviceMismatch,
                format!("{name} is on device {ordinal}, the call targets device {}", l.device),
            );
        }
        check_allocation_range(api, name, address, end)?;
    }
    if !SPECIAL_STREAMS.contains(&l.stream) {
        let mut stream_ctx: CuContext = std::ptr::null_mut();
        // SAFETY: the caller's stream handle; an invalid one returns an error code.
        let rc = unsafe { (api.cu_stream_get_ctx)(l.stream as CuStream, &mut stream_ctx) };
        api.check(rc, Status::DeviceMismatch, "cuStreamGetCtx on the caller's stream")?;
        if stream_ctx != dev.context {
            return fail(
                Status::DeviceMismatch,
                format!("stream {:#x} does not belong to device {}", l.stream, l.device),
            );
        }
    }

    let key = (l.op, l.variant);
    let function = match dev.functions.get(&key) {
        Some(f) => *f,
        None => {
            let mut module: CuModule = std::ptr::null_mut();
            // SAFETY: a complete cubin image embedded in this library.
            let rc = unsafe { (api.cu_module_load_data)(&mut module, l.image.as_ptr() as *const c_void) };
            api.check(rc, Status::DriverError, &format!("cuModuleLoadData({}/{})", l.op, l.variant))?;
            let symbol = CString::new(l.symbol.as_str()).expect("symbols have no NUL");
            let mut f: CuFunction = std::ptr::null_mut();
            // SAFETY: module just loaded; symbol is NUL-terminated.
            let rc = unsafe { (api.cu_module_get_function)(&mut f, module, symbol.as_ptr()) };
            api.check(rc, Status::DriverError, &format!("cuModuleGetFunction({})", l.symbol))?;
            check_param_layout(api, f, l)?;
            allow_optin_shared_memory(api, f, dev.max_shared_optin)?;
            dev.functions.insert(key, f);
            f
        }
    };

    // cuLaunchKernel reads each parameter through a pointer to its value.
    let mut values: Vec<u64> = l
        .args
        .iter()
        .map(|a| match *a {
            Arg::Ptr(p) => p,
            Arg::I32(v) => v as u32 as u64,
            Arg::I64(v) => v as u64,
            Arg::F32(v) => v.to_bits() as u64,
        })
        .collect();
    // Little-endian: the 4-byte arguments sit in the first 4 bytes of their slot.
    let mut pointers: Vec<*mut c_void> = values.iter_mut().map(|v| v as *mut u64 as *mut c_void).collect();
    let (gx, gy, gz) = l.grid;
    // Tile IR kernels are launched with one "thread" per block: tileiras fixes the real
    // block shape inside the cubin (as cuTile's own launchers do).
    // SAFETY: function from our cubin, argument layout checked against the variant (and the
    // cubin where the driver can tell), device memory checked above.
    let rc = unsafe {
        (api.cu_launch_kernel)(
            function,
            gx,
            gy,
            gz,
            1,
            1,
            1,
            0,
            l.stream as CuStream,
            pointers.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    api.check(rc, Status::LaunchFailed, &format!("cuLaunchKernel({}/{})", l.op, l.variant))
}
