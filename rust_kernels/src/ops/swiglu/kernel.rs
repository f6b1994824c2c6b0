//! cuTile Rust port of reference/swiglu/kernel.py: SwiGLU on separate gate (a) and up (b)
//! tensors in (TILE_M, TILE_N) tiles, math in f32. `swiglu_fwd`: c = silu(a) * b;
//! `swiglu_bwd`: da = dc * b * silu'(a), db = dc * silu(a), with s = sigmoid(a) and
//! silu'(a) = s * (1 + a * (1 - s)). The one multiply-add Python contracts into an `fma`
//! (`1 + a * (1 - s)`) is an `fma` here too.
//!
//! `swiglu_fwd_fast` (reference `swiglu_fwd_fast`, the 16-bit `_fast` forward variants) computes
//! the forward with the approximate reciprocal and exp2 (flush-to-zero):
//! c = a / (1 + exp2(-a log2 e)) * b, both loads before either conversion.

#[cutile::module]
pub mod swiglu_kernel {
    use cutile::core::*;

    /// -log2(e) (Python's `NEG_LOG2E`, rounded to f32).
    const NEG_LOG2E: f32 = -1.4426950408889634f32;

    /// sigmoid(v) = 1 / (1 + exp(-v)), with IEEE division like Python's `/`.
    fn sigmoid<const TILE_M: i32, const TILE_N: i32>(v: Tile<f32, { [TILE_M, TILE_N] }>) -> Tile<f32, { [TILE_M, TILE_N] }> {
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        divf(one, one + exp(negf(v)), rounding::NearestEven, ftz::Disabled)
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn swiglu_fwd<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // `partition` pads with zero, like padding_mode=ZERO.
        let a_raw: Tile<E, { [TILE_M, TILE_N] }> = a.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let av: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(a_raw);
        let b_raw: Tile<E, { [TILE_M, TILE_N] }> = b.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let bv: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(b_raw);
        let y: Tile<f32, { [TILE_M, TILE_N] }> = av * sigmoid(av) * bv;
        let y_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(y);
        // Outputs are read-only in the signature (Python's calling convention) and written
        // through a full-tensor mutable view at the block's tile.
        let mut c_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> = unsafe { c.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { c_tiles.store_unchecked(y_out, [block.0, block.1]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn swiglu_bwd<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        dc: &Tensor<E, { [-1, -1] }>,
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        da: &Tensor<E, { [-1, -1] }>,
        db: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let g_raw: Tile<E, { [TILE_M, TILE_N] }> = dc.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let g: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(g_raw);
        let a_raw: Tile<E, { [TILE_M, TILE_N] }> = a.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let av: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(a_raw);
        let b_raw: Tile<E, { [TILE_M, TILE_N] }> = b.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let bv: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(b_raw);
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        let sig: Tile<f32, { [TILE_M, TILE_N] }> = sigmoid(av);
        let silu: Tile<f32, { [TILE_M, TILE_N] }> = av * sig;
        let dsilu: Tile<f32, { [TILE_M, TILE_N] }> = sig * fma(av, one - sig, one, rounding::NearestEven, ftz::Disabled);
        let da_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(g * bv * dsilu);
        let mut da_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> = unsafe { da.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { da_tiles.store_unchecked(da_out, [block.0, block.1]) };
        let db_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(g * silu);
        let mut db_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> = unsafe { db.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { db_tiles.store_unchecked(db_out, [block.0, block.1]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn swiglu_fwd_fast<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let a_raw: Tile<E, { [TILE_M, TILE_N] }> = a.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let b_raw: Tile<E, { [TILE_M, TILE_N] }> = b.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let av: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(a_raw);
        let bv: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(b_raw);
        // silu(a) = a * rcp.approx(1 + exp2(-a log2 e)), both flush-to-zero (Python's `approx_div`).
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        let e: Tile<f32, { [TILE_M, TILE_N] }> =
            exp2(av * broadcast_scalar(NEG_LOG2E, shape![TILE_M, TILE_N]), ftz::Enabled);
        let silu: Tile<f32, { [TILE_M, TILE_N] }> = divf(av, one + e, rounding::Approx, ftz::Enabled);
        let y_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(silu * bv);
        let mut c_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> = unsafe { c.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { c_tiles.store_unchecked(y_out, [block.0, block.1]) };
    }

    // `swiglu_bwd_fast` (reference `swiglu_bwd_fast`, the 16-bit `_fast` backward variants): the
    // backward with s = rcp.approx(1 + exp2(-a log2 e)), both flush-to-zero, the three loads
    // before any conversion. (Appended last: the earlier kernels keep their source lines, which
    // their bytecode records.)
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn swiglu_bwd_fast<E: ElementType, const TILE_M: i32, const TILE_N: i32>(
        dc: &Tensor<E, { [-1, -1] }>,
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        da: &Tensor<E, { [-1, -1] }>,
        db: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let g_raw: Tile<E, { [TILE_M, TILE_N] }> = dc.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let a_raw: Tile<E, { [TILE_M, TILE_N] }> = a.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let b_raw: Tile<E, { [TILE_M, TILE_N] }> = b.partition(shape![TILE_M, TILE_N]).load([block.0, block.1]);
        let g: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(g_raw);
        let av: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(a_raw);
        let bv: Tile<f32, { [TILE_M, TILE_N] }> = convert_tile(b_raw);
        // s = rcp.approx(1 + exp2(-a log2 e)), both flush-to-zero (Python's `approx_div(1.0, ...)`).
        let one: Tile<f32, { [TILE_M, TILE_N] }> = broadcast_scalar(1.0f32, shape![TILE_M, TILE_N]);
        let e: Tile<f32, { [TILE_M, TILE_N] }> =
            exp2(av * broadcast_scalar(NEG_LOG2E, shape![TILE_M, TILE_N]), ftz::Enabled);
        let sig: Tile<f32, { [TILE_M, TILE_N] }> = divf(one, one + e, rounding::Approx, ftz::Enabled);
        let silu: Tile<f32, { [TILE_M, TILE_N] }> = av * sig;
        let dsilu: Tile<f32, { [TILE_M, TILE_N] }> =
            sig * fma(av, one - sig, one, rounding::NearestEven, ftz::Disabled);
        let da_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(g * bv * dsilu);
        let mut da_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { da.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { da_tiles.store_unchecked(da_out, [block.0, block.1]) };
        let db_out: Tile<E, { [TILE_M, TILE_N] }> = convert_tile(g * silu);
        let mut db_tiles: PartitionMut<E, { [TILE_M, TILE_N] }> =
            unsafe { db.partition_full_mut(shape![TILE_M, TILE_N]) };
        unsafe { db_tiles.store_unchecked(db_out, [block.0, block.1]) };
    }
}
