//! cuTile Rust port of reference/attention_sink/kernel.py: causal prefill attention with one
//! sink logit per query head (a virtual key of value zero, as in gpt-oss) and an optional
//! sliding window (WINDOW > 0: query i sees keys i - WINDOW < j <= i; 0 = full causal). One
//! (BM query rows, one head) tile per block; the online softmax starts from the sink (max =
//! sink * log2(e), sum = 1). Three key phases, as in Python: masked tiles at the window's
//! lower edge, fully visible tiles, masked tiles on the diagonal / ragged tail.
//!
//! `sm_scale` is a runtime f32 on both sides; LOG2E is a Python literal, a Rust `const`.
//! WINDOW is a const generic; the compiler folds `if WINDOW > 0`. As in the flash_attention
//! port, the loop-invariant broadcasts cuTile Python hoists out of the loops (score scale,
//! column iota, seq_k, row ids, the window's lower bound, the -inf fill) are computed once
//! before the loops and passed to `attend_tile`.

#[cutile::module]
pub mod attention_sink_kernel {
    use cutile::core::*;

    /// exp(x) = exp2(x * log2(e)): scores and sink logits are scaled by LOG2E.
    const LOG2E: f32 = 1.4426950408889634f32;

    /// Folds key tile j into the running (max, sum, output) state of the block's query rows;
    /// MASKED applies the bounds, causal and (WINDOW > 0) window masks.
    #[allow(clippy::too_many_arguments)]
    fn attend_tile<E: ElementType, const BM: i32, const BN: i32, const D: i32, const WINDOW: i32, const MASKED: i32>(
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
        seq_k_cols: Tile<i32, { [1, BN] }>,
        rows: Tile<i32, { [BM, BN] }>,
        window_rows: Tile<i32, { [BM, BN] }>,
        neg_inf: Tile<f32, { [BM, BN] }>,
    ) -> (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) {
        let kt: Tile<E, { [1, 1, D, BN] }> = k_tiles.load([batch, kv_head, 0i32, j]);
        let zero: Tile<f32, { [BM, BN] }> = constant(0.0f32, shape![BM, BN]);
        let scores: Tile<f32, { [BM, BN] }> = mma(q_tile, kt.reshape(shape![D, BN]), zero);
        let mut scores: Tile<f32, { [BM, BN] }> = scores * scale;
        if MASKED == 1i32 {
            let cols: Tile<i32, { [BN] }> = broadcast_scalar(j * BN, shape![BN]) + col_iota;
            let cols: Tile<i32, { [1, BN] }> = cols.reshape(shape![1, BN]);
            let in_bounds: Tile<bool, { [BM, BN] }> = lt_tile(cols, seq_k_cols).broadcast(shape![BM, BN]);
            let col_grid: Tile<i32, { [BM, BN] }> = cols.broadcast(shape![BM, BN]);
            let mut visible: Tile<bool, { [BM, BN] }> = in_bounds & le_tile(col_grid, rows);
            if WINDOW > 0i32 {
                visible = visible & gt_tile(col_grid, window_rows);
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

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn attention_sink<
        E: ElementType,
        const BM: i32,
        const BN: i32,
        const D: i32,
        const QUERY_GROUP: i32,
        const WINDOW: i32,
    >(
        q: &Tensor<E, { [-1, -1, -1, -1] }>,
        k: &Tensor<E, { [-1, -1, -1, -1] }>,
        v: &Tensor<E, { [-1, -1, -1, -1] }>,
        sinks: &Tensor<f32, { [-1] }>,
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
        let first_row: i32 = tile_q * BM;
        let row_ids: Tile<i32, { [BM] }> = broadcast_scalar(first_row, shape![BM]) + iota(shape![BM]);

        // The sink is a key with logit sinks[head] and value 0: the max starts there, the sum at
        // exp2(0) = 1. sinks is read without padding, as Python's ct.load of shape ().
        let sink_tiles: Partition<f32, { [1] }> =
            unsafe { make_partition_view(sinks, shape![1], padding::None, dim_map::Identity, sinks.token()) };
        let sink: Tile<f32, { [1] }> = sink_tiles.load([head]);
        let sink: Tile<f32, { [] }> = sink.reshape(shape![]);
        let sink: Tile<f32, { [] }> = sink * constant(LOG2E, shape![]);
        let mut m_i: Tile<f32, { [BM, 1] }> =
            constant(0.0f32, shape![BM, 1]) + sink.reshape(shape![1, 1]).broadcast(shape![BM, 1]);
        let mut l_i: Tile<f32, { [BM, 1] }> = constant(1.0f32, shape![BM, 1]);
        let mut acc: Tile<f32, { [BM, D] }> = constant(0.0f32, shape![BM, D]);

        let end: i32 = min(ceil_div(seq_k, BN), ceil_div(first_row + BM, BN));
        let full_end: i32 = min(seq_k / BN, first_row / BN);
        let mut start: i32 = 0i32;
        let mut full_start: i32 = 0i32;
        if WINDOW > 0i32 {
            // The lowest key any row sees is first_row - WINDOW + 1; every row sees the keys
            // from first_row + BM - WINDOW on. Both operands are >= 0 after the max, so the
            // truncating / equals Python's //.
            start = max(first_row - WINDOW + 1i32, 0i32) / BN;
            full_start = ceil_div(max(first_row + BM - WINDOW, 0i32), BN);
        }
        let mid: i32 = max(start, min(full_start, full_end));

        // K is read transposed, (D, BN) tiles, like Python's order=(0, 1, 3, 2).
        let k_tiles: Partition<E, { [1, 1, D, BN] }> =
            k.partition_permuted(shape![1, 1, D, BN], const_array![0, 1, 3, 2]);
        let v_tiles: Partition<E, { [1, 1, BN, D] }> = v.partition(shape![1, 1, BN, D]);
        let scale: Tile<f32, { [BM, BN] }> = broadcast_scalar(qk_scale, shape![BM, BN]);
        let col_iota: Tile<i32, { [BN] }> = iota(shape![BN]);
        let seq_k_cols: Tile<i32, { [1, BN] }> = broadcast_scalar(seq_k, shape![1, BN]);
        let row_col: Tile<i32, { [BM, 1] }> = row_ids.reshape(shape![BM, 1]);
        let rows: Tile<i32, { [BM, BN] }> = row_col.broadcast(shape![BM, BN]);
        let window_rows: Tile<i32, { [BM, BN] }> =
            (row_col - broadcast_scalar(WINDOW, shape![BM, 1])).broadcast(shape![BM, BN]);
        let neg_inf: Tile<f32, { [BM, BN] }> = constant(f32::NEG_INFINITY, shape![BM, BN]);
        for j in start..mid {
            let (m_new, l_new, acc_new): (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) =
                attend_tile::<E, BM, BN, D, WINDOW, 1>(
                    q_tile,
                    &k_tiles,
                    &v_tiles,
                    batch,
                    kv_head,
                    j,
                    m_i,
                    l_i,
                    acc,
                    scale,
                    col_iota,
                    seq_k_cols,
                    rows,
                    window_rows,
                    neg_inf,
                );
            m_i = m_new;
            l_i = l_new;
            acc = acc_new;
        }
        for j in mid..full_end {
            let (m_new, l_new, acc_new): (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) =
                attend_tile::<E, BM, BN, D, WINDOW, 0>(
                    q_tile,
                    &k_tiles,
                    &v_tiles,
                    batch,
                    kv_head,
                    j,
                    m_i,
                    l_i,
                    acc,
                    scale,
                    col_iota,
                    seq_k_cols,
                    rows,
                    window_rows,
                    neg_inf,
                );
            m_i = m_new;
            l_i = l_new;
            acc = acc_new;
        }
        for j in max(mid, full_end)..end {
            let (m_new, l_new, acc_new): (Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, 1] }>, Tile<f32, { [BM, D] }>) =
                attend_tile::<E, BM, BN, D, WINDOW, 1>(
                    q_tile,
                    &k_tiles,
                    &v_tiles,
                    batch,
                    kv_head,
                    j,
                    m_i,
                    l_i,
                    acc,
                    scale,
                    col_iota,
                    seq_k_cols,
                    rows,
                    window_rows,
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
}
