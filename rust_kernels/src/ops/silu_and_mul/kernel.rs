//! cuTile Rust port of reference/silu_and_mul/kernel.py: out = silu(x[:, :H]) * x[:, H:]
//! for x of shape (M, 2H), read as its (M, 2, H) view (strides (row stride, H, 1)): the gate
//! and up halves are plain (TILE_M, 1, TILE_H) tile loads at index 0 and 1 of the middle axis,
//! so a ragged H needs no index arithmetic. Math in f32; out is (M, H).
//!
//! `silu_and_mul_fast` (reference `silu_and_mul_fast`, the 16-bit `_fast` variants) computes the
//! same with the approximate reciprocal and exp2 (flush-to-zero): g / (1 + exp2(-g log2 e)) * u.

#[cutile::module]
pub mod silu_and_mul_kernel {
    use cutile::core::*;

    /// -log2(e) (Python's `NEG_LOG2E`, rounded to f32).
    const NEG_LOG2E: f32 = -1.4426950408889634f32;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn silu_and_mul<E: ElementType, const TILE_M: i32, const TILE_H: i32>(
        x: &Tensor<E, { [-1, -1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // `partition` pads with zero, like padding_mode=ZERO.
        let halves: Partition<E, { [TILE_M, 1, TILE_H] }> = x.partition(shape![TILE_M, 1, TILE_H]);
        let gate: Tile<E, { [TILE_M, 1, TILE_H] }> = halves.load([block.0, 0i32, block.1]);
        let up: Tile<E, { [TILE_M, 1, TILE_H] }> = halves.load([block.0, 1i32, block.1]);
        let g32: Tile<f32, { [TILE_M, 1, TILE_H] }> = convert_tile(gate);
        let g: Tile<f32, { [TILE_M, TILE_H] }> = g32.reshape(shape![TILE_M, TILE_H]);
        let u32t: Tile<f32, { [TILE_M, 1, TILE_H] }> = convert_tile(up);
        let u: Tile<f32, { [TILE_M, TILE_H] }> = u32t.reshape(shape![TILE_M, TILE_H]);
        // silu(g) = g / (1 + exp(-g)), IEEE division like Python's `/`.
        let one: Tile<f32, { [TILE_M, TILE_H] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_H]);
        let y: Tile<f32, { [TILE_M, TILE_H] }> = divf(g, one + exp(negf(g)), rounding::NearestEven, ftz::Disabled) * u;
        let y_out: Tile<E, { [TILE_M, TILE_H] }> = convert_tile(y);
        // `out` is read-only in the signature (Python's calling convention); the store goes
        // through a full-tensor mutable view at the block's tile.
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_H] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_H]) };
        unsafe { out_tiles.store_unchecked(y_out, [block.0, block.1]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn silu_and_mul_fast<E: ElementType, const TILE_M: i32, const TILE_H: i32>(
        x: &Tensor<E, { [-1, -1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let halves: Partition<E, { [TILE_M, 1, TILE_H] }> = x.partition(shape![TILE_M, 1, TILE_H]);
        let gate: Tile<E, { [TILE_M, 1, TILE_H] }> = halves.load([block.0, 0i32, block.1]);
        let up: Tile<E, { [TILE_M, 1, TILE_H] }> = halves.load([block.0, 1i32, block.1]);
        let g32: Tile<f32, { [TILE_M, 1, TILE_H] }> = convert_tile(gate);
        let g: Tile<f32, { [TILE_M, TILE_H] }> = g32.reshape(shape![TILE_M, TILE_H]);
        let u32t: Tile<f32, { [TILE_M, 1, TILE_H] }> = convert_tile(up);
        let u: Tile<f32, { [TILE_M, TILE_H] }> = u32t.reshape(shape![TILE_M, TILE_H]);
        // silu(g) = g * rcp.approx(1 + exp2(-g log2 e)), both flush-to-zero (Python's `approx_div`).
        let one: Tile<f32, { [TILE_M, TILE_H] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_H]);
        let e: Tile<f32, { [TILE_M, TILE_H] }> =
            exp2(g * broadcast_scalar(NEG_LOG2E, shape![TILE_M, TILE_H]), ftz::Enabled);
        let y: Tile<f32, { [TILE_M, TILE_H] }> = divf(g, one + e, rounding::Approx, ftz::Enabled) * u;
        let y_out: Tile<E, { [TILE_M, TILE_H] }> = convert_tile(y);
        let mut out_tiles: PartitionMut<E, { [TILE_M, TILE_H] }> =
            unsafe { out.partition_full_mut(shape![TILE_M, TILE_H]) };
        unsafe { out_tiles.store_unchecked(y_out, [block.0, block.1]) };
    }
}
