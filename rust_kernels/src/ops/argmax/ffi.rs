//! C ABI: `cutile_argmax(x, out, device, stream)`.

use super::{ENTRIES, OP, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, pick, select};

/// out[r] = index of the first maximum of x[r, :] (ties: the smallest index, as torch). x: (M, N)
/// f16, bf16 or f32, unit column stride, any non-negative row stride; out: (M,) int64,
/// contiguous; both 16-byte aligned; out must not overlap x. NaN handling is the reference
/// kernel's (ordered comparisons), not torch's.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_argmax(
    x: *const TileirTensor,
    out: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, out) = unsafe { (read(x, "x")?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&x], 2)?;
        check_rank(&[&out], 1)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        if out.shape[0] != m {
            return fail(
                Status::ShapeMismatch,
                format!("need x (M, N) and out (M,); got x {:?}, out {:?}", x.dims(), out.dims()),
            );
        }
        if m > 0 && n == 0 {
            return fail(Status::UnsupportedShape, "x has rows of zero columns: their argmax is undefined");
        }
        check_disjoint(&out, &x)?;
        let tensors = [&x, &out];
        let v = pick(OP, &ENTRIES, &tensors, || {
            let c = candidates(x.dtype, m, n);
            if c.is_empty() {
                return Err(Error::new(
                    Status::UnsupportedDtype,
                    format!("x: no argmax variant for {}", x.dtype.torch_name()),
                ));
            }
            select(c, &tensors)
        })?;
        // The column indices of the last tile are computed in i32: they must not wrap.
        let tile_n = v.constant("TILE_N");
        if n > i32::MAX as i64 - tile_n {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {n} columns overflow its i32 column index", v.name),
            );
        }
        let grid = (blocks(m, v.constant("TILE_M"))?, 1, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&out)], grid, device, stream)
    })
}
