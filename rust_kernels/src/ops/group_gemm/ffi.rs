//! C ABI: `cutile_group_gemm(a, w, offsets, c, trans_w, device, stream)`.

use super::{ENTRIES, OP, candidates};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{MAX_GRID_YZ, Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_constant, check_disjoint, check_rank, check_same_dtype, pick, select};

/// c[o[g]:o[g+1]] = a[o[g]:o[g+1]] @ op(w[g]) for g < G, op(w[g]) = w[g] (w (G, K, N)) or
/// w[g].T (trans_w = 1, w (G, N, K)). a (T, K), c (T, N), one dtype (bf16; f16 only with
/// trans_w); offsets (G + 1,) int32, contiguous. Unit last strides, leading strides multiples of
/// 8 elements, 16-byte aligned bases, bf16 c's rows too (N a multiple of 8); c must not overlap a,
/// w or offsets.
///
/// The offsets live on the device and are not read here (the library reads no device memory):
/// offsets[0] = 0 <= offsets[g] <= offsets[g + 1] <= offsets[G] <= T is the caller's contract.
/// The sliced kernels the library selects trust it: out-of-range offsets read and write outside
/// a and c. (The gather kernels, run only when forced, read zeros for rows outside [0, T) and
/// never write them.) Rows of c that no group covers are not written.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_group_gemm(
    a: *const TileirTensor,
    w: *const TileirTensor,
    offsets: *const TileirTensor,
    c: *const TileirTensor,
    trans_w: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (a, w, offsets, c) = unsafe { (read(a, "a")?, read(w, "w")?, read(offsets, "offsets")?, read(c, "c")?) };
        check_device_id(device)?;
        if !matches!(trans_w, 0 | 1) {
            return fail(Status::InvalidArgument, format!("trans_w must be 0 or 1, got {trans_w}"));
        }
        check_rank(&[&a, &c], 2)?;
        check_rank(&[&w], 3)?;
        check_rank(&[&offsets], 1)?;
        let (t, k, g) = (a.shape[0], a.shape[1], w.shape[0]);
        let (w_k, n) = if trans_w == 1 { (w.shape[2], w.shape[1]) } else { (w.shape[1], w.shape[2]) };
        if w_k != k || c.dims() != [t, n] || offsets.shape[0] != g + 1 {
            let layout = if trans_w == 1 { "(G, N, K)" } else { "(G, K, N)" };
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need a (T, K), w {layout}, offsets (G + 1,), c (T, N); got a {:?}, w {:?}, offsets {:?}, c {:?}",
                    a.dims(),
                    w.dims(),
                    offsets.dims(),
                    c.dims()
                ),
            );
        }
        if offsets.dtype != DType::I32 {
            return fail(
                Status::UnsupportedDtype,
                format!("offsets: group offsets must be int32, got {}", offsets.dtype.torch_name()),
            );
        }
        check_same_dtype(&[&a, &w, &c])?;
        check_disjoint(&c, &a)?;
        check_disjoint(&c, &w)?;
        check_disjoint(&c, &offsets)?;
        let tensors = [&a, &w, &offsets, &c];
        let variant = pick(OP, &ENTRIES, &tensors, || {
            let found = candidates(a.dtype, trans_w == 1);
            if found.is_empty() {
                return Err(Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt group_gemm variant for {} with {} weights",
                        a.dtype.torch_name(),
                        if trans_w == 1 { "(G, N, K)" } else { "(G, K, N)" }
                    ),
                ));
            }
            select(found, &tensors)
        })?;
        check_constant(variant, "TRANS_W", trans_w as i64)?;
        // An upper bound of row tiles, cdiv(T, BM) + G (each group adds at most one ragged
        // tile); the blocks past the groups' tiles find no group and return.
        let row_tiles = blocks(t, variant.constant("BM"))? as i64 + g;
        if row_tiles > MAX_GRID_YZ as i64 {
            return fail(
                Status::UnsupportedShape,
                format!("{row_tiles} row tiles (cdiv(T, BM) + G) exceed the driver's grid.y limit of {MAX_GRID_YZ}"),
            );
        }
        if c.numel() == 0 {
            return Ok(());
        }
        let grid = (blocks(n, variant.constant("BN"))?, row_tiles as u32, 1);
        run(
            variant,
            &[Value::Tensor(&a), Value::Tensor(&w), Value::Tensor(&offsets), Value::Tensor(&c)],
            grid,
            device,
            stream,
        )
    })
}
