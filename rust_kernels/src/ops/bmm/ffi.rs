//! C ABI: `cutile_bmm(a, b, c, trans_b, device, stream)`.

use super::{ENTRIES, OP, candidate};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{Value, blocks_yz, check_device_id, run};
use crate::ops::matmul::ffi::{gemm_grid, pick_gemm};
use crate::status::{Result, Status, fail, guard};
use crate::variant::{Variant, check_disjoint, check_rank, check_same_dtype};

/// c[z] = a[z] @ op(b[z]) for every batch z, f32 accumulation (f32 operands rounded to tf32).
/// a is (B, M, K); b is (B, K, N), or stored (B, N, K) with trans_b = 1; c is (B, M, N). Unit
/// last strides, batch and row strides multiples of 16 bytes, 16-byte aligned bases, c's rows a
/// multiple of 16 bytes (N a multiple of 8 at 16 bits, of 4 at f32); c must not overlap a or b.
/// trans_b: 0 or 1.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_bmm(
    a: *const TileirTensor,
    b: *const TileirTensor,
    c: *const TileirTensor,
    trans_b: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (a, b, c) = unsafe { (read(a, "a")?, read(b, "b")?, read(c, "c")?) };
        check_device_id(device)?;
        if !(0..=1).contains(&trans_b) {
            return fail(Status::InvalidArgument, format!("trans_b = {trans_b}: must be 0 or 1"));
        }
        check_rank(&[&a, &b, &c], 3)?;
        let (batch, m, k) = (a.shape[0], a.shape[1], a.shape[2]);
        let (kb, n) = if trans_b == 1 { (b.shape[2], b.shape[1]) } else { (b.shape[1], b.shape[2]) };
        if b.shape[0] != batch || c.shape[0] != batch || kb != k || c.shape[1] != m || c.shape[2] != n {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "a is {:?}, op(b) is ({}, {kb}, {n}), c is {:?}: need (B, M, K) @ (B, K, N) -> (B, M, N)",
                    a.dims(),
                    b.shape[0],
                    c.dims()
                ),
            );
        }
        check_disjoint(&c, &a)?;
        check_disjoint(&c, &b)?;
        check_same_dtype(&[&a, &b, &c])?;
        if !matches!(a.dtype, DType::F16 | DType::BF16 | DType::F32) {
            return fail(
                Status::UnsupportedDtype,
                format!("a: bmm takes float16, bfloat16 or float32, got {}", a.dtype.torch_name()),
            );
        }
        let options: Vec<_> = candidate(a.dtype, trans_b == 1, batch, m, n).into_iter().collect();
        let tensors = [&a, &b, &c];
        let what = format!("{} bmm", a.dtype.torch_name());
        let v = pick_gemm(OP, &ENTRIES, &tensors, options, &[("TRANS_B", trans_b)], what)?;
        if batch == 0 {
            return Ok(());
        }
        let Some(grid) = bmm_grid(v, batch, m, n, k)? else { return Ok(()) };
        run(v, &[Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&c)], grid, device, stream)
    })
}

/// The one-tile kernels: grid.x walks one batch's BMxBN tiles, grid.y is the batch (one block row
/// per matrix). The persistent kernel (a NUM_BLOCKS generic): a 1-D grid of min(NUM_BLOCKS,
/// B * tiles) blocks looping over batch x tiles (the reference's grid).
fn bmm_grid(v: &Variant, batch: i64, m: i64, n: i64, k: i64) -> Result<Option<(u32, u32, u32)>> {
    if v.generic_names.contains(&"NUM_BLOCKS") {
        return gemm_grid(v, batch, m, n, k);
    }
    let Some((tiles, _, _)) = gemm_grid(v, 1, m, n, k)? else { return Ok(None) };
    Ok(Some((tiles, blocks_yz(batch, 1)?, 1)))
}
