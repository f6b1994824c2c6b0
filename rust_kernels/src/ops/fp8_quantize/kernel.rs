//! cuTile Rust port of reference/fp8_quantize/kernel.py: per-row fp8 e4m3 quantization,
//! scale[r] = max(max_c |x[r, c]|, MIN_ABSMAX) / 448 and q = clamp(x / scale, -448, 448) as
//! float8_e4m3fn, math in f32. `fp8_quant_rows` holds TILE_M whole rows in one tile (zero
//! padded: padded columns add |0| to the max); `fp8_quant_rows_looped` makes two passes over
//! column tiles. The Python literals are f32 `const`s.

#[cutile::module]
pub mod fp8_quantize_kernel {
    use cutile::core::*;

    const FP8_E4M3_MAX: f32 = 448.0f32;
    const MIN_ABSMAX: f32 = 1e-12f32;
    // The clamp floor, -FP8_E4M3_MAX (a negated const is not a constant expression to the compiler).
    const FP8_E4M3_LOWEST: f32 = -448.0f32;

    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn fp8_quant_rows<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        q: &Tensor<f8e4m3fn, { [-1, -1] }>,
        scales: &Tensor<f32, { [-1] }>,
    ) {
        let tile_m: i32 = get_tile_block_id().0;
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([tile_m, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let absmax: Tile<f32, { [TILE_M] }> = reduce_max(absf(t), 1);
        let absmax: Tile<f32, { [TILE_M, 1] }> = absmax.reshape(shape![TILE_M, 1]);
        // IEEE division like Python's `/` (true_div would emit an approximate, flushing divf).
        let scale: Tile<f32, { [TILE_M, 1] }> = divf(
            max_tile(absmax, broadcast_scalar(MIN_ABSMAX, shape![TILE_M, 1])),
            broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, 1]),
            rounding::NearestEven,
            ftz::Disabled,
        );
        let scaled: Tile<f32, { [TILE_M, TILE_N] }> =
            divf(t, scale.broadcast(shape![TILE_M, TILE_N]), rounding::NearestEven, ftz::Disabled);
        let quant: Tile<f32, { [TILE_M, TILE_N] }> = min_tile(
            max_tile(scaled, broadcast_scalar(FP8_E4M3_LOWEST, shape![TILE_M, TILE_N])),
            broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, TILE_N]),
        );
        let q_out: Tile<f8e4m3fn, { [TILE_M, TILE_N] }> = convert_tile(quant);
        // Outputs are read-only in the signature (Python's calling convention); the stores go
        // through full-tensor mutable views at the block's tile, as ct.store(..., index=...).
        let mut q_tiles: PartitionMut<f8e4m3fn, { [TILE_M, TILE_N] }> =
            unsafe { q.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { q_tiles.store_unchecked(q_out, [tile_m, 0i32]) };
        let mut scale_tiles: PartitionMut<f32, { [TILE_M] }> = unsafe { scales.partition_full_mut(shape![TILE_M]) };
        unsafe { scale_tiles.store_unchecked(scale.reshape(shape![TILE_M]), [tile_m]) };
    }

    /// `fp8_quant_rows` with 448 / absmax once per row and a multiply per element where it
    /// divides by the scale (Python `fp8_quant_rows_fast`, `_quantize_fast`); the scale written
    /// is `fp8_quant_rows`' exactly.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn fp8_quant_rows_fast<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        q: &Tensor<f8e4m3fn, { [-1, -1] }>,
        scales: &Tensor<f32, { [-1] }>,
    ) {
        let tile_m: i32 = get_tile_block_id().0;
        let raw: Tile<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]).load([tile_m, 0i32]);
        let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
        let absmax: Tile<f32, { [TILE_M] }> = reduce_max(absf(t), 1);
        let absmax: Tile<f32, { [TILE_M, 1] }> = absmax.reshape(shape![TILE_M, 1]);
        let absmax: Tile<f32, { [TILE_M, 1] }> = max_tile(absmax, broadcast_scalar(MIN_ABSMAX, shape![TILE_M, 1]));
        // IEEE divisions like Python's `/`, one per row each.
        let inv: Tile<f32, { [TILE_M, 1] }> =
            divf(broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, 1]), absmax, rounding::NearestEven, ftz::Disabled);
        let scaled: Tile<f32, { [TILE_M, TILE_N] }> = t * inv.broadcast(shape![TILE_M, TILE_N]);
        let quant: Tile<f32, { [TILE_M, TILE_N] }> = min_tile(
            max_tile(scaled, broadcast_scalar(FP8_E4M3_LOWEST, shape![TILE_M, TILE_N])),
            broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, TILE_N]),
        );
        let scale: Tile<f32, { [TILE_M, 1] }> =
            divf(absmax, broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, 1]), rounding::NearestEven, ftz::Disabled);
        let q_out: Tile<f8e4m3fn, { [TILE_M, TILE_N] }> = convert_tile(quant);
        let mut q_tiles: PartitionMut<f8e4m3fn, { [TILE_M, TILE_N] }> =
            unsafe { q.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { q_tiles.store_unchecked(q_out, [tile_m, 0i32]) };
        let mut scale_tiles: PartitionMut<f32, { [TILE_M] }> = unsafe { scales.partition_full_mut(shape![TILE_M]) };
        unsafe { scale_tiles.store_unchecked(scale.reshape(shape![TILE_M]), [tile_m]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn fp8_quant_rows_looped<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        q: &Tensor<f8e4m3fn, { [-1, -1] }>,
        scales: &Tensor<f32, { [-1] }>,
    ) {
        let tile_m: i32 = get_tile_block_id().0;
        // Counted on an unpadded view, as ct.num_tiles(x, axis=1, shape=...) does; the second
        // pass loads through it too (Python's second load has no padding_mode).
        let x_plain: Partition<E, { [TILE_M, TILE_N] }> =
            unsafe { make_partition_view(x, shape![TILE_M, TILE_N], padding::None, dim_map::Identity, x.token()) };
        let col_tiles: i32 = num_tiles(&x_plain, 1);
        let x_zero_padded: Partition<E, { [TILE_M, TILE_N] }> = x.partition(shape![TILE_M, TILE_N]);
        let mut absmax: Tile<f32, { [TILE_M, 1] }> = constant(0.0f32, shape![TILE_M, 1]);
        for j in 0i32..col_tiles {
            let raw: Tile<E, { [TILE_M, TILE_N] }> = x_zero_padded.load([tile_m, j]);
            let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
            let tile_max: Tile<f32, { [TILE_M] }> = reduce_max(absf(t), 1);
            absmax = max_tile(absmax, tile_max.reshape(shape![TILE_M, 1]));
        }
        let scale: Tile<f32, { [TILE_M, 1] }> = divf(
            max_tile(absmax, broadcast_scalar(MIN_ABSMAX, shape![TILE_M, 1])),
            broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, 1]),
            rounding::NearestEven,
            ftz::Disabled,
        );
        let scale_b: Tile<f32, { [TILE_M, TILE_N] }> = scale.broadcast(shape![TILE_M, TILE_N]);
        let lo: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(FP8_E4M3_LOWEST, shape![TILE_M, TILE_N]);
        let hi: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(FP8_E4M3_MAX, shape![TILE_M, TILE_N]);
        let mut q_tiles: PartitionMut<f8e4m3fn, { [TILE_M, TILE_N] }> =
            unsafe { q.partition_full_mut(shape![TILE_M, TILE_N]) };
        for j in 0i32..col_tiles {
            let raw: Tile<E, { [TILE_M, TILE_N] }> = x_plain.load([tile_m, j]);
            let t: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(raw);
            let scaled: Tile<f32, { [TILE_M, TILE_N] }> = divf(t, scale_b, rounding::NearestEven, ftz::Disabled);
            let q_out: Tile<f8e4m3fn, { [TILE_M, TILE_N] }> = convert_tile(min_tile(max_tile(scaled, lo), hi));
            unsafe { q_tiles.store_unchecked(q_out, [tile_m, j]) };
        }
        let mut scale_tiles: PartitionMut<f32, { [TILE_M] }> = unsafe { scales.partition_full_mut(shape![TILE_M]) };
        unsafe { scale_tiles.store_unchecked(scale.reshape(shape![TILE_M]), [tile_m]) };
    }
}
