//! C ABI: `cutile_dropout(x, out, seed, p, device, stream)`.

use super::{OP, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Status, fail, guard};
use crate::variant::{check_in_place, check_rank, check_same_dtype, check_same_shape, pick, select};

/// out[i] = x[i] / (1 - p) if uniform(seed, i) >= p else 0, with uniform(seed, i) the top 24
/// bits of a 32-bit hash of (i, seed) over 2^24: stateless, the mask depends only on (seed, i).
/// x, out: 1-D, one dtype (f16, bf16, f32), one length; unit stride and 16-byte aligned bases
/// (f32 also any non-negative stride). p in [0, 1]; seed any int32 (read as its uint32 bits).
/// out may be x (exactly in place).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_dropout(
    x: *const TileirTensor,
    out: *const TileirTensor,
    seed: i32,
    p: f32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, out) = unsafe { (read(x, "x")?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&x, &out], 1)?;
        check_same_shape(&[&x, &out])?;
        // NaN fails both comparisons.
        if !(0.0..=1.0).contains(&p) {
            return fail(Status::InvalidArgument, format!("p = {p} must be in [0, 1]"));
        }
        check_same_dtype(&[&x, &out])?;
        // Each block reads only the tile it writes.
        check_in_place(&out, &x)?;
        let tensors = [&x, &out];
        let v = pick(OP, &["dropout", "dropout_fast"], &tensors, || select(candidates(x.dtype), &tensors))?;
        let grid = (blocks(x.shape[0], v.constant("TILE"))?, 1, 1);
        let values = [Value::Tensor(&x), Value::Tensor(&out), Value::I32(seed), Value::F32(p)];
        run(v, &values, grid, device, stream)
    })
}
