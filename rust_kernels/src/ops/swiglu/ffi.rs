//! C ABI: `cutile_swiglu(a, b, c, device, stream)` and
//! `cutile_swiglu_bwd(dc, a, b, da, db, device, stream)`.

use super::{OP, bwd_candidates, fwd_candidates};
use crate::descriptor::{Tensor, TileirTensor, read};
use crate::launch::{Value, blocks, blocks_yz, check_device_id, run};
use crate::status::{Result, guard};
use crate::variant::{
    Variant, check_disjoint, check_in_place, check_rank, check_same_dtype, check_same_shape, pick, select,
};

/// One block per (TILE_M, TILE_N) tile of the (M, N) arrays.
fn grid(v: &Variant, t: &Tensor) -> Result<(u32, u32, u32)> {
    Ok((blocks(t.shape[0], v.constant("TILE_M"))?, blocks_yz(t.shape[1], v.constant("TILE_N"))?, 1))
}

/// c = silu(a) * b. a, b, c: (M, N), one dtype (f16, bf16, f32), unit column stride, any
/// non-negative row stride, 16-byte aligned. c may be a or b (exactly in place).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_swiglu(
    a: *const TileirTensor,
    b: *const TileirTensor,
    c: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (a, b, c) = unsafe { (read(a, "a")?, read(b, "b")?, read(c, "c")?) };
        check_device_id(device)?;
        check_rank(&[&a, &b, &c], 2)?;
        check_same_shape(&[&a, &b, &c])?;
        check_same_dtype(&[&a, &b, &c])?;
        // Each block reads only the tile it writes.
        check_in_place(&c, &a)?;
        check_in_place(&c, &b)?;
        let tensors = [&a, &b, &c];
        let v = pick(OP, &["swiglu_fwd", "swiglu_fwd_fast"], &tensors, || {
            select(fwd_candidates(a.dtype, a.shape[0], a.shape[1]), &tensors)
        })?;
        run(v, &[Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&c)], grid(v, &c)?, device, stream)
    })
}

/// Backward of swiglu for dc = dL/dc: da = dc * b * silu'(a), db = dc * silu(a). dc, a, b, da,
/// db: (M, N), one dtype (f16, bf16, f32), unit column stride, any non-negative row stride,
/// 16-byte aligned. da and db may each be exactly one of the inputs, but must not overlap each
/// other.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_swiglu_bwd(
    dc: *const TileirTensor,
    a: *const TileirTensor,
    b: *const TileirTensor,
    da: *const TileirTensor,
    db: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (dc, a, b, da, db) =
            unsafe { (read(dc, "dc")?, read(a, "a")?, read(b, "b")?, read(da, "da")?, read(db, "db")?) };
        check_device_id(device)?;
        let tensors = [&dc, &a, &b, &da, &db];
        check_rank(&tensors, 2)?;
        check_same_shape(&tensors)?;
        check_same_dtype(&tensors)?;
        for out in [&da, &db] {
            for input in [&dc, &a, &b] {
                check_in_place(out, input)?;
            }
        }
        // Two different values to one address: a race.
        check_disjoint(&da, &db)?;
        let v = pick(OP, &["swiglu_bwd", "swiglu_bwd_fast"], &tensors, || {
            select(bwd_candidates(a.dtype, a.shape[0], a.shape[1]), &tensors)
        })?;
        let values = [Value::Tensor(&dc), Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&da), Value::Tensor(&db)];
        run(v, &values, grid(v, &da)?, device, stream)
    })
}
