# Candidate kernels for reference/flash_decode, appended to the scratch kernel.py by
# scripts/gpu/scratch_candidates.py (the imports repeat the kernel module's, so that this file
# stands alone for linters). Not a reference kernel until a device run shows it faster and it is
# adopted and ported.
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def flash_decode_combine_heads(partial_o, partial_lse, o, MAX_SPLITS: ConstInt, D: ConstInt, HEADS: ConstInt):
    """flash_decode_combine over HEADS consecutive query heads of one sequence a block, grid
    (B * cdiv(Hq, HEADS)): flash_decode_combine's blocks each move one (MAX_SPLITS, D) f32 tile
    (4 KB at D 64) and are latency-bound (session 23: 26.8 us for 4.5 MB at the bench shape).
    Heads past Hq read -inf lse (their NaN weights go to rows the clipped store drops)."""
    head_blocks = (o.shape[1] + HEADS - 1) // HEADS
    batch = ct.bid(0) // head_blocks
    hblock = ct.bid(0) % head_blocks
    lse = ct.load(partial_lse, index=(batch, hblock, 0), shape=(1, HEADS, MAX_SPLITS),
                  padding_mode=ct.PaddingMode.NEG_INF)
    lse = ct.reshape(lse, (HEADS, MAX_SPLITS, 1))
    weights = ct.exp2(lse - ct.max(lse, axis=1, keepdims=True))
    parts = ct.reshape(ct.load(partial_o, index=(batch, hblock, 0, 0), shape=(1, HEADS, MAX_SPLITS, D),
                               padding_mode=ct.PaddingMode.ZERO), (HEADS, MAX_SPLITS, D))
    out = ct.sum(parts * weights, axis=1, keepdims=True) / ct.sum(weights, axis=1, keepdims=True)
    ct.store(o, index=(batch, hblock, 0), tile=ct.reshape(ct.astype(out, o.dtype), (1, HEADS, D)))


def _flash_decode_partial_tp_lat(q, k, v, seq_lens, partial_o, partial_lse, sm_scale,
                                 BN: ConstInt, D: ConstInt, QUERY_GROUP: ConstInt, QUERY_PAD: ConstInt,
                                 LAT_K: ConstInt, LAT_V: ConstInt):
    """_flash_decode_partial_tp with latency hints on the K and V loads (session 30): the unhinted
    BN 128 kernel's pipeline holds 228 KB of shared memory, one block an SM."""
    split = ct.bid(0)
    num_splits = partial_lse.shape[2]
    num_kv_heads = k.shape[1]
    batch = ct.bid(1) // num_kv_heads
    kv_head = ct.bid(1) % num_kv_heads
    seq_len = ct.load(seq_lens, index=(batch,), shape=())
    tiles = ct.cdiv(seq_len, BN)
    per_split = ct.cdiv(tiles, num_splits)
    t_begin = min(split * per_split, tiles)
    t_end = min(t_begin + per_split, tiles)
    qk_scale = sm_scale * LOG2E  # noqa: F821 (the kernel module's)
    q_t = ct.transpose(ct.reshape(ct.load(q, index=(batch, kv_head, 0), shape=(1, QUERY_GROUP, D)), (QUERY_GROUP, D)))
    q_t = ct.cat((q_t, ct.zeros((D, QUERY_GROUP), dtype=q_t.dtype)), 1)
    m_i = ct.full((1, QUERY_PAD), -float("inf"), dtype=ct.float32)
    l_i = ct.zeros((1, QUERY_PAD), dtype=ct.float32)
    acc = ct.zeros((D, QUERY_PAD), dtype=ct.float32)
    for j in range(t_begin, t_end):
        kt = ct.load(k, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO,
                     latency=LAT_K)
        scores = ct.mma(ct.reshape(kt, (BN, D)), q_t, ct.zeros((BN, QUERY_PAD), dtype=ct.float32)) * qk_scale
        row_ids = j * BN + ct.arange(BN, dtype=ct.int32)
        scores = ct.where(ct.expand_dims(row_ids < seq_len, 1), scores, -float("inf"))
        m_new = ct.maximum(m_i, ct.max(scores, axis=0, keepdims=True))
        p = ct.exp2(scores - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=0, keepdims=True)
        vt = ct.load(v, index=(batch, kv_head, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2),
                     padding_mode=ct.PaddingMode.ZERO, latency=LAT_V)
        acc = ct.mma(ct.reshape(vt, (D, BN)), ct.astype(p, v.dtype), acc * alpha)
        m_i = m_new
    o = ct.extract(ct.transpose(acc / ct.maximum(l_i, 1e-30)), (0, 0), (QUERY_GROUP, D))
    lse = ct.extract(m_i + ct.log2(l_i), (0, 0), (1, QUERY_GROUP))
    ct.store(partial_o, index=(batch, kv_head, split, 0), tile=ct.reshape(o, (1, QUERY_GROUP, 1, D)))
    ct.store(partial_lse, index=(batch, kv_head, split), tile=ct.reshape(lse, (1, QUERY_GROUP, 1)))


flash_decode_partial_tp_lat = ct.kernel(_flash_decode_partial_tp_lat)
flash_decode_partial_tp_lat_o2 = ct.kernel(_flash_decode_partial_tp_lat, occupancy=2)
