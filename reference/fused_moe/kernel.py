"""Fused MoE expert GEMM in cuTile Python (the grouped GEMM of vLLM's fused_moe).

Works on the output of moe_align_block_size: sorted_token_ids lists the flat
(token * TOPK + k) ids grouped by expert, each expert's segment padded to BM
with the sentinel N = tokens * TOPK, and expert_ids gives the expert of every
BM-row block. One (BM, BN) output tile per block: it gathers the BM hidden
rows (token = id // TOPK; the sentinel gathers an out-of-range row, i.e. zeros)
with ``load_advanced_indexing``, multiplies by its expert's weight w[e] (stored
(E, N, K) like nn.Linear, read transposed through ``order``), optionally
scales each row by its routing weight, and scatters the rows to out[id].
Blocks past num_tokens_post_padded exit at once.
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def fused_moe(hidden, w, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights, out,
              BM: ConstInt, BN: ConstInt, BK: ConstInt, TOPK: ConstInt, MUL_ROUTED_WEIGHT: ConstBool):
    """out[id] = hidden[id // TOPK] @ w[expert].T (* topk_weights[id]) for the ids of this block's rows."""
    tiles_n = ct.cdiv(out.shape[1], BN)
    tile_m = ct.bid(0) // tiles_n
    tile_n = ct.bid(0) % tiles_n
    total = ct.load(num_tokens_post_padded, index=(0,), shape=())
    if tile_m * BM < total:
        expert = ct.load(expert_ids, index=(tile_m,), shape=())
        num_ids = out.shape[0]
        ids = ct.load(sorted_token_ids, index=(tile_m,), shape=(BM,))
        valid = ids < num_ids
        tokens = ids // TOPK  # the sentinel maps to row `tokens`, past the end: zero padded
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        for kk in range(ct.cdiv(hidden.shape[1], BK)):
            x = ct.load_advanced_indexing(hidden, (tokens, ct.Slice(kk * BK, BK)),
                                          padding_mode=ct.PaddingMode.ZERO)
            wt = ct.load(w, index=(expert, kk, tile_n), shape=(1, BK, BN), order=(0, 2, 1),
                         padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(x, ct.reshape(wt, (BK, BN)), acc)
        if MUL_ROUTED_WEIGHT:
            routed = ct.gather(topk_weights, ids, mask=valid, padding_value=0.0)
            acc = acc * ct.expand_dims(ct.astype(routed, ct.float32), 1)
        cols = tile_n * BN + ct.arange(BN, dtype=ct.int32)
        ct.scatter(out, (ct.expand_dims(ids, 1), ct.expand_dims(cols, 0)), ct.astype(acc, out.dtype),
                   mask=ct.expand_dims(valid, 1))


def select_variant(dtype: str, block_m: int, topk: int, mul_routed_weight: bool, aligned: bool) -> str | None:
    """The launcher's choice for hidden/w/out of `dtype` (a torch dtype name) on a routing aligned
    to `block_m` rows with `topk` experts per token; `aligned`: 16-byte bases and leading strides
    a multiple of 8 elements. Each variant is built for one (dtype, BM, TOPK, MUL_ROUTED_WEIGHT):
    bf16 BM=64 TOPK=2 with or without the routed-weight scale (Mixtral's down and gate/up
    projections), f16 BM=16 TOPK=8 with it (decode with many experts); None for anything else.
    The Rust library's cutile_fused_moe chooses the same (tests/rust/test_selection.py)."""
    if not aligned:
        return None
    if dtype == "bfloat16" and block_m == 64 and topk == 2:
        return "bf16_top2_bm64_mul" if mul_routed_weight else "bf16_top2_bm64_nomul"
    if dtype == "float16" and block_m == 16 and topk == 8 and mul_routed_weight:
        return "f16_top8_bm16_mul"
    return None
