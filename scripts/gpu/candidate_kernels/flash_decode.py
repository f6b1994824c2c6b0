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
