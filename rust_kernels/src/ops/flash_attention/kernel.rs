//! cuTile Rust port of reference/flash_attention/kernel.py: flash attention forward, one
//! (BM query rows, one head) tile per block, online softmax in base 2 over key tiles of BN.
//! The key loop has two phases, as in Python: key tiles every row of the block sees fully
//! (no mask), then the masked ones (the ragged last tile, and for CAUSAL the diagonal ones).
//! GQA: query head h reads kv head h / QUERY_GROUP.
//!
//! `ct.Constant[bool]` CAUSAL is an i32 0/1 generic the compiler folds. `sm_scale` is a
//! runtime f32 on both sides; LOG2E is a Python literal, a Rust `const`. cuTile Python hoists
//! the loop-invariant broadcasts of `attend_tile` (the score scale, the column iota, the
//! broadcast `seq_k`, the row ids, the -inf fill) and its partition views out of the loops;
//! the port computes them once before the loops and passes them in, for the same IR.

#[cutile::module]
pub mod flash_attention_kernel {
    use cutile::core::*;

    /// exp(x) = exp2(x * log2(e)): the scores are scaled by sm_scale * LOG2E.
    const LOG2E: f32 = 1.4426950408889634f32;

    /// Folds key tile j into the running (max, sum, output) state of the block's query rows.
    /// MASKED applies the bounds mask (and with CAUSAL the causal one) to the scores.
    #[allow(clippy::too_many_arguments)]
    fn attend_tile<E: ElementType, const BM: i32, const BN: i32, const D: i32, const CAUSAL: i32, const MASKED: i32>(
        q_tile: Tile<E, { [BM, D] }>,
        k_tiles: &Partition<E, { [1, 1, D, BN] }>,
        v_tiles: &Partition<E, { [1, 1, BN, D] }>,
        batch: i32,
        kv_head: i32,
        j: i32,
        m_i: Tile<f32, { [BM, 1] }>,
        l_i: Tile<f32, { [BM, 1] }>,
        acc: Tile<f32, { [BM, D] }>,
        scale: Tile<f32, { [BM, BN] }>,
        col_iota: Tile<i32, { [BN] }>,
        seq_k_cols: Tile<i32, { [BN] }>,
        row_ids: Tile<i32, { [BM, BN] }>,
        neg_inf: Tile<f32, { [BM, BN] }>,
    ) -> (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) {
        let kt: Tile<E, { [1, 1, D, BN] }> = k_tiles.load([batch, kv_head, 0i32, j]);
        let zero: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
        let scores: Tile<f32, { [BM, BN] }> = mma(q_tile, kt.reshape(shape![D, BN]), zero);
        let mut scores: Tile<f32, { [BM, BN] }> = scores * scale;
        if MASKED == 1i32 {
            let cols: Tile<i32, { [BN] }> = broadcast_scalar(j * BN, shape![BN]) + col_iota;
            let in_bounds: Tile<bool, { [1, BN] }> = lt_tile(cols, seq_k_cols).reshape(shape![1, BN]);
            let mut visible: Tile<bool, { [BM, BN] }> = in_bounds.broadcast(shape![BM, BN]);
            if CAUSAL == 1i32 {
                let col_grid: Tile<i32, { [BM, BN] }> = cols.reshape(shape![1, BN]).broadcast(shape![BM, BN]);
                visible = visible & le_tile(col_grid, row_ids);
            }
            scores = select(visible, scores, neg_inf);
        }
        let tile_max: Tile<f32, { [BM] }> = reduce_max(scores, 1);
        let m_new: Tile<f32, { [BM, 1] }> = max_tile(m_i, tile_max.reshape(shape![BM, 1]));
        let p: Tile<f32, { [BM, BN] }> = exp2(scores - m_new.broadcast(shape![BM, BN]), ftz::Disabled);
        let alpha: Tile<f32, { [BM, 1] }> = exp2(m_i - m_new, ftz::Disabled);
        let p_sum: Tile<f32, { [BM] }> = reduce_sum(p, 1);
        // l_i * alpha + sum(p): one fma, as cuTile Python contracts it.
        let l_new: Tile<f32, { [BM, 1] }> =
            fma(l_i, alpha, p_sum.reshape(shape![BM, 1]), rounding::NearestEven, ftz::Disabled);
        let vt: Tile<E, { [1, 1, BN, D] }> = v_tiles.load([batch, kv_head, j, 0i32]);
        let p_in: Tile<E, { [BM, BN] }> = convert_tile(p);
        let acc: Tile<f32, { [BM, D] }> = mma(p_in, vt.reshape(shape![BN, D]), acc * alpha.broadcast(shape![BM, D]));
        (m_new, l_new, acc)
    }

    /// The body of `flash_attention` and its tuned entries.
    fn flash_attention_body<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const CAUSAL: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        o: &Tensor<E, { [-1, -1, -1, -1] }>,
        sm_scale: f32,
    ) {
        let tile_q: i32 = get_tile_block_id().0;
        let num_heads: i32 = get_shape_dim(q.shape(), 1i32);
        // Block ids and head counts are non-negative: truncating / and % equal Python's // and %.
        let batch: i32 = get_tile_block_id().1 / num_heads;
        let head: i32 = get_tile_block_id().1 % num_heads;
        let kv_head: i32 = head / QUERY_GROUP;
        let seq_k: i32 = get_shape_dim(k.shape(), 2i32);
        let qk_scale: f32 = sm_scale * LOG2E;

        let q_tiles: Partition<E, { [1, 1, BM, D] }> = q.partition(shape![1, 1, BM, D]);
        let q_tile: Tile<E, { [1, 1, BM, D] }> = q_tiles.load([batch, head, tile_q, 0i32]);
        let q_tile: Tile<E, { [BM, D] }> = q_tile.reshape(shape![BM, D]);
        let rows: Tile<i32, { [BM] }> = broadcast_scalar(tile_q * BM, shape![BM]) + iota(shape![BM]);
        let mut m_i: Tile<f32, { [BM, 1] }> = constant(f32::NEG_INFINITY, shape![BM, 1]);
        let mut l_i: Tile<f32, { [BM, 1] }> = constant(0.0f32, shape![BM, 1]);
        let mut acc: Tile<f32, { [BM, D] }> = constant(0.0f32, shape![BM, D]);

        // Key tiles [0, full_end) are fully visible to every row of this block;
        // [full_end, end) need the bounds / causal mask.
        let mut end: i32 = ceil_div(seq_k, BN);
        let mut full_end: i32 = seq_k / BN;
        if CAUSAL == 1i32 {
            end = min(end, ceil_div((tile_q + 1i32) * BM, BN));
            full_end = min(full_end, (tile_q * BM) / BN);
        }
        // K is read transposed, (D, BN) tiles, like Python's order=(0, 1, 3, 2).
        let k_tiles: Partition<E, { [1, 1, D, BN] }> =
            k.partition_permuted(shape![1, 1, D, BN], const_array![0, 1, 3, 2]);
        let v_tiles: Partition<E, { [1, 1, BN, D] }> = v.partition(shape![1, 1, BN, D]);
        let scale: Tile<f32, { [BM, BN] }> = broadcast_scalar(qk_scale, shape![BM, BN]);
        let col_iota: Tile<i32, { [BN] }> = iota(shape![BN]);
        let seq_k_cols: Tile<i32, { [BN] }> = broadcast_scalar(seq_k, shape![BN]);
        let row_ids: Tile<i32, { [BM, BN] }> = rows.reshape(shape![BM, 1]).broadcast(shape![BM, BN]);
        let neg_inf: Tile<f32, { [BM, BN] }> = constant(f32::NEG_INFINITY, shape![BM, BN]);
        for j in 0i32..full_end {
            let (m_new, l_new, acc_new): (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) =
                attend_tile::<E, BM, BN, D, CAUSAL, 0>(
                    q_tile, &k_tiles, &v_tiles, batch, kv_head, j, m_i, l_i, acc, scale, col_iota, seq_k_cols, row_ids,
                    neg_inf,
                );
            m_i = m_new;
            l_i = l_new;
            acc = acc_new;
        }
        for j in full_end..end {
            let (m_new, l_new, acc_new): (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) =
                attend_tile::<E, BM, BN, D, CAUSAL, 1>(
                    q_tile, &k_tiles, &v_tiles, batch, kv_head, j, m_i, l_i, acc, scale, col_iota, seq_k_cols, row_ids,
                    neg_inf,
                );
            m_i = m_new;
            l_i = l_new;
            acc = acc_new;
        }
        let out: Tile<f32, { [BM, D] }> = divf(acc, l_i.broadcast(shape![BM, D]), rounding::NearestEven, ftz::Disabled);
        let out: Tile<E, { [BM, D] }> = convert_tile(out);
        let mut o_tiles: PartitionMut<E, { [1, 1, BM, D] }> = unsafe { o.partition_full_mut(shape![1, 1, BM, D]) };
        unsafe { o_tiles.store_unchecked(out.reshape(shape![1, 1, BM, D]), [batch, head, tile_q, 0i32]) };
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn flash_attention<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const CAUSAL: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        o: &Tensor<E, { [-1, -1, -1, -1] }>,
        sm_scale: f32,
    ) {
        flash_attention_body::<E, BM, BN, D, QUERY_GROUP, CAUSAL>(q, k, v, o, sm_scale);
    }

    /// `ct.kernel(num_worker_warps=8)`: two consumer warpgroups of 64 query rows each.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (num_worker_warps_per_cta = 8,),))]
    unsafe fn flash_attention_w8<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const CAUSAL: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        o: &Tensor<E, { [-1, -1, -1, -1] }>,
        sm_scale: f32,
    ) {
        flash_attention_body::<E, BM, BN, D, QUERY_GROUP, CAUSAL>(q, k, v, o, sm_scale);
    }

    /// `ct.kernel(occupancy=2)`: two blocks per SM.
    #[cutile::entry(unchecked_accesses = true, optimization_hints = (default = (occupancy = 2,),))]
    unsafe fn flash_attention_o2<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const CAUSAL: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        o: &Tensor<E, { [-1, -1, -1, -1] }>,
        sm_scale: f32,
    ) {
        flash_attention_body::<E, BM, BN, D, QUERY_GROUP, CAUSAL>(q, k, v, o, sm_scale);
    }
}
