"""Cross-entropy loss per row with a fused logsumexp: loss[r] = logsumexp(logits[r]) - logits[r, target[r]].

One row per block; the vocabulary is streamed in TILE_V tiles once, keeping an online
logsumexp (running max and rescaled sum, base 2) and picking up the target logit where the
column index equals the target. Rows whose target is IGNORE_INDEX get loss 0. lse is stored
too (the backward needs it).
"""

import cuda.tile as ct

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


@ct.kernel
def cross_entropy_fwd(logits, target, loss, lse, TILE_V: ct.Constant[int], IGNORE_INDEX: ct.Constant[int]):
    row = ct.bid(0)
    num_col_tiles = ct.num_tiles(logits, axis=1, shape=(1, TILE_V))
    tgt = ct.reshape(ct.astype(ct.load(target, index=(row,), shape=(1,)), ct.int32), (1, 1))
    cols = ct.reshape(ct.arange(TILE_V, dtype=ct.int32), (1, TILE_V))
    running_max = ct.full((1, 1), float("-inf"), dtype=ct.float32)
    running_sum = ct.zeros((1, 1), dtype=ct.float32)
    target_logit = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.astype(ct.load(logits, index=(row, j), shape=(1, TILE_V), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
        target_logit = target_logit + ct.sum(ct.where(cols + j * TILE_V == tgt, t, 0.0), axis=1, keepdims=True)
        t2 = t * LOG2E
        new_max = ct.maximum(running_max, ct.max(t2, axis=1, keepdims=True))
        running_sum = running_sum * ct.exp2(running_max - new_max) + ct.sum(ct.exp2(t2 - new_max), axis=1, keepdims=True)
        running_max = new_max
    row_lse = (running_max + ct.log2(running_sum)) * LN2
    row_loss = ct.where(tgt == IGNORE_INDEX, 0.0, row_lse - target_logit)
    ct.store(loss, index=(row,), tile=ct.reshape(row_loss, (1,)))
    ct.store(lse, index=(row,), tile=ct.reshape(row_lse, (1,)))
