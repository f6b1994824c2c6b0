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
    use crate::ops::matmul::kernel::matmul_kernel::grouped_tile_coords;
    use cutile::core::*;

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
}
