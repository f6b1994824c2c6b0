//! cuTile Rust port of reference/embedding/kernel.py: out[t, :] = weight[ids[t], :], rows
//! copied unchanged. `embedding_rows`: one token per block, its id read as a scalar and used as
//! the tile-space row of (1, TILE_H) loads. `embedding_gather`: BT tokens per block, the
//! (BT, TILE_H) slab gathered through a gather/scatter view (sparse dim 0 = the ids).
//! `embedding_gather_idx64`: the same kernel for a table indexed with i64 (analysis.json
//! `index_dtype` int64, tables of V * H >= 2^31 elements). cuTile Rust 0.5.0 gives a `&Tensor`
//! parameter i32 extents and strides and builds no i64 view, so the table is a raw pointer
//! with its i64 extents and strides, and the slab a masked pointer gather with i64 offsets.
//!
//! `EIdx` is the id element type (i32 or i64). Python narrows an int64 id to int32 (the
//! tile-space index is i32); `WIDE_IDS` = 1 selects that narrowing for i64 ids, 0 keeps i32
//! ids as they are (a `bitcast` of i32 to i32, the identity: rustc needs one expression of
//! type i32 for both id types). The `if` on it is folded by the compiler.
//!
//! The hidden-tile loops iterate a `Dim`, not `0i32..n`, so that no `assume` is put on the loop
//! index (see the rope kernel's module doc for why that matters to tileiras).

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
        let num_h_tiles: Dim = ceil_div(h, TILE_H).into_dim();
        // Zero padding on the ragged last hidden tile; the store masks it.
        let weight_tiles: Partition<E, { [1, TILE_H] }> = weight.partition(shape![1, TILE_H]);
        let mut out_tiles: PartitionMut<E, { [1, TILE_H] }> = unsafe { out.partition_full_mut(shape![1, TILE_H]) };
        for j in num_h_tiles {
            let tile: Tile<E, { [1, TILE_H] }> = weight_tiles.load([row, j]);
            unsafe { out_tiles.store_unchecked(tile, [token, j]) };
        }
    }

    /// The BT ids of block `block` as i32 rows. Ids past T (the ragged last block) read as 0,
    /// row 0, which exists; the store masks them.
    fn block_rows<EIdx: ElementType, const WIDE_IDS: i32, const BT: i32>(
        ids: &Tensor<EIdx, { [-1] }>,
        block: i32,
    ) -> Tile<i32, { [BT] }> {
        let rows: Tile<EIdx, { [BT] }> = ids.partition(shape![BT]).load([block]);
        let rows: Tile<i32, { [BT] }> = if WIDE_IDS == 1i32 {
            let narrowed: Tile<i32, { [BT] }> = trunci(rows, overflow::NoSignedWrap);
            narrowed
        } else {
            let same: Tile<i32, { [BT] }> = bitcast(rows);
            same
        };
        rows
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
        let rows: Tile<i32, { [BT] }> = block_rows::<EIdx, WIDE_IDS, BT>(ids, block.0);
        let h: i32 = get_shape_dim(out.shape(), 1i32);
        let num_h_tiles: Dim = ceil_div(h, TILE_H).into_dim();
        let slabs: GatherScatterView<E, { [BT, TILE_H] }, 0> =
            unsafe { make_gather_scatter_view(weight, shape![BT, TILE_H], padding::Zero) };
        let mut out_tiles: PartitionMut<E, { [BT, TILE_H] }> = unsafe { out.partition_full_mut(shape![BT, TILE_H]) };
        for j in num_h_tiles {
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

    /// An i64 extent or stride as an (R, C) u64 tile (the same bits): unsigned compares against
    /// it bound ids and columns, as the gather view's padding does.
    /// Like Python, it assumes the argument non-negative (`bounded<0, ?>`), which the C ABI
    /// checks.
    fn wide_extent<const R: i32, const C: i32>(x: i64) -> Tile<u64, { [R, C] }> {
        let x: Tile<i64, { [] }> = scalar_to_tile(x);
        let x: Tile<i64, { [] }> = unsafe { assume_bounds_lower::<_, 0>(x) };
        let x: Tile<u64, { [] }> = bitcast(x);
        let x: Tile<u64, { [1, 1] }> = x.reshape(shape![1, 1]);
        x.broadcast(shape![R, C])
    }

    /// `embedding_gather` with the table indexed in i64: `weight` is the (V, H) table's base,
    /// `weight_shape0` = V, `weight_shape1` = H, `weight_stride0` its row stride (elements);
    /// `_weight_stride1` is 1 (the C ABI checks it, as Python folds it into the view type) and
    /// not read. Each (BT, TILE_H) slab is loaded through the pointers base + row * stride0 +
    /// column in i64, masked to rows < V and columns < H with zero padding, as the gather view's
    /// zero padding does (the compares are unsigned: a negative id reads zeros too).
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn embedding_gather_idx64<
        E: ElementType,
        EIdx: ElementType,
        const WIDE_IDS: i32,
        const BT: i32,
        const TILE_H: i32,
    >(
        ids: &Tensor<EIdx, { [-1] }>,
        weight: *mut E,
        weight_shape0: i64,
        weight_shape1: i64,
        weight_stride0: i64,
        _weight_stride1: i64,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let rows: Tile<i32, { [BT] }> = block_rows::<EIdx, WIDE_IDS, BT>(ids, block.0);
        let h: i32 = get_shape_dim(out.shape(), 1i32);
        let num_h_tiles: Dim = ceil_div(h, TILE_H).into_dim();
        let rows: Tile<u64, { [BT] }> = exti(rows);
        let rows: Tile<u64, { [BT, 1] }> = rows.reshape(shape![BT, 1]);
        let v: Tile<u64, { [BT, 1] }> = wide_extent::<BT, 1>(weight_shape0);
        let h_wide: Tile<u64, { [1, TILE_H] }> = wide_extent::<1, TILE_H>(weight_shape1);
        let row_stride: Tile<u64, { [BT, 1] }> = wide_extent::<BT, 1>(weight_stride0);
        let row_ok: Tile<bool, { [BT, 1] }> = lt_tile(rows, v);
        let row_ok: Tile<bool, { [BT, TILE_H] }> = row_ok.broadcast(shape![BT, TILE_H]);
        let row_offsets: Tile<u64, { [BT, 1] }> = rows * row_stride;
        let row_offsets: Tile<u64, { [BT, TILE_H] }> = row_offsets.broadcast(shape![BT, TILE_H]);
        let base: PointerTile<*mut E, { [] }> = pointer_to_tile(weight);
        let base: PointerTile<*mut E, { [1, 1] }> = base.reshape(shape![1, 1]);
        let base: PointerTile<*mut E, { [BT, TILE_H] }> = base.broadcast(shape![BT, TILE_H]);
        let lanes: Tile<i32, { [TILE_H] }> = iota(shape![TILE_H]);
        // cuTile Rust 0.5.0 takes no `E::ZERO` as the load's padding value (an associated const
        // in expression position), so masked lanes are zeroed by a select.
        let zeros: Tile<E, { [BT, TILE_H] }> = constant(E::ZERO, shape![BT, TILE_H]);
        let mut out_tiles: PartitionMut<E, { [BT, TILE_H] }> = unsafe { out.partition_full_mut(shape![BT, TILE_H]) };
        for j in num_h_tiles {
            let start: Tile<i32, { [TILE_H] }> = broadcast_scalar(j * TILE_H, shape![TILE_H]);
            let cols: Tile<i32, { [TILE_H] }> = start + lanes;
            let cols: Tile<u64, { [TILE_H] }> = exti(cols);
            let cols: Tile<u64, { [1, TILE_H] }> = cols.reshape(shape![1, TILE_H]);
            let col_ok: Tile<bool, { [1, TILE_H] }> = lt_tile(cols, h_wide);
            let col_ok: Tile<bool, { [BT, TILE_H] }> = col_ok.broadcast(shape![BT, TILE_H]);
            let mask: Tile<bool, { [BT, TILE_H] }> = andi(row_ok, col_ok);
            let cols: Tile<u64, { [BT, TILE_H] }> = cols.broadcast(shape![BT, TILE_H]);
            let offsets: Tile<u64, { [BT, TILE_H] }> = row_offsets + cols;
            let ptrs: PointerTile<*mut E, { [BT, TILE_H] }> = base.offset_tile(offsets);
            // Weak and unscoped, as Python's gather load.
            let (slab, _done): (Tile<E, { [BT, TILE_H] }>, Token) = unsafe {
                load_ptr_tko(ptrs, ordering::Weak, None::<scope::TileBlock>, Some(mask), None::<E>, None, Latency::<0>)
            };
            let slab: Tile<E, { [BT, TILE_H] }> = select(mask, slab, zeros);
            unsafe { out_tiles.store_unchecked(slab, [block.0, j]) };
        }
    }
}
