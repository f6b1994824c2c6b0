//! cuTile Rust port of reference/group_gemm/kernel.py and reference/fused_moe/kernel.py: the
//! two row-gathered expert GEMMs share one module, because both write their output with the
//! same masked row scatter (`scatter_rows`).
//!
//! `group_gemm`: each block scans the device offsets for its (group, row tile)
//! (`find_group_tile`), gathers its BM rows of `a` through a gather/scatter view and scatters
//! the rows of its group. `group_gemm_sliced` (+ `_w8`, one body): `a` and `c` re-viewed as the
//! group's row range, as Python's `Array.slice` does (the base pointer offset by
//! `first_row * stride`, the extent `end_row - first_row`), so A and C are plain tiled
//! accesses. `fused_moe`: rows gathered through `sorted_token_ids // TOPK`, the expert's
//! weights read transposed, an optional routed-weight scale, the rows scattered to `out[id]`.
//!
//! `ct.scatter` and `ct.gather` of a 1-D array are pointer-tile accesses in Python's IR
//! (64-bit element offsets, an unsigned bounds mask, `store_ptr_tko`/`load_ptr_tko`); cuTile
//! Rust's only interface that writes the same IR is the unsafe pointer one, so the port uses
//! it. A tensor's dynamic strides are read with a `return_type_meta_field` compiler op of
//! this module (`dynamic_strides`): cuTile Rust 0.5.0 exposes shape, base and token of a
//! `Tensor`, not its strides.
//!
//! The loops iterate a `Dim`, not `0i32..n`, so that no `assume` is put on the loop index (see
//! the rope kernel's module doc for why that matters to tileiras).

#[cutile::module]
pub mod group_gemm_kernel {
    use cutile::core::*;
    use cutile::tileir::*;

    /// The dynamic strides of a 2-D tensor with a unit last stride: `dims` = [row stride].
    /// (Typed as a `Shape` so `get_shape_dim` reads it; the compiler only takes `dims`.)
    #[cuda_tile::compiler_op(name = "return_type_meta_field", type_meta_field = "strides")]
    fn dynamic_strides<'s, E: ElementType>(_tensor: &Tensor<E, { [-1, -1] }>) -> Shape<'s, { [-1] }> {
        unreachable!()
    }

    /// The row stride (elements) of a 2-D tensor whose last stride is 1.
    fn row_stride<E: ElementType>(tensor: &Tensor<E, { [-1, -1] }>) -> i32 {
        get_shape_dim(dynamic_strides(tensor), 0i32)
    }

    /// A scalar as a (R, C) tile of its 64-bit sign extension (Python's index arithmetic of
    /// gather/scatter is 64-bit).
    fn wide<const R: i32, const C: i32>(value: i32) -> Tile<u64, { [R, C] }> {
        let v: Tile<u64, { [] }> = exti(scalar_to_tile::<i32>(value));
        v.reshape(shape![1, 1]).broadcast(shape![R, C])
    }

    /// `ct.scatter(dst, (rows[:, None], cols[None, :]), value, mask=keep[:, None])` with the
    /// columns of column tile `tile_n`, as Python lowers it: 64-bit offsets
    /// `row * stride + col * 1`; lanes outside dst's extents (unsigned compares, so negative
    /// indices too) or outside `keep` are not written. `value` is the f32 accumulator, cast here.
    fn scatter_rows<E: ElementType, const BM: i32, const BN: i32>(
        dst: &Tensor<E, { [-1, -1] }>,
        rows: Tile<i32, { [BM] }>,
        tile_n: i32,
        value: Tile<f32, { [BM, BN] }>,
        keep: Tile<bool, { [BM] }>,
    ) {
        let cols: Tile<i32, { [BN] }> = broadcast_scalar(tile_n * BN, shape![BN]) + iota(shape![BN]);
        let keep: Tile<bool, { [BM, 1] }> = keep.reshape(shape![BM, 1]);
        let rows: Tile<i32, { [BM, 1] }> = rows.reshape(shape![BM, 1]);
        let cols: Tile<i32, { [1, BN] }> = cols.reshape(shape![1, BN]);
        let value: Tile<E, { [BM, BN] }> = convert_tile(value);
        let row_wide: Tile<u64, { [BM, 1] }> = exti(rows);
        let row_idx: Tile<u64, { [BM, BN] }> = row_wide.broadcast(shape![BM, BN]);
        let row_ok: Tile<bool, { [BM, BN] }> = lt_tile(row_idx, wide::<BM, BN>(get_shape_dim(dst.shape(), 0i32)));
        let row_off: Tile<u64, { [BM, BN] }> = row_idx * wide::<BM, BN>(row_stride(dst));
        let col_wide: Tile<u64, { [1, BN] }> = exti(cols);
        let col_idx: Tile<u64, { [BM, BN] }> = col_wide.broadcast(shape![BM, BN]);
        let col_ok: Tile<bool, { [BM, BN] }> = lt_tile(col_idx, wide::<BM, BN>(get_shape_dim(dst.shape(), 1i32)));
        let in_bounds: Tile<bool, { [BM, BN] }> = andi(row_ok, col_ok);
        let col_off: Tile<u64, { [BM, BN] }> = col_idx * constant(1u64, shape![BM, BN]);
        let offsets: Tile<u64, { [BM, BN] }> = row_off + col_off;
        let base: PointerTile<*mut E, { [] }> = pointer_to_tile(cast_mut(dst.as_ptr()));
        let base: PointerTile<*mut E, { [1, 1] }> = base.reshape(shape![1, 1]);
        let base: PointerTile<*mut E, { [BM, BN] }> = base.broadcast(shape![BM, BN]);
        let ptrs: PointerTile<*mut E, { [BM, BN] }> = base.offset_tile(offsets);
        let mask: Tile<bool, { [BM, BN] }> = andi(in_bounds, keep.broadcast(shape![BM, BN]));
        let _done: Token = unsafe {
            store_ptr_tko(
                ptrs,
                value,
                ordering::Weak,
                None::<scope::TileBlock>,
                Some(mask),
                Some(get_tensor_token(dst)),
                Latency::<0>,
            )
        };
    }

    /// (group, first_row, end_row) of row tile `row_tile` when the groups' row tiles are
    /// numbered in group order; group = -1 when the tile is past the last group's.
    fn find_group_tile<const BM: i32>(offsets: &Tensor<i32, { [-1] }>, row_tile: i32) -> (i32, i32, i32) {
        let num_groups: Dim = (get_shape_dim(offsets.shape(), 0i32) - 1i32).into_dim();
        let bounds: Partition<i32, { [1] }> =
            unsafe { make_partition_view(offsets, shape![1], padding::None, dim_map::Identity, offsets.token()) };
        let mut tiles_before: i32 = 0i32;
        let mut group: i32 = -1i32;
        let mut first_row: i32 = 0i32;
        let mut end_row: i32 = 0i32;
        for g in num_groups {
            let start: Tile<i32, { [1] }> = bounds.load([g]);
            let start: i32 = tile_to_scalar(start.reshape(shape![]));
            let end: Tile<i32, { [1] }> = bounds.load([g + 1i32]);
            let end: i32 = tile_to_scalar(end.reshape(shape![]));
            let tiles: i32 = ceil_div(end - start, BM);
            if row_tile >= tiles_before && row_tile < tiles_before + tiles {
                group = g;
                first_row = start + (row_tile - tiles_before) * BM;
                end_row = end;
            }
            tiles_before = tiles_before + tiles;
        }
        (group, first_row, end_row)
    }

    /// The (1, BK, BN) tiles of w[g] as op(w[g]): (G, K, N) as stored, or (G, N, K) read
    /// through dim_map [0, 2, 1] (Python's `order=(0, 2, 1)`); zero padded.
    fn weight_tiles<E: ElementType, const BK: i32, const BN: i32, const TRANS_W: i32>(
        w: &Tensor<E, { [-1, -1, -1] }>,
    ) -> Partition<E, { [1, BK, BN] }> {
        if TRANS_W == 1i32 {
            w.partition_permuted(shape![1, BK, BN], const_array![0, 2, 1])
        } else {
            w.partition(shape![1, BK, BN])
        }
    }

    /// The f32 (BM, BN) accumulator of a[rows] @ op(w[group])[:, tile_n] over all of K: the BM rows
    /// `rows` of `a` gathered through a gather/scatter view (`ct.load_advanced_indexing`, rows
    /// outside `a` zero padded), weak loads like Python's; op(w[group]) as `weight_tiles` reads it.
    fn gathered_gemm<E: ElementType, const BM: i32, const BN: i32, const BK: i32, const TRANS_W: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1, -1, -1] }>,
        rows: Tile<i32, { [BM] }>,
        group: i32,
        tile_n: i32,
    ) -> Tile<f32, { [BM, BN] }> {
        let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
        let k_tiles: Dim = ceil_div(get_shape_dim(a.shape(), 1i32), BK).into_dim();
        let a_rows: GatherScatterView<E, { [BM, BK] }, 0> =
            unsafe { make_gather_scatter_view(a, shape![BM, BK], padding::Zero) };
        let w_tiles: Partition<E, { [1, BK, BN] }> = weight_tiles::<E, BK, BN, TRANS_W>(w);
        for kk in k_tiles {
            // The raw load: the gather helper takes no weak ordering (as in the embedding port).
            let (ta, _read): (Tile<E, { [BM, BK] }>, Token) = unsafe {
                load_view_raw(
                    &a_rows,
                    (rows, kk * BK),
                    Some(get_tensor_token(a)),
                    ordering::Weak,
                    scope::TileBlock,
                    tma::Enabled,
                    None,
                    [false, false],
                    shape![BM, BK],
                )
            };
            let tw: Tile<E, { [1, BK, BN] }> = w_tiles.load([group, kk, tile_n]);
            acc = mma(ta, tw.reshape(shape![BK, BN]), acc);
        }
        acc
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn group_gemm<E: ElementType, const BM: i32, const BN: i32, const BK: i32, const TRANS_W: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1, -1, -1] }>,
        offsets: &Tensor<i32, { [-1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let tile_n: i32 = get_tile_block_id().0;
        let (group, first_row, end_row): (i32, i32, i32) = find_group_tile::<BM>(offsets, get_tile_block_id().1);
        if group >= 0i32 {
            let rows: Tile<i32, { [BM] }> = broadcast_scalar(first_row, shape![BM]) + iota(shape![BM]);
            // Rows past end_row belong to the next group (or are past T: zero padded); the
            // scatter drops their results.
            let acc: Tile<f32, { [BM, BN] }> = gathered_gemm::<E, BM, BN, BK, TRANS_W>(a, w, rows, group, tile_n);
            let keep: Tile<bool, { [BM] }> = lt_tile(rows, broadcast_scalar(end_row, shape![BM]));
            scatter_rows::<E, BM, BN>(c, rows, tile_n, acc, keep);
        }
    }

    /// `Array.slice(axis=0, start, stop)` of a 2-D tensor with a unit last stride: the base
    /// advanced by `start` rows (16-byte aligned when the row stride is, as the variant
    /// assumes), `stop - start` rows, the same strides.
    unsafe fn row_range<E: ElementType>(t: &Tensor<E, { [-1, -1] }>, start: i32, stop: i32) -> Tensor<E, { [-1, -1] }> {
        let stride: i32 = row_stride(t);
        let skip: Tile<i64, { [] }> = exti(scalar_to_tile::<i32>(start * stride));
        let base: PointerTile<*mut E, { [] }> = pointer_to_tile(cast_mut(t.as_ptr())).offset_tile(skip);
        let base: PointerTile<*mut E, { [] }> = unsafe { assume_div_by::<_, 16>(base) };
        let rows: i32 = unsafe { assume_bounds_lower::<_, 0>(stop - start) };
        let extent: Shape<{ [-1, -1] }> = Shape::<{ [-1, -1] }> { dims: &[rows, get_shape_dim(t.shape(), 1i32)] };
        let steps: Array<{ [-1, 1] }> = Array::<{ [-1, 1] }> { dims: &[stride] };
        unsafe { make_tensor_view(base, extent, steps, t.token()) }
    }

    /// The body of `group_gemm_sliced` and `group_gemm_sliced_w8`.
    fn group_gemm_sliced_body<E: ElementType, const BM: i32, const BN: i32, const BK: i32, const TRANS_W: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1, -1, -1] }>,
        offsets: &Tensor<i32, { [-1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let tile_n: i32 = get_tile_block_id().0;
        let (group, first_row, end_row): (i32, i32, i32) = find_group_tile::<BM>(offsets, get_tile_block_id().1);
        if group >= 0i32 {
            let a_rows: Tensor<E, { [-1, -1] }> = unsafe { row_range(a, first_row, end_row) };
            let c_rows: Tensor<E, { [-1, -1] }> = unsafe { row_range(c, first_row, end_row) };
            let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
            let k_tiles: Dim = ceil_div(get_shape_dim(a.shape(), 1i32), BK).into_dim();
            let a_tiles: Partition<E, { [BM, BK] }> = a_rows.partition(shape![BM, BK]);
            let w_tiles: Partition<E, { [1, BK, BN] }> = weight_tiles::<E, BK, BN, TRANS_W>(w);
            for kk in k_tiles {
                let ta: Tile<E, { [BM, BK] }> = a_tiles.load([0i32, kk]);
                let tw: Tile<E, { [1, BK, BN] }> = w_tiles.load([group, kk, tile_n]);
                acc = mma(ta, tw.reshape(shape![BK, BN]), acc);
            }
            let c_tile: Tile<E, { [BM, BN] }> = convert_tile(acc);
            let mut c_tiles: PartitionMut<E, { [BM, BN] }> = unsafe { c_rows.partition_full_mut(shape![BM, BN]) };
            unsafe { c_tiles.store_unchecked(c_tile, [0i32, tile_n]) };
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn group_gemm_sliced<E: ElementType, const BM: i32, const BN: i32, const BK: i32, const TRANS_W: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1, -1, -1] }>,
        offsets: &Tensor<i32, { [-1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        group_gemm_sliced_body::<E, BM, BN, BK, TRANS_W>(a, w, offsets, c);
    }

    /// `ct.kernel(num_worker_warps=8)`: two consumer warpgroups for the BN = 256 tiles.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn group_gemm_sliced_w8<E: ElementType, const BM: i32, const BN: i32, const BK: i32, const TRANS_W: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1, -1, -1] }>,
        offsets: &Tensor<i32, { [-1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        group_gemm_sliced_body::<E, BM, BN, BK, TRANS_W>(a, w, offsets, c);
    }

    /// Python's `a // b` and `a % b` on i32 scalars: floor division (`divi` rounding to -inf)
    /// and the remainder with its sign fixed up to the divisor's, as cuTile Python lowers them.
    fn floor_div_mod(a: i32, b: i32) -> (i32, i32) {
        let lhs: Tile<i32, { [] }> = scalar_to_tile(a);
        let rhs: Tile<i32, { [] }> = scalar_to_tile(b);
        let quotient: Tile<i32, { [] }> = divi(lhs, rhs, rounding::NegativeInf);
        let rem: Tile<i32, { [] }> = remi(lhs, rhs);
        let zero: Tile<i32, { [] }> = constant(0i32, shape![]);
        let signs_differ: Tile<bool, { [] }> = xori(lt_tile(rem, zero), lt_tile(rhs, zero));
        let fix: Tile<bool, { [] }> = andi(signs_differ, ne_tile(rem, zero));
        let modulo: Tile<i32, { [] }> = select(fix, rem + rhs, rem);
        (tile_to_scalar(quotient), tile_to_scalar(modulo))
    }

    /// `ct.gather(src, idx, mask=keep, padding_value=0)` of a 1-D contiguous f32 array, as
    /// Python lowers it: 64-bit offsets, lanes outside src (unsigned compare) or `keep` read 0.
    fn gather_masked<const BM: i32>(
        src: &Tensor<f32, { [-1] }>,
        idx: Tile<i32, { [BM] }>,
        keep: Tile<bool, { [BM] }>,
    ) -> Tile<f32, { [BM] }> {
        let idx: Tile<u64, { [BM] }> = exti(idx);
        let len: Tile<u64, { [] }> = exti(scalar_to_tile::<i32>(get_shape_dim(src.shape(), 0i32)));
        let len: Tile<u64, { [1] }> = len.reshape(shape![1]);
        let in_bounds: Tile<bool, { [BM] }> = lt_tile(idx, len.broadcast(shape![BM]));
        let offsets: Tile<u64, { [BM] }> = idx * constant(1u64, shape![BM]);
        let base: PointerTile<*mut f32, { [] }> = pointer_to_tile(cast_mut(src.as_ptr()));
        let base: PointerTile<*mut f32, { [1] }> = base.reshape(shape![1]);
        let base: PointerTile<*mut f32, { [BM] }> = base.broadcast(shape![BM]);
        let ptrs: PointerTile<*mut f32, { [BM] }> = base.offset_tile(offsets);
        let mask: Tile<bool, { [BM] }> = andi(in_bounds, keep);
        let (values, _read): (Tile<f32, { [BM] }>, Token) = unsafe {
            load_ptr_tko(
                ptrs,
                ordering::Weak,
                None::<scope::TileBlock>,
                Some(mask),
                Some(0.0f32),
                Some(get_tensor_token(src)),
                Latency::<0>,
            )
        };
        values
    }

    /// The scalar at `index` of a 1-D int32 array (Python's `ct.load(x, index=(i,), shape=())`).
    fn load_scalar(x: &Tensor<i32, { [-1] }>, index: i32) -> i32 {
        let view: Partition<i32, { [1] }> =
            unsafe { make_partition_view(x, shape![1], padding::None, dim_map::Identity, get_tensor_token(x)) };
        let value: Tile<i32, { [1] }> = view.load([index]);
        tile_to_scalar(value.reshape(shape![]))
    }

    /// out[id] = hidden[id // TOPK] @ w[expert].T (* topk_weights[id]) for the BM ids of this
    /// block's rows; ids >= out.shape[0] (moe_align's sentinel) are padding: their gathered row
    /// is past the end of hidden (zeros) and the scatter drops them.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn fused_moe<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const BK: i32,
        const TOPK: i32,
        const MUL_ROUTED_WEIGHT: i32,
    >(
        hidden: &Tensor<E, { [-1, -1] }>,
        w: &Tensor<E, { [-1, -1, -1] }>,
        sorted_token_ids: &Tensor<i32, { [-1] }>,
        expert_ids: &Tensor<i32, { [-1] }>,
        num_tokens_post_padded: &Tensor<i32, { [-1] }>,
        topk_weights: &Tensor<f32, { [-1] }>,
        out: &Tensor<E, { [-1, -1] }>,
    ) {
        let tiles_n: i32 = ceil_div(get_shape_dim(out.shape(), 1i32), BN);
        let (tile_m, tile_n): (i32, i32) = floor_div_mod(get_tile_block_id().0, tiles_n);
        let total: i32 = load_scalar(num_tokens_post_padded, 0i32);
        if tile_m * BM < total {
            let expert: i32 = load_scalar(expert_ids, tile_m);
            let num_ids: i32 = get_shape_dim(out.shape(), 0i32);
            let id_tiles: Partition<i32, { [BM] }> = unsafe {
                make_partition_view(
                    sorted_token_ids,
                    shape![BM],
                    padding::None,
                    dim_map::Identity,
                    sorted_token_ids.token(),
                )
            };
            let ids: Tile<i32, { [BM] }> = id_tiles.load([tile_m]);
            let valid: Tile<bool, { [BM] }> = lt_tile(ids, broadcast_scalar(num_ids, shape![BM]));
            let topk: Tile<i32, { [BM] }> = broadcast_scalar(TOPK, shape![BM]);
            let tokens: Tile<i32, { [BM] }> = divi(ids, topk, rounding::NegativeInf);
            // w[e] is stored (N, K) like nn.Linear: read as (K, N) through order (0, 2, 1).
            let mut acc: Tile<f32, { [BM, BN] }> = gathered_gemm::<E, BM, BN, BK, 1>(hidden, w, tokens, expert, tile_n);
            if MUL_ROUTED_WEIGHT == 1i32 {
                let routed: Tile<f32, { [BM] }> = gather_masked::<BM>(topk_weights, ids, valid);
                let routed: Tile<f32, { [BM, 1] }> = routed.reshape(shape![BM, 1]);
                acc = acc * routed.broadcast(shape![BM, BN]);
            }
            scatter_rows::<E, BM, BN>(out, ids, tile_n, acc, valid);
        }
    }
}
