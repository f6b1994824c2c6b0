//! cuTile Rust port of reference/rms_norm/kernel.py: y = x * rstd * w with
//! rstd = 1 / sqrt(mean(x^2) + eps), statistics in f32; rstd is stored for the backward.
//! `rms_norm_fwd` holds TILE_M whole rows in one tile, `rms_norm_fwd_looped` streams one row
//! in TILE_N tiles, `rms_norm_bwd` computes dx and per-block dw partial sums. `eps` is a
//! runtime f32 on both sides (in Python too).
//!
//! `rms_norm_fwd_fast_o{16,8,4}` (reference `rms_norm_fwd_fast`, the `_fast` forward variants):
//! one row per block, both loads before any conversion, mean(x^2) as the sum of squares times an
//! approximate, flushing 1/n, under the occupancy hints of Python's `ct.kernel(..., occupancy=K)`.

#[cutile::module]
pub mod rms_norm_kernel {
    use cutile::core::*;

    /// The body of `rms_norm_fwd` and its occupancy-hinted entries.
    fn rms_norm_fwd_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let n: i32 = get_shape_dim(x.shape(), 1i32);
        // Zero padding: padded columns add nothing to the sum of squares.
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([block.0, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let sum_sq: Tile<f32, { [TILE_M] }> = reduce_sum(t * t, 1);
        let n_f: Tile<f32, { [TILE_M, 1] }> = broadcast_scalar(convert_scalar::<f32>(n), shape![TILE_M, 1]);
        // IEEE division like Python's `/` (true_div would emit an approximate, flushing divf).
        let mean_sq: Tile<f32, { [TILE_M, 1] }> =
            divf(sum_sq.reshape(shape![TILE_M, 1]), n_f, rounding::NearestEven, ftz::Disabled);
        let r: Tile<f32, { [TILE_M, 1] }> = rsqrt(mean_sq + broadcast_scalar(eps, shape![TILE_M, 1]), ftz::Disabled);
        let w_raw: Tile<E, { [TILE_N] }> = w.partition(shape![TILE_N]).load([0i32]);
        let g: Tile<f32, { [TILE_N] }> = convert_tile(w_raw);
        let y: Tile<f32, { [TILE_M, TILE_N] }> =
            t * r.broadcast(shape![TILE_M, TILE_N]) * g.reshape(shape![1, TILE_N]).broadcast(shape![TILE_M, TILE_N]);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        let y_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(y);
        unsafe { out_tiles.store_unchecked(y_out, [block.0, 0i32]) };
        let mut rstd_tiles: PartitionMut<f32, { [TILE_M] }> = unsafe { rstd.partition_full_mut(shape![TILE_M]) };
        unsafe { rstd_tiles.store_unchecked(r.reshape(shape![TILE_M]), [block.0]) };
    }

    /// The body of `rms_norm_fwd_looped` and its occupancy-hinted entries.
    fn rms_norm_fwd_looped_body<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let row: i32 = block.0;
        let n: i32 = get_shape_dim(x.shape(), 1i32);
        let x_tiles: Partition<E, { [1, TILE_N] }> = x.partition(shape![1, TILE_N]);
        let w_tiles: Partition<E, { [TILE_N] }> = w.partition(shape![TILE_N]);
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does.
        let x_grid: Partition<E, { [1, TILE_N] }> =
            unsafe { make_partition_view(x, shape![1, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let num_col_tiles: i32 = num_tiles(&x_grid, 1);
        let mut acc: Tile<f32, { [1, TILE_N] }> = constant(0.0f32, shape![1, TILE_N]);
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_N] }> = x_tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_N] }> = convert_tile(raw);
            // Elementwise accumulation; one reduction after the loop.
            // One fma per element, as cuTile Python contracts `acc + t * t`.
            acc = fma(t, t, acc, rounding::NearestEven, ftz::Disabled);
        }
        let sum_sq: Tile<f32, { [1] }> = reduce_sum(acc, 1);
        // Scalars become (1, 1) tiles by a reshape alone, as in Python.
        let n_f: Tile<f32, { [] }> = scalar_to_tile(convert_scalar::<f32>(n));
        let n_f: Tile<f32, { [1, 1] }> = n_f.reshape(shape![1, 1]);
        let mean_sq: Tile<f32, { [1, 1] }> =
            divf(sum_sq.reshape(shape![1, 1]), n_f, rounding::NearestEven, ftz::Disabled);
        let eps_t: Tile<f32, { [] }> = scalar_to_tile(eps);
        let r: Tile<f32, { [1, 1] }> = rsqrt(mean_sq + eps_t.reshape(shape![1, 1]), ftz::Disabled);
        let r_b: Tile<f32, { [1, TILE_N] }> = r.broadcast(shape![1, TILE_N]);
        let mut out_tiles: PartitionMut<E, { [1, TILE_N] }> = unsafe { out.partition_full_mut(shape![1, TILE_N]) };
        for j in 0i32..num_col_tiles {
            let raw: Tile<E, { [1, TILE_N] }> = x_tiles.load([row, j]);
            let t: Tile<f32, { [1, TILE_N] }> = convert_tile(raw);
            let w_raw: Tile<E, { [TILE_N] }> = w_tiles.load([j]);
            let g: Tile<f32, { [TILE_N] }> = convert_tile(w_raw);
            let y: Tile<f32, { [1, TILE_N] }> = t * r_b * g.reshape(shape![1, TILE_N]);
            let y_out: Tile<E, { [1, TILE_N] }> = convert_tile(y);
            unsafe { out_tiles.store_unchecked(y_out, [row, j]) };
        }
        let mut rstd_tiles: PartitionMut<f32, { [1] }> = unsafe { rstd.partition_full_mut(shape![1]) };
        unsafe { rstd_tiles.store_unchecked(r.reshape(shape![1]), [row]) };
    }

    /// dx for TILE_M whole rows per step, ROW_TILES steps per block (the last block may own
    /// fewer), and one row of dw partial sums per block (dw = dw_partial.sum(0) on the host).
    /// The body of `rms_norm_bwd` and `rms_norm_bwd_o2`.
    fn rms_norm_bwd_body<E: ElementType, const TILE_M: i32, const TILE_N: i32, const ROW_TILES: i32>(
        dy: &Tensor<E, { [-1, -1] }>,
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        dx: &Tensor<E, { [-1, -1] }>,
        dw_partial: &Tensor<f32, { [-1, -1] }>,
    ) {
        let block: i32 = get_tile_block_id().0;
        let n: i32 = get_shape_dim(x.shape(), 1i32);
        let num_row_tiles: i32 = ceil_div(get_shape_dim(x.shape(), 0i32), TILE_M);
        let first: i32 = block * ROW_TILES;
        let count: i32 = min(ROW_TILES, num_row_tiles - first);
        let w_raw: Tile<E, { [TILE_N] }> = w.partition(shape![TILE_N]).load([0i32]);
        let g_w: Tile<f32, { [TILE_N] }> = convert_tile(w_raw);
        let g_w: Tile<f32, { [1, TILE_N] }> = g_w.reshape(shape![1, TILE_N]);
        let mut dw_acc: Tile<f32, { [TILE_M, TILE_N] }> = constant(0.0f32, shape![TILE_M, TILE_N]);
        // Zero padding everywhere: padded rows get rstd 0 and add nothing to dw.
        let x_tiles: Partition<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]);
        let dy_tiles: Partition<E, { [TILE_M, TILE_N] }> = dy.partition(shape![TILE_M, TILE_N]);
        let rstd_tiles: Partition<f32, { [TILE_M] }> = rstd.partition(shape![TILE_M]);
        let g_w: Tile<f32, { [TILE_M, TILE_N] }> = g_w.broadcast(shape![TILE_M, TILE_N]);
        let n_f: Tile<f32, { [TILE_M, 1] }> = broadcast_scalar(convert_scalar::<f32>(n), shape![TILE_M, 1]);
        let mut dx_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { dx.partition_full_mut(shape![TILE_M, TILE_N]) };
        for k in 0i32..count {
            let i: i32 = first + k;
            let t_raw: Tile<E, { [TILE_M, TILE_N] }> = x_tiles.load([i, 0i32]);
            let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(t_raw);
            let d_raw: Tile<E, { [TILE_M, TILE_N] }> = dy_tiles.load([i, 0i32]);
            let d: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(d_raw);
            let r: Tile<f32, { [TILE_M] }> = rstd_tiles.load([i]);
            let r: Tile<f32, { [TILE_M, 1] }> = r.reshape(shape![TILE_M, 1]);
            let g: Tile<f32, { [TILE_M, TILE_N] }> = d * g_w;
            let gt: Tile<f32, { [TILE_M] }> = reduce_sum(g * t, 1);
            let c: Tile<f32, { [TILE_M, 1] }> =
                divf(gt.reshape(shape![TILE_M, 1]), n_f, rounding::NearestEven, ftz::Disabled);
            let rr: Tile<f32, { [TILE_M, TILE_N] }> = (r * r).broadcast(shape![TILE_M, TILE_N]);
            let r_b: Tile<f32, { [TILE_M, TILE_N] }> = r.broadcast(shape![TILE_M, TILE_N]);
            let dx_f: Tile<f32, { [TILE_M, TILE_N] }> = r_b * (g - t * rr * c.broadcast(shape![TILE_M, TILE_N]));
            let dx_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(dx_f);
            unsafe { dx_tiles.store_unchecked(dx_out, [i, 0i32]) };
            // `dw_acc + d * t * r` as one fma, as cuTile Python contracts it.
            dw_acc = fma(d * t, r_b, dw_acc, rounding::NearestEven, ftz::Disabled);
        }
        let dw: Tile<f32, { [TILE_N] }> = reduce_sum(dw_acc, 0);
        let mut dw_tiles: PartitionMut<f32, { [1, TILE_N] }> =
            unsafe { dw_partial.partition_full_mut(shape![1, TILE_N]) };
        unsafe { dw_tiles.store_unchecked(dw.reshape(shape![1, TILE_N]), [block, 0i32]) };
    }

    /// The body of the `rms_norm_fwd_fast` entries: x and w loaded before any conversion, 1/n as
    /// rcp.approx (flush-to-zero), rsqrt precise.
    fn rms_norm_fwd_fast_body<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        let block: i32 = get_tile_block_id().0;
        let n: i32 = get_shape_dim(x.shape(), 1i32);
        // Zero padding: padded columns add nothing to the sum of squares.
        let x_raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([block, 0i32]);
        let w_raw: Tile<E, { [TILE_N] }> = w.partition(shape![TILE_N]).load([0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(x_raw);
        // 1 / n as rcp.approx, flush-to-zero (Python's `approx_div(1.0, n)`).
        let n_f: Tile<f32, { [] }> = scalar_to_tile(convert_scalar::<f32>(n));
        let one: Tile<f32, { [] }> = constant(1.0f32, shape![]);
        let inv_n: Tile<f32, { [] }> = divf(one, n_f, rounding::Approx, ftz::Enabled);
        let sum_sq: Tile<f32, { [TILE_M] }> = reduce_sum(t * t, 1);
        // mean_sq + eps with mean_sq = sum_sq * (1 / n): one fma, as Python contracts them.
        let mean_sq_eps: Tile<f32, { [TILE_M, 1] }> = fma(
            inv_n.reshape(shape![TILE_M, 1]),
            sum_sq.reshape(shape![TILE_M, 1]),
            broadcast_scalar(eps, shape![TILE_M, 1]),
            rounding::NearestEven,
            ftz::Disabled,
        );
        let r: Tile<f32, { [TILE_M, 1] }> = rsqrt(mean_sq_eps, ftz::Disabled);
        let g: Tile<f32, { [TILE_N] }> = convert_tile(w_raw);
        let y: Tile<f32, { [TILE_M, TILE_N] }> =
            t * r.broadcast(shape![TILE_M, TILE_N]) * g.reshape(shape![1, TILE_N]).broadcast(shape![TILE_M, TILE_N]);
        let y_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(y);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { out_tiles.store_unchecked(y_out, [block, 0i32]) };
        let mut rstd_tiles: PartitionMut<f32, { [TILE_M] }> = unsafe { rstd.partition_full_mut(shape![TILE_M]) };
        unsafe { rstd_tiles.store_unchecked(r.reshape(shape![TILE_M]), [block]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rms_norm_fwd<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_body::<E, TILE_M, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn rms_norm_fwd_o4<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_body::<E, TILE_M, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 2,),))]
    unsafe fn rms_norm_fwd_o2<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_body::<E, TILE_M, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rms_norm_fwd_looped<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_looped_body::<E, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn rms_norm_fwd_looped_o4<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_looped_body::<E, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rms_norm_bwd<E: ElementType, const TILE_M: i32, const TILE_N: i32, const ROW_TILES: i32>(
        dy: &Tensor<E, { [-1, -1] }>,
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        dx: &Tensor<E, { [-1, -1] }>,
        dw_partial: &Tensor<f32, { [-1, -1] }>,
    ) {
        rms_norm_bwd_body::<E, TILE_M, TILE_N, ROW_TILES>(dy, x, w, rstd, dx, dw_partial);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 2,),))]
    unsafe fn rms_norm_bwd_o2<E: ElementType, const TILE_M: i32, const TILE_N: i32, const ROW_TILES: i32>(
        dy: &Tensor<E, { [-1, -1] }>,
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        dx: &Tensor<E, { [-1, -1] }>,
        dw_partial: &Tensor<f32, { [-1, -1] }>,
    ) {
        rms_norm_bwd_body::<E, TILE_M, TILE_N, ROW_TILES>(dy, x, w, rstd, dx, dw_partial);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 16,),))]
    unsafe fn rms_norm_fwd_fast_o16<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_fast_body::<E, TILE_M, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn rms_norm_fwd_fast_o8<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_fast_body::<E, TILE_M, TILE_N>(x, w, out, rstd, eps);
    }

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn rms_norm_fwd_fast_o4<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
        rstd: &Tensor<f32, { [-1] }>,
        eps: f32,
    ) {
        rms_norm_fwd_fast_body::<E, TILE_M, TILE_N>(x, w, out, rstd, eps);
    }
}
