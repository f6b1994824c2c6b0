//! C ABI: `cutile_transpose(x, y, device, stream)`.

use super::{ENTRIES, OP, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, blocks_yz, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_same_dtype, pick, select};

/// y = x.T: x (M, N) and y (N, M), or x (B, M, N) and y (B, N, M) (the last two axes swapped).
/// One dtype: f16, bf16 or f32 for 2-D, bf16 for 3-D. Unit last stride, leading strides
/// multiples of 16 bytes, 16-byte aligned bases. y must not overlap x (a block writes the
/// mirror image of the tile it reads).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_transpose(x: *const TileirTensor, y: *const TileirTensor, device: i32, stream: u64) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, y) = unsafe { (read(x, "x")?, read(y, "y")?) };
        check_device_id(device)?;
        if x.rank != 2 && x.rank != 3 {
            return fail(Status::BadRank, format!("x must have 2 or 3 dims, got {}", x.rank));
        }
        if y.rank != x.rank {
            return fail(Status::BadRank, format!("y must have the {} dims of x, got {}", x.rank, y.rank));
        }
        let r = x.rank;
        let mut swapped = x.dims().to_vec();
        swapped.swap(r - 2, r - 1);
        if y.dims() != swapped.as_slice() {
            return fail(
                Status::ShapeMismatch,
                format!("y must be x {:?} with its last two axes swapped {swapped:?}, got {:?}", x.dims(), y.dims()),
            );
        }
        check_same_dtype(&[&x, &y])?;
        check_disjoint(&y, &x)?;
        let tensors = [&x, &y];
        let v = pick(OP, ENTRIES, &tensors, || {
            if candidates(r, x.dtype).is_empty() {
                return Err(Error::new(
                    Status::UnsupportedDtype,
                    format!("x: no {r}-D transpose variant for {}", x.dtype.torch_name()),
                ));
            }
            select(candidates(r, x.dtype), &tensors)
        })?;
        let (m, n) = (x.shape[r - 2], x.shape[r - 1]);
        let batches = if r == 3 { blocks_yz(x.shape[0], 1)? } else { 1 };
        let grid = (blocks(m, v.constant("TM"))?, blocks_yz(n, v.constant("TN"))?, batches);
        run(v, &[Value::Tensor(&x), Value::Tensor(&y)], grid, device, stream)
    })
}
