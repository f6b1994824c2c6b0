//! C ABI: `cutile_silu_and_mul(x, out, device, stream)`.

use super::{OP, candidates};
use crate::descriptor::{MAX_RANK, Tensor, TileirTensor, read};
use crate::launch::{Value, blocks, blocks_yz, check_device_id, run};
use crate::status::{Result, Status, fail, guard};
use crate::variant::{check_disjoint, check_same_dtype, pick, select};

/// x as the kernel reads it: the (M, 2, H) view. A 2-D (M, 2H) x becomes the view with
/// strides (s0, H * s1, s1) (no copy: the same elements); a 3-D x must already be (M, 2, H).
fn halves_view(x: &Tensor) -> Result<Tensor> {
    match x.rank {
        3 if x.shape[1] == 2 => Ok(*x),
        3 => fail(Status::ShapeMismatch, format!("x {:?}: a 3-D x must be the (M, 2, H) view", x.dims())),
        2 if x.shape[1] % 2 == 0 => {
            let h = x.shape[1] / 2;
            let mut shape = [0i64; MAX_RANK];
            let mut strides = [0i64; MAX_RANK];
            shape[..3].copy_from_slice(&[x.shape[0], 2, h]);
            // An empty x skipped the stride checks: keep the product from overflowing.
            strides[..3].copy_from_slice(&[x.strides[0], h.saturating_mul(x.strides[1]), x.strides[1]]);
            Ok(Tensor { rank: 3, shape, strides, ..*x })
        }
        2 => fail(Status::ShapeMismatch, format!("x {:?}: the last dim 2H must be even", x.dims())),
        r => fail(Status::BadRank, format!("x must have 2 dims (M, 2H) or 3 dims (M, 2, H), got {r}")),
    }
}

/// out = silu(x[:, :H]) * x[:, H:]. x: (M, 2H), or its (M, 2, H) view; out: (M, H); one dtype
/// (f16, bf16, f32); unit last strides, any non-negative other strides, 16-byte aligned bases.
/// out must not overlap x.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_silu_and_mul(
    x: *const TileirTensor,
    out: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, out) = unsafe { (read(x, "x")?, read(out, "out")?) };
        check_device_id(device)?;
        let x = halves_view(&x)?;
        if out.rank != 2 {
            return fail(Status::BadRank, format!("out must have 2 dims (M, H), got {}", out.rank));
        }
        let (m, h) = (x.shape[0], x.shape[2]);
        if out.dims() != [m, h] {
            return fail(
                Status::ShapeMismatch,
                format!("x as (M, 2, H) is {:?}, so out must be [{m}, {h}], got {:?}", x.dims(), out.dims()),
            );
        }
        check_same_dtype(&[&x, &out])?;
        check_disjoint(&out, &x)?;
        let tensors = [&x, &out];
        let v = pick(OP, &["silu_and_mul", "silu_and_mul_fast"], &tensors, || select(candidates(x.dtype), &tensors))?;
        let grid = (blocks(m, v.constant("TILE_M"))?, blocks_yz(h, v.constant("TILE_H"))?, 1);
        run(v, &[Value::Tensor(&x), Value::Tensor(&out)], grid, device, stream)
    })
}
