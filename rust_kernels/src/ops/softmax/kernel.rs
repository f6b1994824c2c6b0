//! cuTile Rust port of reference/softmax/kernel.py: softmax over the last axis of a 2-D
//! array. `softmax_row` holds TILE_M whole rows in one tile; `softmax_online` streams one
//! row in TILE_N tiles (running max and rescaled sum, then a second pass that writes).
//! Python's `ct.Constant[int]` tile sizes are const generics, the dtype is the type generic `E`.
//!
//! `softmax_row_fast_o*` and `softmax_online_fast_o*` (reference `_softmax_row_fast`, `_softmax_online_fast`,
//! the `_fast` variants): the same two structures with exp2 flushing subnormals to zero and the row
//! sum's reciprocal as an approximate, flushing division (Python's `approx_div(1.0, sum)`), under
//! the occupancy hints of Python's `ct.kernel(..., occupancy=K)` entries, the same `default` key.

#[cutile::module]
pub mod softmax_kernel {
    use cutile::core::*;

    /// exp(v) = exp2(v * log2(e)); exp2 is the native instruction.
    const LOG2E: f32 = 1.4426950408889634f32;

    /// The body of `softmax_row` and its occupancy-hinted twins (one body, several entries,
    /// as kernel.py's `softmax_row_o8`/`_o4` repeat `softmax_row` under `ct.kernel(occupancy=..)`).
    fn softmax_row_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // -inf padding: padded columns add exp2(-inf) = 0 to the sum and never win the max.
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::NegInf, dim_map::Identity, x.token()) };
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([block.0, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = t * broadcast_scalar(LOG2E, shape![TILE_M, TILE_N]);
        let row_max: Tile<f32, { [TILE_M] }> = reduce_max(t, 1);
        let row_max: Tile<f32, { [TILE_M, 1] }> = row_max.reshape(shape![TILE_M, 1]);
        let e: Tile<f32, { [TILE_M, TILE_N] }> = exp2(t - row_max.broadcast(shape![TILE_M, TILE_N]), ftz::Disabled);
        let row_sum: Tile<f32, { [TILE_M] }> = reduce_sum(e, 1);
        let row_sum: Tile<f32, { [TILE_M, 1] }> = row_sum.reshape(shape![TILE_M, 1]);
        // IEEE division like Python's `/` (true_div would emit an approximate, flushing divf).
        let p: Tile<f32, { [TILE_M, TILE_N] }> =
            divf(e, row_sum.broadcast(shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
        let y: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(p);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y, [block.0, 0i32]) };
    }

    /// The body of `softmax_online` and `softmax_online_o4`.
    fn softmax_online_body<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let row: i32 = block.0;
        let x_tiles: Partition<E, { [1, TILE_N] }> =
            unsafe { make_partition_view(x, shape![1, TILE_N], padding::NegInf, dim_map::Identity, x.token()) };
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does.
        let x_grid: Partition<E, { [1, TILE_N] }> =
            unsafe { make_partition_view(x, shape![1, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: i32 = num_tiles(&x_grid, 1);
        let log2e: Tile<f32, { [1, TILE_N] }> = broadcast_scalar(LOG2E, shape![1, TILE_N]);
        let mut running_max: Tile<f32, { [1, 1] }> = constant(f32::NEG_INFINITY, shape![1, 1]);
        let mut running_sum: Tile<f32, { [1, 1] }> = constant(0.0f32, shape![1, 1]);
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_N] }> = x_tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_N] }> = convert_tile(raw);
            let t: Tile<f32, { [1, TILE_N] }> = t * log2e;
            let tile_max: Tile<f32, { [1] }> = reduce_max(t, 1);
            let new_max: Tile<f32, { [1, 1] }> = max_tile(running_max, tile_max.reshape(shape![1, 1]));
            // Rescale the sum so far to the new maximum before adding this tile's terms.
            let p: Tile<f32, { [1, TILE_N] }> = exp2(t - new_max.broadcast(shape![1, TILE_N]), ftz::Disabled);
            let p_sum: Tile<f32, { [1] }> = reduce_sum(p, 1);
            // fma: cuTile Python contracts this multiply-add into one fma; so does the port,
            // for the same rounding.
            let alpha: Tile<f32, { [1, 1] }> = exp2(running_max - new_max, ftz::Disabled);
            running_sum = fma(running_sum, alpha, p_sum.reshape(shape![1, 1]), rounding::NearestEven, ftz::Disabled);
            running_max = new_max;
        }
        let one: Tile<f32, { [] }> = constant(1.0f32, shape![]);
        let one: Tile<f32, { [1, 1] }> = one.reshape(shape![1, 1]);
        let inv_sum: Tile<f32, { [1, 1] }> = divf(one, running_sum, rounding::NearestEven, ftz::Disabled);
        let inv_sum: Tile<f32, { [1, TILE_N] }> = inv_sum.broadcast(shape![1, TILE_N]);
        let neg_max: Tile<f32, { [1, TILE_N] }> = negf(running_max.broadcast(shape![1, TILE_N]));
        let mut out_tiles: PartitionMut<E, { [1, TILE_N] }> = unsafe { out.partition_full_mut(shape![1, TILE_N]) };
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_N] }> = x_tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_N] }> = convert_tile(raw);
            // t * log2e - max as one fma, as cuTile Python contracts it.
            let shifted: Tile<f32, { [1, TILE_N] }> = fma(t, log2e, neg_max, rounding::NearestEven, ftz::Disabled);
            let y: Tile<E, { [1, TILE_N] }> = convert_tile(exp2(shifted, ftz::Disabled) * inv_sum);
            unsafe { out_tiles.store_unchecked(y, [row, j]) };
        }
    }

    /// The body of the `softmax_row_fast_o*` entries: `softmax_row_body` with exp2 flush-to-zero and
    /// one approximate reciprocal of each row sum, multiplied into the row.
    fn softmax_row_fast_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::NegInf, dim_map::Identity, x.token()) };
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([block.0, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = t * broadcast_scalar(LOG2E, shape![TILE_M, TILE_N]);
        let row_max: Tile<f32, { [TILE_M] }> = reduce_max(t, 1);
        let row_max: Tile<f32, { [TILE_M, 1] }> = row_max.reshape(shape![TILE_M, 1]);
        let e: Tile<f32, { [TILE_M, TILE_N] }> = exp2(t - row_max.broadcast(shape![TILE_M, TILE_N]), ftz::Enabled);
        let row_sum: Tile<f32, { [TILE_M] }> = reduce_sum(e, 1);
        let row_sum: Tile<f32, { [TILE_M, 1] }> = row_sum.reshape(shape![TILE_M, 1]);
        // 1 / sum as rcp.approx, flush-to-zero (Python's `approx_div(1.0, sum)`), once per row.
        let one: Tile<f32, { [] }> = constant(1.0f32, shape![]);
        let one: Tile<f32, { [1, 1] }> = one.reshape(shape![1, 1]);
        let inv_sum: Tile<f32, { [TILE_M, 1] }> =
            divf(one.broadcast(shape![TILE_M, 1]), row_sum, rounding::Approx, ftz::Enabled);
        let y: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(e * inv_sum.broadcast(shape![TILE_M, TILE_N]));
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y, [block.0, 0i32]) };
    }

    /// The body of the `softmax_online_fast_o*` entries: `softmax_online_body` with exp2 flush-to-zero
    /// and the sum's reciprocal as an approximate, flushing division.
    fn softmax_online_fast_body<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let row: i32 = block.0;
        let x_tiles: Partition<E, { [1, TILE_N] }> =
            unsafe { make_partition_view(x, shape![1, TILE_N], padding::NegInf, dim_map::Identity, x.token()) };
        let x_grid: Partition<E, { [1, TILE_N] }> =
            unsafe { make_partition_view(x, shape![1, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: i32 = num_tiles(&x_grid, 1);
        let log2e: Tile<f32, { [1, TILE_N] }> = broadcast_scalar(LOG2E, shape![1, TILE_N]);
        let mut running_max: Tile<f32, { [1, 1] }> = constant(f32::NEG_INFINITY, shape![1, 1]);
        let mut running_sum: Tile<f32, { [1, 1] }> = constant(0.0f32, shape![1, 1]);
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_N] }> = x_tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_N] }> = convert_tile(raw);
            let t: Tile<f32, { [1, TILE_N] }> = t * log2e;
            let tile_max: Tile<f32, { [1] }> = reduce_max(t, 1);
            let new_max: Tile<f32, { [1, 1] }> = max_tile(running_max, tile_max.reshape(shape![1, 1]));
            let p: Tile<f32, { [1, TILE_N] }> = exp2(t - new_max.broadcast(shape![1, TILE_N]), ftz::Enabled);
            let p_sum: Tile<f32, { [1] }> = reduce_sum(p, 1);
            let alpha: Tile<f32, { [1, 1] }> = exp2(running_max - new_max, ftz::Enabled);
            running_sum = fma(running_sum, alpha, p_sum.reshape(shape![1, 1]), rounding::NearestEven, ftz::Disabled);
            running_max = new_max;
        }
        let one: Tile<f32, { [] }> = constant(1.0f32, shape![]);
        let one: Tile<f32, { [1, 1] }> = one.reshape(shape![1, 1]);
        let inv_sum: Tile<f32, { [1, 1] }> = divf(one, running_sum, rounding::Approx, ftz::Enabled);
        let inv_sum: Tile<f32, { [1, TILE_N] }> = inv_sum.broadcast(shape![1, TILE_N]);
        let neg_max: Tile<f32, { [1, TILE_N] }> = negf(running_max.broadcast(shape![1, TILE_N]));
        let mut out_tiles: PartitionMut<E, { [1, TILE_N] }> = unsafe { out.partition_full_mut(shape![1, TILE_N]) };
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_N] }> = x_tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_N] }> = convert_tile(raw);
            let shifted: Tile<f32, { [1, TILE_N] }> = fma(t, log2e, neg_max, rounding::NearestEven, ftz::Disabled);
            let y: Tile<E, { [1, TILE_N] }> = convert_tile(exp2(shifted, ftz::Enabled) * inv_sum);
            unsafe { out_tiles.store_unchecked(y, [row, j]) };
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn softmax_row<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_row_body::<E, TILE_M, TILE_N>(x, out);
    }

    /// `ct.kernel(occupancy=8)`: the hint Python writes as `optimization_hints=<default = {occupancy = 8}>`.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn softmax_row_o8<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_row_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn softmax_row_o4<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_row_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn softmax_online<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_online_body::<E, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn softmax_online_o4<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_online_body::<E, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 16,),))]
    unsafe fn softmax_row_fast_o16<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_row_fast_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn softmax_row_fast_o8<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_row_fast_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn softmax_row_fast_o4<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_row_fast_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn softmax_online_fast_o8<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_online_fast_body::<E, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn softmax_online_fast_o4<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_online_fast_body::<E, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 2,),))]
    unsafe fn softmax_online_fast_o2<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        softmax_online_fast_body::<E, TILE_N>(x, out);
    }
}
