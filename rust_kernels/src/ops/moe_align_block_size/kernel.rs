//! cuTile Rust port of reference/moe_align_block_size/kernel.py: MoE routing alignment in two
//! single-block kernels. `moe_align_histogram`: per-expert counts from (TILE, E_PAD) one-hot sums
//! over the flat top-k ids, BLOCK_M-padded exclusive prefix sums (expert_offsets, E + 1 entries),
//! the padded total and the expert of every BLOCK_M block (-1 past the total). `moe_align_sort`:
//! the stable placement of every flat id (segment start + ids of its expert in earlier tiles +
//! rank in the tile from a column cumsum of the one-hot), then the sentinel N into every padding
//! slot; both are masked scatters (`ct.scatter`), written as Python lowers them: i64 element
//! offsets from the base pointer, an unsigned bound check against the length, one token carried
//! through both loops.
//!
//! `moe_align_count_sub` / `moe_align_place_sub`: the parallel pair, one block per TILE ids, SUB ids
//! at a time, through the caller's (T, E) tile_counts scratch (reference kernel.py's module
//! docstring has the algorithm).
//!
//! Rows of the one-hot past N are all zero (masked by `flat < N`), and the E_PAD lanes past E
//! count nothing; lanes are stored through E_PAD-wide tiles whose part past the array is dropped.

#[cutile::module]
pub mod moe_align_block_size_kernel {
    use cutile::core::*;

    /// (TILE, E_PAD) i32 one-hot of the experts in tile `tile` of topk_ids, rows past N zero, and
    /// the flat ids of its rows. `lanes` = arange(TILE), `num_ids` = N in every lane and `experts`
    /// = arange(E_PAD) in every row: loop invariants, built once by the caller as Python hoists them.
    fn expert_one_hot<const TILE: i32, const E_PAD: i32>(
        id_tiles: &Partition<i32, { [TILE] }>,
        tile: i32,
        lanes: Tile<i32, { [TILE] }>,
        num_ids: Tile<i32, { [TILE] }>,
        experts: Tile<i32, { [TILE, E_PAD] }>,
    ) -> (Tile<i32, { [TILE, E_PAD] }>, Tile<i32, { [TILE] }>) {
        let first: Tile<i32, { [] }> = scalar_to_tile(tile * TILE);
        let flat: Tile<i32, { [TILE] }> = first.reshape(shape![1]).broadcast(shape![TILE]) + lanes;
        let ids: Tile<i32, { [TILE] }> = id_tiles.load([tile]);
        let valid: Tile<bool, { [TILE] }> = lt_tile(flat, num_ids);
        let valid: Tile<bool, { [TILE, 1] }> = valid.reshape(shape![TILE, 1]);
        let ids: Tile<i32, { [TILE, 1] }> = ids.reshape(shape![TILE, 1]);
        let hit: Tile<bool, { [TILE, E_PAD] }> = eq_tile(ids.broadcast(shape![TILE, E_PAD]), experts);
        let hit: Tile<bool, { [TILE, E_PAD] }> = andi(hit, valid.broadcast(shape![TILE, E_PAD]));
        (exti(hit), flat)
    }

    /// `ct.scatter(array, index, value, mask)` as cuTile Python lowers it: index as i64 element
    /// offsets from the base pointer (`u64` tiles, signless in the IR, so the bound check
    /// `index < len` is the unsigned compare that also drops negative indices), masked, ordered
    /// after `token`. Returns the store's token.
    unsafe fn scatter<const T: i32>(
        base: PointerTile<*mut i32, { [T] }>,
        len: Tile<u64, { [T] }>,
        index: Tile<i32, { [T] }>,
        value: Tile<i32, { [T] }>,
        mask: Tile<bool, { [T] }>,
        token: Token,
    ) -> Token {
        let offset: Tile<u64, { [T] }> = exti(index);
        let in_bounds: Tile<bool, { [T] }> = lt_tile(offset, len);
        let offset: Tile<u64, { [T] }> = offset * constant(1u64, shape![T]);
        let pointers: PointerTile<*mut i32, { [T] }> = addptr_tile(base, offset);
        let store_mask: Tile<bool, { [T] }> = andi(in_bounds, mask);
        unsafe {
            store_ptr_tko(
                pointers,
                value,
                ordering::Weak,
                None::<scope::TileBlock>,
                Some(store_mask),
                Some(token),
                Latency::<0>,
            )
        }
    }

    /// `scatter` for a 2-D tile of indices into a 1-D array (the same lowering, element-wise).
    unsafe fn scatter_2d<const A: i32, const B: i32>(
        base: PointerTile<*mut i32, { [A, B] }>,
        len: Tile<u64, { [A, B] }>,
        index: Tile<i32, { [A, B] }>,
        value: Tile<i32, { [A, B] }>,
        mask: Tile<bool, { [A, B] }>,
        token: Token,
    ) -> Token {
        let offset: Tile<u64, { [A, B] }> = exti(index);
        let in_bounds: Tile<bool, { [A, B] }> = lt_tile(offset, len);
        let offset: Tile<u64, { [A, B] }> = offset * constant(1u64, shape![A, B]);
        let pointers: PointerTile<*mut i32, { [A, B] }> = addptr_tile(base, offset);
        let store_mask: Tile<bool, { [A, B] }> = andi(in_bounds, mask);
        unsafe {
            store_ptr_tko(
                pointers,
                value,
                ordering::Weak,
                None::<scope::TileBlock>,
                Some(store_mask),
                Some(token),
                Latency::<0>,
            )
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn moe_align_histogram<const BLOCK_M: i32, const TILE: i32, const E_PAD: i32, const NB_TILE: i32>(
        topk_ids: &Tensor<i32, { [-1] }>,
        expert_counts: &Tensor<i32, { [-1] }>,
        expert_offsets: &Tensor<i32, { [-1] }>,
        expert_ids: &Tensor<i32, { [-1] }>,
        num_tokens_post_padded: &Tensor<i32, { [-1] }>,
    ) {
        let num_ids: i32 = get_shape_dim(topk_ids.shape(), 0i32);
        let mut counts: Tile<i32, { [E_PAD] }> = constant(0i32, shape![E_PAD]);
        let lanes: Tile<i32, { [TILE] }> = iota(shape![TILE]);
        // Zero padding past N: those rows are masked out of the one-hot.
        let id_tiles: Partition<i32, { [TILE] }> = topk_ids.partition(shape![TILE]);
        let num_ids_t: Tile<i32, { [] }> = scalar_to_tile(num_ids);
        let num_ids_row: Tile<i32, { [TILE] }> = num_ids_t.reshape(shape![1]).broadcast(shape![TILE]);
        let experts: Tile<i32, { [E_PAD] }> = iota(shape![E_PAD]);
        let experts: Tile<i32, { [TILE, E_PAD] }> = experts.reshape(shape![1, E_PAD]).broadcast(shape![TILE, E_PAD]);
        for t in 0i32..ceil_div(num_ids, TILE) {
            let (one_hot, _flat): (Tile<i32, { [TILE, E_PAD] }>, Tile<i32, { [TILE] }>) =
                expert_one_hot::<TILE, E_PAD>(&id_tiles, t, lanes, num_ids_row, experts);
            let tile_counts: Tile<i32, { [E_PAD] }> = reduce_sum(one_hot, 0);
            counts = counts + tile_counts;
        }
        let block_m: Tile<i32, { [E_PAD] }> = broadcast_scalar(BLOCK_M, shape![E_PAD]);
        let padded: Tile<i32, { [E_PAD] }> =
            divi(counts, block_m, rounding::PositiveInf) * broadcast_scalar(BLOCK_M, shape![E_PAD]);
        let ends: Tile<i32, { [E_PAD] }> = scan_sum(padded, 0i32, reverse::Forward, 0i32);
        let starts: Tile<i32, { [E_PAD] }> = ends - padded;
        let total: Tile<i32, { [] }> = reduce_sum(padded, 0);
        let mut count_tiles: PartitionMut<i32, { [E_PAD] }> =
            unsafe { expert_counts.partition_full_mut(shape![E_PAD]) };
        unsafe { count_tiles.store_unchecked(counts, [0i32]) };
        // Lanes >= E have a zero padded count, so starts[E] = total: the E_PAD lanes stored into
        // the E + 1 offsets (the rest dropped) write offsets[E] too.
        let mut offset_tiles: PartitionMut<i32, { [E_PAD] }> =
            unsafe { expert_offsets.partition_full_mut(shape![E_PAD]) };
        unsafe { offset_tiles.store_unchecked(starts, [0i32]) };
        let mut total_tiles: PartitionMut<i32, { [1] }> =
            unsafe { num_tokens_post_padded.partition_full_mut(shape![1]) };
        unsafe { total_tiles.store_unchecked(total.reshape(shape![1]), [0i32]) };
        let num_blocks: i32 = get_shape_dim(expert_ids.shape(), 0i32);
        let block_lanes: Tile<i32, { [NB_TILE] }> = iota(shape![NB_TILE]);
        let ends_rows: Tile<i32, { [NB_TILE, E_PAD] }> =
            ends.reshape(shape![1, E_PAD]).broadcast(shape![NB_TILE, E_PAD]);
        let total_row: Tile<i32, { [NB_TILE] }> = total.reshape(shape![1]).broadcast(shape![NB_TILE]);
        let mut owner_tiles: PartitionMut<i32, { [NB_TILE] }> =
            unsafe { expert_ids.partition_full_mut(shape![NB_TILE]) };
        for bt in 0i32..ceil_div(num_blocks, NB_TILE) {
            let first: Tile<i32, { [] }> = scalar_to_tile(bt * NB_TILE);
            let blocks: Tile<i32, { [NB_TILE] }> = first.reshape(shape![1]).broadcast(shape![NB_TILE]) + block_lanes;
            let block_start: Tile<i32, { [NB_TILE] }> = blocks * broadcast_scalar(BLOCK_M, shape![NB_TILE]);
            // The expert of a block: the number of experts whose padded segment ends at or before it.
            let starts_col: Tile<i32, { [NB_TILE, E_PAD] }> =
                block_start.reshape(shape![NB_TILE, 1]).broadcast(shape![NB_TILE, E_PAD]);
            let before: Tile<i32, { [NB_TILE, E_PAD] }> = exti(le_tile(ends_rows, starts_col));
            let owner: Tile<i32, { [NB_TILE] }> = reduce_sum(before, 1);
            let past_total: Tile<i32, { [NB_TILE] }> = constant(-1i32, shape![NB_TILE]);
            let owner: Tile<i32, { [NB_TILE] }> = select(lt_tile(block_start, total_row), owner, past_total);
            unsafe { owner_tiles.store_unchecked(owner, [bt]) };
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn moe_align_sort<const TILE: i32, const E_PAD: i32, const PAD_TILE: i32>(
        topk_ids: &Tensor<i32, { [-1] }>,
        expert_counts: &Tensor<i32, { [-1] }>,
        expert_offsets: &Tensor<i32, { [-1] }>,
        sorted_token_ids: &Tensor<i32, { [-1] }>,
    ) {
        let num_ids: i32 = get_shape_dim(topk_ids.shape(), 0i32);
        // Zero padding past E (E + 1 offsets): those lanes match no id.
        let starts: Tile<i32, { [E_PAD] }> = expert_offsets.partition(shape![E_PAD]).load([0i32]);
        let counts: Tile<i32, { [E_PAD] }> = expert_counts.partition(shape![E_PAD]).load([0i32]);
        let mut placed: Tile<i32, { [E_PAD] }> = constant(0i32, shape![E_PAD]);
        let lanes: Tile<i32, { [TILE] }> = iota(shape![TILE]);
        let id_tiles: Partition<i32, { [TILE] }> = topk_ids.partition(shape![TILE]);
        let num_ids_t: Tile<i32, { [] }> = scalar_to_tile(num_ids);
        let num_ids_row: Tile<i32, { [TILE] }> = num_ids_t.reshape(shape![1]).broadcast(shape![TILE]);
        let experts: Tile<i32, { [E_PAD] }> = iota(shape![E_PAD]);
        let experts: Tile<i32, { [TILE, E_PAD] }> = experts.reshape(shape![1, E_PAD]).broadcast(shape![TILE, E_PAD]);
        let num_slots: i32 = get_shape_dim(sorted_token_ids.shape(), 0i32);
        let num_slots_t: Tile<i32, { [] }> = scalar_to_tile(num_slots);
        let num_slots_t: Tile<u64, { [] }> = exti(num_slots_t);
        let base: PointerTile<*mut i32, { [] }> = get_tensor_base(sorted_token_ids);
        let mut token: Token = sorted_token_ids.token();
        let len_row: Tile<u64, { [TILE] }> = num_slots_t.reshape(shape![1]).broadcast(shape![TILE]);
        let base_one: PointerTile<*mut i32, { [1] }> = reshape_ptr(base, shape![1]);
        let base_row: PointerTile<*mut i32, { [TILE] }> = broadcast_ptr(base_one, shape![TILE]);
        let one: Tile<i32, { [TILE] }> = constant(1i32, shape![TILE]);
        for t in 0i32..ceil_div(num_ids, TILE) {
            let (one_hot, flat): (Tile<i32, { [TILE, E_PAD] }>, Tile<i32, { [TILE] }>) =
                expert_one_hot::<TILE, E_PAD>(&id_tiles, t, lanes, num_ids_row, experts);
            // rank of each id among the tile's ids of its expert (0-based)
            let running: Tile<i32, { [TILE, E_PAD] }> = scan_sum(one_hot, 0i32, reverse::Forward, 0i32);
            let hits_so_far: Tile<i32, { [TILE] }> = reduce_sum(one_hot * running, 1);
            let rank: Tile<i32, { [TILE] }> = hits_so_far - one;
            let next: Tile<i32, { [E_PAD] }> = starts + placed;
            let next: Tile<i32, { [TILE, E_PAD] }> = next.reshape(shape![1, E_PAD]).broadcast(shape![TILE, E_PAD]);
            let first_free: Tile<i32, { [TILE] }> = reduce_sum(one_hot * next, 1);
            let live: Tile<bool, { [TILE] }> = lt_tile(flat, num_ids_row);
            token = unsafe { scatter::<TILE>(base_row, len_row, first_free + rank, flat, live, token) };
            let tile_counts: Tile<i32, { [E_PAD] }> = reduce_sum(one_hot, 0);
            placed = placed + tile_counts;
        }

        // Padding slots: past the expert's count inside its segment, or past the padded total.
        let lane: Tile<i32, { [E_PAD] }> = iota(shape![E_PAD]);
        let lane: Tile<i32, { [1, E_PAD] }> = lane.reshape(shape![1, E_PAD]);
        let seg_start: Tile<i32, { [1, E_PAD] }> = starts.reshape(shape![1, E_PAD]);
        let seg_fill: Tile<i32, { [E_PAD] }> = starts + counts;
        let seg_fill: Tile<i32, { [1, E_PAD] }> = seg_fill.reshape(shape![1, E_PAD]);
        let num_experts: i32 = get_shape_dim(expert_counts.shape(), 0i32);
        let slot_lanes: Tile<i32, { [PAD_TILE] }> = iota(shape![PAD_TILE]);
        let seg_starts: Tile<i32, { [PAD_TILE, E_PAD] }> = seg_start.broadcast(shape![PAD_TILE, E_PAD]);
        let num_experts_t: Tile<i32, { [] }> = scalar_to_tile(num_experts);
        let real_expert: Tile<bool, { [1, E_PAD] }> =
            lt_tile(lane, num_experts_t.reshape(shape![1, 1]).broadcast(shape![1, E_PAD]));
        let real_experts: Tile<bool, { [PAD_TILE, E_PAD] }> = real_expert.broadcast(shape![PAD_TILE, E_PAD]);
        let lanes_2d: Tile<i32, { [PAD_TILE, E_PAD] }> = lane.broadcast(shape![PAD_TILE, E_PAD]);
        let seg_fills: Tile<i32, { [PAD_TILE, E_PAD] }> = seg_fill.broadcast(shape![PAD_TILE, E_PAD]);
        let zeros: Tile<i32, { [PAD_TILE, E_PAD] }> = constant(0i32, shape![PAD_TILE, E_PAD]);
        let len_pad: Tile<u64, { [PAD_TILE] }> = num_slots_t.reshape(shape![1]).broadcast(shape![PAD_TILE]);
        let base_pad: PointerTile<*mut i32, { [PAD_TILE] }> = broadcast_ptr(base_one, shape![PAD_TILE]);
        let sentinel: Tile<i32, { [PAD_TILE] }> = num_ids_t.reshape(shape![1]).broadcast(shape![PAD_TILE]);
        let one_pad: Tile<i32, { [PAD_TILE] }> = constant(1i32, shape![PAD_TILE]);
        for pt in 0i32..ceil_div(num_slots, PAD_TILE) {
            let first: Tile<i32, { [] }> = scalar_to_tile(pt * PAD_TILE);
            let slot: Tile<i32, { [PAD_TILE] }> = first.reshape(shape![1]).broadcast(shape![PAD_TILE]) + slot_lanes;
            let slot: Tile<i32, { [PAD_TILE, 1] }> = slot.reshape(shape![PAD_TILE, 1]);
            let in_segment: Tile<bool, { [PAD_TILE, E_PAD] }> =
                andi(le_tile(seg_starts, slot.broadcast(shape![PAD_TILE, E_PAD])), real_experts);
            let in_segment: Tile<i32, { [PAD_TILE, E_PAD] }> = exti(in_segment);
            let started_count: Tile<i32, { [PAD_TILE] }> = reduce_sum(in_segment, 1);
            let owner: Tile<i32, { [PAD_TILE] }> = started_count - one_pad;
            let owner: Tile<i32, { [PAD_TILE, E_PAD] }> =
                owner.reshape(shape![PAD_TILE, 1]).broadcast(shape![PAD_TILE, E_PAD]);
            let owner_one_hot: Tile<bool, { [PAD_TILE, E_PAD] }> = eq_tile(owner, lanes_2d);
            let filled_end: Tile<i32, { [PAD_TILE] }> = reduce_sum(select(owner_one_hot, seg_fills, zeros), 1);
            let slot: Tile<i32, { [PAD_TILE] }> = slot.reshape(shape![PAD_TILE]);
            let padding: Tile<bool, { [PAD_TILE] }> = ge_tile(slot, filled_end);
            token = unsafe { scatter::<PAD_TILE>(base_pad, len_pad, slot, sentinel, padding, token) };
        }
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn moe_align_count_sub<const TILE: i32, const SUB: i32, const E_PAD: i32>(
        topk_ids: &Tensor<i32, { [-1] }>,
        tile_counts: &Tensor<i32, { [-1, -1] }>,
    ) {
        let t: i32 = get_tile_block_id().0;
        let num_ids: i32 = get_shape_dim(topk_ids.shape(), 0i32);
        let lanes: Tile<i32, { [SUB] }> = iota(shape![SUB]);
        let id_tiles: Partition<i32, { [SUB] }> = topk_ids.partition(shape![SUB]);
        let num_ids_t: Tile<i32, { [] }> = scalar_to_tile(num_ids);
        let num_ids_row: Tile<i32, { [SUB] }> = num_ids_t.reshape(shape![1]).broadcast(shape![SUB]);
        let experts: Tile<i32, { [E_PAD] }> = iota(shape![E_PAD]);
        let experts: Tile<i32, { [SUB, E_PAD] }> = experts.reshape(shape![1, E_PAD]).broadcast(shape![SUB, E_PAD]);
        let mut counts: Tile<i32, { [E_PAD] }> = constant(0i32, shape![E_PAD]);
        for s in 0i32..TILE / SUB {
            let (one_hot, _flat): (Tile<i32, { [SUB, E_PAD] }>, Tile<i32, { [SUB] }>) =
                expert_one_hot::<SUB, E_PAD>(&id_tiles, t * (TILE / SUB) + s, lanes, num_ids_row, experts);
            let sub_counts: Tile<i32, { [E_PAD] }> = reduce_sum(one_hot, 0);
            counts = counts + sub_counts;
        }
        // Lanes >= E fall past tile_counts' (T, E) extent and are dropped.
        let mut rows: PartitionMut<i32, { [1, E_PAD] }> = unsafe { tile_counts.partition_full_mut(shape![1, E_PAD]) };
        unsafe { rows.store_unchecked(counts.reshape(shape![1, E_PAD]), [t, 0i32]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn moe_align_place_sub<
        const BLOCK_M: i32,
        const TILE: i32,
        const E_PAD: i32,
        const CH: i32,
        const SUB: i32,
        const PAD_TILE: i32,
        const NB_TILE: i32,
    >(
        topk_ids: &Tensor<i32, { [-1] }>,
        tile_counts: &Tensor<i32, { [-1, -1] }>,
        expert_counts: &Tensor<i32, { [-1] }>,
        expert_offsets: &Tensor<i32, { [-1] }>,
        expert_ids: &Tensor<i32, { [-1] }>,
        num_tokens_post_padded: &Tensor<i32, { [-1] }>,
        sorted_token_ids: &Tensor<i32, { [-1] }>,
    ) {
        let t: i32 = get_tile_block_id().0;
        let blocks: i32 = get_num_tile_blocks().0;
        let num_ids: i32 = get_shape_dim(topk_ids.shape(), 0i32);
        let num_experts: i32 = get_shape_dim(expert_counts.shape(), 0i32);
        let num_tiles: i32 = get_shape_dim(tile_counts.shape(), 0i32);
        // Every block sums the per-tile counts: all rows (the segments), rows before t (where
        // this tile's ids of each expert begin). Zero padding past T rows and E columns.
        let mut counts: Tile<i32, { [E_PAD] }> = constant(0i32, shape![E_PAD]);
        let mut before: Tile<i32, { [E_PAD] }> = constant(0i32, shape![E_PAD]);
        let count_rows: Partition<i32, { [CH, E_PAD] }> = tile_counts.partition(shape![CH, E_PAD]);
        let row_lanes: Tile<i32, { [CH] }> = iota(shape![CH]);
        let t_col: Tile<i32, { [CH, 1] }> = broadcast_scalar(t, shape![CH, 1]);
        let zeros: Tile<i32, { [CH, E_PAD] }> = constant(0i32, shape![CH, E_PAD]);
        for c in 0i32..ceil_div(num_tiles, CH) {
            let rows: Tile<i32, { [CH, E_PAD] }> = count_rows.load([c, 0i32]);
            let first: Tile<i32, { [] }> = scalar_to_tile(c * CH);
            let row: Tile<i32, { [CH] }> = first.reshape(shape![1]).broadcast(shape![CH]) + row_lanes;
            let row: Tile<i32, { [CH, 1] }> = row.reshape(shape![CH, 1]);
            let tile_sum: Tile<i32, { [E_PAD] }> = reduce_sum(rows, 0);
            counts = counts + tile_sum;
            let earlier: Tile<bool, { [CH, 1] }> = lt_tile(row, t_col);
            let earlier: Tile<bool, { [CH, E_PAD] }> = earlier.broadcast(shape![CH, E_PAD]);
            let earlier_rows: Tile<i32, { [CH, E_PAD] }> = select(earlier, rows, zeros);
            let earlier_sum: Tile<i32, { [E_PAD] }> = reduce_sum(earlier_rows, 0);
            before = before + earlier_sum;
        }
        let block_m: Tile<i32, { [E_PAD] }> = broadcast_scalar(BLOCK_M, shape![E_PAD]);
        let padded: Tile<i32, { [E_PAD] }> =
            divi(counts, block_m, rounding::PositiveInf) * broadcast_scalar(BLOCK_M, shape![E_PAD]);
        let ends: Tile<i32, { [E_PAD] }> = scan_sum(padded, 0i32, reverse::Forward, 0i32);
        let starts: Tile<i32, { [E_PAD] }> = ends - padded;
        let total: Tile<i32, { [] }> = reduce_sum(padded, 0);

        // The per-expert outputs, from block 0 only (masked scatters).
        let lane: Tile<i32, { [E_PAD] }> = iota(shape![E_PAD]);
        let t_row: Tile<i32, { [E_PAD] }> = broadcast_scalar(t, shape![E_PAD]);
        let zero_row: Tile<i32, { [E_PAD] }> = constant(0i32, shape![E_PAD]);
        let first_block: Tile<bool, { [E_PAD] }> = eq_tile(t_row, zero_row);
        let num_experts_row: Tile<i32, { [E_PAD] }> = broadcast_scalar(num_experts, shape![E_PAD]);
        let counts_base: PointerTile<*mut i32, { [] }> = get_tensor_base(expert_counts);
        let counts_len: Tile<u64, { [E_PAD] }> = exti(num_experts_row);
        let counts_one: PointerTile<*mut i32, { [1] }> = reshape_ptr(counts_base, shape![1]);
        let counts_ptrs: PointerTile<*mut i32, { [E_PAD] }> = broadcast_ptr(counts_one, shape![E_PAD]);
        let real_lane: Tile<bool, { [E_PAD] }> = lt_tile(lane, num_experts_row);
        let counts_mask: Tile<bool, { [E_PAD] }> = andi(real_lane, first_block);
        let counts_token: Token = expert_counts.token();
        let _ = unsafe { scatter::<E_PAD>(counts_ptrs, counts_len, lane, counts, counts_mask, counts_token) };
        // Lanes >= E have a zero padded count, so starts[E] = total.
        let num_offsets: i32 = get_shape_dim(expert_offsets.shape(), 0i32);
        let offsets_base: PointerTile<*mut i32, { [] }> = get_tensor_base(expert_offsets);
        let num_offsets_row: Tile<i32, { [E_PAD] }> = broadcast_scalar(num_offsets, shape![E_PAD]);
        let offsets_len: Tile<u64, { [E_PAD] }> = exti(num_offsets_row);
        let offsets_one: PointerTile<*mut i32, { [1] }> = reshape_ptr(offsets_base, shape![1]);
        let offsets_ptrs: PointerTile<*mut i32, { [E_PAD] }> = broadcast_ptr(offsets_one, shape![E_PAD]);
        let offset_lane: Tile<bool, { [E_PAD] }> = le_tile(lane, num_experts_row);
        let offsets_mask: Tile<bool, { [E_PAD] }> = andi(offset_lane, first_block);
        let offsets_token: Token = expert_offsets.token();
        let _ = unsafe { scatter::<E_PAD>(offsets_ptrs, offsets_len, lane, starts, offsets_mask, offsets_token) };
        let num_totals: i32 = get_shape_dim(num_tokens_post_padded.shape(), 0i32);
        let total_base: PointerTile<*mut i32, { [] }> = get_tensor_base(num_tokens_post_padded);
        let num_totals_row: Tile<i32, { [E_PAD] }> = broadcast_scalar(num_totals, shape![E_PAD]);
        let total_len: Tile<u64, { [E_PAD] }> = exti(num_totals_row);
        let total_one: PointerTile<*mut i32, { [1] }> = reshape_ptr(total_base, shape![1]);
        let total_ptrs: PointerTile<*mut i32, { [E_PAD] }> = broadcast_ptr(total_one, shape![E_PAD]);
        let total_row: Tile<i32, { [E_PAD] }> = total.reshape(shape![1]).broadcast(shape![E_PAD]);
        let one_row: Tile<i32, { [E_PAD] }> = constant(1i32, shape![E_PAD]);
        let one_lane: Tile<bool, { [E_PAD] }> = lt_tile(lane, one_row);
        let total_mask: Tile<bool, { [E_PAD] }> = andi(one_lane, first_block);
        let total_token: Token = num_tokens_post_padded.token();
        let _ = unsafe { scatter::<E_PAD>(total_ptrs, total_len, lane, total_row, total_mask, total_token) };

        // This block's ids, SUB at a time: segment start + ids of the expert in earlier tiles +
        // the ids of the expert before it in this tile.
        let tile_ids: Tile<i32, { [TILE] }> = topk_ids.partition(shape![TILE]).load([t]);
        let tile_ids: Tile<i32, { [SUB, TILE] }> = tile_ids.reshape(shape![1, TILE]).broadcast(shape![SUB, TILE]);
        let tile_pos: Tile<i32, { [TILE] }> = iota(shape![TILE]);
        let tile_pos: Tile<i32, { [SUB, TILE] }> = tile_pos.reshape(shape![1, TILE]).broadcast(shape![SUB, TILE]);
        let next: Tile<i32, { [E_PAD] }> = starts + before;
        let next: Tile<i32, { [SUB, E_PAD] }> = next.reshape(shape![1, E_PAD]).broadcast(shape![SUB, E_PAD]);
        let experts: Tile<i32, { [E_PAD] }> = iota(shape![E_PAD]);
        let experts: Tile<i32, { [SUB, E_PAD] }> = experts.reshape(shape![1, E_PAD]).broadcast(shape![SUB, E_PAD]);
        let sub_tiles: Partition<i32, { [SUB] }> = topk_ids.partition(shape![SUB]);
        let sub_lanes: Tile<i32, { [SUB] }> = iota(shape![SUB]);
        let num_ids_t: Tile<i32, { [] }> = scalar_to_tile(num_ids);
        let num_ids_sub: Tile<i32, { [SUB] }> = num_ids_t.reshape(shape![1]).broadcast(shape![SUB]);
        let sub_zeros: Tile<i32, { [SUB, E_PAD] }> = constant(0i32, shape![SUB, E_PAD]);
        let num_slots: i32 = get_shape_dim(sorted_token_ids.shape(), 0i32);
        let num_slots_t: Tile<i32, { [] }> = scalar_to_tile(num_slots);
        let num_slots_t: Tile<u64, { [] }> = exti(num_slots_t);
        let base: PointerTile<*mut i32, { [] }> = get_tensor_base(sorted_token_ids);
        let base_one: PointerTile<*mut i32, { [1] }> = reshape_ptr(base, shape![1]);
        let mut token: Token = sorted_token_ids.token();
        let len_sub: Tile<u64, { [SUB] }> = num_slots_t.reshape(shape![1]).broadcast(shape![SUB]);
        let base_sub: PointerTile<*mut i32, { [SUB] }> = broadcast_ptr(base_one, shape![SUB]);
        for s in 0i32..TILE / SUB {
            let ids: Tile<i32, { [SUB] }> = sub_tiles.load([t * (TILE / SUB) + s]);
            let first: Tile<i32, { [] }> = scalar_to_tile(s * SUB);
            let pos: Tile<i32, { [SUB] }> = first.reshape(shape![1]).broadcast(shape![SUB]) + sub_lanes;
            let tile_first: Tile<i32, { [] }> = scalar_to_tile(t * TILE);
            let flat: Tile<i32, { [SUB] }> = tile_first.reshape(shape![1]).broadcast(shape![SUB]) + pos;
            let valid: Tile<bool, { [SUB] }> = lt_tile(flat, num_ids_sub);
            let ids_col: Tile<i32, { [SUB, 1] }> = ids.reshape(shape![SUB, 1]);
            let hit: Tile<bool, { [SUB, E_PAD] }> = eq_tile(ids_col.broadcast(shape![SUB, E_PAD]), experts);
            let valid_col: Tile<bool, { [SUB, 1] }> = valid.reshape(shape![SUB, 1]);
            let hit: Tile<bool, { [SUB, E_PAD] }> = andi(hit, valid_col.broadcast(shape![SUB, E_PAD]));
            let hit_next: Tile<i32, { [SUB, E_PAD] }> = select(hit, next, sub_zeros);
            let first_free: Tile<i32, { [SUB] }> = reduce_sum(hit_next, 1);
            let same: Tile<bool, { [SUB, TILE] }> = eq_tile(ids_col.broadcast(shape![SUB, TILE]), tile_ids);
            let pos_col: Tile<i32, { [SUB, 1] }> = pos.reshape(shape![SUB, 1]);
            let before_me: Tile<bool, { [SUB, TILE] }> = lt_tile(tile_pos, pos_col.broadcast(shape![SUB, TILE]));
            let earlier_same: Tile<bool, { [SUB, TILE] }> = andi(same, before_me);
            let earlier_same: Tile<i32, { [SUB, TILE] }> = exti(earlier_same);
            let rank: Tile<i32, { [SUB] }> = reduce_sum(earlier_same, 1);
            token = unsafe { scatter::<SUB>(base_sub, len_sub, first_free + rank, flat, valid, token) };
        }

        // expert_ids, NB_TILE blocks at a time, grid-stride (indices past NB are dropped).
        let num_blocks: i32 = get_shape_dim(expert_ids.shape(), 0i32);
        let block_lanes: Tile<i32, { [NB_TILE] }> = iota(shape![NB_TILE]);
        let ends_rows: Tile<i32, { [NB_TILE, E_PAD] }> =
            ends.reshape(shape![1, E_PAD]).broadcast(shape![NB_TILE, E_PAD]);
        let total_nb: Tile<i32, { [NB_TILE] }> = total.reshape(shape![1]).broadcast(shape![NB_TILE]);
        let ids_base: PointerTile<*mut i32, { [] }> = get_tensor_base(expert_ids);
        let ids_one: PointerTile<*mut i32, { [1] }> = reshape_ptr(ids_base, shape![1]);
        let ids_ptrs: PointerTile<*mut i32, { [NB_TILE] }> = broadcast_ptr(ids_one, shape![NB_TILE]);
        let num_blocks_row: Tile<i32, { [NB_TILE] }> = broadcast_scalar(num_blocks, shape![NB_TILE]);
        let ids_len: Tile<u64, { [NB_TILE] }> = exti(num_blocks_row);
        let all_blocks: Tile<bool, { [NB_TILE] }> = constant(true, shape![NB_TILE]);
        let past_total: Tile<i32, { [NB_TILE] }> = constant(-1i32, shape![NB_TILE]);
        let mut ids_token: Token = expert_ids.token();
        for k in 0i32..ceil_div(ceil_div(num_blocks, NB_TILE), blocks) {
            let first: Tile<i32, { [] }> = scalar_to_tile((k * blocks + t) * NB_TILE);
            let block: Tile<i32, { [NB_TILE] }> = first.reshape(shape![1]).broadcast(shape![NB_TILE]) + block_lanes;
            let block_start: Tile<i32, { [NB_TILE] }> = block * broadcast_scalar(BLOCK_M, shape![NB_TILE]);
            // The expert of a block: the number of experts whose padded segment ends at or before it.
            let starts_col: Tile<i32, { [NB_TILE, E_PAD] }> =
                block_start.reshape(shape![NB_TILE, 1]).broadcast(shape![NB_TILE, E_PAD]);
            let ended: Tile<bool, { [NB_TILE, E_PAD] }> = le_tile(ends_rows, starts_col);
            let ended: Tile<i32, { [NB_TILE, E_PAD] }> = exti(ended);
            let owner: Tile<i32, { [NB_TILE] }> = reduce_sum(ended, 1);
            let in_total: Tile<bool, { [NB_TILE] }> = lt_tile(block_start, total_nb);
            let owner: Tile<i32, { [NB_TILE] }> = select(in_total, owner, past_total);
            ids_token = unsafe { scatter::<NB_TILE>(ids_ptrs, ids_len, block, owner, all_blocks, ids_token) };
        }

        // Padding inside the segments: [start + count, end) of each expert, fewer than BLOCK_M
        // slots (lanes >= E have start = end = total: none), written by block 0.
        let fill: Tile<i32, { [E_PAD] }> = starts + counts;
        let fill: Tile<i32, { [E_PAD, BLOCK_M] }> = fill.reshape(shape![E_PAD, 1]).broadcast(shape![E_PAD, BLOCK_M]);
        let in_block: Tile<i32, { [BLOCK_M] }> = iota(shape![BLOCK_M]);
        let in_block: Tile<i32, { [E_PAD, BLOCK_M] }> =
            in_block.reshape(shape![1, BLOCK_M]).broadcast(shape![E_PAD, BLOCK_M]);
        let slot: Tile<i32, { [E_PAD, BLOCK_M] }> = fill + in_block;
        let ends_col: Tile<i32, { [E_PAD, BLOCK_M] }> = ends.reshape(shape![E_PAD, 1]).broadcast(shape![E_PAD, BLOCK_M]);
        let short: Tile<bool, { [E_PAD, BLOCK_M] }> = lt_tile(slot, ends_col);
        let t_2d: Tile<i32, { [E_PAD, BLOCK_M] }> = broadcast_scalar(t, shape![E_PAD, BLOCK_M]);
        let zero_2d: Tile<i32, { [E_PAD, BLOCK_M] }> = constant(0i32, shape![E_PAD, BLOCK_M]);
        let first_2d: Tile<bool, { [E_PAD, BLOCK_M] }> = eq_tile(t_2d, zero_2d);
        let in_padding: Tile<bool, { [E_PAD, BLOCK_M] }> = andi(short, first_2d);
        let seg_len: Tile<u64, { [E_PAD, BLOCK_M] }> =
            num_slots_t.reshape(shape![1, 1]).broadcast(shape![E_PAD, BLOCK_M]);
        let base_2d: PointerTile<*mut i32, { [1, 1] }> = reshape_ptr(base, shape![1, 1]);
        let base_seg: PointerTile<*mut i32, { [E_PAD, BLOCK_M] }> = broadcast_ptr(base_2d, shape![E_PAD, BLOCK_M]);
        let sentinel_seg: Tile<i32, { [E_PAD, BLOCK_M] }> =
            num_ids_t.reshape(shape![1, 1]).broadcast(shape![E_PAD, BLOCK_M]);
        token = unsafe { scatter_2d::<E_PAD, BLOCK_M>(base_seg, seg_len, slot, sentinel_seg, in_padding, token) };
        // And past the padded total, PAD_TILE slots at a time, grid-stride (slots past EM are dropped).
        let slot_lanes: Tile<i32, { [PAD_TILE] }> = iota(shape![PAD_TILE]);
        let len_pad: Tile<u64, { [PAD_TILE] }> = num_slots_t.reshape(shape![1]).broadcast(shape![PAD_TILE]);
        let base_pad: PointerTile<*mut i32, { [PAD_TILE] }> = broadcast_ptr(base_one, shape![PAD_TILE]);
        let sentinel: Tile<i32, { [PAD_TILE] }> = num_ids_t.reshape(shape![1]).broadcast(shape![PAD_TILE]);
        let total_pad: Tile<i32, { [PAD_TILE] }> = total.reshape(shape![1]).broadcast(shape![PAD_TILE]);
        for k in 0i32..ceil_div(ceil_div(num_slots, PAD_TILE), blocks) {
            let first: Tile<i32, { [] }> = scalar_to_tile((k * blocks + t) * PAD_TILE);
            let tail: Tile<i32, { [PAD_TILE] }> = first.reshape(shape![1]).broadcast(shape![PAD_TILE]) + slot_lanes;
            let past: Tile<bool, { [PAD_TILE] }> = ge_tile(tail, total_pad);
            token = unsafe { scatter::<PAD_TILE>(base_pad, len_pad, tail, sentinel, past, token) };
        }
    }
}
