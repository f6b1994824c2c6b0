//! cuTile Rust port of reference/embedding/kernel.py: out[t, :] = weight[ids[t], :], rows
//! copied unchanged. `embedding_rows`: one token per block, its id read as a scalar and used as
//! the tile-space row of (1, TILE_H) loads. `embedding_gather`: BT tokens per block, the
//! (BT, TILE_H) slab gathered through a gather/scatter view (sparse dim 0 = the ids).
//!
//! `EIdx` is the id element type (i32 or i64). Python narrows an int64 id to int32 (the
//! tile-space index is i32); `WIDE_IDS` = 1 selects that narrowing for i64 ids, 0 keeps i32
//! ids as they are (a `bitcast` of i32 to i32, the identity: rustc needs one expression of
//! type i32 for both id types). The `if` on it is folded by the compiler.

#[cutile::module]
pub mod embedding_kernel {
    use cutile::core::*;
    use cutile::tileir::*;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn embedding_rows<E: ElementType, EIdx: ElementType, const WIDE_IDS: i32, const TILE_H: i32>(
        ids: &Tensor<EIdx, { [-1] }>,
        weight: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let token: i32 = block.0;
        let id_view: Partition<EIdx, { [1] }> =
            unsafe { make_partition_view(ids, shape![1], padding::None, dim_map::Identity, ids.token()) };
        let id: Tile<EIdx, { [1] }> = id_view.load([token]);
        let id: Tile<EIdx, { [] }> = id.reshape(shape![]);
        // no_signed_wrap: cuTile Rust 0.5.0 cannot serialize a trunci without an overflow flag.
        let row: Tile<i32, { [] }> = if WIDE_IDS == 1i32 {
            let narrowed: Tile<i32, { [] }> = trunci(id, overflow::NoSignedWrap);
            narrowed
        } else {
            let same: Tile<i32, { [] }> = bitcast(id);
            same
        };
        let row: i32 = tile_to_scalar(row);
        let h: i32 = get_shape_dim(out.shape(), 1i32);
        let num_h_tiles: i32 = ceil_div(h, TILE_H);
        // Zero padding on the ragged last hidden tile; the store masks it.
        let weight_tiles: Partition<E, { [1, TILE_H] }> = weight.partition(shape![1, TILE_H]);
        let mut out_tiles: PartitionMut<E, { [1, TILE_H] }> = unsafe { out.partition_full_mut(shape![1, TILE_H]) };
        for j in 0i32..num_h_tiles {
            let tile: Tile<E, { [1, TILE_H] }> = weight_tiles.load([row, j]);
            unsafe { out_tiles.store_unchecked(tile, [token, j]) };
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn embedding_gather<
        E: ElementType,
        EIdx: ElementType,
        const WIDE_IDS: i32,
        const BT: i32,
        const TILE_H: i32,
    >(
        ids: &Tensor<EIdx, { [-1] }>,
        weight: &Tensor<E, { [-1, -1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // Ids past T (the ragged last block) read as 0, row 0, which exists; the store masks them.
        let rows: Tile<EIdx, { [BT] }> = ids.partition(shape![BT]).load([block.0]);
        let rows: Tile<i32, { [BT] }> = if WIDE_IDS == 1i32 {
            let narrowed: Tile<i32, { [BT] }> = trunci(rows, overflow::NoSignedWrap);
            narrowed
        } else {
            let same: Tile<i32, { [BT] }> = bitcast(rows);
            same
        };
        let h: i32 = get_shape_dim(out.shape(), 1i32);
        let num_h_tiles: i32 = ceil_div(h, TILE_H);
        let slabs: GatherScatterView<E, { [BT, TILE_H] }, 0> =
            unsafe { make_gather_scatter_view(weight, shape![BT, TILE_H], padding::Zero) };
        let mut out_tiles: PartitionMut<E, { [BT, TILE_H] }> = unsafe { out.partition_full_mut(shape![BT, TILE_H]) };
        for j in 0i32..num_h_tiles {
            // The raw load: the gather helper takes no weak ordering, Python's load is weak. The
            // tma and scope arguments are those of a plain partition load (weak ignores the scope).
            let (slab, _done): (Tile<E, { [BT, TILE_H] }>, Token) = unsafe {
                load_view_raw(
                    &slabs,
                    (rows, j * TILE_H),
                    Some(weight.token()),
                    ordering::Weak,
                    scope::TileBlock,
                    tma::Enabled,
                    None,
                    [false, false],
                    shape![BT, TILE_H],
                )
            };
            unsafe { out_tiles.store_unchecked(slab, [block.0, j]) };
        }
    }
}
