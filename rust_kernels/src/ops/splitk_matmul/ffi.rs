//! C ABI: `cutile_splitk_matmul(a, b, partial, c, device, stream)`, both kernels in one call.

use super::{candidates, OP, PARTIAL_ENTRY, REDUCE_ENTRY};
use crate::descriptor::{read, DType, TileirTensor};
use crate::launch::{blocks, blocks_yz, check_device_id, run, Value};
use crate::status::{fail, guard, Error, Result, Status};
use crate::variant::{check_disjoint, check_rank, check_same_dtype, pick_stage, record_selected, Variant};

/// The dtype's (partial, reduce) pair; `NoVariant` for a dtype split-K has no kernels for.
fn chosen(dtype: DType) -> Result<(&'static Variant, &'static Variant)> {
    candidates(dtype).ok_or_else(|| {
        Error::new(
            Status::UnsupportedDtype,
            format!("a: splitk_matmul takes float16 or bfloat16, got {}", dtype.torch_name()),
        )
    })
}

/// c = a @ b through S f32 partial products: `splitk_partial` writes partial[s] = a[:, K slice s]
/// @ b[K slice s, :] (split s takes K tiles [s * per, min((s + 1) * per, k_tiles)) of 64, per =
/// cdiv(k_tiles, S); an empty split writes zeros), then `splitk_reduce` writes c = sum over s,
/// both launched in that order on `stream`. a (M, K), b (K, N), c (M, N) float16 or bfloat16, one
/// dtype; partial (S, M, N) float32, the caller's scratch (S >= 1 is its extent 0). Unit last
/// strides, 16-byte aligned bases and rows (slab strides too); partial and c must not overlap
/// each other or a, b.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_splitk_matmul(
    a: *const TileirTensor,
    b: *const TileirTensor,
    partial: *const TileirTensor,
    c: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (a, b, partial, c) = unsafe { (read(a, "a")?, read(b, "b")?, read(partial, "partial")?, read(c, "c")?) };
        check_device_id(device)?;
        check_rank(&[&a, &b, &c], 2)?;
        check_rank(&[&partial], 3)?;
        let (m, k, n, splits) = (a.shape[0], a.shape[1], b.shape[1], partial.shape[0]);
        if b.shape[0] != k || c.dims() != [m, n] || partial.shape[1] != m || partial.shape[2] != n {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "a is {:?}, b {:?}, partial {:?}, c {:?}: need (M, K) @ (K, N) into (S, M, N) slabs and (M, N)",
                    a.dims(),
                    b.dims(),
                    partial.dims(),
                    c.dims()
                ),
            );
        }
        for out in [&partial, &c] {
            check_disjoint(out, &a)?;
            check_disjoint(out, &b)?;
        }
        check_disjoint(&c, &partial)?;
        check_same_dtype(&[&a, &b, &c])?;
        if partial.dtype != DType::F32 {
            return fail(
                Status::UnsupportedDtype,
                format!("partial: the slabs are float32, got {}", partial.dtype.torch_name()),
            );
        }
        let (partial_choice, reduce_choice) = chosen(a.dtype)?;
        let p = pick_stage(OP, &[PARTIAL_ENTRY], &[&a, &b, &partial], || Ok(partial_choice))?;
        let r = pick_stage(OP, &[REDUCE_ENTRY], &[&partial, &c], || Ok(reduce_choice))?;
        record_selected(&[p, r]);
        if m == 0 || n == 0 {
            return Ok(());
        }
        if splits == 0 {
            return fail(Status::UnsupportedShape, "partial has S = 0 slabs: split-K needs at least one split");
        }
        if k == 0 {
            return fail(Status::UnsupportedShape, "K = 0: empty inner dimension");
        }
        // Both grids are checked before the first launch: a call either launches both or neither.
        let tiles = blocks(m, p.constant("BM"))? as u64 * blocks(n, p.constant("BN"))? as u64;
        let Ok(tiles) = u32::try_from(tiles) else {
            return fail(Status::UnsupportedShape, format!("{tiles} output tiles exceed the grid limit"));
        };
        let partial_grid = (tiles, blocks_yz(splits, 1)?, 1);
        let reduce_grid = (blocks(m, r.constant("TM"))?, blocks_yz(n, r.constant("TN"))?, 1);
        run(p, &[Value::Tensor(&a), Value::Tensor(&b), Value::Tensor(&partial)], partial_grid, device, stream)?;
        run(r, &[Value::Tensor(&partial), Value::Tensor(&c)], reduce_grid, device, stream)
    })
}
