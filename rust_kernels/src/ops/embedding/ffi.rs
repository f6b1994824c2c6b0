//! C ABI: `cutile_embedding(ids, weight, out, device, stream)`.

use super::{GATHER, OP, ROWS, candidates, tokens_per_block};
use crate::descriptor::{DType, IndexWidth, TileirTensor, read, read_indexed};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, check_same_dtype, pick, select};

/// out[t, :] = weight[ids[t], :] (torch.nn.functional.embedding), a bit-exact row copy.
/// ids: (T,) int32 or int64, contiguous; weight: (V, H), out: (T, H), one dtype (f16, bf16,
/// f32), unit column stride, row strides multiples of 16 bytes (8 elements, f32: 4); all
/// 16-byte aligned. out must not overlap ids or weight. Prebuilt: f16 and f32 tables with int32
/// ids, bf16 with int32 or int64 ids, f16 with int64 ids (other combinations are NO_VARIANT);
/// one token per block at every T (the gather kernels, slower at every measured size, only when
/// forced); f16 tables with int64 ids take the i64-indexed gather kernel at every T,
/// the only one whose table may hold more than 2^31 - 1 elements (its row stride may pass
/// INT32_MAX too; out stays i32-indexed).
///
/// Ids are not range-checked (the library never reads device memory before the launch), as in
/// the reference kernels, and must lie in [0, V) as torch requires: an id >= V reads zeros in
/// the gather kernel (the table view's zero padding); in the rows kernel an id outside [0, V)
/// loads a tile wholly outside the table, which is undefined (it may read other memory), as is
/// a negative id in the gather kernel. int64 ids are narrowed to int32.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_embedding(
    ids: *const TileirTensor,
    weight: *const TileirTensor,
    out: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        // The table may pass 2^31 - 1 elements: the `_idx64` variant indexes it in i64, the
        // others' TensorSpec rejects it (i32 offsets).
        let (ids, weight, out) =
            unsafe { (read(ids, "ids")?, read_indexed(weight, "weight", IndexWidth::I64)?, read(out, "out")?) };
        check_device_id(device)?;
        check_rank(&[&ids], 1)?;
        check_rank(&[&weight, &out], 2)?;
        let (t, v, h) = (ids.shape[0], weight.shape[0], weight.shape[1]);
        if out.dims() != [t, h] {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need ids (T,), weight (V, H), out (T, H); got ids {:?}, weight {:?}, out {:?}",
                    ids.dims(),
                    weight.dims(),
                    out.dims()
                ),
            );
        }
        if !matches!(ids.dtype, DType::I32 | DType::I64) {
            return fail(
                Status::UnsupportedDtype,
                format!("ids: token ids must be int32 or int64, got {}", ids.dtype.torch_name()),
            );
        }
        check_same_dtype(&[&weight, &out])?;
        if !matches!(weight.dtype, DType::F16 | DType::BF16 | DType::F32) {
            return fail(
                Status::UnsupportedDtype,
                format!("weight: no embedding variant for a {} table", weight.dtype.torch_name()),
            );
        }
        if t > 0 && h > 0 && v == 0 {
            return fail(Status::UnsupportedShape, "weight has no rows: no token id is valid");
        }
        check_disjoint(&out, &ids)?;
        check_disjoint(&out, &weight)?;
        let tensors = [&ids, &weight, &out];
        let variant = pick(OP, &[ROWS, GATHER], &tensors, || {
            let c = candidates(weight.dtype, ids.dtype, h);
            if c.is_empty() {
                return Err(Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt embedding variant for a {} table with {} ids",
                        weight.dtype.torch_name(),
                        ids.dtype.torch_name()
                    ),
                ));
            }
            select(c, &tensors)
        })?;
        if out.numel() == 0 {
            return Ok(());
        }
        let grid = (blocks(t, tokens_per_block(variant))?, 1, 1);
        run(variant, &[Value::Tensor(&ids), Value::Tensor(&weight), Value::Tensor(&out)], grid, device, stream)
    })
}
