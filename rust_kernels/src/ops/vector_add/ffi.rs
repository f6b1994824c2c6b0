//! C ABI: `cutile_vector_add(x, y, out, device, stream)`.

use super::{OP, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Status, fail, guard};
use crate::variant::{check_in_place, check_rank, check_same_dtype, pick, select};

/// out = x + y for 1-D tensors of one dtype (f16, bf16, f32; f32 also with any strides).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_vector_add(
    x: *const TileirTensor,
    y: *const TileirTensor,
    out: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, y, out) = unsafe { (read(x, "x")?, read(y, "y")?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&x, &y, &out], 1)?;
        if x.dims() != y.dims() || x.dims() != out.dims() {
            return fail(
                Status::ShapeMismatch,
                format!("x {:?}, y {:?} and out {:?} must have one shape", x.dims(), y.dims(), out.dims()),
            );
        }
        check_same_dtype(&[&x, &y, &out])?;
        check_in_place(&out, &x)?;
        check_in_place(&out, &y)?;
        let tensors = [&x, &y, &out];
        let v = pick(OP, &["vector_add"], &tensors, || select(candidates(x.dtype), &tensors))?;
        let grid = (blocks(out.shape[0], v.constant("TILE"))?, 1, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&y), Value::Tensor(&out)], grid, device, stream)
    })
}
