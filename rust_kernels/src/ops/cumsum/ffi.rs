//! C ABI: `cutile_cumsum(x, out, device, stream)`.

use super::{ENTRIES, OP, candidates, whole_row};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_in_place, check_rank, check_same_dtype, check_same_shape, pick, select};

/// out = cumsum(x, dim=-1), accumulated in float32. x, out: (M, N), one dtype (f16, bf16, f32),
/// unit column stride, any non-negative row stride, 16-byte aligned. out may be x (in place).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_cumsum(
    x: *const TileirTensor,
    out: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, out) = unsafe { (read(x, "x")?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&x, &out], 2)?;
        check_same_shape(&[&x, &out])?;
        check_same_dtype(&[&x, &out])?;
        // Each block reads only the rows it writes, each tile before writing it.
        check_in_place(&out, &x)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        let tensors = [&x, &out];
        let v = pick(OP, &ENTRIES, &tensors, || {
            let c = candidates(x.dtype, m, n);
            if c.is_empty() {
                return Err(Error::new(
                    Status::UnsupportedDtype,
                    format!("x: no cumsum variant for {}", x.dtype.torch_name()),
                ));
            }
            select(&c, &tensors)
        })?;
        // cumsum_row scans a whole row in one tile: a longer row would be silently truncated.
        if whole_row(v) && n > v.constant("TILE_N") {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {n} columns exceed its tile of {}", v.name, v.constant("TILE_N")),
            );
        }
        let grid = (blocks(x.shape[0], v.constant("TILE_M"))?, 1, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&out)], grid, device, stream)
    })
}
