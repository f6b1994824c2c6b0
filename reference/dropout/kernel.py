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


TWO_POW_24 = 16777216.0


@ct.kernel
def dropout_fast(x, out, seed, p, TILE: ct.Constant[int]):
    """dropout's mask and values bit for bit, in fewer instructions per element (same hash, same
    comparison, rewritten exactly):
    - uniform(seed, i) >= p is k >= p * 2^24 for the 24-bit integer k = h >> 8 (scaling by 2^24 is
      exact), i.e. k >= ceil(p * 2^24), i.e. h >= ceil(p * 2^24) << 8: one unsigned compare per
      element instead of a shift, an int-to-float conversion, a multiply and a float compare. No
      k reaches 2^24, so p * 2^24 >= 2^24 (p >= 1) and NaN keep nothing (`any_kept`); p <= 0
      keeps everything (threshold 0). The scalar math runs once per thread.
    - (g ^ seed) ^ ((g ^ seed) >> 16) is g ^ (g >> 16) ^ (seed ^ (seed >> 16)): a logical shift
      distributes over xor, so the seed's part is a scalar and each element needs one
      three-input xor.
    - index * GOLDEN is arange * GOLDEN + (block * TILE) * GOLDEN (mod 2^32): the block's part is
      a scalar, so each element's product comes from a constant offset, not its own multiply.
    The `any_kept` select costs one FSEL per element; the compiler sees through a mask form of it."""
    block = ct.bid(0)
    t = ct.load(x, index=(block,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    s = ct.astype(seed, ct.uint32)
    g = ct.arange(TILE, dtype=ct.uint32) * GOLDEN + ct.astype(block * TILE, ct.uint32) * GOLDEN
    h = g ^ (g >> 16) ^ (s ^ (s >> 16))
    h = h * MIX1
    h = h ^ (h >> 15)
    h = h * MIX2
    h = h ^ (h >> 16)
    pt = p * TWO_POW_24
    any_kept = pt < TWO_POW_24
    threshold = ct.astype(ct.ceil(ct.where(any_kept & (pt > 0.0), pt, 0.0)), ct.uint32) << 8
    scale = 1.0 / (1.0 - p)
    kept = ct.where((h >= threshold) & any_kept, ct.astype(t, ct.float32) * scale, 0.0)
    ct.store(out, index=(block,), tile=ct.astype(kept, out.dtype))


# The `_fast` tile the launcher takes for aligned 16-bit arrays (docs/results/selection.json, H100):
# (1024,) tiles (8 elements, one 16-byte load per thread) are the fastest or within 1 % of it at
# every measured length (4 Ki to 64 Mi elements); (2048,) tiles put two loads in a thread, the
# second issued only after the first's bounds branch (SASS), 4-5 % slower from 16 Mi elements.
FAST_TILE = 1024


def select_variant(dtype: str, n: int, strides) -> str | None:
    """The launcher's choice for dropout(x) -> out of `dtype` (a torch dtype name), length n and
    element `strides` (x, out); None when no variant takes them. 16-bit arrays with n a multiple
    of 8 take the `dropout_fast` kernel (the same mask and values as the `_a8` variant), other
    16-bit lengths the general variant; a non-unit stride needs float32. The Rust library's
    cutile_dropout chooses the same (tests/rust/test_selection.py)."""
    contiguous = n <= 1 or all(s == 1 for s in strides)
    prefix = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}.get(dtype)
    if prefix is None:
        return None
    if dtype == "float32":
        return "f32_t1024" if contiguous else "f32_strided_t1024"
    if not contiguous:
        return None
    return f"{prefix}_a8_fast_t{FAST_TILE}" if n % 8 == 0 else f"{prefix}_t1024"
