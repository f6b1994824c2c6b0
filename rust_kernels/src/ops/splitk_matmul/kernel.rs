//! cuTile Rust port of reference/splitk_matmul/kernel.py: c = a @ b in two launches.
//! `splitk_partial` multiplies split s's contiguous range of K tiles into its own f32 slab
//! partial[s] (grid axis 1 = split; S = partial.shape[0], an empty split writes zeros);
//! `splitk_reduce` sums the S slabs in f32 and casts once to c's dtype. No atomics.
//!
//! `E` is the operands' element type (partial), `EOut` c's (reduce); the slabs are f32 on both
//! sides. Python's `//` and `%` on the block id are Rust's `/` and `%`: every operand is
//! non-negative, where the two agree.

#[cutile::module]
pub mod splitk_matmul_kernel {
    use cutile::core::*;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn splitk_partial<E: ElementType, const BM: i32, const BN: i32, const BK: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        partial: &Tensor<f32, { [-1, -1, -1] }>,
    ) {
        let split: i32 = get_tile_block_id().1;
        let num_splits: i32 = get_shape_dim(partial.shape(), 0i32);
        let tiles_n: i32 = ceil_div(get_shape_dim(partial.shape(), 2i32), BN);
        let tile_m: i32 = get_tile_block_id().0 / tiles_n;
        let tile_n: i32 = get_tile_block_id().0 % tiles_n;
        // K tiles counted on an unpadded view, as ct.num_tiles(a, axis=1, shape=(BM, BK)) does.
        let a_grid: Partition<E, { [BM, BK] }> =
            unsafe { make_partition_view(a, shape![BM, BK], padding::None, dim_map::Identity, a.token()) };
        let k_tiles: i32 = num_tiles(&a_grid, 1);
        let per_split: i32 = ceil_div(k_tiles, num_splits);
        let k_begin: i32 = min(split * per_split, k_tiles);
        let k_end: i32 = min(k_begin + per_split, k_tiles);
        let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
        let a_tiles: Partition<E, { [BM, BK] }> = a.partition(shape![BM, BK]);
        let b_tiles: Partition<E, { [BK, BN] }> = b.partition(shape![BK, BN]);
        for kk in k_begin..k_end {
            let ta: Tile<E, { [BM, BK] }> = a_tiles.load([tile_m, kk]);
            let tb: Tile<E, { [BK, BN] }> = b_tiles.load([kk, tile_n]);
            acc = mma(ta, tb, acc);
        }
        let slab: Tile<f32, { [1, BM, BN] }> = acc.reshape(shape![1, BM, BN]);
        let mut partial_tiles: PartitionMut<f32, { [1, BM, BN] }> =
            unsafe { partial.partition_full_mut(shape![1, BM, BN]) };
        unsafe { partial_tiles.store_unchecked(slab, [split, tile_m, tile_n]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn splitk_reduce<EOut: ElementType, const TM: i32, const TN: i32>(
        partial: &Tensor<f32, { [-1, -1, -1] }>,
        c: &Tensor<EOut, { [-1, -1] }>,
    ) {
        let tile_m: i32 = get_tile_block_id().0;
        let tile_n: i32 = get_tile_block_id().1;
        let mut acc: Tile<f32, { [1, TM, TN] }> = constant(0.0f32, shape![1, TM, TN]);
        // padding::None: Python loads the slabs without padding_mode (out-of-range elements of
        // an edge tile are never stored).
        let slabs: Partition<f32, { [1, TM, TN] }> = unsafe {
            make_partition_view(partial, shape![1, TM, TN], padding::None, dim_map::Identity, partial.token())
        };
        let num_splits: i32 = get_shape_dim(partial.shape(), 0i32);
        for s in 0i32..num_splits {
            let slab: Tile<f32, { [1, TM, TN] }> = slabs.load([s, tile_m, tile_n]);
            acc = acc + slab;
        }
        let sum: Tile<f32, { [TM, TN] }> = acc.reshape(shape![TM, TN]);
        let out: Tile<EOut, { [TM, TN] }> = convert_tile(sum);
        let mut c_tiles: PartitionMut<EOut, { [TM, TN] }> = unsafe { c.partition_full_mut(shape![TM, TN]) };
        unsafe { c_tiles.store_unchecked(out, [tile_m, tile_n]) };
    }
}
