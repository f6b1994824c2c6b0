//! cuTile Rust port of reference/cumsum/kernel.py: inclusive prefix sum along the last axis of
//! a 2-D array, accumulated in f32 (rows scanned through a transpose: see `scan_rows`).
//! `cumsum_row` scans TILE_M whole rows (TILE_N >= N) in one tile; `cumsum_looped` streams the
//! rows in TILE_N tiles, offsetting each tile's scan by the running row total (the carry) of the
//! tiles before it.
//!
//! `cumsum_row_fast_o16`, `cumsum_looped_fast_o8` / `_o4` (reference `_cumsum_row_fast` /
//! `_cumsum_looped_fast`, the `_fast` variants): the same two bodies, run with one row per block
//! (TILE_M = 1) or the committed four, under an occupancy hint. The suffix is Python's
//! `ct.kernel(..., occupancy=K)`.
//!
//! The column loops iterate a `Dim`, not `0i32..n`, so that no `assume` is put on the loop index
//! (see the rope kernel's module doc for why that matters to tileiras).

#[cutile::module]
pub mod cumsum_kernel {
    use cutile::core::*;

    /// Inclusive prefix sum of each row (Python's `ct.cumsum(t, axis=1)`). cuTile Rust 0.5.0
    /// emits every `scan_sum` with `dim = 0` whatever `dim` it is given (the compiler hard-codes
    /// the attribute), so the rows are scanned as the columns of the transposed tile; the two
    /// `permute`s are accepted in analysis.json.
    fn scan_rows<const TILE_M: i32, const TILE_N: i32>(
        t: Tile<f32, { [TILE_M, TILE_N] }>,
    ) -> Tile<f32, { [TILE_M, TILE_N] }> {
        let columns: Tile<f32, { [TILE_N, TILE_M] }> = t.transpose();
        let scanned: Tile<f32, { [TILE_N, TILE_M] }> = scan_sum(columns, 0, reverse::Forward, 0.0f32);
        scanned.transpose()
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn cumsum_row<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Zero padding: padded columns lie after the real ones and add nothing to their sums.
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([block.0, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let scanned: Tile<f32, { [TILE_M, TILE_N] }> = scan_rows(t);
        let y: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(scanned);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y, [block.0, 0i32]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn cumsum_looped<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does.
        let x_grid: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: Dim = num_tiles(&x_grid, 1).into_dim();
        let mut carry: Tile<f32, { [TILE_M, 1] }> = constant(0.0f32, shape![TILE_M, 1]);
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        for j in num_col_tiles {
            let raw: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([block.0, j]);
            let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
            let scanned: Tile<f32, { [TILE_M, TILE_N] }> = scan_rows(t) + carry.broadcast(shape![TILE_M, TILE_N]);
            let y: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(scanned);
            unsafe { out_tiles.store_unchecked(y, [block.0, j]) };
            let tile_sum: Tile<f32, { [TILE_M] }> = reduce_sum(t, 1);
            carry = carry + tile_sum.reshape(shape![TILE_M, 1]);
        }
    }
    /// The body of the `cumsum_row_fast` entry: `cumsum_row`'s one-tile scan.
    fn cumsum_row_fast_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Zero padding: padded columns lie after the real ones and add nothing to their sums.
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([block.0, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let scanned: Tile<f32, { [TILE_M, TILE_N] }> = scan_rows(t);
        let y: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(scanned);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y, [block.0, 0i32]) };
    }

    /// The body of the `cumsum_looped_fast` entries: `cumsum_looped`'s carried scan.
    fn cumsum_looped_fast_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does.
        let x_grid: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: Dim = num_tiles(&x_grid, 1).into_dim();
        let mut carry: Tile<f32, { [TILE_M, 1] }> = constant(0.0f32, shape![TILE_M, 1]);
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        for j in num_col_tiles {
            let raw: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([block.0, j]);
            let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
            let scanned: Tile<f32, { [TILE_M, TILE_N] }> = scan_rows(t) + carry.broadcast(shape![TILE_M, TILE_N]);
            let y: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(scanned);
            unsafe { out_tiles.store_unchecked(y, [block.0, j]) };
            let tile_sum: Tile<f32, { [TILE_M] }> = reduce_sum(t, 1);
            carry = carry + tile_sum.reshape(shape![TILE_M, 1]);
        }
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 16,),))]
    unsafe fn cumsum_row_fast_o16<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        cumsum_row_fast_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn cumsum_looped_fast_o8<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        cumsum_looped_fast_body::<E, TILE_M, TILE_N>(x, out);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn cumsum_looped_fast_o4<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        cumsum_looped_fast_body::<E, TILE_M, TILE_N>(x, out);
    }
}
