//! cuTile Rust port of reference/transpose/kernel.py: out-of-place y = x.T in (TM, TN) tiles.
//! `transpose_2d` permutes the loaded tile in registers, `transpose_2d_order` loads it already
//! transposed through a `dim_map = [1, 0]` partition view (Python's `order=(1, 0)`), and
//! `transpose_batched` swaps the last two axes of a (1, TM, TN) tile per batch.

#[cutile::module]
pub mod transpose_kernel {
    use cutile::core::*;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn transpose_2d<E: ElementType, const TM: i32, const TN: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        y: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // padding::None: Python's load without padding_mode has no padding value (the safe
        // `partition` would add padding_value = zero; out-of-range elements are never stored).
        let x_tiles: Partition<E, { [TM, TN] }> =
            unsafe { make_partition_view(x, shape![TM, TN], padding::None, dim_map::Identity, x.token()) };
        let t: Tile<E, { [TM, TN] }> = x_tiles.load([block.0, block.1]);
        let t_t: Tile<E, { [TN, TM] }> = permute(t, const_array![1, 0]);
        // `y` is read-only in the signature (Python's calling convention); the store goes
        // through a full-tensor mutable view at the block's tile, as ct.store(y, index=...).
        let mut y_tiles: PartitionMut<E, { [TN, TM] }> = unsafe { y.partition_full_mut(shape![TN, TM]) };
        unsafe { y_tiles.store_unchecked(t_t, [block.1, block.0]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn transpose_2d_order<E: ElementType, const TM: i32, const TN: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        y: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // The tile shape and index are in the permuted (y) order, as with order=(1, 0).
        // padding::None as in transpose_2d (partition_permuted would pad with zero).
        let x_tiles: Partition<E, { [TN, TM] }> =
            unsafe { make_partition_view(x, shape![TN, TM], padding::None, const_array![1, 0], x.token()) };
        let t: Tile<E, { [TN, TM] }> = x_tiles.load([block.1, block.0]);
        let mut y_tiles: PartitionMut<E, { [TN, TM] }> = unsafe { y.partition_full_mut(shape![TN, TM]) };
        unsafe { y_tiles.store_unchecked(t, [block.1, block.0]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn transpose_batched<E: ElementType, const TM: i32, const TN: i32>(
        x: &Tensor<E, { [-1, -1, -1] }>,
        y: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let x_tiles: Partition<E, { [1, TM, TN] }> =
            unsafe { make_partition_view(x, shape![1, TM, TN], padding::None, dim_map::Identity, x.token()) };
        let t: Tile<E, { [1, TM, TN] }> = x_tiles.load([block.2, block.0, block.1]);
        let t_t: Tile<E, { [1, TN, TM] }> = permute(t, const_array![0, 2, 1]);
        let mut y_tiles: PartitionMut<E, { [1, TN, TM] }> = unsafe { y.partition_full_mut(shape![1, TN, TM]) };
        unsafe { y_tiles.store_unchecked(t_t, [block.2, block.1, block.0]) };
    }
}
