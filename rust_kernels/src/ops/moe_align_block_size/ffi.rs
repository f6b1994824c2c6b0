//! C ABI: `cutile_moe_align_block_size(topk_ids, expert_counts, expert_offsets, expert_ids,
//! num_tokens_post_padded, sorted_token_ids, block_m, device, stream)` (two single-block
//! kernels) and `cutile_moe_align_block_size_tiled(..., tile_counts, block_m, device, stream)`
//! (the parallel pair, through the caller's scratch).

use super::{choose, choose_tiled, COUNT_SUB, HISTOGRAM, OP, PLACE_SUB, SORT};
use crate::descriptor::{read, DType, Tensor, TileirTensor, MAX_RANK};
use crate::launch::{check_device_id, run, Value};
use crate::status::{fail, guard, Error, Result, Status};
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
        check_arrays(&all, block_m)?;
        let no_variant = || {
            Error::new(
                Status::NoVariant,
                format!(
                    "no prebuilt moe_align_block_size for block_m = {block_m} with E = {} experts",
                    counts.shape[0]
                ),
            )
        };
        let histogram_tensors = [&topk_ids, &counts, &offsets, &expert_ids, &total];
        let (bm, e) = (block_m as i64, counts.shape[0]);
        let histogram =
            pick_stage(OP, &[HISTOGRAM], &histogram_tensors, || choose(bm, e).map(|p| p.0).ok_or_else(no_variant))?;
        let sort_tensors = [&topk_ids, &counts, &offsets, &sorted];
        let sort = pick_stage(OP, &[SORT], &sort_tensors, || choose(bm, e).map(|p| p.1).ok_or_else(no_variant))?;
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

/// The checks both entries make on the six arrays (in the order of the C signature) and block_m.
fn check_arrays(all: &[&Tensor; 6], block_m: i32) -> Result<()> {
    let [topk_ids, counts, offsets, expert_ids, total, sorted] = *all;
    check_rank(all, 1)?;
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
    let (n, e, nb, em, bm) = (topk_ids.shape[0], counts.shape[0], expert_ids.shape[0], sorted.shape[0], block_m as i64);
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
    Ok(())
}

/// The (T, E) rows the count and place kernels read from the caller's scratch: a 1-D contiguous
/// int32 array of at least T * E elements (its first T * E), or a 2-D (T', E) one with T' >= T
/// and rows of E contiguous elements (its first T rows).
fn scratch_rows(scratch: &Tensor, tiles: i64, e: i64) -> Result<Tensor> {
    let need = tiles * e;
    let wrong = |status, why: String| {
        fail(
            status,
            format!(
                "tile_counts: an int32 scratch of (ceil(N / {TILE_IDS}), E) = ({tiles}, {e}) contiguous elements, or 1-D \
                 of at least {need}; got {} {:?} with strides {:?}: {why}",
                scratch.dtype.torch_name(),
                scratch.dims(),
                scratch.stride_slice()
            ),
        )
    };
    if scratch.dtype != DType::I32 {
        return wrong(Status::UnsupportedDtype, "not int32".into());
    }
    let contiguous = |d: usize, stride: i64| scratch.shape[d] <= 1 || scratch.strides[d] == stride;
    match scratch.rank {
        1 if scratch.shape[0] < need => wrong(Status::ShapeMismatch, "too short".into()),
        1 if !contiguous(0, 1) => wrong(Status::InvalidArgument, "not contiguous".into()),
        2 if scratch.shape[1] != e || scratch.shape[0] < tiles => {
            wrong(Status::ShapeMismatch, "too few rows or not E columns".into())
        }
        2 if !(contiguous(1, 1) && contiguous(0, e)) => wrong(Status::InvalidArgument, "rows not contiguous".into()),
        1 | 2 => {
            let mut shape = [0i64; MAX_RANK];
            let mut strides = [0i64; MAX_RANK];
            shape[..2].copy_from_slice(&[tiles, e]);
            strides[..2].copy_from_slice(&[e, 1]);
            Ok(Tensor { rank: 2, shape, strides, ..*scratch })
        }
        r => wrong(Status::BadRank, format!("rank {r}")),
    }
}

/// Ids per block of the parallel pair (every built count/place variant's TILE): tile_counts needs
/// ceil(N / TILE_IDS) * E elements.
const TILE_IDS: i64 = 256;

/// The same alignment as `cutile_moe_align_block_size`, by the parallel pair: moe_align_count_sub
/// writes each 256-id tile's per-expert counts into the caller's int32 scratch tile_counts
/// ((ceil(N / 256), E) or more rows, contiguous; or 1-D of at least ceil(N / 256) * E elements),
/// then moe_align_place_sub (one block per tile too) writes every output. Both launched in order on
/// `stream`; outputs and ids as for `cutile_moe_align_block_size`, and tile_counts overlaps no
/// other array. Prebuilt: block_m 64 with E <= 127, block_m 16 with E <= 255 (else NO_VARIANT).
///
/// # Safety
/// Each descriptor pointer is null or points to a readable descriptor; `stream` is a CUstream
/// of `device` or 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cutile_moe_align_block_size_tiled(
    topk_ids: *const TileirTensor,
    expert_counts: *const TileirTensor,
    expert_offsets: *const TileirTensor,
    expert_ids: *const TileirTensor,
    num_tokens_post_padded: *const TileirTensor,
    sorted_token_ids: *const TileirTensor,
    tile_counts: *const TileirTensor,
    block_m: i32,
    device: i32,
    stream: u64,
) -> i32 {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let (topk_ids, counts, offsets, expert_ids, total, sorted, scratch) = unsafe {
            (
                read(topk_ids, "topk_ids")?,
                read(expert_counts, "expert_counts")?,
                read(expert_offsets, "expert_offsets")?,
                read(expert_ids, "expert_ids")?,
                read(num_tokens_post_padded, "num_tokens_post_padded")?,
                read(sorted_token_ids, "sorted_token_ids")?,
                read(tile_counts, "tile_counts")?,
            )
        };
        check_device_id(device)?;
        let all = [&topk_ids, &counts, &offsets, &expert_ids, &total, &sorted];
        check_arrays(&all, block_m)?;
        let (n, e, bm) = (topk_ids.shape[0], counts.shape[0], block_m as i64);
        let tiles = (n + TILE_IDS - 1) / TILE_IDS;
        let rows = scratch_rows(&scratch, tiles, e)?;
        for a in all {
            check_disjoint(&rows, a)?;
        }
        let no_variant = || {
            Error::new(
                Status::NoVariant,
                format!("no prebuilt moe_align_block_size for block_m = {block_m} with E = {e} experts"),
            )
        };
        let count_tensors = [&topk_ids, &rows];
        let count =
            pick_stage(OP, &[COUNT_SUB], &count_tensors, || choose_tiled(bm, e).map(|p| p.0).ok_or_else(no_variant))?;
        let place_tensors = [&topk_ids, &rows, &counts, &offsets, &expert_ids, &total, &sorted];
        let place =
            pick_stage(OP, &[PLACE_SUB], &place_tensors, || choose_tiled(bm, e).map(|p| p.1).ok_or_else(no_variant))?;
        // A forced variant must compute what was asked: its block size, expert lanes and tile.
        let tile_ok = count.constant("TILE") == TILE_IDS && place.constant("TILE") == TILE_IDS;
        if place.constant("BLOCK_M") != bm || e >= count.constant("E_PAD") || e >= place.constant("E_PAD") || !tile_ok {
            return fail(
                Status::InvalidArgument,
                format!(
                    "variants {} and {} are for block_m = {}, E < {}, E < {}, {TILE_IDS} ids per tile; the call has \
                     block_m = {bm}, E = {e}",
                    count.name,
                    place.name,
                    place.constant("BLOCK_M"),
                    count.constant("E_PAD"),
                    place.constant("E_PAD")
                ),
            );
        }
        record_selected(&[count, place]);
        let grid = u32::try_from(tiles.max(1)).map_err(|_| {
            Error::new(
                Status::UnsupportedShape,
                format!("topk_ids: N = {n} needs {tiles} blocks, more than a grid holds"),
            )
        })?;
        if tiles > 0 {
            run(count, &count_tensors.map(Value::Tensor), (grid, 1, 1), device, stream)?;
        }
        // (N = 0: one place block still writes the empty histogram, expert_ids and the padding)
        run(place, &place_tensors.map(Value::Tensor), (grid, 1, 1), device, stream)
    })
}
