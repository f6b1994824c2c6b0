//! cuTile Rust port of reference/cross_entropy/kernel.py: loss[r] = logsumexp(logits[r]) -
//! logits[r, target[r]] (0 where target[r] == IGNORE_INDEX), and lse[r]. One row per block; the
//! vocabulary streamed once in TILE_V tiles with an online base-2 logsumexp (running max and
//! rescaled sum), the target logit picked up where the column index equals the target.
//!
//! `cross_entropy_fast_o*` (reference `_cross_entropy_fast`, the `_fast` variants): one block
//! max per tile, the exponentials summed into a (1, TILE_V) accumulator rescaled per tile and
//! reduced once per row, the target logit loaded as one (1, 1) tile, exp2 flushing subnormals;
//! under the occupancy hints of Python's `ct.kernel(..., occupancy=K)` entries (`default` key).

#[cutile::module]
pub mod cross_entropy_kernel {
    use cutile::core::*;

    const LOG2E: f32 = 1.4426950408889634f32;
    const LN2: f32 = 0.6931471805599453f32;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn cross_entropy_fwd<E: ElementType, const TILE_V: i32, const IGNORE_INDEX: i32>(
        logits: &Tensor<E, { [-1, -1] }>,
        target: &Tensor<i64, { [-1] }>,
        loss: &Tensor<f32, { [-1] }>,
        lse: &Tensor<f32, { [-1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let row: i32 = block.0;
        // Counted on an unpadded view, as ct.num_tiles(logits, axis=1, shape=...) does.
        let grid_view: Partition<E, { [1, TILE_V] }> =
            unsafe { make_partition_view(logits, shape![1, TILE_V], padding::None, dim_map::Identity, logits.token()) };
        let num_col_tiles: i32 = num_tiles(&grid_view, 1);
        // The target id, narrowed to i32 as Python's astype (targets in [0, V) or -100 fit).
        // `no_signed_wrap`: cuTile Rust 0.5.0 cannot serialize a trunci without an overflow flag
        // (overflow::None writes no attribute, which its bytecode writer requires).
        let target_view: Partition<i64, { [1] }> =
            unsafe { make_partition_view(target, shape![1], padding::None, dim_map::Identity, target.token()) };
        let tgt: Tile<i64, { [1] }> = target_view.load([row]);
        let tgt: Tile<i32, { [1] }> = trunci(tgt, overflow::NoSignedWrap);
        let tgt: Tile<i32, { [1, 1] }> = tgt.reshape(shape![1, 1]);
        let cols: Tile<i32, { [TILE_V] }> = iota(shape![TILE_V]);
        let cols: Tile<i32, { [1, TILE_V] }> = cols.reshape(shape![1, TILE_V]);
        let mut running_max: Tile<f32, { [1, 1] }> = constant(f32::NEG_INFINITY, shape![1, 1]);
        let mut running_sum: Tile<f32, { [1, 1] }> = constant(0.0f32, shape![1, 1]);
        let mut target_logit: Tile<f32, { [1, 1] }> = constant(0.0f32, shape![1, 1]);
        // -inf padding: padded columns add exp2(-inf) = 0 and never win the max.
        let tiles: Partition<E, { [1, TILE_V] }> = unsafe {
            make_partition_view(logits, shape![1, TILE_V], padding::NegInf, dim_map::Identity, logits.token())
        };
        let tgt_row: Tile<i32, { [1, TILE_V] }> = tgt.broadcast(shape![1, TILE_V]);
        let zero: Tile<f32, { [] }> = constant(0.0f32, shape![]);
        let zeros: Tile<f32, { [1, TILE_V] }> = zero.reshape(shape![1, 1]).broadcast(shape![1, TILE_V]);
        let log2e: Tile<f32, { [] }> = constant(LOG2E, shape![]);
        let log2e: Tile<f32, { [1, TILE_V] }> = log2e.reshape(shape![1, 1]).broadcast(shape![1, TILE_V]);
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_V] }> = tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_V] }> = convert_tile(raw);
            let offset: Tile<i32, { [] }> = scalar_to_tile(j * TILE_V);
            let tile_cols: Tile<i32, { [1, TILE_V] }> =
                cols + offset.reshape(shape![1, 1]).broadcast(shape![1, TILE_V]);
            let picked: Tile<f32, { [1, TILE_V] }> = select(eq_tile(tile_cols, tgt_row), t, zeros);
            let picked: Tile<f32, { [1] }> = reduce_sum(picked, 1);
            target_logit = target_logit + picked.reshape(shape![1, 1]);
            let t2: Tile<f32, { [1, TILE_V] }> = t * log2e;
            let tile_max: Tile<f32, { [1] }> = reduce_max(t2, 1);
            let new_max: Tile<f32, { [1, 1] }> = max_tile(running_max, tile_max.reshape(shape![1, 1]));
            let alpha: Tile<f32, { [1, 1] }> = exp2(running_max - new_max, ftz::Disabled);
            let p: Tile<f32, { [1, TILE_V] }> = exp2(t2 - new_max.broadcast(shape![1, TILE_V]), ftz::Disabled);
            let p_sum: Tile<f32, { [1] }> = reduce_sum(p, 1);
            // fma where cuTile Python contracts `running_sum * alpha + p_sum`, for the same rounding.
            running_sum = fma(running_sum, alpha, p_sum.reshape(shape![1, 1]), rounding::NearestEven, ftz::Disabled);
            running_max = new_max;
        }
        let ln2: Tile<f32, { [] }> = constant(LN2, shape![]);
        let row_lse: Tile<f32, { [1, 1] }> = (running_max + log2(running_sum)) * ln2.reshape(shape![1, 1]);
        let ignore: Tile<i32, { [1, 1] }> = broadcast_scalar(IGNORE_INDEX, shape![1, 1]);
        let ignored: Tile<bool, { [1, 1] }> = eq_tile(tgt, ignore);
        let row_loss: Tile<f32, { [1, 1] }> = select(ignored, zero.reshape(shape![1, 1]), row_lse - target_logit);
        let mut loss_tiles: PartitionMut<f32, { [1] }> = unsafe { loss.partition_full_mut(shape![1]) };
        unsafe { loss_tiles.store_unchecked(row_loss.reshape(shape![1]), [row]) };
        let mut lse_tiles: PartitionMut<f32, { [1] }> = unsafe { lse.partition_full_mut(shape![1]) };
        unsafe { lse_tiles.store_unchecked(row_lse.reshape(shape![1]), [row]) };
    }
    /// The body of the `cross_entropy_fast_o*` entries (Python `_cross_entropy_fast`).
    fn cross_entropy_fast_body<E: ElementType, const TILE_V: i32, const IGNORE_INDEX: i32>(
        logits: &Tensor<E, { [-1, -1] }>,
        target: &Tensor<i64, { [-1] }>,
        loss: &Tensor<f32, { [-1] }>,
        lse: &Tensor<f32, { [-1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let row: i32 = block.0;
        let grid_view: Partition<E, { [1, TILE_V] }> =
            unsafe { make_partition_view(logits, shape![1, TILE_V], padding::None, dim_map::Identity, logits.token()) };
        let num_col_tiles: i32 = num_tiles(&grid_view, 1);
        let target_view: Partition<i64, { [1] }> =
            unsafe { make_partition_view(target, shape![1], padding::None, dim_map::Identity, target.token()) };
        let tgt: Tile<i64, { [1] }> = target_view.load([row]);
        let tgt: Tile<i64, { [] }> = tgt.reshape(shape![]);
        let tgt: Tile<i32, { [] }> = trunci(tgt, overflow::NoSignedWrap);
        // Targets outside [0, V) (other than IGNORE_INDEX) read column 0 and get loss +inf.
        let zero_i: Tile<i32, { [] }> = constant(0i32, shape![]);
        let v: Tile<i32, { [] }> = scalar_to_tile(get_shape_dim(logits.shape(), 1i32));
        let in_row: Tile<bool, { [] }> = andi(ge_tile(tgt, zero_i), lt_tile(tgt, v));
        let col: Tile<i32, { [] }> = select(in_row, tgt, zero_i);
        let col: i32 = tile_to_scalar(col);
        let pick_view: Partition<E, { [1, 1] }> =
            unsafe { make_partition_view(logits, shape![1, 1], padding::None, dim_map::Identity, logits.token()) };
        let picked: Tile<E, { [1, 1] }> = pick_view.load([row, col]);
        let target_logit: Tile<f32, { [1, 1] }> = convert_tile(picked);
        let mut running_max: Tile<f32, { [1, 1] }> = constant(f32::NEG_INFINITY, shape![1, 1]);
        let mut acc: Tile<f32, { [1, TILE_V] }> = constant(0.0f32, shape![1, TILE_V]);
        // -inf padding: padded columns add exp2(-inf) = 0 and never win the max.
        let tiles: Partition<E, { [1, TILE_V] }> = unsafe {
            make_partition_view(logits, shape![1, TILE_V], padding::NegInf, dim_map::Identity, logits.token())
        };
        let log2e: Tile<f32, { [] }> = constant(LOG2E, shape![]);
        let log2e_1: Tile<f32, { [1, 1] }> = log2e.reshape(shape![1, 1]);
        let log2e_row: Tile<f32, { [1, TILE_V] }> = log2e_1.broadcast(shape![1, TILE_V]);
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_V] }> = tiles.load([row, j]);
            // The max of the logits as stored (exact in any dtype), scaled once.
            let raw_max: Tile<E, { [1] }> = reduce_max(raw, 1);
            let tile_max: Tile<f32, { [1, 1] }> = convert_tile(raw_max.reshape(shape![1, 1]));
            let new_max: Tile<f32, { [1, 1] }> = max_tile(running_max, tile_max * log2e_1);
            let t: Tile<f32, { [1, TILE_V] }> = convert_tile(raw);
            let alpha: Tile<f32, { [1, 1] }> = exp2(running_max - new_max, ftz::Enabled);
            let neg_max: Tile<f32, { [1, TILE_V] }> = negf(new_max.broadcast(shape![1, TILE_V]));
            // t * log2e - max and acc * alpha + p as fmas, as cuTile Python contracts them.
            let shifted: Tile<f32, { [1, TILE_V] }> = fma(t, log2e_row, neg_max, rounding::NearestEven, ftz::Disabled);
            let p: Tile<f32, { [1, TILE_V] }> = exp2(shifted, ftz::Enabled);
            acc = fma(acc, alpha.broadcast(shape![1, TILE_V]), p, rounding::NearestEven, ftz::Disabled);
            running_max = new_max;
        }
        let row_sum: Tile<f32, { [1] }> = reduce_sum(acc, 1);
        let ln2: Tile<f32, { [] }> = constant(LN2, shape![]);
        let row_lse: Tile<f32, { [1, 1] }> =
            (running_max + log2(row_sum.reshape(shape![1, 1]))) * ln2.reshape(shape![1, 1]);
        let inf: Tile<f32, { [] }> = constant(f32::INFINITY, shape![]);
        let row_loss: Tile<f32, { [1, 1] }> =
            select(in_row.reshape(shape![1, 1]), row_lse - target_logit, inf.reshape(shape![1, 1]));
        let ignored: Tile<bool, { [] }> = eq_tile(tgt, broadcast_scalar(IGNORE_INDEX, shape![]));
        let zero: Tile<f32, { [] }> = constant(0.0f32, shape![]);
        let row_loss: Tile<f32, { [1, 1] }> = select(ignored.reshape(shape![1, 1]), zero.reshape(shape![1, 1]), row_loss);
        let mut loss_tiles: PartitionMut<f32, { [1] }> = unsafe { loss.partition_full_mut(shape![1]) };
        unsafe { loss_tiles.store_unchecked(row_loss.reshape(shape![1]), [row]) };
        let mut lse_tiles: PartitionMut<f32, { [1] }> = unsafe { lse.partition_full_mut(shape![1]) };
        unsafe { lse_tiles.store_unchecked(row_lse.reshape(shape![1]), [row]) };
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn cross_entropy_fast_o8<E: ElementType, const TILE_V: i32, const IGNORE_INDEX: i32>(
        logits: &Tensor<E, { [-1, -1] }>,
        target: &Tensor<i64, { [-1] }>,
        loss: &Tensor<f32, { [-1] }>,
        lse: &Tensor<f32, { [-1] }>,
    ) {
        cross_entropy_fast_body::<E, TILE_V, IGNORE_INDEX>(logits, target, loss, lse);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn cross_entropy_fast_o4<E: ElementType, const TILE_V: i32, const IGNORE_INDEX: i32>(
        logits: &Tensor<E, { [-1, -1] }>,
        target: &Tensor<i64, { [-1] }>,
        loss: &Tensor<f32, { [-1] }>,
        lse: &Tensor<f32, { [-1] }>,
    ) {
        cross_entropy_fast_body::<E, TILE_V, IGNORE_INDEX>(logits, target, loss, lse);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 2,),))]
    unsafe fn cross_entropy_fast_o2<E: ElementType, const TILE_V: i32, const IGNORE_INDEX: i32>(
        logits: &Tensor<E, { [-1, -1] }>,
        target: &Tensor<i64, { [-1] }>,
        loss: &Tensor<f32, { [-1] }>,
        lse: &Tensor<f32, { [-1] }>,
    ) {
        cross_entropy_fast_body::<E, TILE_V, IGNORE_INDEX>(logits, target, loss, lse);
    }

}
