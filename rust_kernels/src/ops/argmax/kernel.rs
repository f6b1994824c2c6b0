//! cuTile Rust port of reference/argmax/kernel.py: out[r] = first index of the maximum of
//! row r of a 2-D array. TILE_M rows per block, the rows streamed in TILE_N column tiles;
//! per tile the maximum and the smallest column holding it, merged into the running result
//! only when strictly greater, so ties resolve to the first index (as torch does).
//!
//! `argmax_fast_o16` / `argmax_fast_o8` (reference `_argmax_fast`, the `_fast` variants): per column position
//! of the tile a running maximum in x's dtype and the tile it came from, updated without a block
//! reduction; one max and one min reduction per row after the loop. Same result as
//! `argmax_rows`. The suffix is Python's `ct.kernel(..., occupancy=K)`.

#[cutile::module]
pub mod argmax_kernel {
    use cutile::core::*;

    /// Stands for "no matching column" in the min-reduction; larger than any column index.
    const NO_INDEX: i32 = 2147483647i32;

    // occupancy=8 as @ct.kernel(occupancy=8): the `default` key applies to every target.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn argmax_rows<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<i64, { [-1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does.
        let x_grid: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: i32 = num_tiles(&x_grid, 1);
        let cols: Tile<i32, { [TILE_N] }> = iota(shape![TILE_N]);
        let cols: Tile<i32, { [1, TILE_N] }> = cols.reshape(shape![1, TILE_N]);
        let no_index: Tile<i32, { [TILE_M, TILE_N] }> = constant(NO_INDEX, shape![TILE_M, TILE_N]);
        let mut best: Tile<f32, { [TILE_M, 1] }> = constant(f32::NEG_INFINITY, shape![TILE_M, 1]);
        let mut best_index: Tile<i32, { [TILE_M, 1] }> = constant(0i32, shape![TILE_M, 1]);
        // -inf padding: padded columns never exceed a real maximum nor match a finite one.
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::NegInf, dim_map::Identity, x.token()) };
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([block.0, j]);
            let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
            let tile_max: Tile<f32, { [TILE_M] }> = reduce_max(t, 1);
            let tile_max: Tile<f32, { [TILE_M, 1] }> = tile_max.reshape(shape![TILE_M, 1]);
            let hit: Tile<bool, { [TILE_M, TILE_N] }> = eq_tile(t, tile_max.broadcast(shape![TILE_M, TILE_N]));
            let offset: Tile<i32, { [] }> = scalar_to_tile(j * TILE_N);
            let offset: Tile<i32, { [1, 1] }> = offset.reshape(shape![1, 1]);
            let tile_cols: Tile<i32, { [1, TILE_N] }> = cols + offset.broadcast(shape![1, TILE_N]);
            let candidates: Tile<i32, { [TILE_M, TILE_N] }> =
                select(hit, tile_cols.broadcast(shape![TILE_M, TILE_N]), no_index);
            let first: Tile<i32, { [TILE_M] }> = reduce_min(candidates, 1);
            let first: Tile<i32, { [TILE_M, 1] }> = first.reshape(shape![TILE_M, 1]);
            let better: Tile<bool, { [TILE_M, 1] }> = gt_tile(tile_max, best);
            best_index = select(better, first, best_index);
            best = select(better, tile_max, best);
        }
        let index: Tile<i32, { [TILE_M] }> = best_index.reshape(shape![TILE_M]);
        let index: Tile<i64, { [TILE_M] }> = exti(index);
        let mut out_tiles: PartitionMut<i64, { [TILE_M] }> = unsafe { out.partition_full_mut(shape![TILE_M]) };
        unsafe { out_tiles.store_unchecked(index, [block.0]) };
    }

    /// The body of the `argmax_fast` entries: per position, the first maximum seen (strictly
    /// greater replaces; NaN never does) and the tile holding it; after the loop the row max and
    /// the smallest column among the positions holding it.
    fn argmax_fast_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<i64, { [-1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does.
        let x_grid: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: i32 = num_tiles(&x_grid, 1);
        // -inf in f32, converted to E (there is no generic -inf of E; Python converts the same way).
        let neg_inf: Tile<f32, { [TILE_M, TILE_N] }> = constant(f32::NEG_INFINITY, shape![TILE_M, TILE_N]);
        let mut best: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(neg_inf);
        let mut best_tile: Tile<i32, { [TILE_M, TILE_N] }> = constant(0i32, shape![TILE_M, TILE_N]);
        // -inf padding: a padded position is never strictly greater than what it holds.
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::NegInf, dim_map::Identity, x.token()) };
        for j in 0i32..num_col_tiles {
            let t: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([block.0, j]);
            let better: Tile<bool, { [TILE_M, TILE_N] }> = gt_tile(t, best);
            let tile_j: Tile<i32, { [] }> = scalar_to_tile(j);
            let tile_j: Tile<i32, { [1, 1] }> = tile_j.reshape(shape![1, 1]);
            best_tile = select(better, tile_j.broadcast(shape![TILE_M, TILE_N]), best_tile);
            best = maxf(best, t, nan::Disabled, ftz::Disabled);
        }
        let row_max: Tile<E, { [TILE_M] }> = reduce_max(best, 1);
        let row_max: Tile<E, { [TILE_M, 1] }> = row_max.reshape(shape![TILE_M, 1]);
        let cols: Tile<i32, { [TILE_N] }> = iota(shape![TILE_N]);
        let cols: Tile<i32, { [1, TILE_N] }> = cols.reshape(shape![1, TILE_N]);
        let hit: Tile<bool, { [TILE_M, TILE_N] }> = eq_tile(best, row_max.broadcast(shape![TILE_M, TILE_N]));
        let tile_n: Tile<i32, { [TILE_M, TILE_N] }> = broadcast_scalar(TILE_N, shape![TILE_M, TILE_N]);
        let columns: Tile<i32, { [TILE_M, TILE_N] }> = best_tile * tile_n + cols.broadcast(shape![TILE_M, TILE_N]);
        let no_index: Tile<i32, { [TILE_M, TILE_N] }> = constant(NO_INDEX, shape![TILE_M, TILE_N]);
        let first: Tile<i32, { [TILE_M] }> = reduce_min(select(hit, columns, no_index), 1);
        let index: Tile<i64, { [TILE_M] }> = exti(first);
        let mut out_tiles: PartitionMut<i64, { [TILE_M] }> = unsafe { out.partition_full_mut(shape![TILE_M]) };
        unsafe { out_tiles.store_unchecked(index, [block.0]) };
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 16,),))]
    unsafe fn argmax_fast_o16<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<i64, { [-1] }>,
    ) {
        argmax_fast_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn argmax_fast_o8<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<i64, { [-1] }>,
    ) {
        argmax_fast_body::<E, TILE_M, TILE_N>(x, out);
    }
}
