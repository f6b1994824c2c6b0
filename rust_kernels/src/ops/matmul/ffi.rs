//! C ABI: `cutile_matmul(a, b, c, trans_a, trans_b, device, stream)`.

use super::{OP, candidates};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, check_same_dtype, forced, pick, select};

/// c = op(a) @ op(b), f32 accumulation (f32 operands rounded to tf32). The descriptors are the
/// stored arrays, as the reference kernel takes them: a is (M, K), or (K, M) with
/// trans_a = 1; b is (K, N), or (N, K) with trans_b = 1; c is (M, N). All row-major with unit
/// last stride; c must not overlap a or b. trans_a, trans_b: 0 or 1.
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
        if !(0..=1).contains(&trans_a) || !(0..=1).contains(&trans_b) {
            return fail(
                Status::InvalidArgument,
                format!("trans_a = {trans_a}, trans_b = {trans_b}: each must be 0 or 1"),
            );
        }
        let (trans_a, trans_b) = (trans_a == 1, trans_b == 1);
        check_rank(&[&a, &b, &c], 2)?;
        let (m, k) = if trans_a { (a.shape[1], a.shape[0]) } else { (a.shape[0], a.shape[1]) };
        let (kb, n) = if trans_b { (b.shape[1], b.shape[0]) } else { (b.shape[0], b.shape[1]) };
        if k != kb || c.shape[0] != m || c.shape[1] != n {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "op(a) is ({m}, {k}), op(b) is ({kb}, {n}), c is {:?}: need (M, K) @ (K, N) -> (M, N)",
                    c.dims()
                ),
            );
        }
        check_same_dtype(&[&a, &b, &c])?;
        check_disjoint(&c, &a)?;
        check_disjoint(&c, &b)?;
        let options = candidates(a.dtype, trans_a, trans_b, m * n);
        if let Some(v) = forced(OP) {
            if (v.constant("TRANS_A") == 1) != trans_a || (v.constant("TRANS_B") == 1) != trans_b {
                return fail(Status::InvalidArgument, format!("forced variant {} has other transpose flags", v.name));
            }
        } else if options.is_empty() {
            let status = if matches!(a.dtype, DType::F16 | DType::BF16 | DType::F32) {
                Status::NoVariant
            } else {
                Status::UnsupportedDtype
            };
            return fail(
                status,
                format!(
                    "no prebuilt {} matmul with trans_a = {}, trans_b = {}",
                    a.dtype.torch_name(),
                    trans_a as i32,
                    trans_b as i32
                ),
            );
        }
        let tensors = [&a, &b, &c];
        let v = pick(OP, &tensors, || select(&options, &tensors))?;
        if c.numel() == 0 {
            return Ok(());
        }
        if k == 0 {
            // The K loop would not run and c would hold zeros, but the kernel is not the place
            // to define an empty product: reject rather than silently write.
            return fail(Status::UnsupportedShape, "K = 0: empty inner dimension");
        }
        let (bm, bn) = (v.constant("BM"), v.constant("BN"));
        let grid = (blocks(m, bm)? as u64 * blocks(n, bn)? as u64, 1, 1);
        let Ok(grid_x) = u32::try_from(grid.0) else {
            return fail(Status::UnsupportedShape, format!("{} output tiles exceed the grid limit", grid.0));
        };
        run(v, &[Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&c)], (grid_x, 1, 1), device, stream)
    })
}
