"""dropout with a counter-based RNG computed in the kernel.

Element i (flat index of a 1-D array) is kept iff uniform(seed, i) >= p, and kept values are
scaled by 1 / (1 - p). uniform(seed, i) is the top 24 bits of a 32-bit integer hash of
(i, seed), divided by 2^24: stateless, so any tiling gives the same mask, and ref.py recomputes
it exactly. The hash is a multiply-xorshift mixer (odd multipliers, shifts 16/15/16).
"""

import cuda.tile as ct

GOLDEN = 0x9E3779B1  # odd 32-bit constant spreading consecutive indices before mixing
MIX1 = 0x7FEB352D
MIX2 = 0x846CA68B


@ct.kernel
def dropout(x, out, seed, p, TILE: ct.Constant[int]):
    block = ct.bid(0)
    t = ct.load(x, index=(block,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    index = ct.arange(TILE, dtype=ct.uint32) + ct.astype(block * TILE, ct.uint32)
    h = index * GOLDEN ^ ct.astype(seed, ct.uint32)
    h = h ^ (h >> 16)
    h = h * MIX1
    h = h ^ (h >> 15)
    h = h * MIX2
    h = h ^ (h >> 16)
    u = ct.astype(h >> 8, ct.float32) * (1.0 / 16777216.0)
    scale = 1.0 / (1.0 - p)
    kept = ct.where(u >= p, ct.astype(t, ct.float32) * scale, 0.0)
    ct.store(out, index=(block,), tile=ct.astype(kept, out.dtype))
