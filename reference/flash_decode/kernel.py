"""Flash decoding in cuTile Python: split-KV partial attention + log-sum-exp combine.

Decode has one query token per sequence, so parallelism comes from splitting the
KV cache. ``flash_decode_partial`` runs one (split, batch, kv head) per block and
handles all QUERY_GROUP query heads sharing that kv head at once (a
(QUERY_GROUP, D) query tile; GQA makes this a real matrix product). Split s of
batch b covers key tiles [s*per, min((s+1)*per, cdiv(len_b, BN))) with
per = cdiv(cdiv(len_b, BN), S), where len_b = seq_lens[b]: short sequences use
few splits, the rest write an empty partial (lse = -inf, o = 0).
``flash_decode_combine`` merges the S partials of one (batch, query head)
with weights exp2(lse_s - max lse). Softmax state is kept in base 2.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]

LOG2E = 1.4426950408889634


@ct.kernel
def flash_decode_partial(q, k, v, seq_lens, partial_o, partial_lse, sm_scale,
                         BN: ConstInt, D: ConstInt, QUERY_GROUP: ConstInt):
    """partial_o[b, h, s] / partial_lse[b, h, s]: attention of q[b, h] over split s of the first seq_lens[b] keys."""
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
    qk_scale = sm_scale * LOG2E

    # query heads kv_head*QUERY_GROUP ... +QUERY_GROUP-1 are tile kv_head of size QUERY_GROUP
    q_tile = ct.reshape(ct.load(q, index=(batch, kv_head, 0), shape=(1, QUERY_GROUP, D)), (QUERY_GROUP, D))
    m_i = ct.full((QUERY_GROUP, 1), -float("inf"), dtype=ct.float32)
    l_i = ct.zeros((QUERY_GROUP, 1), dtype=ct.float32)
    acc = ct.zeros((QUERY_GROUP, D), dtype=ct.float32)
    for j in range(t_begin, t_end):
        kt = ct.load(k, index=(batch, kv_head, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2),
                     padding_mode=ct.PaddingMode.ZERO)
        scores = ct.mma(q_tile, ct.reshape(kt, (D, BN)),
                        ct.zeros((QUERY_GROUP, BN), dtype=ct.float32)) * qk_scale
        # keys at or past seq_len are stale cache entries (or padding): mask them
        col_ids = j * BN + ct.arange(BN, dtype=ct.int32)
        scores = ct.where(ct.expand_dims(col_ids < seq_len, 0), scores, -float("inf"))
        m_new = ct.maximum(m_i, ct.max(scores, axis=1, keepdims=True))
        p = ct.exp2(scores - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        vt = ct.load(v, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.astype(p, v.dtype), ct.reshape(vt, (BN, D)), acc * alpha)
        m_i = m_new
    # empty split: l = 0, acc = 0 -> o = 0 and lse = -inf (weight 0 in the combine)
    o = acc / ct.maximum(l_i, 1e-30)
    lse = m_i + ct.log2(l_i)
    ct.store(partial_o, index=(batch, kv_head, split, 0), tile=ct.reshape(o, (1, QUERY_GROUP, 1, D)))
    ct.store(partial_lse, index=(batch, kv_head, split), tile=ct.reshape(lse, (1, QUERY_GROUP, 1)))


def _flash_decode_partial_tp(q, k, v, seq_lens, partial_o, partial_lse, sm_scale,
                             BN: ConstInt, D: ConstInt, QUERY_GROUP: ConstInt, QUERY_PAD: ConstInt):
    """flash_decode_partial with both products transposed, so that the key tile is a tensor-core
    product's M side: scores^T (BN, G) = K (BN, D) @ q^T (D, G) and o^T (D, G) += V^T (D, BN) @
    p^T (BN, G). flash_decode_partial's M side is the QUERY_GROUP query heads (1-8 rows): too few
    for a wgmma, so tileiras expands those products into FMAs (255 registers, 520-1464 B of
    spills). G = QUERY_PAD = 2 * QUERY_GROUP columns: the query heads, then as many zero columns
    whose results are dropped (a wgmma needs N >= 8: QUERY_GROUP 4 -> 8). The online softmax runs
    down the columns."""
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
    qk_scale = sm_scale * LOG2E

    q_t = ct.transpose(ct.reshape(ct.load(q, index=(batch, kv_head, 0), shape=(1, QUERY_GROUP, D)), (QUERY_GROUP, D)))
    q_t = ct.cat((q_t, ct.zeros((D, QUERY_GROUP), dtype=q_t.dtype)), 1)
    m_i = ct.full((1, QUERY_PAD), -float("inf"), dtype=ct.float32)
    l_i = ct.zeros((1, QUERY_PAD), dtype=ct.float32)
    acc = ct.zeros((D, QUERY_PAD), dtype=ct.float32)
    for j in range(t_begin, t_end):
        kt = ct.load(k, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO)
        scores = ct.mma(ct.reshape(kt, (BN, D)), q_t, ct.zeros((BN, QUERY_PAD), dtype=ct.float32)) * qk_scale
        # keys at or past seq_len are stale cache entries (or padding): mask them
        row_ids = j * BN + ct.arange(BN, dtype=ct.int32)
        scores = ct.where(ct.expand_dims(row_ids < seq_len, 1), scores, -float("inf"))
        m_new = ct.maximum(m_i, ct.max(scores, axis=0, keepdims=True))
        p = ct.exp2(scores - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=0, keepdims=True)
        # V read transposed: a (D, BN) tile
        vt = ct.load(v, index=(batch, kv_head, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2),
                     padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.reshape(vt, (D, BN)), ct.astype(p, v.dtype), acc * alpha)
        m_i = m_new
    o = ct.extract(ct.transpose(acc / ct.maximum(l_i, 1e-30)), (0, 0), (QUERY_GROUP, D))
    lse = ct.extract(m_i + ct.log2(l_i), (0, 0), (1, QUERY_GROUP))
    ct.store(partial_o, index=(batch, kv_head, split, 0), tile=ct.reshape(o, (1, QUERY_GROUP, 1, D)))
    ct.store(partial_lse, index=(batch, kv_head, split), tile=ct.reshape(lse, (1, QUERY_GROUP, 1)))


# One body, two compiler-option sets.
flash_decode_partial_tp = ct.kernel(_flash_decode_partial_tp)
# occupancy=4: at BN 64 the partial fits four blocks an SM (the unhinted BN 128 kernel holds 228 KB
# of shared memory, one block an SM, 15.5 waves of 2,048 blocks at the G8 bench shape): 194 vs 238
# us there (H100, 2026-12-07, docs/results/tuning.md "The candidates measured").
flash_decode_partial_tp_o4 = ct.kernel(_flash_decode_partial_tp, occupancy=4)


@ct.kernel
def flash_decode_partial_v(q, k, v, seq_lens, partial_o, partial_lse, sm_scale,
                           BN: ConstInt, D: ConstInt, QUERY_GROUP: ConstInt):
    """flash_decode_partial for one query head per kv head (MHA) without a tensor-core product:
    scores = the row sums of K * q, o += the column sums of p * V, in f32 (a wgmma cannot take
    one query row, and tileiras's FMA expansion of flash_decode_partial spills)."""
    ct.static_assert(QUERY_GROUP == 1, "flash_decode_partial_v takes one query head per kv head")
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
    qk_scale = sm_scale * LOG2E
    q_row = ct.astype(ct.reshape(ct.load(q, index=(batch, kv_head, 0), shape=(1, QUERY_GROUP, D)), (1, D)), ct.float32)
    m_i = ct.full((1, 1), -float("inf"), dtype=ct.float32)
    l_i = ct.zeros((1, 1), dtype=ct.float32)
    acc = ct.zeros((1, D), dtype=ct.float32)
    for j in range(t_begin, t_end):
        kt = ct.load(k, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO)
        kt = ct.astype(ct.reshape(kt, (BN, D)), ct.float32)
        scores = ct.sum(kt * q_row, axis=1, keepdims=True) * qk_scale
        row_ids = j * BN + ct.arange(BN, dtype=ct.int32)
        scores = ct.where(ct.expand_dims(row_ids < seq_len, 1), scores, -float("inf"))
        m_new = ct.maximum(m_i, ct.max(scores, axis=0, keepdims=True))
        p = ct.exp2(scores - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=0, keepdims=True)
        vt = ct.load(v, index=(batch, kv_head, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO)
        vt = ct.astype(ct.reshape(vt, (BN, D)), ct.float32)
        acc = acc * alpha + ct.sum(p * vt, axis=0, keepdims=True)
        m_i = m_new
    o = acc / ct.maximum(l_i, 1e-30)
    lse = m_i + ct.log2(l_i)
    ct.store(partial_o, index=(batch, kv_head, split, 0), tile=ct.reshape(o, (1, 1, 1, D)))
    ct.store(partial_lse, index=(batch, kv_head, split), tile=ct.reshape(lse, (1, 1, 1)))


def _flash_decode_combine(partial_o, partial_lse, o, MAX_SPLITS: ConstInt, D: ConstInt):
    """o[b, h] = sum_s w_s * partial_o[b, h, s] / sum_s w_s, w_s = exp2(lse_s - max_s lse_s); S <= MAX_SPLITS."""
    num_heads = o.shape[1]
    batch = ct.bid(0) // num_heads
    head = ct.bid(0) % num_heads
    lse = ct.load(partial_lse, index=(batch, head, 0), shape=(1, 1, MAX_SPLITS),
                  padding_mode=ct.PaddingMode.NEG_INF)
    lse = ct.reshape(lse, (MAX_SPLITS, 1))
    weights = ct.exp2(lse - ct.max(lse, axis=0, keepdims=True))
    parts = ct.reshape(ct.load(partial_o, index=(batch, head, 0, 0), shape=(1, 1, MAX_SPLITS, D),
                               padding_mode=ct.PaddingMode.ZERO), (MAX_SPLITS, D))
    out = ct.sum(parts * weights, axis=0, keepdims=True) / ct.sum(weights, axis=0, keepdims=True)
    ct.store(o, index=(batch, head, 0), tile=ct.reshape(ct.astype(out, o.dtype), (1, 1, D)))


flash_decode_combine = ct.kernel(_flash_decode_combine)
# Occupancy 8: unhinted, the combine's blocks (one (MAX_SPLITS, D) f32 tile each) hold 255 registers,
# two blocks an SM, and wait on memory (26 us for 4.5 MB at the f16 bench shape); at 26 registers eight
# or more blocks an SM keep more loads in flight (9.5 us; session 24, H100, docs/results/tuning.md).
flash_decode_combine_o8 = ct.kernel(_flash_decode_combine, occupancy=8)


def select_variant(dtype: str, head_dim: int, query_group: int, splits: int) -> str | None:
    """The launcher's choice for one decode step, q/k/v of `dtype` (a torch dtype name), head_dim
    D, query_group = Hq // Hkv query heads per kv head, `splits` = S KV splits: the pair
    "<partial>,<combine>" it launches in that order (the partial built for (dtype, D, group),
    the combine for (dtype, D) when S <= MAX_SPLITS = 16), None for any other combination.
    Measured (scripts/gpu/bench_selection.py, docs/results/selection.json, H100, 2026-12-06; held
    within 1.10x of the fastest by tests/suite/test_selection_results.py): one query head per kv
    head takes flash_decode_partial_v at BN 64 (flash_decode_partial 1.32-1.49x slower, BN 32
    1.18-1.24x), four take flash_decode_partial_tp at BN 128 (flash_decode_partial 1.79-1.91x
    slower, BN 64 1.02-1.07x), eight flash_decode_partial_tp_o4 at BN 64 (BN 128 unhinted 1.23x
    slower at the bench shape, H100 2026-12-07; flash_decode_partial 2.09-3.22x). The combine is
    flash_decode_combine_o8 (the unhinted combine 2.0-2.8x slower: 26.2 vs 9.5 us f16 D64, 16.2 vs
    8.2 bf16 D128 at the bench shapes, H100 2026-12-07; several heads a block no faster). The Rust library's
    cutile_flash_decode chooses the same (tests/rust/test_selection.py)."""
    partial = {("bfloat16", 128, 1): "v_bf16_d128_g1_bn64", ("bfloat16", 128, 4): "tp_bf16_d128_g4_bn128",
               ("float16", 64, 8): "tp_f16_d64_g8_bn64_o4"}.get((dtype, head_dim, query_group))
    combine = {("bfloat16", 128): "combine_bf16_d128_o8", ("float16", 64): "combine_f16_d64_o8"}.get((dtype, head_dim))
    if partial is None or combine is None or not 1 <= splits <= 16:
        return None
    return f"{partial},{combine}"
