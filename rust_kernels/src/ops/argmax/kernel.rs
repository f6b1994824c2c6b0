//! cuTile Rust port of reference/argmax/kernel.py: out[r] = first index of the maximum of
//! row r of a 2-D array. TILE_M rows per block, the rows streamed in TILE_N column tiles;
//! per tile the maximum and the smallest column holding it, merged into the running result
//! only when strictly greater, so ties resolve to the first index (as torch does).

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
}
