//! C ABI: `cutile_matmul(a, b, c, trans_a, trans_b, device, stream)` and
//! `cutile_matmul_fp8(a, b, c, scale_a, scale_b, trans_a, trans_b, device, stream)`.

use super::{FP8_ENTRIES, MATMUL_ENTRIES, OP, candidates, fp8_candidates};
use crate::descriptor::{DType, Tensor, TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Result, Status, fail, guard};
use crate::variant::{Variant, check_disjoint, check_rank, check_same_dtype, forced, pick, select};

/// Checks shared by both entries; returns (M, N, K) of c = op(a) @ op(b).
fn check_gemm(a: &Tensor, b: &Tensor, c: &Tensor, trans_a: i32, trans_b: i32) -> Result<(i64, i64, i64)> {
    if !(0..=1).contains(&trans_a) || !(0..=1).contains(&trans_b) {
        return fail(Status::InvalidArgument, format!("trans_a = {trans_a}, trans_b = {trans_b}: each must be 0 or 1"));
    }
    check_rank(&[a, b, c], 2)?;
    let (m, k) = if trans_a == 1 { (a.shape[1], a.shape[0]) } else { (a.shape[0], a.shape[1]) };
    let (kb, n) = if trans_b == 1 { (b.shape[1], b.shape[0]) } else { (b.shape[0], b.shape[1]) };
    if k != kb || c.shape[0] != m || c.shape[1] != n {
        return fail(
            Status::ShapeMismatch,
            format!("op(a) is ({m}, {k}), op(b) is ({kb}, {n}), c is {:?}: need (M, K) @ (K, N) -> (M, N)", c.dims()),
        );
    }
    check_disjoint(c, a)?;
    check_disjoint(c, b)?;
    Ok((m, n, k))
}

/// Picks the variant (forced or from `options`), checks that a forced one was built for the
/// call's flags (`flags`: generic name and value, e.g. ("TRANS_A", 1)). Shared with bmm.
pub(crate) fn pick_gemm(
    op: &str,
    entries: &[&str],
    tensors: &[&Tensor],
    options: Vec<&'static Variant>,
    flags: &[(&str, i32)],
    what: String,
) -> Result<&'static Variant> {
    if let Some(v) = forced(op) {
        if entries.contains(&v.entry) && flags.iter().any(|(name, value)| v.constant(name) != *value as i64) {
            return fail(Status::InvalidArgument, format!("forced variant {} has other transpose flags", v.name));
        }
    } else if options.is_empty() {
        let described: Vec<String> =
            flags.iter().map(|(name, value)| format!("{} = {value}", name.to_lowercase())).collect();
        return fail(Status::NoVariant, format!("no prebuilt {what} with {}", described.join(", ")));
    }
    pick(op, entries, tensors, || select(&options, tensors))
}

/// One block per BMxBN tile of `matrices` M x N outputs (1 for matmul; bmm's persistent kernel
/// covers every batch), or for a persistent variant (a NUM_BLOCKS generic) at most NUM_BLOCKS
/// blocks that loop over those tiles (the reference's grid `min(NUM_BLOCKS, tiles)`). An empty c
/// needs no launch; K = 0 is rejected: the K loop would not run and the kernel is not the place
/// to define an empty product.
pub(crate) fn gemm_grid(v: &Variant, matrices: i64, m: i64, n: i64, k: i64) -> Result<Option<(u32, u32, u32)>> {
    if m == 0 || n == 0 {
        return Ok(None);
    }
    if k == 0 {
        return fail(Status::UnsupportedShape, "K = 0: empty inner dimension");
    }
    let mut tiles =
        (matrices as u64).saturating_mul(blocks(m, v.constant("BM"))? as u64 * blocks(n, v.constant("BN"))? as u64);
    if v.generic_names.contains(&"NUM_BLOCKS") {
        tiles = tiles.min(v.constant("NUM_BLOCKS") as u64);
    }
    match u32::try_from(tiles) {
        Ok(x) => Ok(Some((x, 1, 1))),
        Err(_) => fail(Status::UnsupportedShape, format!("{tiles} output tiles exceed the grid limit")),
    }
}

/// c = op(a) @ op(b), f32 accumulation (f32 operands rounded to tf32). The descriptors are the
/// stored arrays, as the reference kernel takes them: a is (M, K), or (K, M) with
/// trans_a = 1; b is (K, N), or (N, K) with trans_b = 1; c is (M, N). All row-major with unit
/// last stride; c must not overlap a or b. trans_a, trans_b: 0 or 1. The tiled variants take
/// 16-byte aligned bases, row strides and c rows (N a multiple of 8 at 16 bits, of 4 at f32);
/// an f16 NN product outside that runs on the unaligned 64x64x32 variant.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_matmul(
    a: *const TileirTensor,
    b: *const TileirTensor,
    c: *const TileirTensor,
    trans_a: i32,
    trans_b: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (a, b, c) = unsafe { (read(a, "a")?, read(b, "b")?, read(c, "c")?) };
        check_device_id(device)?;
        let (m, n, k) = check_gemm(&a, &b, &c, trans_a, trans_b)?;
        check_same_dtype(&[&a, &b, &c])?;
        if !matches!(a.dtype, DType::F16 | DType::BF16 | DType::F32) {
            return fail(
                Status::UnsupportedDtype,
                format!(
                    "a: matmul takes float16, bfloat16 or float32, got {} (fp8: cutile_matmul_fp8)",
                    a.dtype.torch_name()
                ),
            );
        }
        let options = candidates(a.dtype, trans_a == 1, trans_b == 1, m, n);
        let tensors = [&a, &b, &c];
        let flags = [("TRANS_A", trans_a), ("TRANS_B", trans_b)];
        let v = pick_gemm(OP, &MATMUL_ENTRIES, &tensors, options, &flags, format!("{} matmul", a.dtype.torch_name()))?;
        let Some(grid) = gemm_grid(v, 1, m, n, k)? else { return Ok(()) };
        run(v, &[Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&c)], grid, device, stream)
    })
}

/// c = (scale_a * scale_b) * (op(a) @ op(b)) with float8_e4m3fn a, b and a float16 or
/// bfloat16 c; f32 accumulation. Layouts as for cutile_matmul; the prebuilt variants take
/// a (M, K) and b stored (N, K) (trans_a = 0, trans_b = 1), row strides a multiple of 16
/// elements, N a multiple of 8. Scales: finite.
///
/// # Safety
/// As for cutile_matmul.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_matmul_fp8(
    a: *const TileirTensor,
    b: *const TileirTensor,
    c: *const TileirTensor,
    scale_a: f32,
    scale_b: f32,
    trans_a: i32,
    trans_b: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (a, b, c) = unsafe { (read(a, "a")?, read(b, "b")?, read(c, "c")?) };
        check_device_id(device)?;
        let (m, n, k) = check_gemm(&a, &b, &c, trans_a, trans_b)?;
        check_same_dtype(&[&a, &b])?;
        if a.dtype != DType::F8E4M3FN {
            return fail(
                Status::UnsupportedDtype,
                format!("a: matmul_fp8 takes float8_e4m3fn, got {}", a.dtype.torch_name()),
            );
        }
        if !matches!(c.dtype, DType::F16 | DType::BF16) {
            return fail(
                Status::UnsupportedDtype,
                format!("c: matmul_fp8 writes float16 or bfloat16, got {}", c.dtype.torch_name()),
            );
        }
        if !scale_a.is_finite() || !scale_b.is_finite() {
            return fail(Status::InvalidArgument, format!("scale_a = {scale_a}, scale_b = {scale_b}: must be finite"));
        }
        let options = fp8_candidates(c.dtype, trans_a == 1, trans_b == 1, m, n);
        let tensors = [&a, &b, &c];
        let what = format!("fp8 matmul to {}", c.dtype.torch_name());
        let v = pick_gemm(OP, &FP8_ENTRIES, &tensors, options, &[("TRANS_A", trans_a), ("TRANS_B", trans_b)], what)?;
        let Some(grid) = gemm_grid(v, 1, m, n, k)? else { return Ok(()) };
        let values =
            [Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&c), Value::F32(scale_a), Value::F32(scale_b)];
        run(v, &values, grid, device, stream)
    })
}
