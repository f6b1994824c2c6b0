//! C ABI: `cutile_gelu(x, out, approximate, device, stream)`.

use super::{OP, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, blocks_yz, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_in_place, check_rank, check_same_dtype, check_same_shape, pick, select};

/// out = gelu(x): `approximate` 0 is the exact form (erf), 1 the tanh form, as torch's
/// `approximate="none"` / `"tanh"`. x, out: (M, N), one dtype (f16, bf16, f32), unit column
/// stride, any non-negative row stride, 16-byte aligned. out may be x (in place).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_gelu(
    x: *const TileirTensor,
    out: *const TileirTensor,
    approximate: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, out) = unsafe { (read(x, "x")?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&x, &out], 2)?;
        check_same_shape(&[&x, &out])?;
        if approximate != 0 && approximate != 1 {
            return fail(Status::InvalidArgument, format!("approximate = {approximate} must be 0 (erf) or 1 (tanh)"));
        }
        check_same_dtype(&[&x, &out])?;
        // Each block reads only the tile it writes: exactly in place is fine, a shifted overlap is not.
        check_in_place(&out, &x)?;
        let tensors = [&x, &out];
        let v = pick(OP, &["gelu", "gelu_fast"], &tensors, || {
            select(candidates(approximate == 1, x.dtype, x.shape[0], x.shape[1]), &tensors)
        })?;
        // A forced variant must compute the formula asked for.
        if v.constant("APPROX") != approximate as i64 {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("forced variant {} computes APPROX = {}, the call asks for {approximate}", v.name, v.constant("APPROX")),
            ));
        }
        let grid = (blocks(x.shape[0], v.constant("TILE_M"))?, blocks_yz(x.shape[1], v.constant("TILE_N"))?, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&out)], grid, device, stream)
    })
}
