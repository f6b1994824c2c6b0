//! cuTile Rust port of reference/vector_add/kernel.py: out = x + y, one TILE-element
//! tile per block. Python's `TILE: ct.Constant[int]` is the const generic `TILE`; the
//! element type (a Python-side specialization on the array dtype) is the type generic `E`.

#[cutile::module]
pub mod vector_add_kernel {
    use cutile::core::*;

    /// `unchecked_accesses`: the Python kernel has no in-kernel bounds checks, and the C ABI
    /// validates every descriptor before launch, so the Rust port emits none either.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn vector_add<E: ElementType, const TILE: i32>(
        x: &Tensor<E, { [-1] }>,
        y: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // `partition` pads with zero, like padding_mode=ZERO: the ragged last tile is defined.
        let a: Tile<E, { [TILE] }> = x.partition(shape![TILE]).load([block.0]);
        let b: Tile<E, { [TILE] }> = y.partition(shape![TILE]).load([block.0]);
        // `out` is declared read-only so the entry takes (ptr, shape, stride) like Python's
        // calling convention; the store goes through a full-tensor mutable view, indexed
        // by the block id exactly as ct.store(out, index=(block,), ...).
        let mut out_tiles: PartitionMut<E, { [TILE] }> = unsafe { out.partition_full_mut(shape![TILE]) };
        unsafe { out_tiles.store_unchecked(a + b, [block.0]) };
    }
}
