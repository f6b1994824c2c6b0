//! C ABI: `cutile_moe_align_block_size(topk_ids, expert_counts, expert_offsets, expert_ids,
//! num_tokens_post_padded, sorted_token_ids, block_m, device, stream)`.

use super::{HISTOGRAM, OP, SORT, choose};
use crate::descriptor::{DType, TileirTensor, read};
use crate::launch::{Value, check_device_id, run};
use crate::status::{Error, Status, fail, guard};
use crate::variant::{check_disjoint, check_rank, pick_stage, record_selected};

/// vLLM's moe_align_block_size for a grouped expert GEMM with `block_m`-row tiles, in two
/// single-block kernels launched in order on `stream`: moe_align_histogram writes the per-expert
/// counts expert_counts (E,), the padded segment starts expert_offsets (E + 1,), the expert of
/// every block expert_ids (NB,; -1 past the padded total) and num_tokens_post_padded (1,);
/// moe_align_sort then writes sorted_token_ids (EM,): the flat ids of topk_ids (N,) grouped by
/// expert in ascending order, each segment padded to a multiple of block_m with the sentinel N
/// (slots past the total too). All int32, contiguous, 4-byte aligned; EM >= N + E·(block_m - 1)
/// and NB >= ceil(EM_min / block_m) for EM_min = N + E·(block_m - 1), so every id and block has
/// its slot. No array overlaps another. Prebuilt: block_m 64 with E <= 127, block_m 16 with
/// E <= 255 (else NO_VARIANT).
///
/// topk_ids is device data and not checked here: each id must be in [0, E), as for the
/// reference kernels (an id outside matches no expert: it is counted nowhere and its slot is
/// not written).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_moe_align_block_size(
    topk_ids: *const TileirTensor,
    expert_counts: *const TileirTensor,
    expert_offsets: *const TileirTensor,
    expert_ids: *const TileirTensor,
    num_tokens_post_padded: *const TileirTensor,
    sorted_token_ids: *const TileirTensor,
    block_m: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (topk_ids, counts, offsets, expert_ids, total, sorted) = unsafe {
            (
                read(topk_ids, "topk_ids")?,
                read(expert_counts, "expert_counts")?,
                read(expert_offsets, "expert_offsets")?,
                read(expert_ids, "expert_ids")?,
                read(num_tokens_post_padded, "num_tokens_post_padded")?,
                read(sorted_token_ids, "sorted_token_ids")?,
            )
        };
        check_device_id(device)?;
        let all = [&topk_ids, &counts, &offsets, &expert_ids, &total, &sorted];
        check_rank(&all, 1)?;
        for t in all {
            if t.dtype != DType::I32 {
                return fail(
                    Status::UnsupportedDtype,
                    format!("{}: moe_align_block_size takes int32 arrays, got {}", t.name, t.dtype.torch_name()),
                );
            }
        }
        if block_m < 1 {
            return fail(Status::InvalidArgument, format!("block_m = {block_m} must be >= 1"));
        }
        let (n, e, nb, em, bm) =
            (topk_ids.shape[0], counts.shape[0], expert_ids.shape[0], sorted.shape[0], block_m as i64);
        if e == 0 {
            return fail(Status::UnsupportedShape, "expert_counts is empty: with no expert no id is valid");
        }
        let min_slots = n + e * (bm - 1);
        let min_blocks = (min_slots + bm - 1) / bm;
        if offsets.shape[0] != e + 1 || total.shape[0] != 1 || em < min_slots || nb < min_blocks {
            return fail(
                Status::ShapeMismatch,
                format!(
                    "need topk_ids (N,), expert_counts (E,), expert_offsets (E + 1,), num_tokens_post_padded (1,), \
                     sorted_token_ids (EM,) with EM >= N + E * (block_m - 1) = {min_slots}, expert_ids (NB,) with \
                     NB >= {min_blocks}; got topk_ids {:?}, expert_counts {:?}, expert_offsets {:?}, expert_ids {:?}, \
                     num_tokens_post_padded {:?}, sorted_token_ids {:?}",
                    topk_ids.dims(),
                    counts.dims(),
                    offsets.dims(),
                    expert_ids.dims(),
                    total.dims(),
                    sorted.dims()
                ),
            );
        }
        // One block reads and writes each array whole: nothing may overlap.
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                check_disjoint(a, b)?;
            }
        }
        let no_variant = || {
            Error::new(
                Status::NoVariant,
                format!("no prebuilt moe_align_block_size for block_m = {block_m} with E = {e} experts"),
            )
        };
        let histogram_tensors = [&topk_ids, &counts, &offsets, &expert_ids, &total];
        let histogram =
            pick_stage(OP, HISTOGRAM, &histogram_tensors, || choose(bm, e).map(|p| p.0).ok_or_else(no_variant))?;
        let sort_tensors = [&topk_ids, &counts, &offsets, &sorted];
        let sort = pick_stage(OP, SORT, &sort_tensors, || choose(bm, e).map(|p| p.1).ok_or_else(no_variant))?;
        // A forced variant must compute what was asked: its block size and expert lanes.
        if histogram.constant("BLOCK_M") != bm || e >= histogram.constant("E_PAD") || e >= sort.constant("E_PAD") {
            return fail(
                Status::InvalidArgument,
                format!(
                    "variants {} and {} are for block_m = {} and E < {}, E < {}; the call has block_m = {bm}, E = {e}",
                    histogram.name,
                    sort.name,
                    histogram.constant("BLOCK_M"),
                    histogram.constant("E_PAD"),
                    sort.constant("E_PAD")
                ),
            );
        }
        record_selected(&[histogram, sort]);
        run(histogram, &histogram_tensors.map(Value::Tensor), (1, 1, 1), device, stream)?;
        run(sort, &sort_tensors.map(Value::Tensor), (1, 1, 1), device, stream)
    })
}
