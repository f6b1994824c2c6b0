//! C ABI: `cutile_layer_norm(x, w, b, out, mean, rstd, eps, device, stream)` and
//! `cutile_layer_norm_bwd(dy, x, w, mean, rstd, dx, dw_partial, db_partial, device, stream)`.

use super::{BWD_ROWS_PER_BLOCK, FWD_ENTRIES, OP, bwd_candidates, fwd_candidates};
use crate::descriptor::{DType, Tensor, TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Result, Status, fail, guard};
use crate::variant::{
    Variant, check_disjoint, check_eps, check_in_place, check_rank, check_rows_have_columns, check_same_dtype, pick, select,
};

/// The statistics and partial sums are float32 whatever x's dtype.
fn check_f32(tensors: &[&Tensor]) -> Result<()> {
    for t in tensors {
        if t.dtype != DType::F32 {
            return fail(Status::UnsupportedDtype, format!("{} must be float32, got {}", t.name, t.dtype.torch_name()));
        }
    }
    Ok(())
}

/// The variant among `candidates` (empty: no variant for this dtype and row length), and a row
/// no longer than its tile (a forced variant included): a longer row would be silently truncated.
fn pick_row_variant(
    entries: &[&str],
    tensors: &[&Tensor],
    candidates: &'static [&'static Variant],
    x: &Tensor,
) -> Result<&'static Variant> {
    let n = x.shape[1];
    let entry = entries[0];
    let v = pick(OP, entries, tensors, || {
        if candidates.is_empty() {
            let status = if matches!(x.dtype, DType::F16 | DType::BF16 | DType::F32) {
                Status::UnsupportedShape
            } else {
                Status::UnsupportedDtype
            };
            return Err(Error::new(status, format!("x: no {entry} variant for {} rows of {n} columns", x.dtype.torch_name())));
        }
        select(candidates, tensors)
    })?;
    if n > v.constant("TILE_N") {
        return fail(Status::UnsupportedShape, format!("{}: rows of {n} columns exceed its tile of {}", v.name, v.constant("TILE_N")));
    }
    Ok(v)
}

/// out = (x - mean) * rstd * w + b over the last axis, mean[i] and rstd[i] = 1 / sqrt(var + eps)
/// (biased variance) of row i. x, out: (M, N) with N <= 8192; w, b: (N,); mean, rstd: (M,)
/// float32; x, w, b, out one dtype (f16, bf16, f32). Unit last strides, 16-byte aligned bases.
/// out may be x (in place); nothing else may overlap. eps: finite, >= 0.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_layer_norm(
    x: *const TileirTensor,
    w: *const TileirTensor,
    b: *const TileirTensor,
    out: *const TileirTensor,
    mean: *const TileirTensor,
    rstd: *const TileirTensor,
    eps: f32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (x, w, b, out, mean, rstd) = unsafe {
            (read(x, "x")?, read(w, "w")?, read(b, "b")?, read(out, "out")?, read(mean, "mean")?, read(rstd, "rstd")?)
        };
        check_device_id(device)?;
        check_rank(&[&x, &out], 2)?;
        check_rank(&[&w, &b, &mean, &rstd], 1)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        if out.dims() != x.dims() || w.shape[0] != n || b.shape[0] != n || mean.shape[0] != m || rstd.shape[0] != m {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need x (M, N), w (N,), b (N,), out (M, N), mean (M,), rstd (M,); got x {:?}, w {:?}, b {:?}, out {:?}, \
                     mean {:?}, rstd {:?}",
                    x.dims(),
                    w.dims(),
                    b.dims(),
                    out.dims(),
                    mean.dims(),
                    rstd.dims()
                ),
            );
        }
        check_rows_have_columns(&x, "mean")?;
        check_eps(eps)?;
        check_same_dtype(&[&x, &w, &b, &out])?;
        check_f32(&[&mean, &rstd])?;
        // Each block reads only the rows it writes, so out may be exactly x; w and b are read by
        // every block, mean and rstd written by each.
        check_in_place(&out, &x)?;
        for written in [&out, &mean, &rstd] {
            for read_only in [&w, &b] {
                check_disjoint(written, read_only)?;
            }
        }
        for stat in [&mean, &rstd] {
            check_disjoint(stat, &x)?;
            check_disjoint(stat, &out)?;
        }
        check_disjoint(&rstd, &mean)?;
        let tensors = [&x, &w, &b, &out, &mean, &rstd];
        let v = pick_row_variant(&FWD_ENTRIES, &tensors, fwd_candidates(x.dtype, m, n), &x)?;
        let grid = (blocks(m, v.constant("TILE_M"))?, 1, 1);
        let values = [
            Value::Tensor(&x),
            Value::Tensor(&w),
            Value::Tensor(&b),
            Value::Tensor(&out),
            Value::Tensor(&mean),
            Value::Tensor(&rstd),
            Value::F32(eps),
        ];
        run(v, &values, grid, device, stream)
    })
}

/// Backward of layer_norm for dy = dL/dout, one launch: dx (M, N), and dw_partial, db_partial
/// (ceil(M / 64), N) float32 whose column sums are dL/dw and dL/db (the caller sums them; the
/// call allocates nothing). dy, x, dx: (M, N) with N <= 1024; w: (N,); mean, rstd: (M,) float32
/// as the forward wrote them; dy, x, w, dx one dtype (f16, bf16, f32). Unit last strides,
/// 16-byte aligned bases. No output may overlap an input or another output.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_layer_norm_bwd(
    dy: *const TileirTensor,
    x: *const TileirTensor,
    w: *const TileirTensor,
    mean: *const TileirTensor,
    rstd: *const TileirTensor,
    dx: *const TileirTensor,
    dw_partial: *const TileirTensor,
    db_partial: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (dy, x, w, mean, rstd, dx, dw_partial, db_partial) = unsafe {
            (
                read(dy, "dy")?,
                read(x, "x")?,
                read(w, "w")?,
                read(mean, "mean")?,
                read(rstd, "rstd")?,
                read(dx, "dx")?,
                read(dw_partial, "dw_partial")?,
                read(db_partial, "db_partial")?,
            )
        };
        check_device_id(device)?;
        check_rank(&[&dy, &x, &dx, &dw_partial, &db_partial], 2)?;
        check_rank(&[&w, &mean, &rstd], 1)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        let partial_rows = (m + BWD_ROWS_PER_BLOCK - 1) / BWD_ROWS_PER_BLOCK;
        if dy.dims() != x.dims()
            || dx.dims() != x.dims()
            || w.shape[0] != n
            || mean.shape[0] != m
            || rstd.shape[0] != m
            || dw_partial.dims() != [partial_rows, n]
            || db_partial.dims() != [partial_rows, n]
        {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need dy, x, dx (M, N), w (N,), mean, rstd (M,), dw_partial, db_partial (ceil(M/{BWD_ROWS_PER_BLOCK}), N); \
                     got dy {:?}, x {:?}, w {:?}, mean {:?}, rstd {:?}, dx {:?}, dw_partial {:?}, db_partial {:?}",
                    dy.dims(),
                    x.dims(),
                    w.dims(),
                    mean.dims(),
                    rstd.dims(),
                    dx.dims(),
                    dw_partial.dims(),
                    db_partial.dims()
                ),
            );
        }
        check_rows_have_columns(&x, "mean")?;
        check_same_dtype(&[&x, &dy, &w, &dx])?;
        check_f32(&[&mean, &rstd, &dw_partial, &db_partial])?;
        let outputs = [&dx, &dw_partial, &db_partial];
        for (i, out) in outputs.iter().enumerate() {
            for input in [&dy, &x, &w, &mean, &rstd] {
                check_disjoint(out, input)?;
            }
            for other in &outputs[i + 1..] {
                check_disjoint(out, other)?;
            }
        }
        let tensors = [&dy, &x, &w, &mean, &rstd, &dx, &dw_partial, &db_partial];
        let v = pick_row_variant(&["layer_norm_bwd"], &tensors, bwd_candidates(x.dtype), &x)?;
        debug_assert_eq!(v.constant("TILE_M") * v.constant("ROW_TILES"), BWD_ROWS_PER_BLOCK);
        let grid = (blocks(m, BWD_ROWS_PER_BLOCK)?, 1, 1);
        let values = tensors.map(Value::Tensor);
        run(v, &values, grid, device, stream)
    })
}
