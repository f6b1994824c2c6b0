//! C ABI: `cutile_cross_entropy(logits, target, loss, lse, device, stream)`.

use super::{ENTRIES, IGNORE_INDEX, OP, candidates};
use crate::descriptor::{TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, pick, select};

/// lse[r] = logsumexp(logits[r, :]) and loss[r] = lse[r] - logits[r, target[r]], or 0 where
/// target[r] == -100 (ignored). logits: (M, V) f16, bf16 or f32, unit column stride, any
/// non-negative row stride; target: (M,) int64; loss, lse: (M,) float32; all unit-stride
/// (logits: columns) and 16-byte aligned; V >= 1 when M >= 1. loss and lse must not overlap
/// each other or the inputs. Targets are not range-checked, as in the reference kernels (torch
/// would raise): one outside [0, V) other than -100 gets, from the untuned variants, loss +inf
/// when it falls in the -inf padding of the last TILE_V tile, else matches no column (loss =
/// lse[r]), and no memory is read with it; from the `_fast` variants loss +inf (they read the
/// row's column 0 instead).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_cross_entropy(
    logits: *const TileirTensor,
    target: *const TileirTensor,
    loss: *const TileirTensor,
    lse: *const TileirTensor,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (logits, target, loss, lse) =
            unsafe { (read(logits, "logits")?, read(target, "target")?, read(loss, "loss")?, read(lse, "lse")?) };
        check_device_id(device)?;
        check_rank(&[&logits], 2)?;
        check_rank(&[&target, &loss, &lse], 1)?;
        let (m, v) = (logits.shape[0], logits.shape[1]);
        if target.shape[0] != m || loss.shape[0] != m || lse.shape[0] != m {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need logits (M, V), target, loss and lse (M,); got logits {:?}, target {:?}, loss {:?}, lse {:?}",
                    logits.dims(),
                    target.dims(),
                    loss.dims(),
                    lse.dims()
                ),
            );
        }
        if m > 0 && v == 0 {
            return fail(Status::UnsupportedShape, "logits has rows of zero columns: their logsumexp is undefined");
        }
        for out in [&loss, &lse] {
            check_disjoint(out, &logits)?;
            check_disjoint(out, &target)?;
        }
        check_disjoint(&loss, &lse)?;
        let tensors = [&logits, &target, &loss, &lse];
        let variant = pick(OP, &ENTRIES, &tensors, || {
            let c = candidates(logits.dtype, m, v);
            if c.is_empty() {
                return Err(Error::new(
                    Status::UnsupportedDtype,
                    format!("logits: no cross_entropy variant for {}", logits.dtype.torch_name()),
                ));
            }
            select(&c, &tensors)
        })?;
        debug_assert_eq!(variant.constant("IGNORE_INDEX"), IGNORE_INDEX);
        // The column indices of the last tile are computed in i32: they must not wrap.
        let tile_v = variant.constant("TILE_V");
        if v > i32::MAX as i64 - tile_v {
            return fail(
                Status::UnsupportedShape,
                format!("{}: rows of {v} columns overflow its i32 column index", variant.name),
            );
        }
        let values = [Value::Tensor(&logits), Value::Tensor(&target), Value::Tensor(&loss), Value::Tensor(&lse)];
        // One row per block.
        run(variant, &values, (blocks(m, 1)?, 1, 1), device, stream)
    })
}
