//! cuTile Rust port of reference/bmm/kernel.py: c[z] = a[z] @ op(b[z]), one BMxBN output tile of
//! one batch per block. Grid axis 1 is the batch, axis 0 walks the output tiles of one batch in
//! grouped order (matmul's `grouped_tile_coords`, shared with the matmul port). The K loop loads
//! (1, BM, BK) and (1, BK, BN) slabs of the 3-D arrays and reshapes them to 2-D for the mma.
//!
//! `bmm` and `bmm_w8` are Python's one body `_bmm` under two option sets; here one non-entry
//! body, `bmm_body`, and two thin entries (the w8 one with `num_worker_warps_per_cta = 8`).
//! `TRANS_B` = 1 reads b stored (B, N, K) through a dim_map = [0, 2, 1] view (Python's
//! `order=(0, 2, 1)`); `CAST_TF32` = 1 rounds f32 operands to tf32 (Python's trace-time
//! `a.dtype == ct.float32`), as in the matmul port.

#[cutile::module]
pub mod bmm_kernel {
    use crate::ops::matmul::kernel::matmul_kernel::{grouped_tile_coords, tile_coords_of};
    use cutile::core::*;

    /// f32 (BM, BN) accumulator of a[z][tile_m] @ op(b[z])[:, tile_n] over all of K (Python's
    /// `bmm_mainloop`).
    fn bmm_mainloop<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
    >(
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
        z: i32,
        tile_m: i32,
        tile_n: i32,
    ) -> Tile<f32, { [BM, BN] }> {
        let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
        // K tiles counted on an unpadded view, as ct.num_tiles(a, axis=2, shape=(1, BM, BK)) does.
        let a_grid: Partition<E, { [1, BM, BK] }> =
            unsafe { make_partition_view(a, shape![1, BM, BK], padding::None, dim_map::Identity, a.token()) };
        let k_tiles: i32 = num_tiles(&a_grid, 2);
        let a_tiles: Partition<E, { [1, BM, BK] }> = a.partition(shape![1, BM, BK]);
        let b_tiles: Partition<E, { [1, BK, BN] }> = if TRANS_B == 1i32 {
            b.partition_permuted(shape![1, BK, BN], const_array![0, 2, 1])
        } else {
            b.partition(shape![1, BK, BN])
        };
        for kk in 0i32..k_tiles {
            let ta: Tile<E, { [1, BM, BK] }> = a_tiles.load([z, tile_m, kk]);
            let tb: Tile<E, { [1, BK, BN] }> = b_tiles.load([z, kk, tile_n]);
            if CAST_TF32 == 1i32 {
                // rounded as loaded, before the reshape (as the reference: the wgmma then reads
                // the tiles as tf32 instead of tileiras rounding them in registers)
                let ta32: Tile<tf32, { [1, BM, BK] }> = convert_tile(ta);
                let tb32: Tile<tf32, { [1, BK, BN] }> = convert_tile(tb);
                acc = mma(ta32.reshape(shape![BM, BK]), tb32.reshape(shape![BK, BN]), acc);
            } else {
                acc = mma(ta.reshape(shape![BM, BK]), tb.reshape(shape![BK, BN]), acc);
            }
        }
        acc
    }

    /// The body of `bmm` and `bmm_w8`.
    fn bmm_body<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
    >(
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
        c: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let z: i32 = get_tile_block_id().1;
        let m: i32 = get_shape_dim(c.shape(), 1i32);
        let n: i32 = get_shape_dim(c.shape(), 2i32);
        let (tile_m, tile_n): (i32, i32) = grouped_tile_coords::<BM, BN, GROUP_M>(m, n);
        let acc: Tile<f32, { [BM, BN] }> = bmm_mainloop::<E, BM, BN, BK, TRANS_B, CAST_TF32>(a, b, z, tile_m, tile_n);
        let out: Tile<E, { [BM, BN] }> = convert_tile(acc);
        let out: Tile<E, { [1, BM, BN] }> = out.reshape(shape![1, BM, BN]);
        let mut c_tiles: PartitionMut<E, { [1, BM, BN] }> = unsafe { c.partition_full_mut(shape![1, BM, BN]) };
        unsafe { c_tiles.store_unchecked(out, [z, tile_m, tile_n]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn bmm<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
    >(
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
        c: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        bmm_body::<E, BM, BN, BK, GROUP_M, TRANS_B, CAST_TF32>(a, b, c);
    }

    /// `ct.kernel(_bmm, num_worker_warps=8)`: two consumer warpgroups (Python writes
    /// `optimization_hints=<default = {num_worker_warps_per_cta = 8}>`).
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn bmm_w8<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
    >(
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
        c: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        bmm_body::<E, BM, BN, BK, GROUP_M, TRANS_B, CAST_TF32>(a, b, c);
    }

    /// `bmm_w8` on a persistent grid (Python's `bmm_w8_persistent`): a 1-D grid whose blocks each
    /// compute the (batch, tile) pairs bid, bid + grid, ... of all B * tiles output tiles
    /// (batch-major, GROUP_M order within a batch). NUM_BLOCKS is read by the launch grid only
    /// (min(NUM_BLOCKS, B * tiles)); the loop steps by the grid the kernel was launched with. Each
    /// store is ordered after the previous tile's (its token carried through the loop, as cuTile
    /// Python carries it).
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn bmm_w8_persistent<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
        const NUM_BLOCKS: i32,
    >(
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
        c: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let tiles_m: i32 = ceil_div(get_shape_dim(c.shape(), 1i32), BM);
        let tiles_n: i32 = ceil_div(get_shape_dim(c.shape(), 2i32), BN);
        let tiles: i32 = tiles_m * tiles_n;
        // >= 1 where an interval reading of the IR sees it, as the reference writes it
        let per_batch: i32 = max(1i32, tiles);
        let mut stored: Token = c.token();
        let total: i32 = get_shape_dim(c.shape(), 0i32) * tiles;
        for t in (get_tile_block_id().0..total).step_by(get_num_tile_blocks().0 as usize) {
            let z: i32 = t / per_batch;
            let (tile_m, tile_n): (i32, i32) = tile_coords_of::<GROUP_M>(t % per_batch, tiles_m, tiles_n);
            let acc: Tile<f32, { [BM, BN] }> = bmm_mainloop::<E, BM, BN, BK, TRANS_B, CAST_TF32>(a, b, z, tile_m, tile_n);
            let out: Tile<E, { [BM, BN] }> = convert_tile(acc);
            let out: Tile<E, { [1, BM, BN] }> = out.reshape(shape![1, BM, BN]);
            let c_tiles: PartitionMut<E, { [1, BM, BN] }> = unsafe { c.partition_full_mut(shape![1, BM, BN]) };
            stored = unsafe { store_view_raw(&c_tiles, out, [z, tile_m, tile_n], Some(stored), ordering::Weak, scope::TileBlock, tma::Enabled, None, [false, false, false]) };
        }
    }
}
