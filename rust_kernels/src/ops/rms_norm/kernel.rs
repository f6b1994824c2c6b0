//! cuTile Rust port of the forward kernels of reference/rms_norm/kernel.py:
//! y = x * rstd * w with rstd = 1 / sqrt(mean(x^2) + eps), statistics in f32; rstd is stored
//! for the backward. `rms_norm_fwd` holds TILE_M whole rows in one tile, `rms_norm_fwd_looped`
//! streams one row in TILE_N tiles. `eps` is a runtime f32 on both sides (in Python too).

#[cutile::module]
pub mod rms_norm_kernel {
    use cutile::core::*;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rms_norm_fwd<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
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

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn rms_norm_fwd_looped<E: ElementType, const TILE_N: i32>(
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
}
