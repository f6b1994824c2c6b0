//! cuTile Rust port of reference/flash_decode/kernel.py: split-KV decode attention.
//! `flash_decode_partial`: one block per (split, batch * kv head); the QUERY_GROUP query heads
//! of that kv head form a (QUERY_GROUP, D) query tile (GQA); an online base-2 softmax over the
//! split's key tiles, keys at or past seq_lens[b] masked to -inf; the split's normalised output
//! and log2-sum-exp go to the caller's partial_o / partial_lse. An empty split (a short
//! sequence) runs no iteration and writes o = 0, lse = -inf. `flash_decode_combine`: one block
//! per (batch, query head) merges the S partials, loaded as one MAX_SPLITS tile (-inf / 0
//! padding), with weights exp2(lse_s - max lse); its output element type is `EOut` (the partials
//! are f32).
//!
//! Both block-id splits (bid // heads, bid % heads) use Rust's truncating `/` and `%`: block ids
//! and extents are non-negative, where truncation and Python's floor agree.

#[cutile::module]
pub mod flash_decode_kernel {
    use cutile::core::*;

    const LOG2E: f32 = 1.4426950408889634f32;
    /// The floor of the softmax denominator: an empty split has l = 0 and acc = 0, so o = 0.
    const MIN_DENOM: f32 = 1e-30f32;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn flash_decode_partial<E: ElementType, const BN: i32, const D: i32, const QUERY_GROUP: i32>(
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        seq_lens: &Tensor<i32, { [-1] }>,
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        sm_scale: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let split: i32 = block.0;
        let num_splits: i32 = get_shape_dim(partial_lse.shape(), 2i32);
        let num_kv_heads: i32 = get_shape_dim(k.shape(), 1i32);
        let batch: i32 = block.1 / num_kv_heads;
        let kv_head: i32 = block.1 % num_kv_heads;
        // No padding, as Python's plain ct.load: batch < B always.
        let len_view: Partition<i32, { [1] }> =
            unsafe { make_partition_view(seq_lens, shape![1], padding::None, dim_map::Identity, seq_lens.token()) };
        let seq_len: Tile<i32, { [1] }> = len_view.load([batch]);
        let seq_len: Tile<i32, { [] }> = seq_len.reshape(shape![]);
        let seq_len_s: i32 = tile_to_scalar(seq_len);
        let tiles: i32 = ceil_div(seq_len_s, BN);
        let per_split: i32 = ceil_div(tiles, num_splits);
        let t_begin: i32 = min(split * per_split, tiles);
        let t_end: i32 = min(t_begin + per_split, tiles);
        let qk_scale: f32 = sm_scale * LOG2E;

        // Query heads kv_head * QUERY_GROUP .. + QUERY_GROUP - 1 are head tile kv_head.
        let q_tiles: Partition<E, { [1, QUERY_GROUP, D] }> =
            unsafe { make_partition_view(q, shape![1, QUERY_GROUP, D], padding::None, dim_map::Identity, q.token()) };
        let q_tile: Tile<E, { [1, QUERY_GROUP, D] }> = q_tiles.load([batch, kv_head, 0i32]);
        let q_tile: Tile<E, { [QUERY_GROUP, D] }> = q_tile.reshape(shape![QUERY_GROUP, D]);
        let mut acc: Tile<f32, { [QUERY_GROUP, D] }> = constant(0.0f32, shape![QUERY_GROUP, D]);
        let mut l_i: Tile<f32, { [QUERY_GROUP, 1] }> = constant(0.0f32, shape![QUERY_GROUP, 1]);
        let mut m_i: Tile<f32, { [QUERY_GROUP, 1] }> = constant(f32::NEG_INFINITY, shape![QUERY_GROUP, 1]);
        // K read transposed (order (0, 1, 3, 2)): a (D, BN) tile per key tile; zero padding
        // past Smax (those columns are masked below anyway).
        let k_tiles: Partition<E, { [1, 1, D, BN] }> =
            k.partition_permuted(shape![1, 1, D, BN], const_array![0, 1, 3, 2]);
        let zero_scores: Tile<f32, { [QUERY_GROUP, BN] }> = constant(0.0f32, shape![QUERY_GROUP, BN]);
        let qk_scale_t: Tile<f32, { [] }> = scalar_to_tile(qk_scale);
        let qk_scale_t: Tile<f32, { [QUERY_GROUP, BN] }> =
            qk_scale_t.reshape(shape![1, 1]).broadcast(shape![QUERY_GROUP, BN]);
        let cols: Tile<i32, { [BN] }> = iota(shape![BN]);
        let seq_len_row: Tile<i32, { [BN] }> = seq_len.reshape(shape![1]).broadcast(shape![BN]);
        let neg_inf: Tile<f32, { [] }> = constant(f32::NEG_INFINITY, shape![]);
        let neg_inf: Tile<f32, { [QUERY_GROUP, BN] }> =
            neg_inf.reshape(shape![1, 1]).broadcast(shape![QUERY_GROUP, BN]);
        let v_tiles: Partition<E, { [1, 1, BN, D] }> = v.partition(shape![1, 1, BN, D]);
        for j in t_begin..t_end {
            let kt: Tile<E, { [1, 1, D, BN] }> = k_tiles.load([batch, kv_head, 0i32, j]);
            let kt: Tile<E, { [D, BN] }> = kt.reshape(shape![D, BN]);
            let scores: Tile<f32, { [QUERY_GROUP, BN] }> = mma(q_tile, kt, zero_scores) * qk_scale_t;
            // Keys at or past seq_len are stale cache entries (or padding): masked.
            let offset: Tile<i32, { [] }> = scalar_to_tile(j * BN);
            let col_ids: Tile<i32, { [BN] }> = offset.reshape(shape![1]).broadcast(shape![BN]) + cols;
            let live: Tile<bool, { [BN] }> = lt_tile(col_ids, seq_len_row);
            let live: Tile<bool, { [QUERY_GROUP, BN] }> =
                live.reshape(shape![1, BN]).broadcast(shape![QUERY_GROUP, BN]);
            let scores: Tile<f32, { [QUERY_GROUP, BN] }> = select(live, scores, neg_inf);
            let tile_max: Tile<f32, { [QUERY_GROUP] }> = reduce_max(scores, 1);
            let m_new: Tile<f32, { [QUERY_GROUP, 1] }> = max_tile(m_i, tile_max.reshape(shape![QUERY_GROUP, 1]));
            let p: Tile<f32, { [QUERY_GROUP, BN] }> =
                exp2(scores - m_new.broadcast(shape![QUERY_GROUP, BN]), ftz::Disabled);
            let alpha: Tile<f32, { [QUERY_GROUP, 1] }> = exp2(m_i - m_new, ftz::Disabled);
            let p_sum: Tile<f32, { [QUERY_GROUP] }> = reduce_sum(p, 1);
            // fma where cuTile Python contracts `l_i * alpha + sum(p)`, for the same rounding.
            l_i = fma(l_i, alpha, p_sum.reshape(shape![QUERY_GROUP, 1]), rounding::NearestEven, ftz::Disabled);
            let vt: Tile<E, { [1, 1, BN, D] }> = v_tiles.load([batch, kv_head, j, 0i32]);
            let p_e: Tile<E, { [QUERY_GROUP, BN] }> = convert_tile(p);
            let vt: Tile<E, { [BN, D] }> = vt.reshape(shape![BN, D]);
            acc = mma(p_e, vt, acc * alpha.broadcast(shape![QUERY_GROUP, D]));
            m_i = m_new;
        }
        let floor: Tile<f32, { [] }> = constant(MIN_DENOM, shape![]);
        let floor: Tile<f32, { [QUERY_GROUP, 1] }> = floor.reshape(shape![1, 1]).broadcast(shape![QUERY_GROUP, 1]);
        let denom: Tile<f32, { [QUERY_GROUP, 1] }> = max_tile(l_i, floor);
        // IEEE division like Python's `/`.
        let o: Tile<f32, { [QUERY_GROUP, D] }> =
            divf(acc, denom.broadcast(shape![QUERY_GROUP, D]), rounding::NearestEven, ftz::Disabled);
        let lse: Tile<f32, { [QUERY_GROUP, 1] }> = m_i + log2(l_i);
        let mut o_tiles: PartitionMut<f32, { [1, QUERY_GROUP, 1, D] }> =
            unsafe { partial_o.partition_full_mut(shape![1, QUERY_GROUP, 1, D]) };
        unsafe { o_tiles.store_unchecked(o.reshape(shape![1, QUERY_GROUP, 1, D]), [batch, kv_head, split, 0i32]) };
        let mut lse_tiles: PartitionMut<f32, { [1, QUERY_GROUP, 1] }> =
            unsafe { partial_lse.partition_full_mut(shape![1, QUERY_GROUP, 1]) };
        unsafe { lse_tiles.store_unchecked(lse.reshape(shape![1, QUERY_GROUP, 1]), [batch, kv_head, split]) };
    }

    /// flash_decode_partial with both products transposed, so that a tensor-core product gets
    /// the key tile as its M side: scores^T (BN, G) = K (BN, D) @ q^T (D, G) and
    /// o^T (D, G) += V^T (D, BN) @ p^T (BN, G), with G = QUERY_PAD = 2 * QUERY_GROUP query
    /// columns: the QUERY_GROUP query heads, then as many zero columns, whose results are dropped
    /// (a wgmma needs N >= 8: QUERY_GROUP 4 -> 8). The softmax runs down the columns.
    /// The body of flash_decode_partial_tp and its occupancy twin.
    fn flash_decode_partial_tp_body<
        E: ElementType,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const QUERY_PAD: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        seq_lens: &Tensor<i32, { [-1] }>,
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        sm_scale: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let split: i32 = block.0;
        let num_splits: i32 = get_shape_dim(partial_lse.shape(), 2i32);
        let num_kv_heads: i32 = get_shape_dim(k.shape(), 1i32);
        let batch: i32 = block.1 / num_kv_heads;
        let kv_head: i32 = block.1 % num_kv_heads;
        let len_view: Partition<i32, { [1] }> =
            unsafe { make_partition_view(seq_lens, shape![1], padding::None, dim_map::Identity, seq_lens.token()) };
        let seq_len: Tile<i32, { [1] }> = len_view.load([batch]);
        let seq_len: Tile<i32, { [] }> = seq_len.reshape(shape![]);
        let seq_len_s: i32 = tile_to_scalar(seq_len);
        let tiles: i32 = ceil_div(seq_len_s, BN);
        let per_split: i32 = ceil_div(tiles, num_splits);
        let t_begin: i32 = min(split * per_split, tiles);
        let t_end: i32 = min(t_begin + per_split, tiles);
        let qk_scale: f32 = sm_scale * LOG2E;

        let q_tiles: Partition<E, { [1, QUERY_GROUP, D] }> =
            unsafe { make_partition_view(q, shape![1, QUERY_GROUP, D], padding::None, dim_map::Identity, q.token()) };
        let q_tile: Tile<E, { [1, QUERY_GROUP, D] }> = q_tiles.load([batch, kv_head, 0i32]);
        let q_tile: Tile<E, { [QUERY_GROUP, D] }> = q_tile.reshape(shape![QUERY_GROUP, D]);
        let q_t: Tile<E, { [D, QUERY_GROUP] }> = q_tile.transpose();
        let q_pad: Tile<E, { [D, QUERY_GROUP] }> = constant(E::ZERO, shape![D, QUERY_GROUP]);
        let q_t: Tile<E, { [D, QUERY_PAD] }> = cat(q_t, q_pad, 1i32);
        let mut acc: Tile<f32, { [D, QUERY_PAD] }> = constant(0.0f32, shape![D, QUERY_PAD]);
        let mut l_i: Tile<f32, { [1, QUERY_PAD] }> = constant(0.0f32, shape![1, QUERY_PAD]);
        let mut m_i: Tile<f32, { [1, QUERY_PAD] }> = constant(f32::NEG_INFINITY, shape![1, QUERY_PAD]);
        let k_tiles: Partition<E, { [1, 1, BN, D] }> = k.partition(shape![1, 1, BN, D]);
        // V read transposed (order (0, 1, 3, 2)): a (D, BN) tile per key tile.
        let v_tiles: Partition<E, { [1, 1, D, BN] }> =
            v.partition_permuted(shape![1, 1, D, BN], const_array![0, 1, 3, 2]);
        let zero_scores: Tile<f32, { [BN, QUERY_PAD] }> = constant(0.0f32, shape![BN, QUERY_PAD]);
        let qk_scale_t: Tile<f32, { [] }> = scalar_to_tile(qk_scale);
        let qk_scale_t: Tile<f32, { [BN, QUERY_PAD] }> =
            qk_scale_t.reshape(shape![1, 1]).broadcast(shape![BN, QUERY_PAD]);
        let rows: Tile<i32, { [BN] }> = iota(shape![BN]);
        let seq_len_col: Tile<i32, { [BN] }> = seq_len.reshape(shape![1]).broadcast(shape![BN]);
        let neg_inf: Tile<f32, { [] }> = constant(f32::NEG_INFINITY, shape![]);
        let neg_inf: Tile<f32, { [BN, QUERY_PAD] }> = neg_inf.reshape(shape![1, 1]).broadcast(shape![BN, QUERY_PAD]);
        for j in t_begin..t_end {
            let kt: Tile<E, { [1, 1, BN, D] }> = k_tiles.load([batch, kv_head, j, 0i32]);
            let kt: Tile<E, { [BN, D] }> = kt.reshape(shape![BN, D]);
            let scores: Tile<f32, { [BN, QUERY_PAD] }> = mma(kt, q_t, zero_scores) * qk_scale_t;
            // Keys at or past seq_len are stale cache entries (or padding): masked.
            let offset: Tile<i32, { [] }> = scalar_to_tile(j * BN);
            let row_ids: Tile<i32, { [BN] }> = offset.reshape(shape![1]).broadcast(shape![BN]) + rows;
            let live: Tile<bool, { [BN] }> = lt_tile(row_ids, seq_len_col);
            let live: Tile<bool, { [BN, QUERY_PAD] }> = live.reshape(shape![BN, 1]).broadcast(shape![BN, QUERY_PAD]);
            let scores: Tile<f32, { [BN, QUERY_PAD] }> = select(live, scores, neg_inf);
            let tile_max: Tile<f32, { [QUERY_PAD] }> = reduce_max(scores, 0);
            let m_new: Tile<f32, { [1, QUERY_PAD] }> = max_tile(m_i, tile_max.reshape(shape![1, QUERY_PAD]));
            let p: Tile<f32, { [BN, QUERY_PAD] }> =
                exp2(scores - m_new.broadcast(shape![BN, QUERY_PAD]), ftz::Disabled);
            let alpha: Tile<f32, { [1, QUERY_PAD] }> = exp2(m_i - m_new, ftz::Disabled);
            let p_sum: Tile<f32, { [QUERY_PAD] }> = reduce_sum(p, 0);
            // fma where cuTile Python contracts `l_i * alpha + sum(p)`, for the same rounding.
            l_i = fma(l_i, alpha, p_sum.reshape(shape![1, QUERY_PAD]), rounding::NearestEven, ftz::Disabled);
            let vt: Tile<E, { [1, 1, D, BN] }> = v_tiles.load([batch, kv_head, 0i32, j]);
            let vt: Tile<E, { [D, BN] }> = vt.reshape(shape![D, BN]);
            let p_e: Tile<E, { [BN, QUERY_PAD] }> = convert_tile(p);
            acc = mma(vt, p_e, acc * alpha.broadcast(shape![D, QUERY_PAD]));
            m_i = m_new;
        }
        let floor: Tile<f32, { [] }> = constant(MIN_DENOM, shape![]);
        let floor: Tile<f32, { [1, QUERY_PAD] }> = floor.reshape(shape![1, 1]).broadcast(shape![1, QUERY_PAD]);
        let denom: Tile<f32, { [1, QUERY_PAD] }> = max_tile(l_i, floor);
        // IEEE division like Python's `/`.
        let o: Tile<f32, { [D, QUERY_PAD] }> =
            divf(acc, denom.broadcast(shape![D, QUERY_PAD]), rounding::NearestEven, ftz::Disabled);
        let o: Tile<f32, { [QUERY_PAD, D] }> = o.transpose();
        let lse: Tile<f32, { [1, QUERY_PAD] }> = m_i + log2(l_i);
        let zero: Tile<i32, { [] }> = constant(0i32, shape![]);
        let o: Tile<f32, { [QUERY_GROUP, D] }> = extract(o, [zero, zero]);
        let lse: Tile<f32, { [1, QUERY_GROUP] }> = extract(lse, [zero, zero]);
        let mut o_tiles: PartitionMut<f32, { [1, QUERY_GROUP, 1, D] }> =
            unsafe { partial_o.partition_full_mut(shape![1, QUERY_GROUP, 1, D]) };
        unsafe { o_tiles.store_unchecked(o.reshape(shape![1, QUERY_GROUP, 1, D]), [batch, kv_head, split, 0i32]) };
        let mut lse_tiles: PartitionMut<f32, { [1, QUERY_GROUP, 1] }> =
            unsafe { partial_lse.partition_full_mut(shape![1, QUERY_GROUP, 1]) };
        unsafe { lse_tiles.store_unchecked(lse.reshape(shape![1, QUERY_GROUP, 1]), [batch, kv_head, split]) };
    }

    /// flash_decode_partial_tp_body as an entry without hints.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn flash_decode_partial_tp<
        E: ElementType,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const QUERY_PAD: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        seq_lens: &Tensor<i32, { [-1] }>,
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        sm_scale: f32,
    ) {
        flash_decode_partial_tp_body::<E, BN, D, QUERY_GROUP, QUERY_PAD>(
            q,
            k,
            v,
            seq_lens,
            partial_o,
            partial_lse,
            sm_scale,
        );
    }

    /// `ct.kernel(occupancy=4)`: four blocks an SM at BN 64 (the unhinted BN 128 kernel holds 228 KB
    /// of shared memory, one block an SM).
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 4,),))]
    unsafe fn flash_decode_partial_tp_o4<
        E: ElementType,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const QUERY_PAD: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        seq_lens: &Tensor<i32, { [-1] }>,
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        sm_scale: f32,
    ) {
        flash_decode_partial_tp_body::<E, BN, D, QUERY_GROUP, QUERY_PAD>(
            q,
            k,
            v,
            seq_lens,
            partial_o,
            partial_lse,
            sm_scale,
        );
    }

    /// flash_decode_partial for one query head per kv head (QUERY_GROUP = 1) without a tensor-core
    /// product: scores = the row sums of K * q, o += the column sums of p * V, in f32.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn flash_decode_partial_v<E: ElementType, const BN: i32, const D: i32, const QUERY_GROUP: i32>(
        q: &Tensor<E, { [-1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        seq_lens: &Tensor<i32, { [-1] }>,
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        sm_scale: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let split: i32 = block.0;
        let num_splits: i32 = get_shape_dim(partial_lse.shape(), 2i32);
        let num_kv_heads: i32 = get_shape_dim(k.shape(), 1i32);
        let batch: i32 = block.1 / num_kv_heads;
        let kv_head: i32 = block.1 % num_kv_heads;
        let len_view: Partition<i32, { [1] }> =
            unsafe { make_partition_view(seq_lens, shape![1], padding::None, dim_map::Identity, seq_lens.token()) };
        let seq_len: Tile<i32, { [1] }> = len_view.load([batch]);
        let seq_len: Tile<i32, { [] }> = seq_len.reshape(shape![]);
        let seq_len_s: i32 = tile_to_scalar(seq_len);
        let tiles: i32 = ceil_div(seq_len_s, BN);
        let per_split: i32 = ceil_div(tiles, num_splits);
        let t_begin: i32 = min(split * per_split, tiles);
        let t_end: i32 = min(t_begin + per_split, tiles);
        let qk_scale: f32 = sm_scale * LOG2E;

        let q_tiles: Partition<E, { [1, QUERY_GROUP, D] }> =
            unsafe { make_partition_view(q, shape![1, QUERY_GROUP, D], padding::None, dim_map::Identity, q.token()) };
        let q_tile: Tile<E, { [1, QUERY_GROUP, D] }> = q_tiles.load([batch, kv_head, 0i32]);
        let q_tile: Tile<E, { [1, D] }> = q_tile.reshape(shape![1, D]);
        let q_row: Tile<f32, { [1, D] }> = convert_tile(q_tile);
        let q_rows: Tile<f32, { [BN, D] }> = q_row.broadcast(shape![BN, D]);
        let mut acc: Tile<f32, { [1, D] }> = constant(0.0f32, shape![1, D]);
        let mut l_i: Tile<f32, { [1, 1] }> = constant(0.0f32, shape![1, 1]);
        let mut m_i: Tile<f32, { [1, 1] }> = constant(f32::NEG_INFINITY, shape![1, 1]);
        let k_tiles: Partition<E, { [1, 1, BN, D] }> = k.partition(shape![1, 1, BN, D]);
        let v_tiles: Partition<E, { [1, 1, BN, D] }> = v.partition(shape![1, 1, BN, D]);
        let qk_scale_t: Tile<f32, { [] }> = scalar_to_tile(qk_scale);
        let qk_scale_t: Tile<f32, { [BN, 1] }> = qk_scale_t.reshape(shape![1, 1]).broadcast(shape![BN, 1]);
        let rows: Tile<i32, { [BN] }> = iota(shape![BN]);
        let seq_len_col: Tile<i32, { [BN] }> = seq_len.reshape(shape![1]).broadcast(shape![BN]);
        let neg_inf: Tile<f32, { [] }> = constant(f32::NEG_INFINITY, shape![]);
        let neg_inf: Tile<f32, { [BN, 1] }> = neg_inf.reshape(shape![1, 1]).broadcast(shape![BN, 1]);
        for j in t_begin..t_end {
            let kt: Tile<E, { [1, 1, BN, D] }> = k_tiles.load([batch, kv_head, j, 0i32]);
            let kt: Tile<E, { [BN, D] }> = kt.reshape(shape![BN, D]);
            let kt: Tile<f32, { [BN, D] }> = convert_tile(kt);
            let dots: Tile<f32, { [BN] }> = reduce_sum(kt * q_rows, 1);
            let scores: Tile<f32, { [BN, 1] }> = dots.reshape(shape![BN, 1]) * qk_scale_t;
            // Keys at or past seq_len are stale cache entries (or padding): masked.
            let offset: Tile<i32, { [] }> = scalar_to_tile(j * BN);
            let row_ids: Tile<i32, { [BN] }> = offset.reshape(shape![1]).broadcast(shape![BN]) + rows;
            let live: Tile<bool, { [BN] }> = lt_tile(row_ids, seq_len_col);
            let live: Tile<bool, { [BN, 1] }> = live.reshape(shape![BN, 1]);
            let scores: Tile<f32, { [BN, 1] }> = select(live, scores, neg_inf);
            let tile_max: Tile<f32, { [1] }> = reduce_max(scores, 0);
            let m_new: Tile<f32, { [1, 1] }> = max_tile(m_i, tile_max.reshape(shape![1, 1]));
            let p: Tile<f32, { [BN, 1] }> = exp2(scores - m_new.broadcast(shape![BN, 1]), ftz::Disabled);
            let alpha: Tile<f32, { [1, 1] }> = exp2(m_i - m_new, ftz::Disabled);
            let p_sum: Tile<f32, { [1] }> = reduce_sum(p, 0);
            // fma where cuTile Python contracts `x * alpha + sum(...)`, for the same rounding.
            l_i = fma(l_i, alpha, p_sum.reshape(shape![1, 1]), rounding::NearestEven, ftz::Disabled);
            let vt: Tile<E, { [1, 1, BN, D] }> = v_tiles.load([batch, kv_head, j, 0i32]);
            let vt: Tile<E, { [BN, D] }> = vt.reshape(shape![BN, D]);
            let vt: Tile<f32, { [BN, D] }> = convert_tile(vt);
            let pv: Tile<f32, { [D] }> = reduce_sum(p.broadcast(shape![BN, D]) * vt, 0);
            acc =
                fma(acc, alpha.broadcast(shape![1, D]), pv.reshape(shape![1, D]), rounding::NearestEven, ftz::Disabled);
            m_i = m_new;
        }
        let floor: Tile<f32, { [1, 1] }> = constant(MIN_DENOM, shape![1, 1]);
        let denom: Tile<f32, { [1, 1] }> = max_tile(l_i, floor);
        // IEEE division like Python's `/`.
        let o: Tile<f32, { [1, D] }> = divf(acc, denom.broadcast(shape![1, D]), rounding::NearestEven, ftz::Disabled);
        let lse: Tile<f32, { [1, 1] }> = m_i + log2(l_i);
        let mut o_tiles: PartitionMut<f32, { [1, 1, 1, D] }> =
            unsafe { partial_o.partition_full_mut(shape![1, 1, 1, D]) };
        unsafe { o_tiles.store_unchecked(o.reshape(shape![1, 1, 1, D]), [batch, kv_head, split, 0i32]) };
        let mut lse_tiles: PartitionMut<f32, { [1, 1, 1] }> =
            unsafe { partial_lse.partition_full_mut(shape![1, 1, 1]) };
        unsafe { lse_tiles.store_unchecked(lse.reshape(shape![1, 1, 1]), [batch, kv_head, split]) };
    }

    /// The body of flash_decode_combine and its occupancy twin.
    fn flash_decode_combine_body<EOut: ElementType, const MAX_SPLITS: i32, const D: i32>(
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        o: &Tensor<EOut, { [-1, -1, -1] }>,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let num_heads: i32 = get_shape_dim(o.shape(), 1i32);
        let batch: i32 = block.0 / num_heads;
        let head: i32 = block.0 % num_heads;
        // -inf padding past S: weight exp2(-inf) = 0.
        let lse_tiles: Partition<f32, { [1, 1, MAX_SPLITS] }> = unsafe {
            make_partition_view(
                partial_lse,
                shape![1, 1, MAX_SPLITS],
                padding::NegInf,
                dim_map::Identity,
                partial_lse.token(),
            )
        };
        let lse: Tile<f32, { [1, 1, MAX_SPLITS] }> = lse_tiles.load([batch, head, 0i32]);
        let lse: Tile<f32, { [MAX_SPLITS, 1] }> = lse.reshape(shape![MAX_SPLITS, 1]);
        let lse_max: Tile<f32, { [1] }> = reduce_max(lse, 0);
        let weights: Tile<f32, { [MAX_SPLITS, 1] }> =
            exp2(lse - lse_max.reshape(shape![1, 1]).broadcast(shape![MAX_SPLITS, 1]), ftz::Disabled);
        // Zero padding past S: those rows have weight 0 and add nothing.
        let parts: Tile<f32, { [1, 1, MAX_SPLITS, D] }> =
            partial_o.partition(shape![1, 1, MAX_SPLITS, D]).load([batch, head, 0i32, 0i32]);
        let parts: Tile<f32, { [MAX_SPLITS, D] }> = parts.reshape(shape![MAX_SPLITS, D]);
        let num: Tile<f32, { [D] }> = reduce_sum(parts * weights.broadcast(shape![MAX_SPLITS, D]), 0);
        let den: Tile<f32, { [1] }> = reduce_sum(weights, 0);
        let out: Tile<f32, { [1, D] }> = divf(
            num.reshape(shape![1, D]),
            den.reshape(shape![1, 1]).broadcast(shape![1, D]),
            rounding::NearestEven,
            ftz::Disabled,
        );
        let out: Tile<EOut, { [1, D] }> = convert_tile(out);
        let mut o_tiles: PartitionMut<EOut, { [1, 1, D] }> = unsafe { o.partition_full_mut(shape![1, 1, D]) };
        unsafe { o_tiles.store_unchecked(out.reshape(shape![1, 1, D]), [batch, head, 0i32]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn flash_decode_combine<EOut: ElementType, const MAX_SPLITS: i32, const D: i32>(
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        o: &Tensor<EOut, { [-1, -1, -1] }>,
    ) {
        flash_decode_combine_body::<EOut, MAX_SPLITS, D>(partial_o, partial_lse, o);
    }

    /// `ct.kernel(occupancy=8)`: eight or more blocks an SM (unhinted, a block holds 255 registers,
    /// two blocks an SM, and waits on its one tile's loads).
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 8,),))]
    unsafe fn flash_decode_combine_o8<EOut: ElementType, const MAX_SPLITS: i32, const D: i32>(
        partial_o: &Tensor<f32, { [-1, -1, -1, -1] }>,
        partial_lse: &Tensor<f32, { [-1, -1, -1] }>,
        o: &Tensor<EOut, { [-1, -1, -1] }>,
    ) {
        flash_decode_combine_body::<EOut, MAX_SPLITS, D>(partial_o, partial_lse, o);
    }
}
