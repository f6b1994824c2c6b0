//! The C ABI without a GPU: the header agrees with the library, every op rejects bad
//! descriptors with the documented code before any driver call, and a valid call gets past
//! validation (on a machine without a driver it then stops at DRIVER_UNAVAILABLE).

use std::ffi::CStr;

use tileir_kernels::descriptor::{DType, TileirTensor};
use tileir_kernels::ops::attention_sink::ffi::cutile_attention_sink;
use tileir_kernels::ops::bmm::ffi::cutile_bmm;
use tileir_kernels::ops::dropout::ffi::cutile_dropout;
use tileir_kernels::ops::flash_attention::ffi::cutile_flash_attention;
use tileir_kernels::ops::gelu::ffi::cutile_gelu;
use tileir_kernels::ops::matmul::ffi::{cutile_matmul, cutile_matmul_fp8};
use tileir_kernels::ops::rms_norm::ffi::{cutile_rms_norm, cutile_rms_norm_bwd};
use tileir_kernels::ops::rope::ffi::cutile_rope;
use tileir_kernels::ops::silu_and_mul::ffi::cutile_silu_and_mul;
use tileir_kernels::ops::softmax::ffi::cutile_softmax;
use tileir_kernels::ops::splitk_matmul::ffi::cutile_splitk_matmul;
use tileir_kernels::ops::swiglu::ffi::{cutile_swiglu, cutile_swiglu_bwd};
use tileir_kernels::ops::vector_add::ffi::cutile_vector_add;
use tileir_kernels::status::{Status, tileir_kernels_last_error, tileir_kernels_status_name};
use tileir_kernels::variant::tileir_kernels_selected_variant;

const HEADER: &str = include_str!("../include/tileir_kernels.h");

/// `NAME = value` pairs of the header's enums with the given prefix.
fn header_enum(prefix: &str) -> Vec<(String, i32)> {
    HEADER
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_end_matches(',');
            let (name, rest) = l.split_once(" = ")?;
            let name = name.strip_prefix(prefix)?;
            let value = rest.split(|c: char| c == ',' || c.is_whitespace()).next()?;
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

#[test]
fn header_status_codes_match_the_library() {
    let mut from_header = header_enum("TILEIR_");
    from_header.retain(|(n, _)| !n.starts_with("DTYPE_"));
    let from_lib: Vec<(String, i32)> = Status::ALL.iter().map(|s| (s.name().to_string(), s.code())).collect();
    assert_eq!(from_header, from_lib);
    for s in Status::ALL {
        let name = unsafe { CStr::from_ptr(tileir_kernels_status_name(s.code())) };
        assert_eq!(name.to_str().unwrap(), s.name());
    }
}

#[test]
fn header_dtype_codes_and_version_match_the_library() {
    let from_header = header_enum("TILEIR_DTYPE_");
    let from_lib: Vec<(String, i32)> =
        DType::ALL.iter().map(|d| (format!("{d:?}").to_uppercase(), *d as i32)).collect();
    assert_eq!(from_header, from_lib);
    assert!(HEADER.contains(&format!("#define TILEIR_KERNELS_ABI_VERSION {}", tileir_kernels::ABI_VERSION)));
    assert!(HEADER.contains(&format!("#define TILEIR_MAX_RANK {}", tileir_kernels::descriptor::MAX_RANK)));
}

// Fake device addresses: distinct, far apart, 256-byte aligned. Nothing dereferences them.
const BASE: u64 = 0x7f00_0000_0000;
fn addr(i: u64) -> u64 {
    BASE + i * (1 << 32)
}

fn tensor(data: u64, dtype: DType, shape: &[i64]) -> TileirTensor {
    let mut t = TileirTensor { data, ndim: shape.len() as i32, dtype: dtype as i32, ..Default::default() };
    t.shape[..shape.len()].copy_from_slice(shape);
    let mut stride = 1;
    for i in (0..shape.len()).rev() {
        t.strides[i] = stride;
        stride *= shape[i].max(1);
    }
    t
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(tileir_kernels_last_error()) }.to_str().unwrap().to_string()
}

/// After validation a call needs the driver and the cubin: which code comes first depends on
/// the machine and the build, but none of them is a validation error.
fn passed_validation(code: i32) -> bool {
    [
        Status::DriverUnavailable,
        Status::KernelImageMissing,
        Status::Ok,
        Status::DriverError,
        Status::InvalidDevice,
        Status::DeviceMismatch,
    ]
    .iter()
    .any(|s| s.code() == code)
}

fn vadd(x: &TileirTensor, y: &TileirTensor, out: &TileirTensor) -> i32 {
    unsafe { cutile_vector_add(x, y, out, 0, 0) }
}

#[test]
fn vector_add_validation() {
    let n = 1000;
    let x = tensor(addr(1), DType::F16, &[n]);
    let y = tensor(addr(2), DType::F16, &[n]);
    let out = tensor(addr(3), DType::F16, &[n]);
    assert!(passed_validation(vadd(&x, &y, &out)), "{}", last_error());

    assert_eq!(unsafe { cutile_vector_add(std::ptr::null(), &y, &out, 0, 0) }, Status::NullPointer.code());
    assert!(last_error().contains("x: descriptor pointer is null"), "{}", last_error());
    assert_eq!(vadd(&x, &y, &TileirTensor { data: 0, ..out }), Status::NullPointer.code());
    assert_eq!(vadd(&x, &tensor(addr(2), DType::F16, &[n + 1]), &out), Status::ShapeMismatch.code());
    assert_eq!(vadd(&x, &tensor(addr(2), DType::BF16, &[n]), &out), Status::UnsupportedDtype.code());
    assert_eq!(vadd(&TileirTensor { dtype: 99, ..x }, &y, &out), Status::UnsupportedDtype.code());
    let i32s =
        [tensor(addr(1), DType::I32, &[n]), tensor(addr(2), DType::I32, &[n]), tensor(addr(3), DType::I32, &[n])];
    assert_eq!(vadd(&i32s[0], &i32s[1], &i32s[2]), Status::UnsupportedDtype.code());
    assert_eq!(vadd(&tensor(addr(1), DType::F16, &[10, 100]), &y, &out), Status::BadRank.code());
    assert_eq!(vadd(&TileirTensor { ndim: 0, ..x }, &y, &out), Status::BadRank.code());
    // f16 has no strided variant: a stride-2 view is rejected, not read as contiguous.
    let mut strided = x;
    strided.strides[0] = 2;
    assert_eq!(vadd(&strided, &y, &out), Status::BadStride.code());
    assert!(last_error().contains("unit stride"), "{}", last_error());
    assert_eq!(vadd(&TileirTensor { data: addr(1) + 2, ..x }, &y, &out), Status::Misaligned.code());
    assert_eq!(unsafe { cutile_vector_add(&x, &y, &out, -1, 0) }, Status::InvalidDevice.code());
    // out overlapping x shifted by one element would read what another block wrote.
    assert_eq!(vadd(&x, &y, &TileirTensor { data: addr(1) + 16, ..out }), Status::InvalidArgument.code());
    // Exact in-place is fine.
    assert!(passed_validation(vadd(&x, &y, &TileirTensor { data: addr(1), ..out })), "{}", last_error());
}

#[test]
fn byte_extents_past_2_pow_64_are_invalid_shapes() {
    // 1000 f16 starting 1 KiB below 2^64 would end past it (the end wraps in release builds).
    let top = u64::MAX - 1023;
    let x = tensor(top, DType::F16, &[1000]);
    let y = tensor(addr(2), DType::F16, &[1000]);
    let out = tensor(addr(3), DType::F16, &[1000]);
    assert_eq!(vadd(&x, &y, &out), Status::InvalidShape.code());
    assert!(last_error().contains("x: byte extent") && last_error().contains("overflows"), "{}", last_error());
    // Strides that reach the end from an address that alone is fine: matmul's b.
    let a = tensor(addr(1), DType::F16, &[64, 64]);
    let b = strided(u64::MAX - (1 << 20) + 1, DType::F16, &[64, 64], &[1 << 14, 1]);
    let c = tensor(addr(3), DType::F16, &[64, 64]);
    assert_eq!(unsafe { cutile_matmul(&a, &b, &c, 0, 0, 0, 0) }, Status::InvalidShape.code());
    assert!(last_error().contains("b: byte extent"), "{}", last_error());
    // 512 f16 ending 16 bytes below 2^64 is fine.
    let x = tensor(u64::MAX - 1039, DType::F16, &[512]);
    let (y, out) = (tensor(addr(2), DType::F16, &[512]), tensor(addr(3), DType::F16, &[512]));
    assert!(passed_validation(vadd(&x, &y, &out)), "{}", last_error());
}

#[test]
fn vector_add_f32_strided_selects_the_strided_variant() {
    let n = 4099;
    let mut x = tensor(addr(1), DType::F32, &[n]);
    x.strides[0] = 3;
    let y = tensor(addr(2), DType::F32, &[n]);
    let out = tensor(addr(3), DType::F32, &[n]);
    let code = vadd(&x, &y, &out);
    assert!(passed_validation(code), "{}", last_error());
    // A zero output stride makes every element collide.
    let mut out0 = out;
    out0.strides[0] = 0;
    assert_eq!(vadd(&x, &y, &out0), Status::BadStride.code());
    let mut neg = x;
    neg.strides[0] = -1;
    assert_eq!(vadd(&neg, &y, &out), Status::BadStride.code());
}

#[test]
fn empty_tensors_are_a_no_op() {
    let x = tensor(0, DType::F16, &[0]);
    assert_eq!(vadd(&x, &x, &x), Status::Ok.code(), "{}", last_error());
    let s = tensor(0, DType::F32, &[0, 16]);
    assert_eq!(unsafe { cutile_softmax(&s, &s, 0, 0) }, Status::Ok.code(), "{}", last_error());
}

#[test]
fn softmax_validation() {
    let (m, n) = (37, 515);
    let mut x = tensor(addr(1), DType::BF16, &[m, n]);
    x.strides[0] = 576; // a column slice of a wider buffer: row stride != N is fine
    let out = tensor(addr(2), DType::BF16, &[m, n]);
    let call = |x: &TileirTensor, out: &TileirTensor| unsafe { cutile_softmax(x, out, 0, 0) };
    assert!(passed_validation(call(&x, &out)), "{}", last_error());
    assert_eq!(call(&x, &tensor(addr(2), DType::BF16, &[m, n + 1])), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m, n])), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::BF16, &[m * n]), &out), Status::BadRank.code());
    // A transposed view: columns are not contiguous.
    let mut t = tensor(addr(1), DType::BF16, &[m, n]);
    t.strides[..2].copy_from_slice(&[1, m]);
    assert_eq!(call(&t, &out), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 8, ..x }, &out), Status::Misaligned.code());
    assert_eq!(unsafe { cutile_softmax(&x, std::ptr::null(), 0, 0) }, Status::NullPointer.code());
    // Long rows go to the online kernel; still valid.
    let long = tensor(addr(1), DType::F32, &[3, 50257]);
    let long_out = tensor(addr(2), DType::F32, &[3, 50257]);
    assert!(passed_validation(call(&long, &long_out)), "{}", last_error());
}

#[test]
fn rms_norm_validation() {
    let (m, n) = (13, 1000);
    let x = tensor(addr(1), DType::F16, &[m, n]);
    let w = tensor(addr(2), DType::F16, &[n]);
    let out = tensor(addr(3), DType::F16, &[m, n]);
    let rstd = tensor(addr(4), DType::F32, &[m]);
    let call = |x: &TileirTensor, w: &TileirTensor, out: &TileirTensor, rstd: &TileirTensor, eps: f32| unsafe {
        cutile_rms_norm(x, w, out, rstd, eps, 0, 0)
    };
    assert!(passed_validation(call(&x, &w, &out, &rstd, 1e-6)), "{}", last_error());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[n - 1]), &out, &rstd, 1e-6), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &w, &out, &tensor(addr(4), DType::F32, &[m + 1]), 1e-6), Status::ShapeMismatch.code());
    // rstd is always float32.
    assert_eq!(call(&x, &w, &out, &tensor(addr(4), DType::F16, &[m]), 1e-6), Status::UnsupportedDtype.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F32, &[n]), &out, &rstd, 1e-6), Status::UnsupportedDtype.code());
    assert_eq!(call(&x, &w, &out, &rstd, f32::NAN), Status::InvalidArgument.code());
    assert_eq!(call(&x, &w, &out, &rstd, -1.0), Status::InvalidArgument.code());
    assert_eq!(call(&x, &w, &out, &rstd, f32::INFINITY), Status::InvalidArgument.code());
    let mut w_strided = w;
    w_strided.strides[0] = 2;
    assert_eq!(call(&x, &w_strided, &out, &rstd, 1e-6), Status::BadStride.code());
    // rstd inside x: the kernel would overwrite its own input.
    assert_eq!(call(&x, &w, &out, &TileirTensor { data: addr(1) + 64, ..rstd }, 1e-6), Status::InvalidArgument.code());
    assert_eq!(
        call(
            &tensor(addr(1), DType::F16, &[m, 0]),
            &tensor(addr(2), DType::F16, &[0]),
            &tensor(addr(3), DType::F16, &[m, 0]),
            &rstd,
            1e-6
        ),
        Status::UnsupportedShape.code()
    );
    assert_eq!(unsafe { cutile_rms_norm(&x, &w, &out, std::ptr::null(), 1e-6, 0, 0) }, Status::NullPointer.code());
}

#[test]
fn rms_norm_bwd_validation() {
    let (m, n): (i64, i64) = (77, 1000);
    let blocks = (m + 63) / 64;
    let dy = tensor(addr(1), DType::BF16, &[m, n]);
    let x = tensor(addr(2), DType::BF16, &[m, n]);
    let w = tensor(addr(3), DType::BF16, &[n]);
    let rstd = tensor(addr(4), DType::F32, &[m]);
    let dx = tensor(addr(5), DType::BF16, &[m, n]);
    let dw = tensor(addr(6), DType::F32, &[blocks, n]);
    let call = |dy: &TileirTensor, x: &TileirTensor, dx: &TileirTensor, dw: &TileirTensor| unsafe {
        cutile_rms_norm_bwd(dy, x, &w, &rstd, dx, dw, 0, 0)
    };
    assert!(passed_validation(call(&dy, &x, &dx, &dw)), "{}", last_error());
    // dw_partial must have one row per 64 rows of x.
    assert_eq!(call(&dy, &x, &dx, &tensor(addr(6), DType::F32, &[blocks + 1, n])), Status::ShapeMismatch.code());
    assert_eq!(call(&dy, &x, &dx, &tensor(addr(6), DType::BF16, &[blocks, n])), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, n]), &x, &dx, &dw), Status::UnsupportedDtype.code());
    // dx written over dy: the kernel reads dy rows of other steps after writing.
    assert_eq!(call(&dy, &x, &TileirTensor { data: addr(1), ..dx }, &dw), Status::InvalidArgument.code());
    // Rows longer than the only tile (1024) would be truncated.
    let (n2, w2) = (2000, tensor(addr(3), DType::BF16, &[2000]));
    let big = |i, d| tensor(addr(i), d, &[m, n2]);
    let code = unsafe {
        cutile_rms_norm_bwd(
            &big(1, DType::BF16),
            &big(2, DType::BF16),
            &w2,
            &rstd,
            &big(5, DType::BF16),
            &tensor(addr(6), DType::F32, &[blocks, n2]),
            0,
            0,
        )
    };
    assert_eq!(code, Status::UnsupportedShape.code());
    assert_eq!(
        unsafe { cutile_rms_norm_bwd(&dy, &x, &w, &rstd, &dx, std::ptr::null(), 0, 0) },
        Status::NullPointer.code()
    );
}

#[test]
fn matmul_fp8_validation() {
    let (m, n, k) = (333, 200, 336);
    let a = tensor(addr(1), DType::F8E4M3FN, &[m, k]);
    let b = tensor(addr(2), DType::F8E4M3FN, &[n, k]);
    let c = tensor(addr(3), DType::BF16, &[m, n]);
    let call = |a: &TileirTensor, b: &TileirTensor, c: &TileirTensor, sa: f32, ta: i32, tb: i32| unsafe {
        cutile_matmul_fp8(a, b, c, sa, 0.25, ta, tb, 0, 0)
    };
    assert!(passed_validation(call(&a, &b, &c, 0.5, 0, 1)), "{}", last_error());
    assert_eq!(call(&a, &b, &c, f32::NAN, 0, 1), Status::InvalidArgument.code());
    assert_eq!(call(&a, &b, &c, 0.5, 0, 0), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &tensor(addr(2), DType::F8E4M3FN, &[k, n]), &c, 0.5, 0, 0), Status::NoVariant.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F32, &[m, n]), 0.5, 0, 1), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, k]), &b, &c, 0.5, 0, 1), Status::UnsupportedDtype.code());
    // K not a multiple of 16 bytes of e4m3 elements.
    let odd_k = 328;
    let code = call(
        &tensor(addr(1), DType::F8E4M3FN, &[m, odd_k]),
        &tensor(addr(2), DType::F8E4M3FN, &[n, odd_k]),
        &c,
        0.5,
        0,
        1,
    );
    assert_eq!(code, Status::BadStride.code());
    // fp8 operands through the 16-bit entry are refused with a pointer to the fp8 one.
    let a16 = unsafe { cutile_matmul(&a, &b, &tensor(addr(3), DType::F8E4M3FN, &[m, n]), 0, 1, 0, 0) };
    assert_eq!(a16, Status::UnsupportedDtype.code());
    assert!(last_error().contains("cutile_matmul_fp8"), "{}", last_error());
    // A forced fp8 variant cannot run through cutile_matmul (other arguments).
    assert_eq!(force(c"matmul", Some(c"fp8e4m3_f16_nt_128x256x128")), 0);
    let f16s = [
        tensor(addr(1), DType::F16, &[m, k]),
        tensor(addr(2), DType::F16, &[n, k]),
        tensor(addr(3), DType::F16, &[m, n]),
    ];
    assert_eq!(unsafe { cutile_matmul(&f16s[0], &f16s[1], &f16s[2], 0, 1, 0, 0) }, Status::InvalidArgument.code());
    assert_eq!(force(c"matmul", None), 0);
}

#[test]
fn matmul_validation() {
    let (m, n, k) = (333, 200, 328);
    let a = tensor(addr(1), DType::F16, &[m, k]);
    let b = tensor(addr(2), DType::F16, &[k, n]);
    let c = tensor(addr(3), DType::F16, &[m, n]);
    let call = |a: &TileirTensor, b: &TileirTensor, c: &TileirTensor, ta: i32, tb: i32| unsafe {
        cutile_matmul(a, b, c, ta, tb, 0, 0)
    };
    assert!(passed_validation(call(&a, &b, &c, 0, 0)), "{}", last_error());
    assert_eq!(call(&a, &tensor(addr(2), DType::F16, &[k + 1, n]), &c, 0, 0), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F16, &[m, n + 1]), 0, 0), Status::ShapeMismatch.code());
    // Transposed a is given stored as (K, M); its row stride M must be a multiple of 8.
    let a_t = tensor(addr(1), DType::F16, &[k, m]);
    assert_eq!(call(&a_t, &b, &c, 0, 0), Status::ShapeMismatch.code());
    assert_eq!(call(&a_t, &b, &c, 1, 0), Status::BadStride.code());
    let m8 = 336;
    let c8 = tensor(addr(3), DType::F16, &[m8, n]);
    assert!(passed_validation(call(&tensor(addr(1), DType::F16, &[k, m8]), &b, &c8, 1, 0)), "{}", last_error());
    assert_eq!(call(&a, &b, &c, 2, 0), Status::InvalidArgument.code());
    // f16 with both operands transposed has no prebuilt variant.
    let b_t = tensor(addr(2), DType::F16, &[n, k]);
    assert_eq!(call(&a_t, &b_t, &c, 1, 1), Status::NoVariant.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::BF16, &[m, n]), 0, 0), Status::UnsupportedDtype.code());
    let i64s = [
        tensor(addr(1), DType::I64, &[m, k]),
        tensor(addr(2), DType::I64, &[k, n]),
        tensor(addr(3), DType::I64, &[m, n]),
    ];
    assert_eq!(call(&i64s[0], &i64s[1], &i64s[2], 0, 0), Status::UnsupportedDtype.code());
    // c aliasing a.
    assert_eq!(call(&a, &b, &TileirTensor { data: addr(1), ..c }, 0, 0), Status::InvalidArgument.code());
    // A (M, K) view whose K is not contiguous (a.t() of a (K, M) array) is rejected, not
    // silently read: the caller must pass the stored array with trans_a = 1.
    let mut a_view = tensor(addr(1), DType::F16, &[m, k]);
    a_view.strides[..2].copy_from_slice(&[1, m]);
    assert_eq!(call(&a_view, &b, &c, 0, 0), Status::BadStride.code());
}

#[test]
fn matmul_unaligned_f16_falls_back_and_bf16_does_not() {
    // Odd K: row stride of a is not a multiple of 8 elements.
    let (m, n, k) = (127, 129, 131);
    let a = tensor(addr(1), DType::F16, &[m, k]);
    let b = tensor(addr(2), DType::F16, &[k, n]);
    let c = tensor(addr(3), DType::F16, &[m, n]);
    assert!(passed_validation(unsafe { cutile_matmul(&a, &b, &c, 0, 0, 0, 0) }), "{}", last_error());
    // Element-aligned but not 16-byte aligned bases are fine for the fallback too...
    let a_off = TileirTensor { data: addr(1) + 2, ..a };
    assert!(passed_validation(unsafe { cutile_matmul(&a_off, &b, &c, 0, 0, 0, 0) }), "{}", last_error());
    // ...an odd byte address is not.
    let a_odd = TileirTensor { data: addr(1) + 1, ..a };
    assert_eq!(unsafe { cutile_matmul(&a_odd, &b, &c, 0, 0, 0, 0) }, Status::Misaligned.code());
    let bf = |t: &TileirTensor| TileirTensor { dtype: DType::BF16 as i32, ..*t };
    assert_eq!(unsafe { cutile_matmul(&bf(&a), &bf(&b), &bf(&c), 0, 0, 0, 0) }, Status::BadStride.code());
    assert!(last_error().contains("multiple of 8"), "{}", last_error());
}

fn force(op: &std::ffi::CStr, variant: Option<&std::ffi::CStr>) -> i32 {
    unsafe {
        tileir_kernels::variant::tileir_kernels_force_variant(
            op.as_ptr(),
            variant.map_or(std::ptr::null(), |v| v.as_ptr()),
        )
    }
}

#[test]
fn forced_variants_are_still_validated() {
    assert_eq!(force(c"softmax", Some(c"no_such_variant")), Status::NoVariant.code());
    // A short row may run on the long-row kernel...
    assert_eq!(force(c"softmax", Some(c"f16_row_m1_n4096")), 0);
    let x = tensor(addr(1), DType::F16, &[5, 17]);
    let out = tensor(addr(2), DType::F16, &[5, 17]);
    assert!(passed_validation(unsafe { cutile_softmax(&x, &out, 0, 0) }), "{}", last_error());
    // ...but a row longer than the forced tile would be truncated: rejected.
    let wide = tensor(addr(1), DType::F16, &[5, 5000]);
    let wide_out = tensor(addr(2), DType::F16, &[5, 5000]);
    assert_eq!(unsafe { cutile_softmax(&wide, &wide_out, 0, 0) }, Status::UnsupportedShape.code());
    // The forced variant's dtype still applies.
    let f32s = tensor(addr(1), DType::F32, &[5, 17]);
    assert_eq!(
        unsafe { cutile_softmax(&f32s, &tensor(addr(2), DType::F32, &[5, 17]), 0, 0) },
        Status::UnsupportedDtype.code()
    );
    // Forcing is per thread.
    std::thread::spawn(move || {
        assert!(passed_validation(unsafe { cutile_softmax(&wide, &wide_out, 0, 0) }), "{}", last_error());
    })
    .join()
    .unwrap();
    assert_eq!(force(c"softmax", None), 0);
    assert!(passed_validation(unsafe { cutile_softmax(&wide, &wide_out, 0, 0) }), "{}", last_error());

    // rms_norm: the same truncation guard.
    assert_eq!(force(c"rms_norm", Some(c"fwd_f32_m4_n1024")), 0);
    let x = tensor(addr(1), DType::F32, &[8, 2000]);
    let w = tensor(addr(2), DType::F32, &[2000]);
    let o = tensor(addr(3), DType::F32, &[8, 2000]);
    let r = tensor(addr(4), DType::F32, &[8]);
    assert_eq!(unsafe { cutile_rms_norm(&x, &w, &o, &r, 1e-6, 0, 0) }, Status::UnsupportedShape.code());
    assert_eq!(force(c"rms_norm", None), 0);
    assert!(passed_validation(unsafe { cutile_rms_norm(&x, &w, &o, &r, 1e-6, 0, 0) }), "{}", last_error());

    // matmul: the forced variant's transpose flags must match the call's.
    assert_eq!(force(c"matmul", Some(c"f16_nn_unaligned_64x64x32")), 0);
    let a = tensor(addr(1), DType::F16, &[64, 64]);
    let b = tensor(addr(2), DType::F16, &[64, 64]);
    let c = tensor(addr(3), DType::F16, &[64, 64]);
    assert!(passed_validation(unsafe { cutile_matmul(&a, &b, &c, 0, 0, 0, 0) }), "{}", last_error());
    assert_eq!(unsafe { cutile_matmul(&a, &b, &c, 1, 0, 0, 0) }, Status::InvalidArgument.code());
    assert_eq!(force(c"matmul", None), 0);
}

#[test]
fn has_kernel_image_reports_the_embedded_cubins() {
    use tileir_kernels::tileir_kernels_has_kernel_image as has;
    assert_eq!(unsafe { has(std::ptr::null(), c"f16_t1024".as_ptr()) }, 0);
    assert_eq!(unsafe { has(c"vector_add".as_ptr(), c"no_such_variant".as_ptr()) }, 0);
    for v in tileir_kernels::ops::all_variants() {
        let op = std::ffi::CString::new(v.op).unwrap();
        let name = std::ffi::CString::new(v.name).unwrap();
        let embedded = tileir_kernels::launch::image(v.op, v.name).is_some();
        assert_eq!(unsafe { has(op.as_ptr(), name.as_ptr()) }, embedded as i32);
    }
}

fn strided(data: u64, dtype: DType, shape: &[i64], strides: &[i64]) -> TileirTensor {
    let mut t = tensor(data, dtype, shape);
    t.strides[..strides.len()].copy_from_slice(strides);
    t
}

#[test]
fn silu_and_mul_validation() {
    let (m, h) = (33, 333);
    let x = tensor(addr(1), DType::F16, &[m, 2 * h]);
    let out = tensor(addr(2), DType::F16, &[m, h]);
    let call = |x: &TileirTensor, out: &TileirTensor| unsafe { cutile_silu_and_mul(x, out, 0, 0) };
    assert!(passed_validation(call(&x, &out)), "{}", last_error());
    // The (M, 2, H) view, rows padded.
    let view = strided(addr(1), DType::F16, &[m, 2, h], &[2 * h + 64, h, 1]);
    assert!(passed_validation(call(&view, &out)), "{}", last_error());
    assert_eq!(unsafe { cutile_silu_and_mul(std::ptr::null(), &out, 0, 0) }, Status::NullPointer.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, 2 * h + 1]), &out), Status::ShapeMismatch.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, 3, h]), &out), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m, h - 1])), Status::ShapeMismatch.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[2 * m * h]), &out), Status::BadRank.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m, h, 1])), Status::BadRank.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F32, &[m, h])), Status::UnsupportedDtype.code());
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, 2 * h], &[1, m]), &out), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 2, ..x }, &out), Status::Misaligned.code());
    // out inside x (its up half): rejected, not computed in place.
    let up_half = strided(addr(1) + 2 * h as u64, DType::F16, &[m, h], &[2 * h, 1]);
    assert_eq!(call(&x, &up_half), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_silu_and_mul(&x, &out, -1, 0) }, Status::InvalidDevice.code());
    // Past the grid's y limit (65535 blocks) even for the widest tiles, the (1, 1024) `_fast` ones.
    let big = 65536 * 1024;
    assert_eq!(
        call(&tensor(addr(1), DType::F16, &[1, 2 * big]), &tensor(addr(2), DType::F16, &[1, big])),
        Status::UnsupportedShape.code()
    );
    assert_eq!(call(&tensor(0, DType::F16, &[0, 2 * h]), &tensor(0, DType::F16, &[0, h])), Status::Ok.code());
}

#[test]
fn swiglu_validation() {
    let (m, n) = (21, 777);
    let a = tensor(addr(1), DType::BF16, &[m, n]);
    let b = tensor(addr(2), DType::BF16, &[m, n]);
    let c = tensor(addr(3), DType::BF16, &[m, n]);
    let fwd = |a: &TileirTensor, b: &TileirTensor, c: &TileirTensor| unsafe { cutile_swiglu(a, b, c, 0, 0) };
    assert!(passed_validation(fwd(&a, &b, &c)), "{}", last_error());
    assert!(passed_validation(fwd(&a, &b, &TileirTensor { data: addr(2), ..c })), "{}", last_error());
    assert_eq!(fwd(&a, &b, &TileirTensor { data: addr(2) + 32, ..c }), Status::InvalidArgument.code());
    assert_eq!(fwd(&a, &tensor(addr(2), DType::BF16, &[m, n + 1]), &c), Status::ShapeMismatch.code());
    assert_eq!(fwd(&a, &tensor(addr(2), DType::F16, &[m, n]), &c), Status::UnsupportedDtype.code());
    assert_eq!(fwd(&a, &b, &strided(addr(3), DType::BF16, &[m, n], &[0, 1])), Status::BadStride.code());
    assert_eq!(fwd(&TileirTensor { data: addr(1) + 8, ..a }, &b, &c), Status::Misaligned.code());
    assert_eq!(unsafe { cutile_swiglu(&a, std::ptr::null(), &c, 0, 0) }, Status::NullPointer.code());
    // Past the grid's y limit (65535 blocks) even for the widest tiles, the (1, 1024) `_fast` ones.
    let wide = |i| tensor(addr(i), DType::BF16, &[1, 65536 * 1024]);
    assert_eq!(fwd(&wide(1), &wide(2), &wide(3)), Status::UnsupportedShape.code());
}

#[test]
fn swiglu_bwd_validation() {
    let (m, n) = (21, 784);
    let t = |i| tensor(addr(i), DType::F32, &[m, n]);
    let bwd = |da: &TileirTensor, db: &TileirTensor| unsafe { cutile_swiglu_bwd(&t(1), &t(2), &t(3), da, db, 0, 0) };
    assert!(passed_validation(bwd(&t(4), &t(5))), "{}", last_error());
    // da over dc and db over b, exactly: fine. da and db over each other: a race.
    assert!(passed_validation(bwd(&t(1), &t(3))), "{}", last_error());
    assert_eq!(bwd(&t(4), &t(4)), Status::InvalidArgument.code());
    assert!(last_error().contains("da overlaps input db") || last_error().contains("overlaps"), "{}", last_error());
    assert_eq!(bwd(&TileirTensor { data: addr(1) + 16, ..t(4) }, &t(5)), Status::InvalidArgument.code());
    assert_eq!(bwd(&t(4), &tensor(addr(5), DType::F32, &[m, n - 8])), Status::ShapeMismatch.code());
    assert_eq!(bwd(&t(4), &tensor(addr(5), DType::BF16, &[m, n])), Status::UnsupportedDtype.code());
    assert_eq!(bwd(&t(4), &tensor(addr(5), DType::F32, &[m * n])), Status::BadRank.code());
    assert_eq!(
        unsafe { cutile_swiglu_bwd(&t(1), &t(2), &t(3), &t(4), std::ptr::null(), 0, 0) },
        Status::NullPointer.code()
    );
    // A single 16-bit row takes the (1, 1024) `_fast` tiles: past the grid's y limit (65535 blocks).
    let wide = |i| tensor(addr(i), DType::BF16, &[1, 65536 * 1024]);
    assert_eq!(
        unsafe { cutile_swiglu_bwd(&wide(1), &wide(2), &wide(3), &wide(4), &wide(5), 0, 0) },
        Status::UnsupportedShape.code()
    );
}

#[test]
fn gelu_validation() {
    let (m, n) = (19, 333);
    let x = tensor(addr(1), DType::F32, &[m, n]);
    let out = tensor(addr(2), DType::F32, &[m, n]);
    let call =
        |x: &TileirTensor, out: &TileirTensor, approximate: i32| unsafe { cutile_gelu(x, out, approximate, 0, 0) };
    assert!(passed_validation(call(&x, &out, 0)), "{}", last_error());
    assert!(passed_validation(call(&x, &out, 1)), "{}", last_error());
    assert!(passed_validation(call(&x, &TileirTensor { data: addr(1), ..out }, 1)), "{}", last_error());
    assert_eq!(call(&x, &out, 2), Status::InvalidArgument.code());
    assert_eq!(call(&x, &TileirTensor { data: addr(1) + 4 * n as u64, ..out }, 0), Status::InvalidArgument.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F32, &[m + 1, n]), 0), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::BF16, &[m, n]), 0), Status::UnsupportedDtype.code());
    assert_eq!(call(&strided(addr(1), DType::F32, &[m, n], &[1, m]), &out, 0), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 4, ..x }, &out, 0), Status::Misaligned.code());
    assert_eq!(unsafe { cutile_gelu(&x, &out, 0, -1, 0) }, Status::InvalidDevice.code());
    // A forced variant must compute the formula asked for, and still checks its assumptions.
    assert_eq!(force(c"gelu", Some(c"tanh_f32")), 0);
    assert!(passed_validation(call(&x, &out, 1)), "{}", last_error());
    assert_eq!(call(&x, &out, 0), Status::InvalidArgument.code());
    assert_eq!(force(c"gelu", Some(c"erf_f32_a8")), 0);
    assert_eq!(call(&x, &out, 0), Status::UnsupportedShape.code());
    assert_eq!(force(c"gelu", None), 0);
}

#[test]
fn dropout_validation() {
    let n = 4097;
    let x = tensor(addr(1), DType::F16, &[n]);
    let out = tensor(addr(2), DType::F16, &[n]);
    let call = |x: &TileirTensor, out: &TileirTensor, p: f32| unsafe { cutile_dropout(x, out, 42, p, 0, 0) };
    assert!(passed_validation(call(&x, &out, 0.3)), "{}", last_error());
    assert!(passed_validation(call(&x, &out, 0.0)), "{}", last_error());
    assert!(passed_validation(call(&x, &out, 1.0)), "{}", last_error());
    assert!(passed_validation(call(&x, &TileirTensor { data: addr(1), ..out }, 0.5)), "{}", last_error());
    for p in [f32::NAN, -0.25, 1.01, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(call(&x, &out, p), Status::InvalidArgument.code(), "p = {p}");
    }
    assert_eq!(call(&x, &TileirTensor { data: addr(1) + 16, ..out }, 0.5), Status::InvalidArgument.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[n - 1]), 0.5), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::BF16, &[n]), 0.5), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[1, n]), &out, 0.5), Status::BadRank.code());
    // Only f32 has a strided variant.
    assert_eq!(call(&strided(addr(1), DType::F16, &[n], &[2]), &out, 0.5), Status::BadStride.code());
    let (x32, out32) = (strided(addr(1), DType::F32, &[n], &[2]), tensor(addr(2), DType::F32, &[n]));
    assert!(passed_validation(call(&x32, &out32, 0.5)), "{}", last_error());
    assert_eq!(call(&x32, &strided(addr(2), DType::F32, &[n], &[0]), 0.5), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 2, ..x }, &out, 0.5), Status::Misaligned.code());
    assert_eq!(unsafe { cutile_dropout(&x, std::ptr::null(), 1, 0.5, 0, 0) }, Status::NullPointer.code());
}

#[test]
fn argmax_validation() {
    use tileir_kernels::ops::argmax::ffi::cutile_argmax;
    let (m, n) = (13, 1000);
    let x = tensor(addr(1), DType::F16, &[m, n]);
    let out = tensor(addr(2), DType::I64, &[m]);
    let call = |x: &TileirTensor, out: &TileirTensor| unsafe { cutile_argmax(x, out, 0, 0) };
    assert!(passed_validation(call(&x, &out)), "{}", last_error());
    assert!(passed_validation(call(&strided(addr(1), DType::F32, &[m, n], &[1003, 1]), &out)), "{}", last_error());
    assert_eq!(call(&x, &tensor(addr(2), DType::I32, &[m])), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::I32, &[m, n]), &out), Status::UnsupportedDtype.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::I64, &[m, 1])), Status::BadRank.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m * n]), &out), Status::BadRank.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::I64, &[m + 1])), Status::ShapeMismatch.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, 0]), &out), Status::UnsupportedShape.code());
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, n], &[1, m]), &out), Status::BadStride.code());
    assert_eq!(call(&x, &strided(addr(2), DType::I64, &[m], &[2])), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 2, ..x }, &out), Status::Misaligned.code());
    assert_eq!(call(&x, &TileirTensor { data: addr(2) + 8, ..out }), Status::Misaligned.code());
    assert_eq!(call(&x, &TileirTensor { data: addr(1) + 64, ..out }), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_argmax(&x, &out, -1, 0) }, Status::InvalidDevice.code());
    assert_eq!(unsafe { cutile_argmax(std::ptr::null(), &out, 0, 0) }, Status::NullPointer.code());
    // The aligned variant when N and the row stride are multiples of 8; a forced one still checks it.
    assert_eq!(force(c"argmax", Some(c"f16_a8_m4_n1024")), 0);
    assert!(passed_validation(call(&x, &out)), "{}", last_error());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, 1001]), &out), Status::UnsupportedShape.code());
    assert_eq!(force(c"argmax", Some(c"f32_m4_n1024")), 0);
    assert_eq!(call(&x, &out), Status::UnsupportedDtype.code());
    assert_eq!(force(c"argmax", None), 0);
}

#[test]
fn cross_entropy_validation() {
    use tileir_kernels::ops::cross_entropy::ffi::cutile_cross_entropy;
    let (m, v) = (37, 1000);
    let logits = tensor(addr(1), DType::BF16, &[m, v]);
    let target = tensor(addr(2), DType::I64, &[m]);
    let loss = tensor(addr(3), DType::F32, &[m]);
    let lse = tensor(addr(4), DType::F32, &[m]);
    let call = |logits: &TileirTensor, target: &TileirTensor, loss: &TileirTensor, lse: &TileirTensor| unsafe {
        cutile_cross_entropy(logits, target, loss, lse, 0, 0)
    };
    assert!(passed_validation(call(&logits, &target, &loss, &lse)), "{}", last_error());
    assert_eq!(call(&logits, &tensor(addr(2), DType::I32, &[m]), &loss, &lse), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::F64, &[m, v]), &target, &loss, &lse), Status::UnsupportedDtype.code());
    assert_eq!(call(&logits, &target, &tensor(addr(3), DType::F32, &[m, 1]), &lse), Status::BadRank.code());
    assert_eq!(call(&logits, &target, &loss, &tensor(addr(4), DType::F32, &[m + 1])), Status::ShapeMismatch.code());
    assert_eq!(call(&tensor(addr(1), DType::BF16, &[m, 0]), &target, &loss, &lse), Status::UnsupportedShape.code());
    assert_eq!(call(&strided(addr(1), DType::BF16, &[m, v], &[1, m]), &target, &loss, &lse), Status::BadStride.code());
    assert_eq!(call(&logits, &strided(addr(2), DType::I64, &[m], &[2]), &loss, &lse), Status::BadStride.code());
    assert_eq!(call(&logits, &target, &TileirTensor { data: addr(3) + 4, ..loss }, &lse), Status::Misaligned.code());
    assert_eq!(call(&logits, &target, &loss, &TileirTensor { data: addr(3), ..lse }), Status::InvalidArgument.code());
    assert_eq!(
        call(&logits, &target, &TileirTensor { data: addr(1) + 64, ..loss }, &lse),
        Status::InvalidArgument.code()
    );
    assert_eq!(unsafe { cutile_cross_entropy(&logits, &target, &loss, &lse, -1, 0) }, Status::InvalidDevice.code());
    assert_eq!(
        unsafe { cutile_cross_entropy(&logits, std::ptr::null(), &loss, &lse, 0, 0) },
        Status::NullPointer.code()
    );
}

#[test]
fn cumsum_validation() {
    use tileir_kernels::ops::cumsum::ffi::cutile_cumsum;
    let (m, n) = (30, 77);
    let x = tensor(addr(1), DType::F16, &[m, n]);
    let out = tensor(addr(2), DType::F16, &[m, n]);
    let call = |x: &TileirTensor, out: &TileirTensor| unsafe { cutile_cumsum(x, out, 0, 0) };
    assert!(passed_validation(call(&x, &out)), "{}", last_error());
    assert!(passed_validation(call(&x, &TileirTensor { data: addr(1), ..out })), "{}", last_error());
    let long = |i| tensor(addr(i), DType::F32, &[m, 5000]);
    assert!(passed_validation(call(&long(1), &long(2))), "{}", last_error());
    assert_eq!(call(&x, &tensor(addr(2), DType::BF16, &[m, n])), Status::UnsupportedDtype.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m * n])), Status::BadRank.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m, n - 1])), Status::ShapeMismatch.code());
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, n], &[1, m]), &out), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 2, ..x }, &out), Status::Misaligned.code());
    assert_eq!(call(&x, &TileirTensor { data: addr(1) + 2 * n as u64, ..out }), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_cumsum(&x, &out, -1, 0) }, Status::InvalidDevice.code());
    // A forced whole-row variant never truncates a longer row.
    assert_eq!(force(c"cumsum", Some(c"row_f32_m4_n1024")), 0);
    assert_eq!(call(&long(1), &long(2)), Status::UnsupportedShape.code());
    assert_eq!(force(c"cumsum", None), 0);
}

#[test]
fn embedding_validation() {
    use tileir_kernels::ops::embedding::ffi::cutile_embedding;
    let (t, v, h) = (77, 1000, 1000);
    let ids = tensor(addr(1), DType::I32, &[t]);
    let weight = tensor(addr(2), DType::BF16, &[v, h]);
    let out = tensor(addr(3), DType::BF16, &[t, h]);
    let call = |ids: &TileirTensor, weight: &TileirTensor, out: &TileirTensor| unsafe {
        cutile_embedding(ids, weight, out, 0, 0)
    };
    assert!(passed_validation(call(&ids, &weight, &out)), "{}", last_error());
    assert!(passed_validation(call(&tensor(addr(1), DType::I64, &[t]), &weight, &out)), "{}", last_error());
    assert_eq!(call(&tensor(addr(1), DType::F32, &[t]), &weight, &out), Status::UnsupportedDtype.code());
    assert!(last_error().contains("int32 or int64"), "{}", last_error());
    assert_eq!(call(&ids, &weight, &tensor(addr(3), DType::F16, &[t, h])), Status::UnsupportedDtype.code());
    let f16 = |i, shape: &[i64]| tensor(addr(i), DType::F16, shape);
    let f16_i64 = call(&tensor(addr(1), DType::I64, &[t]), &f16(2, &[v, h]), &f16(3, &[t, h]));
    assert!(passed_validation(f16_i64), "{}", last_error());
    let f32 = |i, shape: &[i64]| tensor(addr(i), DType::F32, shape);
    let f32_i64 = call(&tensor(addr(1), DType::I64, &[t]), &f32(2, &[v, h]), &f32(3, &[t, h]));
    assert_eq!(f32_i64, Status::NoVariant.code());
    assert_eq!(call(&ids, &weight, &tensor(addr(3), DType::BF16, &[t])), Status::BadRank.code());
    assert_eq!(call(&ids, &weight, &tensor(addr(3), DType::BF16, &[t, h + 8])), Status::ShapeMismatch.code());
    assert_eq!(call(&ids, &tensor(addr(2), DType::BF16, &[0, h]), &out), Status::UnsupportedShape.code());
    // Row strides must be multiples of 8 bf16 elements (16 bytes).
    let ragged = |i, rows| strided(addr(i), DType::BF16, &[rows, 1000], &[1004, 1]);
    assert_eq!(call(&ids, &ragged(2, v), &out), Status::BadStride.code());
    assert_eq!(call(&strided(addr(1), DType::I32, &[t], &[2]), &weight, &out), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 4, ..ids }, &weight, &out), Status::Misaligned.code());
    assert_eq!(call(&ids, &weight, &TileirTensor { data: addr(2) + 4096, ..out }), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_embedding(&ids, &weight, &out, -1, 0) }, Status::InvalidDevice.code());
    assert_eq!(unsafe { cutile_embedding(&ids, std::ptr::null(), &out, 0, 0) }, Status::NullPointer.code());
    // One token per block at every T where the dtypes have a rows kernel (the gather kernels
    // are slower at every measured size and run only when forced).
    let rows_pairs =
        [(DType::BF16, DType::I32), (DType::F32, DType::I32), (DType::F16, DType::I32), (DType::BF16, DType::I64)];
    for (dtype, ids) in rows_pairs {
        for hidden in [72, 1024, 4096] {
            assert_eq!(tileir_kernels::ops::embedding::candidates(dtype, ids, hidden)[0].entry, "embedding_rows");
        }
    }
    // 16-bit rows longer than one (1, 1024) tile: the `_a8` rows form first, then the plain one.
    assert_eq!(
        tileir_kernels::ops::embedding::candidates(DType::BF16, DType::I32, 4096)
            .iter()
            .map(|v| v.name)
            .collect::<Vec<_>>(),
        ["bf16_i32_rows_a8_h1024", "bf16_i32_rows_h1024"]
    );
    assert_eq!(tileir_kernels::ops::embedding::candidates(DType::F16, DType::I32, 1024)[0].name, "f16_i32_rows_h1024");
    // f16 with int64 ids: the int64-indexed gather at every T; it alone takes a table past 2^31
    // elements (4.3 GB here, out 8 GiB past it) and a row stride past INT32_MAX.
    assert_eq!(
        tileir_kernels::ops::embedding::candidates(DType::F16, DType::I64, 4096)[0].name,
        "f16_i64_gather_bt8_h256_idx64"
    );
    let huge = f16(2, &[131072, 16400]);
    assert!(
        passed_validation(call(&tensor(addr(1), DType::I64, &[64]), &huge, &f16(4, &[64, 16400]))),
        "{}",
        last_error()
    );
    let bf16_huge = tensor(addr(2), DType::BF16, &[131072, 16400]);
    assert_eq!(call(&ids, &bf16_huge, &tensor(addr(4), DType::BF16, &[t, 16400])), Status::UnsupportedShape.code());
    let wide_rows = strided(addr(2), DType::F16, &[3, 16], &[(1 << 31) + 8, 1]);
    assert!(
        passed_validation(call(&tensor(addr(1), DType::I64, &[4]), &wide_rows, &f16(9, &[4, 16]))),
        "{}",
        last_error()
    );
    let overflowing = strided(addr(2), DType::F16, &[4, 16], &[1 << 62, 1]);
    assert_eq!(call(&tensor(addr(1), DType::I64, &[4]), &overflowing, &f16(9, &[4, 16])), Status::InvalidShape.code());
    assert!(last_error().contains("overflows i64"), "{}", last_error());
}

#[test]
fn transpose_validation() {
    use tileir_kernels::ops::transpose::ffi::cutile_transpose;
    let call = |x: &TileirTensor, y: &TileirTensor| unsafe { cutile_transpose(x, y, 0, 0) };
    let (m, n) = (328, 200);
    let x = tensor(addr(1), DType::F16, &[m, n]);
    let y = tensor(addr(2), DType::F16, &[n, m]);
    assert!(passed_validation(call(&x, &y)), "{}", last_error());
    let x3 = tensor(addr(1), DType::BF16, &[3, m, n]);
    let y3 = tensor(addr(2), DType::BF16, &[3, n, m]);
    assert!(passed_validation(call(&x3, &y3)), "{}", last_error());
    assert_eq!(unsafe { cutile_transpose(std::ptr::null(), &y, 0, 0) }, Status::NullPointer.code());
    assert_eq!(call(&x, &TileirTensor { data: 0, ..y }), Status::NullPointer.code());
    // Rank: 2 or 3, and y's equal to x's.
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m * n]), &y), Status::BadRank.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[1, n, m])), Status::BadRank.code());
    // y must be x with the last two axes swapped: not x's own shape.
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m, n])), Status::ShapeMismatch.code());
    assert_eq!(call(&x3, &tensor(addr(2), DType::BF16, &[2, n, m])), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::BF16, &[n, m])), Status::UnsupportedDtype.code());
    // f16 has no batched variant, f64 none at all.
    assert_eq!(
        call(&tensor(addr(1), DType::F16, &[3, m, n]), &tensor(addr(2), DType::F16, &[3, n, m])),
        Status::UnsupportedDtype.code()
    );
    assert!(last_error().contains("3-D"), "{}", last_error());
    assert_eq!(
        call(&tensor(addr(1), DType::F64, &[m, n]), &tensor(addr(2), DType::F64, &[n, m])),
        Status::UnsupportedDtype.code()
    );
    // A column-major x is not read as row-major; a row stride off 16 bytes is not assumed.
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, n], &[1, m]), &y), Status::BadStride.code());
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, n], &[n + 4, 1]), &y), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 2, ..x }, &y), Status::Misaligned.code());
    // Any overlap of y with x, in place included: a block writes the mirror of what it reads.
    assert_eq!(call(&x, &TileirTensor { data: addr(1), ..y }), Status::InvalidArgument.code());
    assert_eq!(call(&x, &TileirTensor { data: addr(1) + 2 * 64, ..y }), Status::InvalidArgument.code());
    // A self-overlapping output (row stride 0).
    assert_eq!(call(&x, &strided(addr(2), DType::F16, &[n, m], &[0, 1])), Status::BadStride.code());
    assert_eq!(unsafe { cutile_transpose(&x, &y, -1, 0) }, Status::InvalidDevice.code());
    // A batch beyond the driver's grid.z limit is unsupported, not a launch failure.
    let big = [tensor(addr(1), DType::BF16, &[65536, 8, 8]), tensor(addr(2), DType::BF16, &[65536, 8, 8])];
    assert_eq!(call(&big[0], &big[1]), Status::UnsupportedShape.code());
    // The aligned f16 variant needs M and N multiples of 8: forced on N = 250 it refuses.
    assert_eq!(force(c"transpose", Some(c"f16_tile_a8_64x64")), 0);
    assert!(passed_validation(call(&x, &y)), "{}", last_error());
    let ragged = [tensor(addr(1), DType::F16, &[m, 250]), tensor(addr(2), DType::F16, &[250, m])];
    assert_eq!(call(&ragged[0], &ragged[1]), Status::UnsupportedShape.code());
    // A forced batched variant on 2-D tensors is a rank error.
    assert_eq!(force(c"transpose", Some(c"bf16_batched_64x64")), 0);
    assert_eq!(
        call(&tensor(addr(1), DType::BF16, &[m, n]), &tensor(addr(2), DType::BF16, &[n, m])),
        Status::BadRank.code()
    );
    assert_eq!(force(c"transpose", None), 0);
}

#[test]
fn fp8_quantize_validation() {
    use tileir_kernels::ops::fp8_quantize::ffi::cutile_fp8_quantize;
    let call = |x: &TileirTensor, q: &TileirTensor, s: &TileirTensor| unsafe { cutile_fp8_quantize(x, q, s, 0, 0) };
    let (m, n) = (77, 1008);
    let x = tensor(addr(1), DType::F16, &[m, n]);
    let q = tensor(addr(2), DType::F8E4M3FN, &[m, n]);
    let s = tensor(addr(3), DType::F32, &[m]);
    assert!(passed_validation(call(&x, &q, &s)), "{}", last_error());
    // bf16 rows of any length (the looped variant past 4096).
    let long = [tensor(addr(1), DType::BF16, &[3, 14336]), tensor(addr(2), DType::F8E4M3FN, &[3, 14336])];
    assert!(passed_validation(call(&long[0], &long[1], &tensor(addr(3), DType::F32, &[3]))), "{}", last_error());
    assert_eq!(unsafe { cutile_fp8_quantize(&x, std::ptr::null(), &s, 0, 0) }, Status::NullPointer.code());
    assert_eq!(call(&x, &q, &TileirTensor { data: 0, ..s }), Status::NullPointer.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m * n]), &q, &s), Status::BadRank.code());
    assert_eq!(call(&x, &q, &tensor(addr(3), DType::F32, &[m, 1])), Status::BadRank.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F8E4M3FN, &[m, n + 8]), &s), Status::ShapeMismatch.code());
    assert_eq!(call(&x, &q, &tensor(addr(3), DType::F32, &[m + 1])), Status::ShapeMismatch.code());
    assert_eq!(
        call(&tensor(addr(1), DType::F16, &[m, 0]), &tensor(addr(2), DType::F8E4M3FN, &[m, 0]), &s),
        Status::UnsupportedShape.code()
    );
    // q must be e4m3 (not e5m2, not x's dtype), scales f32, x f16 or bf16.
    assert_eq!(call(&x, &tensor(addr(2), DType::F8E5M2, &[m, n]), &s), Status::UnsupportedDtype.code());
    assert_eq!(call(&x, &tensor(addr(2), DType::F16, &[m, n]), &s), Status::UnsupportedDtype.code());
    assert_eq!(call(&x, &q, &tensor(addr(3), DType::F16, &[m])), Status::UnsupportedDtype.code());
    assert_eq!(call(&tensor(addr(1), DType::F32, &[m, n]), &q, &s), Status::UnsupportedDtype.code());
    // f16 rows past 1024 fit no f16 variant.
    let wide = [tensor(addr(1), DType::F16, &[m, 1032]), tensor(addr(2), DType::F8E4M3FN, &[m, 1032])];
    assert_eq!(call(&wide[0], &wide[1], &s), Status::UnsupportedShape.code());
    // Strides: unit last, x rows multiples of 8 elements, q rows of 16 bytes (N = 1001: no a8).
    let ragged_x = strided(addr(1), DType::F16, &[m, 1001], &[1008, 1]);
    let q_1008 = strided(addr(2), DType::F8E4M3FN, &[m, 1001], &[1008, 1]);
    assert!(passed_validation(call(&ragged_x, &q_1008, &s)), "{}", last_error());
    let q_1001 = tensor(addr(2), DType::F8E4M3FN, &[m, 1001]);
    assert_eq!(call(&ragged_x, &q_1001, &s), Status::BadStride.code());
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, n], &[1, m]), &q, &s), Status::BadStride.code());
    assert_eq!(call(&strided(addr(1), DType::F16, &[m, n], &[n + 4, 1]), &q, &s), Status::BadStride.code());
    assert_eq!(call(&x, &q, &strided(addr(3), DType::F32, &[m], &[2])), Status::BadStride.code());
    assert_eq!(call(&x, &strided(addr(2), DType::F8E4M3FN, &[m, n], &[0, 1]), &s), Status::BadStride.code());
    assert_eq!(call(&TileirTensor { data: addr(1) + 8, ..x }, &q, &s), Status::Misaligned.code());
    assert_eq!(call(&x, &q, &TileirTensor { data: addr(3) + 4, ..s }), Status::Misaligned.code());
    // Overlaps: q on x, scales in x or q.
    assert_eq!(call(&x, &TileirTensor { data: addr(1), ..q }, &s), Status::InvalidArgument.code());
    assert_eq!(call(&x, &q, &TileirTensor { data: addr(1) + 64, ..s }), Status::InvalidArgument.code());
    assert_eq!(call(&x, &q, &TileirTensor { data: addr(2) + 1024, ..s }), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_fp8_quantize(&x, &q, &s, -1, 0) }, Status::InvalidDevice.code());
    // A forced single-tile variant never truncates a longer row; the looped one takes it.
    let bf = [
        tensor(addr(1), DType::BF16, &[8, 4112]),
        tensor(addr(2), DType::F8E4M3FN, &[8, 4112]),
        tensor(addr(3), DType::F32, &[8]),
    ];
    assert_eq!(force(c"fp8_quantize", Some(c"bf16_rows_m4_n4096")), 0);
    assert_eq!(call(&bf[0], &bf[1], &bf[2]), Status::UnsupportedShape.code());
    assert_eq!(force(c"fp8_quantize", Some(c"bf16_looped_m1_n2048")), 0);
    assert!(passed_validation(call(&bf[0], &bf[1], &bf[2])), "{}", last_error());
    assert_eq!(force(c"fp8_quantize", None), 0);
}

#[test]
fn layer_norm_validation() {
    use tileir_kernels::ops::layer_norm::ffi::{cutile_layer_norm, cutile_layer_norm_bwd};
    let (m, n) = (13, 1000);
    let x = tensor(addr(1), DType::BF16, &[m, n]);
    let w = tensor(addr(2), DType::BF16, &[n]);
    let b = tensor(addr(3), DType::BF16, &[n]);
    let out = tensor(addr(4), DType::BF16, &[m, n]);
    let mean = tensor(addr(5), DType::F32, &[m]);
    let rstd = tensor(addr(6), DType::F32, &[m]);
    let fwd = |x: &TileirTensor, w: &TileirTensor, out: &TileirTensor, mean: &TileirTensor, eps: f32| unsafe {
        cutile_layer_norm(x, w, &b, out, mean, &rstd, eps, 0, 0)
    };
    assert!(passed_validation(fwd(&x, &w, &out, &mean, 1e-5)), "{}", last_error());
    assert!(
        passed_validation(fwd(&x, &w, &TileirTensor { data: addr(1), ..out }, &mean, 1e-5)),
        "in place: {}",
        last_error()
    );
    assert_eq!(
        unsafe { cutile_layer_norm(&x, &w, std::ptr::null(), &out, &mean, &rstd, 1e-5, 0, 0) },
        Status::NullPointer.code()
    );
    assert_eq!(fwd(&x, &tensor(addr(2), DType::BF16, &[1, n]), &out, &mean, 1e-5), Status::BadRank.code());
    assert_eq!(fwd(&x, &tensor(addr(2), DType::BF16, &[n + 1]), &out, &mean, 1e-5), Status::ShapeMismatch.code());
    assert_eq!(fwd(&x, &w, &out, &tensor(addr(5), DType::F32, &[m + 1]), 1e-5), Status::ShapeMismatch.code());
    assert_eq!(fwd(&x, &tensor(addr(2), DType::F16, &[n]), &out, &mean, 1e-5), Status::UnsupportedDtype.code());
    assert_eq!(fwd(&x, &w, &out, &tensor(addr(5), DType::BF16, &[m]), 1e-5), Status::UnsupportedDtype.code());
    for eps in [f32::NAN, -1e-5, f32::INFINITY] {
        assert_eq!(fwd(&x, &w, &out, &mean, eps), Status::InvalidArgument.code());
    }
    assert_eq!(fwd(&strided(addr(1), DType::BF16, &[m, n], &[1, m]), &w, &out, &mean, 1e-5), Status::BadStride.code());
    assert_eq!(fwd(&x, &w, &out, &strided(addr(5), DType::F32, &[m], &[2]), 1e-5), Status::BadStride.code());
    assert_eq!(fwd(&TileirTensor { data: addr(1) + 2, ..x }, &w, &out, &mean, 1e-5), Status::Misaligned.code());
    // out partly on x, on w; mean on rstd.
    assert_eq!(
        fwd(&x, &w, &TileirTensor { data: addr(1) + 2 * n as u64, ..out }, &mean, 1e-5),
        Status::InvalidArgument.code()
    );
    assert_eq!(fwd(&x, &w, &TileirTensor { data: addr(2), ..out }, &mean, 1e-5), Status::InvalidArgument.code());
    assert_eq!(fwd(&x, &w, &out, &TileirTensor { data: addr(6), ..mean }, 1e-5), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_layer_norm(&x, &w, &b, &out, &mean, &rstd, 1e-5, -1, 0) }, Status::InvalidDevice.code());
    // Rows past 8192 fit no variant; a forced 4-row variant never truncates a row past 1024.
    let long = [tensor(addr(1), DType::BF16, &[m, 8200]), tensor(addr(2), DType::BF16, &[8200])];
    let long_out = tensor(addr(4), DType::BF16, &[m, 8200]);
    assert_eq!(
        unsafe { cutile_layer_norm(&long[0], &long[1], &long[1], &long_out, &mean, &rstd, 1e-5, 0, 0) },
        Status::UnsupportedShape.code()
    );
    let mid = [
        tensor(addr(1), DType::BF16, &[m, 2048]),
        tensor(addr(2), DType::BF16, &[2048]),
        tensor(addr(3), DType::BF16, &[2048]),
    ];
    let mid_out = tensor(addr(4), DType::BF16, &[m, 2048]);
    assert!(
        passed_validation(unsafe { cutile_layer_norm(&mid[0], &mid[1], &mid[2], &mid_out, &mean, &rstd, 1e-5, 0, 0) }),
        "{}",
        last_error()
    );
    assert_eq!(force(c"layer_norm", Some(c"fwd_bf16_m4_n1024")), 0);
    assert_eq!(
        unsafe { cutile_layer_norm(&mid[0], &mid[1], &mid[2], &mid_out, &mean, &rstd, 1e-5, 0, 0) },
        Status::UnsupportedShape.code()
    );
    // A forced forward variant is not a backward one.
    let (dy, dx) = (tensor(addr(7), DType::BF16, &[m, n]), tensor(addr(8), DType::BF16, &[m, n]));
    let (dw, db) = (tensor(addr(9), DType::F32, &[1, n]), tensor(addr(10), DType::F32, &[1, n]));
    let bwd = |dy: &TileirTensor, dx: &TileirTensor, dw: &TileirTensor, db: &TileirTensor| unsafe {
        cutile_layer_norm_bwd(dy, &x, &w, &mean, &rstd, dx, dw, db, 0, 0)
    };
    assert_eq!(bwd(&dy, &dx, &dw, &db), Status::InvalidArgument.code());
    assert_eq!(force(c"layer_norm", None), 0);
    assert!(passed_validation(bwd(&dy, &dx, &dw, &db)), "{}", last_error());
    assert_eq!(
        unsafe { cutile_layer_norm_bwd(&dy, &x, &w, &mean, &rstd, &dx, &dw, std::ptr::null(), 0, 0) },
        Status::NullPointer.code()
    );
    assert_eq!(bwd(&dy, &dx, &tensor(addr(9), DType::F32, &[n]), &db), Status::BadRank.code());
    assert_eq!(bwd(&dy, &dx, &dw, &tensor(addr(10), DType::F32, &[2, n])), Status::ShapeMismatch.code());
    assert_eq!(bwd(&tensor(addr(7), DType::BF16, &[m, n + 1]), &dx, &dw, &db), Status::ShapeMismatch.code());
    assert_eq!(bwd(&dy, &tensor(addr(8), DType::F16, &[m, n]), &dw, &db), Status::UnsupportedDtype.code());
    assert_eq!(bwd(&dy, &dx, &tensor(addr(9), DType::BF16, &[1, n]), &db), Status::UnsupportedDtype.code());
    assert_eq!(bwd(&strided(addr(7), DType::BF16, &[m, n], &[1, m]), &dx, &dw, &db), Status::BadStride.code());
    assert_eq!(bwd(&dy, &dx, &dw, &strided(addr(10), DType::F32, &[1, n], &[n, 2])), Status::BadStride.code());
    assert_eq!(bwd(&dy, &TileirTensor { data: addr(8) + 2, ..dx }, &dw, &db), Status::Misaligned.code());
    // dx on dy, dw on x, db on dw: every overlap is refused.
    assert_eq!(bwd(&dy, &TileirTensor { data: addr(7), ..dx }, &dw, &db), Status::InvalidArgument.code());
    assert_eq!(bwd(&dy, &dx, &TileirTensor { data: addr(1), ..dw }, &db), Status::InvalidArgument.code());
    assert_eq!(bwd(&dy, &dx, &dw, &TileirTensor { data: addr(9), ..db }), Status::InvalidArgument.code());
    assert_eq!(
        unsafe { cutile_layer_norm_bwd(&dy, &x, &w, &mean, &rstd, &dx, &dw, &db, -1, 0) },
        Status::InvalidDevice.code()
    );
    // The backward holds one row per tile: rows past 1024 are unsupported.
    let wide = [
        tensor(addr(7), DType::BF16, &[m, 1032]),
        tensor(addr(1), DType::BF16, &[m, 1032]),
        tensor(addr(2), DType::BF16, &[1032]),
    ];
    let wide_out = [
        tensor(addr(8), DType::BF16, &[m, 1032]),
        tensor(addr(9), DType::F32, &[1, 1032]),
        tensor(addr(10), DType::F32, &[1, 1032]),
    ];
    assert_eq!(
        unsafe {
            cutile_layer_norm_bwd(
                &wide[0],
                &wide[1],
                &wide[2],
                &mean,
                &rstd,
                &wide_out[0],
                &wide_out[1],
                &wide_out[2],
                0,
                0,
            )
        },
        Status::UnsupportedShape.code()
    );
}

fn selected() -> String {
    unsafe { CStr::from_ptr(tileir_kernels_selected_variant()) }.to_str().unwrap().to_string()
}

#[test]
fn rope_validation() {
    let (t, hq, hkv, d, p) = (77, 12, 4, 128, 1000);
    let positions = tensor(addr(1), DType::I32, &[t]);
    let q = tensor(addr(2), DType::BF16, &[t, hq, d]);
    let k = tensor(addr(3), DType::BF16, &[t, hkv, d]);
    let cos = tensor(addr(4), DType::F32, &[p, d / 2]);
    let sin = tensor(addr(5), DType::F32, &[p, d / 2]);
    let q_out = tensor(addr(6), DType::BF16, &[t, hq, d]);
    let k_out = tensor(addr(7), DType::BF16, &[t, hkv, d]);
    let call = |a: [&TileirTensor; 7], is_neox: i32| unsafe {
        cutile_rope(a[0], a[1], a[2], a[3], a[4], a[5], a[6], is_neox, 0, 0)
    };
    let valid = [&positions, &q, &k, &cos, &sin, &q_out, &k_out];
    assert!(passed_validation(call(valid, 1)), "{}", last_error());
    assert_eq!(selected(), "bf16_neox_d128_split_bt2_th8_o8");
    assert!(passed_validation(call(valid, 0)), "{}", last_error());
    assert_eq!(selected(), "bf16_gptj_d128_a8_bt4_th2_o8");
    // Exactly in place is allowed; a shifted output over its input is not.
    assert!(passed_validation(call([&positions, &q, &k, &cos, &sin, &q, &k], 1)), "{}", last_error());
    let shifted = TileirTensor { data: addr(2) + 256, ..q_out };
    assert_eq!(call([&positions, &q, &k, &cos, &sin, &shifted, &k_out], 1), Status::InvalidArgument.code());
    let k_over_q_out = TileirTensor { data: addr(6), ..k_out };
    assert_eq!(call([&positions, &q, &k, &cos, &sin, &q_out, &k_over_q_out], 1), Status::InvalidArgument.code());
    assert_eq!(call(valid, 2), Status::InvalidArgument.code());
    let pos64 = tensor(addr(1), DType::I64, &[t]);
    assert_eq!(call([&pos64, &q, &k, &cos, &sin, &q_out, &k_out], 1), Status::UnsupportedDtype.code());
    let q16 = tensor(addr(2), DType::F16, &[t, hq, d]);
    assert_eq!(call([&positions, &q16, &k, &cos, &sin, &q_out, &k_out], 1), Status::UnsupportedDtype.code());
    let short = tensor(addr(4), DType::F32, &[p, d / 2 + 1]);
    assert_eq!(call([&positions, &q, &k, &short, &short, &q_out, &k_out], 1), Status::ShapeMismatch.code());
    let flat = tensor(addr(2), DType::BF16, &[t, hq * d]);
    assert_eq!(call([&positions, &flat, &k, &cos, &sin, &q_out, &k_out], 1), Status::BadRank.code());
    let odd_heads = strided(addr(2), DType::BF16, &[t, hq, d], &[hq * 132 + 4, 132, 1]);
    assert_eq!(call([&positions, &odd_heads, &k, &cos, &sin, &q_out, &k_out], 1), Status::BadStride.code());
    let misaligned = TileirTensor { data: addr(5) + 4, ..sin };
    assert_eq!(call([&positions, &q, &k, &cos, &misaligned, &q_out, &k_out], 1), Status::Misaligned.code());
    assert_eq!(
        unsafe { cutile_rope(&positions, &q, &k, &cos, &sin, &q_out, std::ptr::null(), 1, 0, 0) },
        Status::NullPointer.code()
    );
    assert_eq!(selected(), "", "a call stopped before selection names no variant");
}

#[test]
fn flash_attention_validation() {
    let (b, hq, hkv, sq, sk, d) = (2, 8, 2, 200, 300, 128);
    let q = tensor(addr(1), DType::BF16, &[b, hq, sq, d]);
    let k = tensor(addr(2), DType::BF16, &[b, hkv, sk, d]);
    let v = tensor(addr(3), DType::BF16, &[b, hkv, sk, d]);
    let o = tensor(addr(4), DType::BF16, &[b, hq, sq, d]);
    let call = |a: [&TileirTensor; 4], sm_scale: f32, causal: i32| unsafe {
        cutile_flash_attention(a[0], a[1], a[2], a[3], sm_scale, causal, 0, 0)
    };
    assert!(passed_validation(call([&q, &k, &v, &o], 0.088, 1)), "{}", last_error());
    assert_eq!(selected(), "bf16_d128_causal_gqa4_w8_bn128");
    // q as the transpose(1, 2) of a (B, S, H, D) buffer
    let bshd = strided(addr(1), DType::BF16, &[b, hq, sq, d], &[sq * hq * d, d, hq * d, 1]);
    assert!(passed_validation(call([&bshd, &k, &v, &o], 0.088, 1)), "{}", last_error());
    // GQA 4 has no non-causal variant
    assert_eq!(call([&q, &k, &v, &o], 0.088, 0), Status::NoVariant.code());
    assert_eq!(call([&q, &k, &v, &o], f32::NAN, 1), Status::InvalidArgument.code());
    assert_eq!(call([&q, &k, &v, &o], 0.088, 2), Status::InvalidArgument.code());
    assert_eq!(call([&q, &k, &v, &q], 0.088, 1), Status::InvalidArgument.code(), "o over q");
    let k16 = tensor(addr(2), DType::F16, &[b, hkv, sk, d]);
    assert_eq!(call([&q, &k16, &v, &o], 0.088, 1), Status::UnsupportedDtype.code());
    let k3 = tensor(addr(2), DType::BF16, &[b, 3, sk, d]);
    assert_eq!(call([&q, &k3, &k3, &o], 0.088, 1), Status::ShapeMismatch.code());
    let flat = tensor(addr(1), DType::BF16, &[b * hq, sq, d]);
    assert_eq!(call([&flat, &k, &v, &o], 0.088, 1), Status::BadRank.code());
    let odd = strided(addr(3), DType::BF16, &[b, hkv, sk, d], &[hkv * sk * 132, sk * 132, 132, 1]);
    assert_eq!(call([&q, &k, &odd, &o], 0.088, 1), Status::BadStride.code());
    let misaligned = TileirTensor { data: addr(4) + 8, ..o };
    assert_eq!(call([&q, &k, &v, &misaligned], 0.088, 1), Status::Misaligned.code());
    assert_eq!(
        unsafe { cutile_flash_attention(&q, &k, std::ptr::null(), &o, 0.088, 1, 0, 0) },
        Status::NullPointer.code()
    );
}

#[test]
fn attention_sink_validation() {
    let (b, hq, hkv, s, d) = (1, 16, 2, 333, 64);
    let q = tensor(addr(1), DType::BF16, &[b, hq, s, d]);
    let k = tensor(addr(2), DType::BF16, &[b, hkv, s, d]);
    let v = tensor(addr(3), DType::BF16, &[b, hkv, s, d]);
    let sinks = tensor(addr(4), DType::F32, &[hq]);
    let o = tensor(addr(5), DType::BF16, &[b, hq, s, d]);
    let call = |a: [&TileirTensor; 5], window: i32| unsafe {
        cutile_attention_sink(a[0], a[1], a[2], a[3], a[4], 0.125, window, 0, 0)
    };
    assert!(passed_validation(call([&q, &k, &v, &sinks, &o], 128)), "{}", last_error());
    assert_eq!(selected(), "bf16_d64_gqa8_window128");
    assert!(passed_validation(call([&q, &k, &v, &sinks, &o], 0)), "{}", last_error());
    assert_eq!(selected(), "bf16_d64_gqa8_full");
    assert_eq!(call([&q, &k, &v, &sinks, &o], 256), Status::NoVariant.code());
    assert_eq!(call([&q, &k, &v, &sinks, &o], -1), Status::InvalidArgument.code());
    let short = tensor(addr(4), DType::F32, &[hq - 1]);
    assert_eq!(call([&q, &k, &v, &short, &o], 128), Status::ShapeMismatch.code());
    let half = tensor(addr(4), DType::BF16, &[hq]);
    assert_eq!(call([&q, &k, &v, &half, &o], 128), Status::UnsupportedDtype.code());
    let gapped = strided(addr(4), DType::F32, &[hq], &[2]);
    assert_eq!(call([&q, &k, &v, &gapped, &o], 128), Status::BadStride.code());
    let over_sinks = TileirTensor { data: addr(4), ..o };
    assert_eq!(call([&q, &k, &v, &sinks, &over_sinks], 128), Status::InvalidArgument.code());
}

#[test]
fn bmm_validation() {
    let (batch, m, n, k) = (3, 100, 72, 200);
    let a = tensor(addr(1), DType::F16, &[batch, m, k]);
    let b = tensor(addr(2), DType::F16, &[batch, k, n]);
    let c = tensor(addr(3), DType::F16, &[batch, m, n]);
    let call = |a: &TileirTensor, b: &TileirTensor, c: &TileirTensor, tb: i32| unsafe { cutile_bmm(a, b, c, tb, 0, 0) };
    assert!(passed_validation(call(&a, &b, &c, 0)), "{}", last_error());
    assert_eq!(selected(), "f16_nn_w8_128x128x64", "small f16 matrices");
    let big = [tensor(addr(1), DType::F16, &[2, 512, 64]), tensor(addr(2), DType::F16, &[2, 64, 512])];
    assert!(
        passed_validation(call(&big[0], &big[1], &tensor(addr(3), DType::F16, &[2, 512, 512]), 0)),
        "{}",
        last_error()
    );
    assert_eq!(selected(), "f16_nn_w8_128x256x64");
    // bf16 with b stored (B, N, K).
    let bf = |t: &TileirTensor| TileirTensor { dtype: DType::BF16 as i32, ..*t };
    let b_t = tensor(addr(2), DType::BF16, &[batch, n, k]);
    assert!(passed_validation(call(&bf(&a), &b_t, &bf(&c), 1)), "{}", last_error());
    assert_eq!(selected(), "bf16_nt_128x128x64", "small bf16 matrices: one warpgroup");
    // 40 batches of 512 x 512 (8 tiles of 128x256 each, 320 in all): the persistent grid
    let many = [tensor(addr(1), DType::F16, &[40, 512, 64]), tensor(addr(2), DType::F16, &[40, 64, 512])];
    assert!(
        passed_validation(call(&many[0], &many[1], &tensor(addr(3), DType::F16, &[40, 512, 512]), 0)),
        "{}",
        last_error()
    );
    assert_eq!(selected(), "f16_nn_w8p_128x256x64");
    // f16 and f32 (tf32) with b stored (B, N, K); a flag other than 0/1 is invalid.
    let b_t16 = tensor(addr(2), DType::F16, &[batch, n, k]);
    assert!(passed_validation(call(&a, &b_t16, &c, 1)), "{}", last_error());
    assert_eq!(selected(), "f16_nt_w8_128x256x64");
    let f32s = |t: &TileirTensor| TileirTensor { dtype: DType::F32 as i32, ..*t };
    let b_t32 = tensor(addr(2), DType::F32, &[batch, n, k]);
    assert!(passed_validation(call(&f32s(&a), &b_t32, &f32s(&c), 1)), "{}", last_error());
    assert_eq!(selected(), "tf32_nt_w8_128x256x32");
    assert!(passed_validation(call(&f32s(&a), &f32s(&b), &f32s(&c), 0)), "{}", last_error());
    assert_eq!(selected(), "tf32_nn_128x128x32", "small f32 matrices");
    let big32 = [tensor(addr(1), DType::F32, &[2, 512, 64]), tensor(addr(2), DType::F32, &[2, 64, 512])];
    assert!(
        passed_validation(call(&big32[0], &big32[1], &tensor(addr(3), DType::F32, &[2, 512, 512]), 0)),
        "{}",
        last_error()
    );
    assert_eq!(selected(), "tf32_nn_128x128x32", "f32 NN at every size since the tf32 tiles are rounded as loaded");
    assert_eq!(call(&a, &b, &c, 2), Status::InvalidArgument.code());
    // Shapes: batch, K and the output must agree; ranks are 3.
    assert_eq!(call(&a, &tensor(addr(2), DType::F16, &[batch + 1, k, n]), &c, 0), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &tensor(addr(2), DType::F16, &[batch, k + 1, n]), &c, 0), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F16, &[batch, m, n + 8]), 0), Status::ShapeMismatch.code());
    assert_eq!(call(&tensor(addr(1), DType::F16, &[m, k]), &b, &c, 0), Status::BadRank.code());
    // dtypes: one of f16/bf16/f32, the same for all three.
    assert_eq!(call(&a, &b, &bf(&c), 0), Status::UnsupportedDtype.code());
    let i32s = |t: &TileirTensor| TileirTensor { dtype: DType::I32 as i32, ..*t };
    assert_eq!(call(&i32s(&a), &i32s(&b), &i32s(&c), 0), Status::UnsupportedDtype.code());
    // Strides: unit last, batch and row strides multiples of 8 elements (a batch-interleaved
    // view is fine when they are).
    let odd_k = [tensor(addr(1), DType::F16, &[batch, m, 201]), tensor(addr(2), DType::F16, &[batch, 201, n])];
    assert_eq!(call(&odd_k[0], &odd_k[1], &c, 0), Status::BadStride.code());
    let interleaved = strided(addr(1), DType::F16, &[batch, m, k], &[k, batch * k, 1]);
    assert!(passed_validation(call(&interleaved, &b, &c, 0)), "{}", last_error());
    let column_major = strided(addr(1), DType::F16, &[batch, m, k], &[m * k, 1, m]);
    assert_eq!(call(&column_major, &b, &c, 0), Status::BadStride.code());
    let odd_batch = strided(addr(2), DType::F16, &[batch, k, n], &[k * n + 4, n, 1]);
    assert_eq!(call(&a, &odd_batch, &c, 0), Status::BadStride.code());
    // Alignment; c overlapping an input; an output overlapping itself.
    assert_eq!(call(&TileirTensor { data: addr(1) + 8, ..a }, &b, &c, 0), Status::Misaligned.code());
    assert_eq!(call(&a, &b, &TileirTensor { data: addr(2) + 64, ..c }, 0), Status::InvalidArgument.code());
    let self_overlap = strided(addr(3), DType::F16, &[batch, m, n], &[0, n, 1]);
    assert_eq!(call(&a, &b, &self_overlap, 0), Status::BadStride.code());
    // K = 0 is refused; an empty batch or output is a no-op; the batch is grid y (<= 65535).
    let k0 = [tensor(addr(1), DType::F16, &[batch, m, 0]), tensor(addr(2), DType::F16, &[batch, 0, n])];
    assert_eq!(call(&k0[0], &k0[1], &c, 0), Status::UnsupportedShape.code());
    let e = [tensor(0, DType::F16, &[0, m, k]), tensor(0, DType::F16, &[0, k, n]), tensor(0, DType::F16, &[0, m, n])];
    assert_eq!(call(&e[0], &e[1], &e[2], 0), Status::Ok.code());
    let huge = [tensor(addr(1), DType::F16, &[65536, 8, 8]), tensor(addr(2), DType::F16, &[65536, 8, 8])];
    assert_eq!(
        call(&huge[0], &huge[1], &tensor(addr(3), DType::F16, &[65536, 8, 8]), 0),
        Status::UnsupportedShape.code()
    );
    assert_eq!(unsafe { cutile_bmm(&a, &b, &c, 0, -1, 0) }, Status::InvalidDevice.code());
    assert_eq!(unsafe { cutile_bmm(&a, std::ptr::null(), &c, 0, 0, 0) }, Status::NullPointer.code());
    // A forced variant keeps its own flag and tile; the w8 and one-warpgroup kernels are one op.
    assert_eq!(force(c"bmm", Some(c"f16_nn_64x64x64")), 0);
    assert!(passed_validation(call(&a, &b, &c, 0)), "{}", last_error());
    assert_eq!(selected(), "f16_nn_64x64x64");
    assert_eq!(force(c"bmm", Some(c"bf16_nt_128x128x64")), 0);
    assert_eq!(call(&bf(&a), &bf(&b), &bf(&c), 0), Status::InvalidArgument.code());
    assert_eq!(force(c"bmm", None), 0);
}

#[test]
fn splitk_matmul_validation() {
    let (m, n, k, s) = (100, 136, 200, 3);
    let a = tensor(addr(1), DType::F16, &[m, k]);
    let b = tensor(addr(2), DType::F16, &[k, n]);
    let p = tensor(addr(3), DType::F32, &[s, m, n]);
    let c = tensor(addr(4), DType::F16, &[m, n]);
    let call = |a: &TileirTensor, b: &TileirTensor, p: &TileirTensor, c: &TileirTensor| unsafe {
        cutile_splitk_matmul(a, b, p, c, 0, 0)
    };
    assert!(passed_validation(call(&a, &b, &p, &c)), "{}", last_error());
    assert_eq!(selected(), "partial_f16_64x128x64,reduce_f16_4x256", "both launches, in order");
    let bf = |t: &TileirTensor| TileirTensor { dtype: DType::BF16 as i32, ..*t };
    assert!(passed_validation(call(&bf(&a), &bf(&b), &p, &bf(&c))), "{}", last_error());
    assert_eq!(selected(), "partial_bf16_64x128x64,reduce_bf16_4x256");
    // Shapes: K, M, N agree across a, b, the slabs and c; S = 0 slabs is refused; ranks.
    assert_eq!(call(&a, &tensor(addr(2), DType::F16, &[k + 8, n]), &p, &c), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F32, &[s, m + 1, n]), &c), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &b, &p, &tensor(addr(4), DType::F16, &[m, n + 8])), Status::ShapeMismatch.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F32, &[m, n]), &c), Status::BadRank.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F32, &[0, m, n]), &c), Status::UnsupportedShape.code());
    assert_eq!(call(&a, &b, &tensor(addr(3), DType::F32, &[65536, m, n]), &c), Status::UnsupportedShape.code());
    let k0 = [tensor(addr(1), DType::F16, &[m, 0]), tensor(addr(2), DType::F16, &[0, n])];
    assert_eq!(call(&k0[0], &k0[1], &p, &c), Status::UnsupportedShape.code());
    // dtypes: f16/bf16 operands and c of one dtype, f32 slabs.
    assert_eq!(call(&a, &b, &p, &bf(&c)), Status::UnsupportedDtype.code());
    assert_eq!(call(&a, &b, &TileirTensor { dtype: DType::F16 as i32, ..p }, &c), Status::UnsupportedDtype.code());
    let f32s = |t: &TileirTensor| TileirTensor { dtype: DType::F32 as i32, ..*t };
    assert_eq!(call(&f32s(&a), &f32s(&b), &p, &f32s(&c)), Status::UnsupportedDtype.code());
    // Strides and alignment, per kernel: a's rows, the slabs' rows and slab stride, c's rows.
    let odd_k = [tensor(addr(1), DType::F16, &[m, 201]), tensor(addr(2), DType::F16, &[201, n])];
    assert_eq!(call(&odd_k[0], &odd_k[1], &p, &c), Status::BadStride.code());
    let odd_slabs = strided(addr(3), DType::F32, &[s, m, n], &[m * n + 2, n, 1]);
    assert_eq!(call(&a, &b, &odd_slabs, &c), Status::BadStride.code());
    let every_other = strided(addr(3), DType::F32, &[s, m, n], &[2 * m * n, n, 1]);
    assert!(passed_validation(call(&a, &b, &every_other, &c)), "{}", last_error());
    let odd_c = strided(addr(4), DType::F16, &[m, n], &[n + 4, 1]);
    assert_eq!(call(&a, &b, &p, &odd_c), Status::BadStride.code());
    assert_eq!(call(&a, &b, &TileirTensor { data: addr(3) + 8, ..p }, &c), Status::Misaligned.code());
    assert_eq!(call(&a, &b, &p, &TileirTensor { data: addr(4) + 2, ..c }), Status::Misaligned.code());
    // Overlap: the slabs or c over an input, c over the slabs, slabs over themselves.
    assert_eq!(call(&a, &b, &TileirTensor { data: addr(1), ..p }, &c), Status::InvalidArgument.code());
    assert_eq!(call(&a, &b, &p, &TileirTensor { data: addr(2), ..c }), Status::InvalidArgument.code());
    assert_eq!(call(&a, &b, &p, &TileirTensor { data: addr(3) + 1024, ..c }), Status::InvalidArgument.code());
    let shared_slab = strided(addr(3), DType::F32, &[s, m, n], &[0, n, 1]);
    assert_eq!(call(&a, &b, &shared_slab, &c), Status::BadStride.code());
    assert_eq!(selected(), "", "a call stopped in validation names no variant");
    // Empty output: nothing to launch.
    let e = [tensor(0, DType::F16, &[0, k]), tensor(0, DType::F32, &[s, 0, n]), tensor(0, DType::F16, &[0, n])];
    assert_eq!(call(&e[0], &b, &e[1], &e[2]), Status::Ok.code());
    assert_eq!(unsafe { cutile_splitk_matmul(&a, &b, &p, &c, -1, 0) }, Status::InvalidDevice.code());
    assert_eq!(unsafe { cutile_splitk_matmul(&a, &b, std::ptr::null(), &c, 0, 0) }, Status::NullPointer.code());
    // Forcing either kernel runs it with the chosen partner; a reduce of another dtype is refused.
    assert_eq!(force(c"splitk_matmul", Some(c"reduce_f16_64x128")), 0);
    assert!(passed_validation(call(&a, &b, &p, &c)), "{}", last_error());
    assert_eq!(selected(), "partial_f16_64x128x64,reduce_f16_64x128");
    assert_eq!(call(&bf(&a), &bf(&b), &p, &bf(&c)), Status::UnsupportedDtype.code());
    assert_eq!(force(c"splitk_matmul", Some(c"partial_bf16_64x128x64")), 0);
    assert!(passed_validation(call(&bf(&a), &bf(&b), &p, &bf(&c))), "{}", last_error());
    assert_eq!(selected(), "partial_bf16_64x128x64,reduce_bf16_4x256");
    assert_eq!(force(c"splitk_matmul", None), 0);
}

#[test]
fn group_gemm_validation() {
    use tileir_kernels::ops::group_gemm::ffi::cutile_group_gemm;
    let (t, g, k, n) = (333, 5, 200, 136);
    let a = tensor(addr(1), DType::BF16, &[t, k]);
    let w = tensor(addr(2), DType::BF16, &[g, k, n]);
    let offsets = tensor(addr(3), DType::I32, &[g + 1]);
    let c = tensor(addr(4), DType::BF16, &[t, n]);
    let call =
        |x: [&TileirTensor; 4], trans_w: i32| unsafe { cutile_group_gemm(x[0], x[1], x[2], x[3], trans_w, 0, 0) };
    assert!(passed_validation(call([&a, &w, &offsets, &c], 0)), "{}", last_error());
    assert_eq!(selected(), "bf16_kn_sliced_w8_128x256x64");
    let w_nk = tensor(addr(2), DType::BF16, &[g, n, k]);
    assert!(passed_validation(call([&a, &w_nk, &offsets, &c], 1)), "{}", last_error());
    assert_eq!(selected(), "bf16_nk_sliced_w8_128x256x64");
    assert_eq!(call([&a, &w_nk, &offsets, &c], 0), Status::ShapeMismatch.code());
    assert_eq!(call([&a, &w, &tensor(addr(3), DType::I32, &[g]), &c], 0), Status::ShapeMismatch.code());
    assert_eq!(call([&a, &w, &tensor(addr(3), DType::I64, &[g + 1]), &c], 0), Status::UnsupportedDtype.code());
    let f16 = |i, shape: &[i64]| tensor(addr(i), DType::F16, shape);
    assert_eq!(call([&f16(1, &[t, k]), &f16(2, &[g, k, n]), &offsets, &f16(4, &[t, n])], 0), Status::NoVariant.code());
    assert!(passed_validation(call([&f16(1, &[t, k]), &f16(2, &[g, n, k]), &offsets, &f16(4, &[t, n])], 1)));
    assert_eq!(selected(), "f16_nk_sliced_64x128x64");
    assert_eq!(
        call([&strided(addr(1), DType::BF16, &[t, k], &[204, 1]), &w, &offsets, &c], 0),
        Status::BadStride.code()
    );
    assert_eq!(call([&TileirTensor { data: addr(1) + 8, ..a }, &w, &offsets, &c], 0), Status::Misaligned.code());
    assert_eq!(call([&a, &w, &offsets, &tensor(addr(1), DType::BF16, &[t, n])], 0), Status::InvalidArgument.code());
    assert_eq!(call([&a, &w, &offsets, &c], 2), Status::InvalidArgument.code());
    assert_eq!(unsafe { cutile_group_gemm(&a, &w, std::ptr::null(), &c, 0, 0, 0) }, Status::NullPointer.code());
    assert_eq!(unsafe { cutile_group_gemm(&a, &w, &offsets, &c, 0, -1, 0) }, Status::InvalidDevice.code());
    // f16 runs only with (G, N, K) weights; the gather kernels only when forced.
    assert!(tileir_kernels::ops::group_gemm::candidates(DType::F16, false).is_empty());
    let bf16_nk = tileir_kernels::ops::group_gemm::candidates(DType::BF16, true);
    assert!(bf16_nk.iter().all(|v| v.entry == "group_gemm_sliced_w8"));
}

#[test]
fn fused_moe_validation() {
    use tileir_kernels::ops::fused_moe::ffi::cutile_fused_moe;
    let (t, e, k, n, topk, bm) = (33, 6, 200, 136, 2, 64);
    let em = t * topk + e * (bm - 1);
    let hidden = tensor(addr(1), DType::BF16, &[t, k]);
    let w = tensor(addr(2), DType::BF16, &[e, n, k]);
    let ids = tensor(addr(3), DType::I32, &[em]);
    let experts = tensor(addr(4), DType::I32, &[(em + bm - 1) / bm]);
    let total = tensor(addr(5), DType::I32, &[1]);
    let weights = tensor(addr(6), DType::F32, &[t * topk]);
    let out = tensor(addr(7), DType::BF16, &[t * topk, n]);
    let call = |x: [&TileirTensor; 7], mul: i32, block_m: i32| unsafe {
        cutile_fused_moe(x[0], x[1], x[2], x[3], x[4], x[5], x[6], mul, block_m, 0, 0)
    };
    let valid = [&hidden, &w, &ids, &experts, &total, &weights, &out];
    assert!(passed_validation(call(valid, 1, 64)), "{}", last_error());
    assert_eq!(selected(), "bf16_top2_bm64_mul");
    assert!(passed_validation(call(valid, 0, 64)), "{}", last_error());
    assert_eq!(selected(), "bf16_top2_bm64_nomul");
    // expert_ids must have one entry per block_m ids: block_m 16 does not fit this layout.
    assert_eq!(call(valid, 1, 16), Status::ShapeMismatch.code());
    assert_eq!(call(valid, 2, 64), Status::InvalidArgument.code());
    assert_eq!(call(valid, 1, 0), Status::InvalidArgument.code());
    let wide_weights = tensor(addr(6), DType::F64, &[t * topk]);
    assert_eq!(
        call([&hidden, &w, &ids, &experts, &total, &wide_weights, &out], 1, 64),
        Status::UnsupportedDtype.code()
    );
    let overlapping = tensor(addr(3), DType::BF16, &[t * topk, n]);
    assert_eq!(
        call([&hidden, &w, &ids, &experts, &total, &weights, &overlapping], 1, 64),
        Status::InvalidArgument.code()
    );
    let misaligned = TileirTensor { data: addr(3) + 4, ..ids };
    assert_eq!(call([&hidden, &w, &misaligned, &experts, &total, &weights, &out], 1, 64), Status::Misaligned.code());
    assert!(tileir_kernels::ops::fused_moe::candidates(DType::BF16, 64, Some(8), true).is_empty());
    assert_eq!(tileir_kernels::ops::fused_moe::candidates(DType::F16, 16, None, true)[0].name, "f16_top8_bm16_mul");
}

#[test]
fn flash_decode_validation() {
    use tileir_kernels::ops::flash_decode::ffi::cutile_flash_decode;
    let (b, hq, hkv, smax, s, d) = (3, 8, 2, 1000, 8, 128);
    let q = tensor(addr(1), DType::BF16, &[b, hq, d]);
    let k = tensor(addr(2), DType::BF16, &[b, hkv, smax, d]);
    let v = tensor(addr(3), DType::BF16, &[b, hkv, smax, d]);
    let lens = tensor(addr(4), DType::I32, &[b]);
    let po = tensor(addr(5), DType::F32, &[b, hq, s, d]);
    let plse = tensor(addr(6), DType::F32, &[b, hq, s]);
    let o = tensor(addr(7), DType::BF16, &[b, hq, d]);
    let call = |a: [&TileirTensor; 7], scale: f32| unsafe {
        cutile_flash_decode(a[0], a[1], a[2], a[3], a[4], a[5], a[6], scale, 0, 0)
    };
    assert!(passed_validation(call([&q, &k, &v, &lens, &po, &plse, &o], 0.1)), "{}", last_error());
    assert_eq!(selected(), "tp_bf16_d128_g4_bn128,combine_bf16_d128_o8");
    assert_eq!(call([&q, &k, &v, &lens, &po, &plse, &o], f32::NAN), Status::InvalidArgument.code());
    let k3 = tensor(addr(2), DType::BF16, &[b, 3, smax, d]);
    assert_eq!(call([&q, &k3, &k3, &lens, &po, &plse, &o], 0.1), Status::ShapeMismatch.code());
    let o32 = tensor(addr(7), DType::F32, &[b, hq, d]);
    assert_eq!(call([&q, &k, &v, &lens, &po, &plse, &o32], 0.1), Status::UnsupportedDtype.code());
    let po17 = tensor(addr(5), DType::F32, &[b, hq, 17, d]);
    let plse17 = tensor(addr(6), DType::F32, &[b, hq, 17]);
    assert_eq!(call([&q, &k, &v, &lens, &po17, &plse17, &o], 0.1), Status::NoVariant.code());
    let o_over_q = TileirTensor { data: addr(1), ..o };
    assert_eq!(call([&q, &k, &v, &lens, &po, &plse, &o_over_q], 0.1), Status::InvalidArgument.code());
    assert_eq!(selected(), "", "a call stopped before selection names no variant");
}

#[test]
fn moe_align_block_size_validation() {
    use tileir_kernels::ops::moe_align_block_size::ffi::cutile_moe_align_block_size;
    let (n, e, bm) = (1000, 60, 64);
    let em = n + e * (bm - 1);
    let ids = tensor(addr(1), DType::I32, &[n]);
    let counts = tensor(addr(2), DType::I32, &[e]);
    let offsets = tensor(addr(3), DType::I32, &[e + 1]);
    let blocks = tensor(addr(4), DType::I32, &[(em + bm - 1) / bm]);
    let total = tensor(addr(5), DType::I32, &[1]);
    let sorted = tensor(addr(6), DType::I32, &[em]);
    let call = |a: [&TileirTensor; 6], block_m: i32| unsafe {
        cutile_moe_align_block_size(a[0], a[1], a[2], a[3], a[4], a[5], block_m, 0, 0)
    };
    assert!(passed_validation(call([&ids, &counts, &offsets, &blocks, &total, &sorted], 64)), "{}", last_error());
    assert_eq!(selected(), "hist_bm64_e128,sort_bm64_e128");
    assert_eq!(call([&ids, &counts, &offsets, &blocks, &total, &sorted], 32), Status::ShapeMismatch.code());
    let short = tensor(addr(6), DType::I32, &[em - 1]);
    assert_eq!(call([&ids, &counts, &offsets, &blocks, &total, &short], 64), Status::ShapeMismatch.code());
    let ids64 = tensor(addr(1), DType::I64, &[n]);
    assert_eq!(call([&ids64, &counts, &offsets, &blocks, &total, &sorted], 64), Status::UnsupportedDtype.code());
    let over = TileirTensor { data: addr(1), ..sorted };
    assert_eq!(call([&ids, &counts, &offsets, &blocks, &total, &over], 64), Status::InvalidArgument.code());
    // The parallel pair: the same checks, and a scratch of ceil(N / 256) * E int32.
    use tileir_kernels::ops::moe_align_block_size::ffi::cutile_moe_align_block_size_tiled;
    let tiled = |a: [&TileirTensor; 7], block_m: i32| unsafe {
        cutile_moe_align_block_size_tiled(a[0], a[1], a[2], a[3], a[4], a[5], a[6], block_m, 0, 0)
    };
    let need = (n + 255) / 256 * e;
    let scratch = tensor(addr(7), DType::I32, &[need]);
    assert!(
        passed_validation(tiled([&ids, &counts, &offsets, &blocks, &total, &sorted, &scratch], 64)),
        "{}",
        last_error()
    );
    assert_eq!(selected(), "count_t256_e128_s64,place_bm64_e128_s64");
    let small = tensor(addr(7), DType::I32, &[need - 1]);
    assert_eq!(tiled([&ids, &counts, &offsets, &blocks, &total, &sorted, &small], 64), Status::ShapeMismatch.code());
    assert_eq!(tiled([&ids, &counts, &offsets, &blocks, &total, &short, &scratch], 64), Status::ShapeMismatch.code());
    let inside = TileirTensor { data: addr(6), ..scratch };
    assert_eq!(tiled([&ids, &counts, &offsets, &blocks, &total, &sorted, &inside], 64), Status::InvalidArgument.code());
}
