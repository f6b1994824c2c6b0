# Candidate kernels for reference/flash_attention, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py. LOG2E is the kernel module's: this file is not a module of its own.
# ruff: noqa: F821
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


def attend_tile_hinted(q, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc, qk_scale, seq_k,
                       BN, D, CAUSAL, MASKED, LAT_K, LAT_V, FTZ):
    """attend_tile with latency hints on the K and V loads (0: none) and, for FTZ, exp2 with
    flush_to_zero (ex2.approx.ftz: the scores' subnormal exponentials become 0)."""
    kt = ct.load(k, index=(batch, kv_head, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2),
                 padding_mode=ct.PaddingMode.ZERO, latency=LAT_K if LAT_K > 0 else None)
    scores = ct.mma(q, ct.reshape(kt, (D, BN)), ct.zeros((q.shape[0], BN), dtype=ct.float32))
    scores = scores * qk_scale
    if MASKED:
        col_ids = j * BN + ct.arange(BN, dtype=ct.int32)
        visible = ct.expand_dims(col_ids < seq_k, 0)
        if CAUSAL:
            visible = visible & (ct.expand_dims(col_ids, 0) <= ct.expand_dims(row_ids, 1))
        scores = ct.where(visible, scores, -float("inf"))
    m_new = ct.maximum(m_i, ct.max(scores, axis=1, keepdims=True))
    p = ct.exp2(scores - m_new, flush_to_zero=FTZ)
    alpha = ct.exp2(m_i - m_new, flush_to_zero=FTZ)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    vt = ct.load(v, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO,
                 latency=LAT_V if LAT_V > 0 else None)
    acc = ct.mma(ct.astype(p, v.dtype), ct.reshape(vt, (BN, D)), acc * alpha)
    return m_new, l_i, acc


@ct.kernel(num_worker_warps=8)
def flash_attention_hinted_w8(q, k, v, o, sm_scale, BM: ConstInt, BN: ConstInt, D: ConstInt,
                              QUERY_GROUP: ConstInt, CAUSAL: ConstBool,
                              LAT_K: ConstInt, LAT_V: ConstInt, FTZ: ConstBool):
    """flash_attention_w8 with attend_tile_hinted (latency hints on K and V, ftz exp2)."""
    tile_q = ct.bid(0)
    num_heads = q.shape[1]
    batch = ct.bid(1) // num_heads
    head = ct.bid(1) % num_heads
    kv_head = head // QUERY_GROUP
    seq_k = k.shape[2]
    qk_scale = sm_scale * LOG2E
    q_tile = ct.reshape(ct.load(q, index=(batch, head, tile_q, 0), shape=(1, 1, BM, D),
                                padding_mode=ct.PaddingMode.ZERO), (BM, D))
    row_ids = tile_q * BM + ct.arange(BM, dtype=ct.int32)
    m_i = ct.full((BM, 1), -float("inf"), dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    end = ct.cdiv(seq_k, BN)
    full_end = seq_k // BN
    if CAUSAL:
        end = min(end, ct.cdiv((tile_q + 1) * BM, BN))
        full_end = min(full_end, (tile_q * BM) // BN)
    for j in range(full_end):
        m_i, l_i, acc = attend_tile_hinted(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                           qk_scale, seq_k, BN, D, CAUSAL, False, LAT_K, LAT_V, FTZ)
    for j in range(full_end, end):
        m_i, l_i, acc = attend_tile_hinted(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                           qk_scale, seq_k, BN, D, CAUSAL, True, LAT_K, LAT_V, FTZ)
    out = ct.astype(acc / l_i, o.dtype)
    ct.store(o, index=(batch, head, tile_q, 0), tile=ct.reshape(out, (1, 1, BM, D)))
