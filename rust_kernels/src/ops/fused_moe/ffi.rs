//! C ABI: `cutile_fused_moe(hidden, w, sorted_token_ids, expert_ids, num_tokens_post_padded,
//! topk_weights, out, mul_routed_weight, block_m, device, stream)`.

use super::{ENTRY, OP, candidates};
use crate::descriptor::{DType, Tensor, TileirTensor, read};
use crate::launch::{Value, blocks, check_device_id, run};
use crate::status::{Error, Result, Status, fail, guard};
use crate::variant::{check_constant, check_disjoint, check_rank, check_same_dtype, pick, select};

fn check_dtype(t: &Tensor, want: DType, what: &str) -> Result<()> {
    if t.dtype != want {
        return fail(
            Status::UnsupportedDtype,
            format!("{}: {what} must be {}, got {}", t.name, want.torch_name(), t.dtype.torch_name()),
        );
    }
    Ok(())
}

/// out[id] = hidden[id // TOPK] @ w[e].T (* topk_weights[id] when mul_routed_weight) for every
/// routed row id = token * TOPK + k, where e is the expert of the block_m-row block of
/// sorted_token_ids holding id: the layout moe_align_block_size writes (each expert's ids padded
/// to a multiple of block_m with the sentinel T * TOPK, expert_ids one entry per block,
/// num_tokens_post_padded the padded total). hidden (T, K), w (E, N, K), out (T * TOPK, N), one
/// dtype (bf16 with block_m 64 and TOPK 2, f16 with block_m 16, TOPK 8 and the scale); unit last
/// strides, leading strides multiples of 8 elements, 16-byte bases. sorted_token_ids (EM,),
/// expert_ids (cdiv(EM, block_m),), num_tokens_post_padded (1,) int32 and topk_weights
/// (T * TOPK,) float32, contiguous. out must not overlap any input.
///
/// One kernel, launched on `stream`; the routing arrays are inputs (built by the caller, e.g.
/// the moe_align_block_size port): the call allocates nothing. Their values are not checked
/// (the library reads no device memory): ids >= T * TOPK are padding and never written, rows of
/// an expert id outside [0, E) read zero weights, and blocks past num_tokens_post_padded do
/// nothing. Rows of out that no id names are not written.
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_fused_moe(
    hidden: *const TileirTensor,
    w: *const TileirTensor,
    sorted_token_ids: *const TileirTensor,
    expert_ids: *const TileirTensor,
    num_tokens_post_padded: *const TileirTensor,
    topk_weights: *const TileirTensor,
    out: *const TileirTensor,
    mul_routed_weight: i32,
    block_m: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (hidden, w, ids, experts, total, weights, out) = unsafe {
            (
                read(hidden, "hidden")?,
                read(w, "w")?,
                read(sorted_token_ids, "sorted_token_ids")?,
                read(expert_ids, "expert_ids")?,
                read(num_tokens_post_padded, "num_tokens_post_padded")?,
                read(topk_weights, "topk_weights")?,
                read(out, "out")?,
            )
        };
        check_device_id(device)?;
        if !matches!(mul_routed_weight, 0 | 1) {
            return fail(Status::InvalidArgument, format!("mul_routed_weight must be 0 or 1, got {mul_routed_weight}"));
        }
        if block_m <= 0 {
            return fail(Status::InvalidArgument, format!("block_m must be positive, got {block_m}"));
        }
        check_rank(&[&hidden, &out], 2)?;
        check_rank(&[&w], 3)?;
        check_rank(&[&ids, &experts, &total, &weights], 1)?;
        let (t, k, n) = (hidden.shape[0], hidden.shape[1], w.shape[1]);
        let em = ids.shape[0];
        let blocks_m = (em + block_m as i64 - 1) / block_m as i64;
        if w.shape[2] != k
            || out.shape[1] != n
            || weights.shape[0] != out.shape[0]
            || total.shape[0] != 1
            || experts.shape[0] != blocks_m
        {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need hidden (T, K), w (E, N, K), sorted_token_ids (EM,), expert_ids (cdiv(EM, block_m),), \
                     num_tokens_post_padded (1,), topk_weights (T * TOPK,), out (T * TOPK, N); got hidden {:?}, \
                     w {:?}, sorted_token_ids {:?}, expert_ids {:?}, num_tokens_post_padded {:?}, topk_weights {:?}, \
                     out {:?} (block_m {block_m})",
                    hidden.dims(),
                    w.dims(),
                    ids.dims(),
                    experts.dims(),
                    total.dims(),
                    weights.dims(),
                    out.dims()
                ),
            );
        }
        check_dtype(&ids, DType::I32, "routing ids")?;
        check_dtype(&experts, DType::I32, "expert ids")?;
        check_dtype(&total, DType::I32, "the padded total")?;
        check_dtype(&weights, DType::F32, "routing weights")?;
        check_same_dtype(&[&hidden, &w, &out])?;
        for input in [&hidden, &w, &ids, &experts, &total, &weights] {
            check_disjoint(&out, input)?;
        }
        // out has T * TOPK rows; with no tokens TOPK is open and the variant's own is taken.
        let topk = if t > 0 {
            if out.shape[0] % t != 0 {
                return fail(
                    Status::ShapeMismatch,
                    format!("out: need T * TOPK rows for hidden's T = {t}, got {}", out.shape[0]),
                );
            }
            Some(out.shape[0] / t)
        } else {
            None
        };
        let tensors = [&hidden, &w, &ids, &experts, &total, &weights, &out];
        let variant = pick(OP, &[ENTRY], &tensors, || {
            let found = candidates(hidden.dtype, block_m as i64, topk, mul_routed_weight == 1);
            if found.is_empty() {
                return Err(Error::new(
                    Status::NoVariant,
                    format!(
                        "no prebuilt fused_moe variant for {} with block_m {block_m}, TOPK {} and mul_routed_weight \
                         {mul_routed_weight}",
                        hidden.dtype.torch_name(),
                        topk.map_or("any".to_string(), |k| k.to_string())
                    ),
                ));
            }
            select(found, &tensors)
        })?;
        check_constant(variant, "BM", block_m as i64)?;
        check_constant(variant, "MUL_ROUTED_WEIGHT", mul_routed_weight as i64)?;
        let topk = variant.constant("TOPK");
        if out.shape[0] != t * topk {
            // a forced variant of another TOPK
            return fail(
                Status::ShapeMismatch,
                format!(
                    "out: {} has TOPK = {topk}: need T * TOPK = {} rows, got {}",
                    variant.name,
                    t * topk,
                    out.shape[0]
                ),
            );
        }
        if out.numel() == 0 || blocks_m == 0 {
            return Ok(());
        }
        let grid = (
            blocks(n, variant.constant("BN"))?.checked_mul(blocks_m as u32).ok_or_else(|| {
                Error::new(Status::UnsupportedShape, "cdiv(EM, block_m) * cdiv(N, BN) blocks exceed the grid limit")
            })?,
            1,
            1,
        );
        let values = [&hidden, &w, &ids, &experts, &total, &weights, &out].map(Value::Tensor);
        run(variant, &values, grid, device, stream)
    })
}
