//! cuTile Rust port of `matmul` in reference/matmul/kernel.py: C = op(A) @ op(B), one BMxBN
//! output tile per block on a 1-D grouped grid, a K loop of mma into an f32 accumulator.
//!
//! Python's `ct.Constant[int]` (BM, BN, BK, GROUP_M) and `ct.Constant[bool]` (TRANS_A,
//! TRANS_B) are const generics (the flags as i32 0/1); the compiler folds the `if` on them.
//! A transposed operand is read through a dim_map=[1, 0] view of the stored array, like
//! Python's `order=(1, 0)`. `CAST_TF32` = 1 rounds f32 operands to tf32 before the mma
//! (Python decides this from `a.dtype == ct.float32` at trace time; Rust cannot branch on a
//! type generic, so the host passes the flag).

#[cutile::module]
pub mod matmul_kernel {
    use cutile::core::*;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn matmul<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
    >(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let m: i32 = get_shape_dim(c.shape(), 0i32);
        let n: i32 = get_shape_dim(c.shape(), 1i32);
        // Grouped tile order: GROUP_M row-tiles per column step, so shared B tiles stay in L2.
        let bid: i32 = get_tile_block_id().0;
        let tiles_m: i32 = ceil_div(m, BM);
        let tiles_n: i32 = ceil_div(n, BN);
        let blocks_per_group: i32 = GROUP_M * tiles_n;
        let group: i32 = bid / blocks_per_group;
        let first_m: i32 = group * GROUP_M;
        let rows_in_group: i32 = min(tiles_m - first_m, GROUP_M);
        let tile_m: i32 = first_m + bid % rows_in_group;
        let tile_n: i32 = (bid % blocks_per_group) / rows_in_group;

        // Zero padding: a ragged last K tile adds nothing.
        let a_tiles: Partition<E, { [BM, BK] }> = if TRANS_A == 1i32 {
            a.partition_permuted(shape![BM, BK], const_array![1, 0])
        } else {
            a.partition(shape![BM, BK])
        };
        let b_tiles: Partition<E, { [BK, BN] }> = if TRANS_B == 1i32 {
            b.partition_permuted(shape![BK, BN], const_array![1, 0])
        } else {
            b.partition(shape![BK, BN])
        };
        // K tiles counted on an unpadded view of a in the same order, as ct.num_tiles(a, ...,
        // order=...) does.
        let a_grid: Partition<E, { [BM, BK] }> = if TRANS_A == 1i32 {
            unsafe { make_partition_view(a, shape![BM, BK], padding::None, const_array![1, 0], a.token()) }
        } else {
            unsafe { make_partition_view(a, shape![BM, BK], padding::None, dim_map::Identity, a.token()) }
        };
        let k_tiles: i32 = num_tiles(&a_grid, 1);
        let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
        for kk in 0i32..k_tiles {
            let ta: Tile<E, { [BM, BK] }> = a_tiles.load([tile_m, kk]);
            let tb: Tile<E, { [BK, BN] }> = b_tiles.load([kk, tile_n]);
            if CAST_TF32 == 1i32 {
                let ta32: Tile<tf32, { [BM, BK] }> = convert_tile(ta);
                let tb32: Tile<tf32, { [BK, BN] }> = convert_tile(tb);
                acc = mma(ta32, tb32, acc);
            } else {
                acc = mma(ta, tb, acc);
            }
        }
        let mut c_tiles: PartitionMut<E, { [BM, BN] }> = unsafe { c.partition_full_mut(shape![BM, BN]) };
        let c_tile: Tile<E, { [BM, BN] }> = convert_tile(acc);
        unsafe { c_tiles.store_unchecked(c_tile, [tile_m, tile_n]) };
    }
}
