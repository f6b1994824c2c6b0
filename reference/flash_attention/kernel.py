"""Flash attention forward (prefill) in cuTile Python: online softmax, causal or not, GQA.

One (BM query rows, one head) tile per block. The K/V loop runs in two phases:
key tiles every query row of the block fully sees (no masking work), then the
tiles that need a mask (the ragged last key tile, and for CAUSAL the tiles
crossing the diagonal). Softmax runs in base 2 with sm_scale*log2(e) folded
into the scores. GQA: query head h reads kv head h // QUERY_GROUP.
Causal masking is top-left aligned (key j visible to query i iff j <= i), as in
torch SDPA's is_causal.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]

LOG2E = 1.4426950408889634


def attend_tile(q, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc, qk_scale, seq_k,
                BN, D, CAUSAL, MASKED):
    """Fold key tile j into the running (max, sum, output) state of the block's query rows."""
    kt = ct.load(k, index=(batch, kv_head, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2),
                 padding_mode=ct.PaddingMode.ZERO)
    scores = ct.mma(q, ct.reshape(kt, (D, BN)), ct.zeros((q.shape[0], BN), dtype=ct.float32))
    scores = scores * qk_scale
    if MASKED:
        col_ids = j * BN + ct.arange(BN, dtype=ct.int32)
        visible = ct.expand_dims(col_ids < seq_k, 0)
        if CAUSAL:
            visible = visible & (ct.expand_dims(col_ids, 0) <= ct.expand_dims(row_ids, 1))
        scores = ct.where(visible, scores, -float("inf"))
    m_new = ct.maximum(m_i, ct.max(scores, axis=1, keepdims=True))
    p = ct.exp2(scores - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    vt = ct.load(v, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.mma(ct.astype(p, v.dtype), ct.reshape(vt, (BN, D)), acc * alpha)
    return m_new, l_i, acc


def _flash_attention(q, k, v, o, sm_scale,
                     BM: ConstInt, BN: ConstInt, D: ConstInt,
                     QUERY_GROUP: ConstInt, CAUSAL: ConstBool):
    """o[b, h] = softmax(q[b, h] @ k[b, h // QUERY_GROUP].T * sm_scale [+ causal mask]) @ v[b, h // QUERY_GROUP]."""
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

    # Key tiles [0, full_end) are fully visible to every row of this block;
    # [full_end, end) need the bounds/causal mask.
    end = ct.cdiv(seq_k, BN)
    full_end = seq_k // BN
    if CAUSAL:
        end = min(end, ct.cdiv((tile_q + 1) * BM, BN))
        full_end = min(full_end, (tile_q * BM) // BN)
    for j in range(full_end):
        m_i, l_i, acc = attend_tile(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                    qk_scale, seq_k, BN, D, CAUSAL, False)
    for j in range(full_end, end):
        m_i, l_i, acc = attend_tile(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                    qk_scale, seq_k, BN, D, CAUSAL, True)
    out = ct.astype(acc / l_i, o.dtype)
    ct.store(o, index=(batch, head, tile_q, 0), tile=ct.reshape(out, (1, 1, BM, D)))


# One body, three compiler-option sets (each is a separate reference kernel and variant family).
flash_attention = ct.kernel(_flash_attention)
# num_worker_warps=8: two consumer warpgroups of 64 query rows each
flash_attention_w8 = ct.kernel(_flash_attention, num_worker_warps=8)
# occupancy=2: two blocks per SM overlap one block's softmax with the other's MMAs
flash_attention_o2 = ct.kernel(_flash_attention, occupancy=2)


def select_variant(dtype: str, head_dim: int, query_group: int, causal: bool) -> str | None:
    """The launcher's choice for q, k, v of `dtype` (a torch dtype name) with head_dim D and
    Hq = query_group * Hkv: the tuned variant built for (dtype, D, query_group, causal), which
    the H200 runs faster than its untuned twin at the bench shape (occupancy 2 for f16 D=64,
    1595 vs 1862 us non-causal and 935 vs 1111 causal; two warpgroups on 128x128 score tiles for
    bf16 D=128, 1222 vs 1659 causal and 2164 vs 2882 for GQA 8; docs/results/reference_results.md).
    The untuned variants take the same layouts and run only when forced. None for any other
    combination. The Rust library's cutile_flash_attention chooses the same
    (tests/rust/test_selection.py)."""
    built = {("float16", 64, 1, False): "f16_d64_noncausal_o2", ("float16", 64, 1, True): "f16_d64_causal_o2",
             ("bfloat16", 128, 1, True): "bf16_d128_causal_w8_bn128",
             ("bfloat16", 128, 4, True): "bf16_d128_causal_gqa4_w8_bn128",
             ("bfloat16", 128, 8, False): "bf16_d128_noncausal_gqa8_w8_bn128"}
    return built.get((dtype, head_dim, query_group, bool(causal)))
