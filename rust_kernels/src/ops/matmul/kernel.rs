//! cuTile Rust port of reference/matmul/kernel.py: C = op(A) @ op(B), one BMxBN output tile
//! per block on a 1-D grouped grid, a K loop of mma into an f32 accumulator. `matmul` takes
//! f16/bf16/f32 operands, `matmul_fp8` e4m3 operands with per-tensor scales and a 16-bit output.
//!
//! Python's `ct.Constant[int]` (BM, BN, BK, GROUP_M) and `ct.Constant[bool]` (TRANS_A,
//! TRANS_B) are const generics (the flags as i32 0/1); the compiler folds the `if` on them.
//! A transposed operand is read through a dim_map=[1, 0] view of the stored array, like
//! Python's `order=(1, 0)`. `CAST_TF32` = 1 rounds f32 operands to tf32 before the mma
//! (Python decides this from `a.dtype == ct.float32` at trace time; Rust cannot branch on a
//! type generic, so the variant table sets the flag). `scale_a`, `scale_b` are runtime f32
//! scalars on both sides.

#[cutile::module]
pub mod matmul_kernel {
    use cutile::core::*;

    /// The 1-D block id as (tile_m, tile_n), GROUP_M row-tiles at a time: consecutive blocks
    /// walk down a column of GROUP_M row-tiles before the next column, so shared B tiles stay
    /// in L2. All values are non-negative, so Rust's truncating `/` and `%` equal Python's
    /// floor `//` and `%`.
    pub fn grouped_tile_coords<const BM: i32, const BN: i32, const GROUP_M: i32>(m: i32, n: i32) -> (i32, i32) {
        let bid: i32 = get_tile_block_id().0;
        let tiles_m: i32 = ceil_div(m, BM);
        let tiles_n: i32 = ceil_div(n, BN);
        let blocks_per_group: i32 = GROUP_M * tiles_n;
        let group: i32 = bid / blocks_per_group;
        let first_m: i32 = group * GROUP_M;
        let rows_in_group: i32 = min(tiles_m - first_m, GROUP_M);
        let tile_m: i32 = first_m + bid % rows_in_group;
        let tile_n: i32 = (bid % blocks_per_group) / rows_in_group;
        (tile_m, tile_n)
    }

    /// Output tile number t as (tile_m, tile_n) in the GROUP_M order of `grouped_tile_coords`
    /// (the block id there, each tile a persistent block visits in `matmul_w8_persistent`), with
    /// the reference's max(1, ...) on rows_in_group (at least 1 for every tile; stated so an
    /// interval reading of the IR sees it).
    pub fn tile_coords_of<const GROUP_M: i32>(t: i32, tiles_m: i32, tiles_n: i32) -> (i32, i32) {
        let blocks_per_group: i32 = GROUP_M * tiles_n;
        let group: i32 = t / blocks_per_group;
        let first_m: i32 = group * GROUP_M;
        let rows_in_group: i32 = max(1i32, min(tiles_m - first_m, GROUP_M));
        let tile_m: i32 = first_m + t % rows_in_group;
        let tile_n: i32 = (t % blocks_per_group) / rows_in_group;
        (tile_m, tile_n)
    }

    /// Stores `tile` at `index` of `view` after the memory effects `after` stands for and returns
    /// the store's token: the persistent kernels thread it from one output tile's store to the
    /// next, as cuTile Python orders the stores of a loop (its token is carried through the
    /// loop). `store_unchecked` would order each store only after the view's creation.
    ///
    /// # Safety
    /// `index` must lie inside the partition grid on both axes (as for `store_unchecked`).
    unsafe fn store_tile_after<E: ElementType, const BM: i32, const BN: i32>(
        view: &PartitionMut<E, { [BM, BN] }>,
        tile: Tile<E, { [BM, BN] }>,
        index: [i32; 2],
        after: Token,
    ) -> Token {
        unsafe {
            store_view_raw(view, tile, index, Some(after), ordering::Weak, scope::TileBlock, tma::Enabled, None, [false, false])
        }
    }

    /// f32 (BM, BN) accumulator of op(A)[tile_m] @ op(B)[:, tile_n] over all of K. Zero padding:
    /// a ragged last K tile adds nothing.
    fn gemm_mainloop<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
    >(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        tile_m: i32,
        tile_n: i32,
    ) -> Tile<f32, { [BM, BN] }> {
        // K tiles counted on an unpadded view of a in its load order, as
        // ct.num_tiles(a, axis=1, shape=..., order=...) does.
        let a_grid: Partition<E, { [BM, BK] }> = if TRANS_A == 1i32 {
            unsafe { make_partition_view(a, shape![BM, BK], padding::None, const_array![1, 0], a.token()) }
        } else {
            unsafe { make_partition_view(a, shape![BM, BK], padding::None, dim_map::Identity, a.token()) }
        };
        let k_tiles: i32 = num_tiles(&a_grid, 1);
        let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
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
        acc
    }

    /// The body of `matmul` and `matmul_w8`.
    fn matmul_body<
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
        let (tile_m, tile_n): (i32, i32) = grouped_tile_coords::<BM, BN, GROUP_M>(m, n);
        let acc: Tile<f32, { [BM, BN] }> =
            gemm_mainloop::<E, BM, BN, BK, TRANS_A, TRANS_B, CAST_TF32>(a, b, tile_m, tile_n);
        let c_tile: Tile<E, { [BM, BN] }> = convert_tile(acc);
        let mut c_tiles: PartitionMut<E, { [BM, BN] }> = unsafe { c.partition_full_mut(shape![BM, BN]) };
        unsafe { c_tiles.store_unchecked(c_tile, [tile_m, tile_n]) };
    }

    /// c = (scale_a * scale_b) * (op(a) @ op(b)) with fp8 operands (EIn) and a 16-bit output
    /// (EOut); the scale product is applied once to the f32 accumulator. The body of
    /// `matmul_fp8` and `matmul_fp8_w8`.
    fn matmul_fp8_body<
        EIn: ElementType,
        EOut: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
    >(
        a: &Tensor<EIn, { [-1, -1] }>,
        b: &Tensor<EIn, { [-1, -1] }>,
        c: &Tensor<EOut, { [-1, -1] }>,
        scale_a: f32,
        scale_b: f32,
    ) {
        let m: i32 = get_shape_dim(c.shape(), 0i32);
        let n: i32 = get_shape_dim(c.shape(), 1i32);
        let (tile_m, tile_n): (i32, i32) = grouped_tile_coords::<BM, BN, GROUP_M>(m, n);
        let acc: Tile<f32, { [BM, BN] }> = gemm_mainloop::<EIn, BM, BN, BK, TRANS_A, TRANS_B, 0>(a, b, tile_m, tile_n);
        let scale: f32 = scale_a * scale_b;
        let acc: Tile<f32, { [BM, BN] }> = acc * broadcast_scalar(scale, shape![BM, BN]);
        let c_tile: Tile<EOut, { [BM, BN] }> = convert_tile(acc);
        let mut c_tiles: PartitionMut<EOut, { [BM, BN] }> = unsafe { c.partition_full_mut(shape![BM, BN]) };
        unsafe { c_tiles.store_unchecked(c_tile, [tile_m, tile_n]) };
    }

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
        matmul_body::<E, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B, CAST_TF32>(a, b, c);
    }

    /// `ct.kernel(num_worker_warps=8)`: two consumer warpgroups, so a 128x256 f32 accumulator
    /// fits in registers (Python writes `optimization_hints=<default = {num_worker_warps_per_cta = 8}>`).
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn matmul_w8<
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
        matmul_body::<E, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B, CAST_TF32>(a, b, c);
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn matmul_fp8<
        EIn: ElementType,
        EOut: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
    >(
        a: &Tensor<EIn, { [-1, -1] }>,
        b: &Tensor<EIn, { [-1, -1] }>,
        c: &Tensor<EOut, { [-1, -1] }>,
        scale_a: f32,
        scale_b: f32,
    ) {
        matmul_fp8_body::<EIn, EOut, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B>(a, b, c, scale_a, scale_b);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn matmul_fp8_w8<
        EIn: ElementType,
        EOut: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
    >(
        a: &Tensor<EIn, { [-1, -1] }>,
        b: &Tensor<EIn, { [-1, -1] }>,
        c: &Tensor<EOut, { [-1, -1] }>,
        scale_a: f32,
        scale_b: f32,
    ) {
        matmul_fp8_body::<EIn, EOut, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B>(a, b, c, scale_a, scale_b);
    }

    /// `matmul_w8` on a persistent grid (Python's `matmul_w8_persistent`): each block computes the
    /// output tiles bid, bid + grid, ... in GROUP_M order. NUM_BLOCKS is read by the launch grid
    /// only (min(NUM_BLOCKS, tiles)); the loop steps by the grid the kernel was launched with.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn matmul_w8_persistent<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
        const CAST_TF32: i32,
        const NUM_BLOCKS: i32,
    >(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let tiles_m: i32 = ceil_div(get_shape_dim(c.shape(), 0i32), BM);
        let tiles_n: i32 = ceil_div(get_shape_dim(c.shape(), 1i32), BN);
        let mut stored: Token = c.token();
        for t in (get_tile_block_id().0..tiles_m * tiles_n).step_by(get_num_tile_blocks().0 as usize) {
            let (tile_m, tile_n): (i32, i32) = tile_coords_of::<GROUP_M>(t, tiles_m, tiles_n);
            let acc: Tile<f32, { [BM, BN] }> =
                gemm_mainloop::<E, BM, BN, BK, TRANS_A, TRANS_B, CAST_TF32>(a, b, tile_m, tile_n);
            let c_tile: Tile<E, { [BM, BN] }> = convert_tile(acc);
            let c_tiles: PartitionMut<E, { [BM, BN] }> = unsafe { c.partition_full_mut(shape![BM, BN]) };
            stored = unsafe { store_tile_after(&c_tiles, c_tile, [tile_m, tile_n], stored) };
        }
    }

    /// `matmul_fp8_w8` on the persistent grid of `matmul_w8_persistent`.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn matmul_fp8_w8_persistent<
        EIn: ElementType,
        EOut: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
        const NUM_BLOCKS: i32,
    >(
        a: &Tensor<EIn, { [-1, -1] }>,
        b: &Tensor<EIn, { [-1, -1] }>,
        c: &Tensor<EOut, { [-1, -1] }>,
        scale_a: f32,
        scale_b: f32,
    ) {
        let tiles_m: i32 = ceil_div(get_shape_dim(c.shape(), 0i32), BM);
        let tiles_n: i32 = ceil_div(get_shape_dim(c.shape(), 1i32), BN);
        let mut stored: Token = c.token();
        for t in (get_tile_block_id().0..tiles_m * tiles_n).step_by(get_num_tile_blocks().0 as usize) {
            let (tile_m, tile_n): (i32, i32) = tile_coords_of::<GROUP_M>(t, tiles_m, tiles_n);
            let acc: Tile<f32, { [BM, BN] }> =
                gemm_mainloop::<EIn, BM, BN, BK, TRANS_A, TRANS_B, 0>(a, b, tile_m, tile_n);
            let scale: f32 = scale_a * scale_b;
            let acc: Tile<f32, { [BM, BN] }> = acc * broadcast_scalar(scale, shape![BM, BN]);
            let c_tile: Tile<EOut, { [BM, BN] }> = convert_tile(acc);
            let c_tiles: PartitionMut<EOut, { [BM, BN] }> = unsafe { c.partition_full_mut(shape![BM, BN]) };
            stored = unsafe { store_tile_after(&c_tiles, c_tile, [tile_m, tile_n], stored) };
        }
    }

    /// `ct.kernel(num_worker_warps=8, num_ctas=2)`: the block is a two-CTA cluster that splits the
    /// tile and multicasts the shared operand (Python writes
    /// `optimization_hints=<default = {num_cta_in_cga = 2, num_worker_warps_per_cta = 8}>`).
    #[cutile::entry(
        unchecked_accesses = true,
        optimization_hints = (default = (num_cta_in_cga = 2, num_worker_warps_per_cta = 8,),)
    )]
    unsafe fn matmul_fp8_w8_c2<
        EIn: ElementType,
        EOut: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const GROUP_M: i32,
        const TRANS_A: i32,
        const TRANS_B: i32,
    >(
        a: &Tensor<EIn, { [-1, -1] }>,
        b: &Tensor<EIn, { [-1, -1] }>,
        c: &Tensor<EOut, { [-1, -1] }>,
        scale_a: f32,
        scale_b: f32,
    ) {
        matmul_fp8_body::<EIn, EOut, BM, BN, BK, GROUP_M, TRANS_A, TRANS_B>(a, b, c, scale_a, scale_b);
    }
}
