//! C ABI: `cutile_rms_norm(x, w, out, rstd, eps, device, stream)` and
//! `cutile_rms_norm_bwd(dy, x, w, rstd, dx, dw_partial, device, stream)`.

use super::{BWD_ENTRIES, BWD_ROWS_PER_BLOCK, FWD_ENTRIES, LOOPED_ENTRIES, OP, bwd_candidates, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Status, fail, guard};
use crate::variant::{
    check_disjoint, check_eps, check_in_place, check_rank, check_rows_have_columns, check_same_dtype, pick, select,
};

/// out = x * rsqrt(mean(x^2, last axis) + eps) * w, and rstd[i] = that rsqrt for row i.
/// x, out: (M, N); w: (N,); rstd: (M,) float32; x, w, out share one dtype (f16, bf16, f32).
/// out may be x (in place); w and rstd must not overlap the others. eps: finite, >= 0.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_rms_norm(
    x: *const TileirTensor,
    w: *const TileirTensor,
    out: *const TileirTensor,
    rstd: *const TileirTensor,
    eps: f32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, w, out, rstd) = unsafe { (read(x, "x")?, read(w, "w")?, read(out, "out")?, read(rstd, "rstd")?) };
        check_device_id(device)?;
        check_rank(&[&x, &out], 2)?;
        check_rank(&[&w, &rstd], 1)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        if out.dims() != x.dims() || w.shape[0] != n || rstd.shape[0] != m {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need x (M, N), w (N,), out (M, N), rstd (M,); got x {:?}, w {:?}, out {:?}, rstd {:?}",
                    x.dims(),
                    w.dims(),
                    out.dims(),
                    rstd.dims()
                ),
            );
        }
        check_rows_have_columns(&x, "mean")?;
        check_eps(eps)?;
        check_same_dtype(&[&x, &w, &out])?;
        check_in_place(&out, &x)?;
        check_disjoint(&out, &w)?;
        for other in [&x, &w, &out] {
            check_disjoint(&rstd, other)?;
        }
        let tensors = [&x, &w, &out, &rstd];
        let entries = [&FWD_ENTRIES[..], &LOOPED_ENTRIES[..]].concat();
        let v = pick(OP, &entries, &tensors, || select(&candidates(x.dtype, m, n), &tensors))?;
        let looped = LOOPED_ENTRIES.contains(&v.entry);
        // rms_norm_fwd holds a whole row in one tile: a longer row would be silently truncated.
        if !looped && n > v.constant("TILE_N") {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {n} columns exceed its tile of {}", v.name, v.constant("TILE_N")),
            );
        }
        let rows_per_block = if looped { 1 } else { v.constant("TILE_M") };
        let grid = (blocks(m, rows_per_block)?, 1, 1);
        run(
            v,
            &[Value::Tensor(&x), Value::Tensor(&w), Value::Tensor(&out), Value::Tensor(&rstd), Value::F32(eps)],
            grid,
            device,
            stream,
        )
    })
}

/// Backward of rms_norm for dy = dL/dout: dx (M, N) and dw_partial (ceil(M / 64), N) float32,
/// whose column sums are dL/dw. dy, x, dx: (M, N); w: (N,); rstd: (M,) float32 as the forward
/// wrote it; dy, x, w, dx one dtype (f16, bf16, f32); N <= 1024. Outputs must not overlap
/// the inputs or each other.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_rms_norm_bwd(
    dy: *const TileirTensor,
    x: *const TileirTensor,
    w: *const TileirTensor,
    rstd: *const TileirTensor,
    dx: *const TileirTensor,
    dw_partial: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (dy, x, w, rstd, dx, dw_partial) = unsafe {
            (
                read(dy, "dy")?,
                read(x, "x")?,
                read(w, "w")?,
                read(rstd, "rstd")?,
                read(dx, "dx")?,
                read(dw_partial, "dw_partial")?,
            )
        };
        check_device_id(device)?;
        check_rank(&[&dy, &x, &dx, &dw_partial], 2)?;
        check_rank(&[&w, &rstd], 1)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        let blocks_needed = (m + BWD_ROWS_PER_BLOCK - 1) / BWD_ROWS_PER_BLOCK;
        if dy.dims() != x.dims()
            || dx.dims() != x.dims()
            || w.shape[0] != n
            || rstd.shape[0] != m
            || dw_partial.dims() != [blocks_needed, n]
        {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need dy, x, dx (M, N), w (N,), rstd (M,), dw_partial (ceil(M/{BWD_ROWS_PER_BLOCK}), N); got dy {:?}, \
                     x {:?}, w {:?}, rstd {:?}, dx {:?}, dw_partial {:?}",
                    dy.dims(),
                    x.dims(),
                    w.dims(),
                    rstd.dims(),
                    dx.dims(),
                    dw_partial.dims()
                ),
            );
        }
        check_same_dtype(&[&x, &dy, &w, &dx])?;
        for out in [&dx, &dw_partial] {
            for input in [&dy, &x, &w, &rstd] {
                check_disjoint(out, input)?;
            }
        }
        check_disjoint(&dx, &dw_partial)?;
        let tensors = [&dy, &x, &w, &rstd, &dx, &dw_partial];
        let v = pick(OP, &BWD_ENTRIES, &tensors, || select(bwd_candidates(x.dtype), &tensors))?;
        // The whole row is one tile: a longer row would be silently truncated.
        if n > v.constant("TILE_N") {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {n} columns exceed its tile of {}", v.name, v.constant("TILE_N")),
            );
        }
        if m == 0 || n == 0 {
            return Ok(());
        }
        let rows_per_block = v.constant("TILE_M") * v.constant("ROW_TILES");
        debug_assert_eq!(rows_per_block, BWD_ROWS_PER_BLOCK);
        let grid = (blocks(m, rows_per_block)?, 1, 1);
        let values = [
            Value::Tensor(&dy),
            Value::Tensor(&x),
            Value::Tensor(&w),
            Value::Tensor(&rstd),
            Value::Tensor(&dx),
            Value::Tensor(&dw_partial),
        ];
        run(v, &values, grid, device, stream)
    })
}
