"""Causal attention with per-head sink logits and an optional sliding window (gpt-oss style) in cuTile Python.

softmax is taken over the visible keys plus one virtual "sink" key per head
whose logit is sinks[h] and whose value is zero, so each row can put weight on
"nothing". With WINDOW > 0, query i sees keys j with i - WINDOW < j <= i;
WINDOW = 0 means full causal attention.

The running max starts at the sink logit (and the running sum at 1), so a query
row whose first key tiles are all outside its window never sees a -inf max.
The key loop has three phases: masked tiles at the window's lower edge, fully
visible tiles (no mask work), masked tiles on the diagonal / ragged tail.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]

LOG2E = 1.4426950408889634


def attend_tile(q, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc, qk_scale, seq_k,
                BN, D, WINDOW, MASKED):
    """Fold key tile j into the running (max, sum, output) state; MASKED applies causal/window/bounds masks."""
    kt = ct.load(k, index=(batch, kv_head, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2),
                 padding_mode=ct.PaddingMode.ZERO)
    scores = ct.mma(q, ct.reshape(kt, (D, BN)), ct.zeros((q.shape[0], BN), dtype=ct.float32)) * qk_scale
    if MASKED:
        cols = ct.expand_dims(j * BN + ct.arange(BN, dtype=ct.int32), 0)
        rows = ct.expand_dims(row_ids, 1)
        visible = (cols < seq_k) & (cols <= rows)
        if WINDOW > 0:
            visible = visible & (cols > rows - WINDOW)
        scores = ct.where(visible, scores, -float("inf"))
    m_new = ct.maximum(m_i, ct.max(scores, axis=1, keepdims=True))
    p = ct.exp2(scores - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    vt = ct.load(v, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.mma(ct.astype(p, v.dtype), ct.reshape(vt, (BN, D)), acc * alpha)
    return m_new, l_i, acc


@ct.kernel
def attention_sink(q, k, v, sinks, o, sm_scale,
                   BM: ConstInt, BN: ConstInt, D: ConstInt, QUERY_GROUP: ConstInt, WINDOW: ConstInt):
    """o[b, h] = causal (windowed) softmax([q k^T * sm_scale, sinks[h]]) @ [v, 0]; kv head = h // QUERY_GROUP."""
    tile_q = ct.bid(0)
    num_heads = q.shape[1]
    batch = ct.bid(1) // num_heads
    head = ct.bid(1) % num_heads
    kv_head = head // QUERY_GROUP
    seq_k = k.shape[2]
    qk_scale = sm_scale * LOG2E
    q_tile = ct.reshape(ct.load(q, index=(batch, head, tile_q, 0), shape=(1, 1, BM, D),
                                padding_mode=ct.PaddingMode.ZERO), (BM, D))
    first_row = tile_q * BM
    row_ids = first_row + ct.arange(BM, dtype=ct.int32)

    # the sink is a key with logit sinks[head] and value 0: max starts there, sum at exp2(0) = 1
    sink = ct.load(sinks, index=(head,), shape=()) * LOG2E
    m_i = ct.full((BM, 1), 0.0, dtype=ct.float32) + sink
    l_i = ct.full((BM, 1), 1.0, dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)

    end = min(ct.cdiv(seq_k, BN), ct.cdiv(first_row + BM, BN))
    full_end = min(seq_k // BN, first_row // BN)
    start = 0
    full_start = 0
    if WINDOW > 0:
        # lowest key any row sees is first_row - WINDOW + 1; every row sees keys >= first_row + BM - WINDOW
        start = max(first_row - WINDOW + 1, 0) // BN
        full_start = ct.cdiv(max(first_row + BM - WINDOW, 0), BN)
    mid = max(start, min(full_start, full_end))
    for j in range(start, mid):
        m_i, l_i, acc = attend_tile(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                    qk_scale, seq_k, BN, D, WINDOW, True)
    for j in range(mid, full_end):
        m_i, l_i, acc = attend_tile(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                    qk_scale, seq_k, BN, D, WINDOW, False)
    for j in range(max(mid, full_end), end):
        m_i, l_i, acc = attend_tile(q_tile, k, v, batch, kv_head, j, row_ids, m_i, l_i, acc,
                                    qk_scale, seq_k, BN, D, WINDOW, True)
    out = ct.astype(acc / l_i, o.dtype)
    ct.store(o, index=(batch, head, tile_q, 0), tile=ct.reshape(out, (1, 1, BM, D)))


def select_variant(dtype: str, head_dim: int, query_group: int, window: int) -> str | None:
    """The launcher's choice for q, k, v of `dtype` (a torch dtype name) with head_dim D,
    Hq = query_group * Hkv and sliding `window` (0: full causal): the one variant built for
    (dtype, D, query_group, window), None for any other combination. The Rust library's
    cutile_attention_sink chooses the same (tests/rust/test_selection.py)."""
    built = {("bfloat16", 64, 8, 128): "bf16_d64_gqa8_window128", ("bfloat16", 64, 8, 0): "bf16_d64_gqa8_full",
             ("float16", 128, 1, 256): "f16_d128_mha_window256"}
    return built.get((dtype, head_dim, query_group, window))
