"""Rotary position embedding of q and k in cuTile Python (out of place).

Each block takes BT tokens: it gathers their cos/sin rows by position
(``load_advanced_indexing`` on the (max_pos, D/2) tables), then rotates all
query heads and all key heads in (BT, TH, D) tiles, in f32.
IS_NEOX selects the pairing: rotate-half (x[i], x[i + D/2]) as in GPT-NeoX/Llama,
or interleaved (x[2i], x[2i+1]) as in GPT-J; the interleaved form splits the
tile by reshaping the last axis to (D/2, 2).
"""
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


def rotate(x, cos, sin, BT, TH, D, IS_NEOX):
    """Rotate a (BT, TH, D) f32 tile by angle tables cos/sin of shape (BT, 1, D/2)."""
    half = D // 2
    if IS_NEOX:
        x1 = ct.extract(x, (0, 0, 0), shape=(BT, TH, half))
        x2 = ct.extract(x, (0, 0, 1), shape=(BT, TH, half))
        return ct.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), 2)
    pairs = ct.reshape(x, (BT, TH, half, 2))
    x1 = ct.reshape(ct.extract(pairs, (0, 0, 0, 0), shape=(BT, TH, half, 1)), (BT, TH, half))
    x2 = ct.reshape(ct.extract(pairs, (0, 0, 0, 1), shape=(BT, TH, half, 1)), (BT, TH, half))
    y1 = ct.reshape(x1 * cos - x2 * sin, (BT, TH, half, 1))
    y2 = ct.reshape(x2 * cos + x1 * sin, (BT, TH, half, 1))
    return ct.reshape(ct.cat((y1, y2), 3), (BT, TH, D))


def rotate_heads(src, dst, tile_t, cos, sin, BT, TH, D, IS_NEOX):
    """dst[tokens of tile_t, all heads] = rotate(src[...]) over head tiles of TH."""
    for h in range(ct.cdiv(src.shape[1], TH)):
        x = ct.astype(ct.load(src, index=(tile_t, h, 0), shape=(BT, TH, D)), ct.float32)
        y = rotate(x, cos, sin, BT, TH, D, IS_NEOX)
        ct.store(dst, index=(tile_t, h, 0), tile=ct.astype(y, dst.dtype))


def _rope(positions, q, k, cos_table, sin_table, q_out, k_out,
          BT: ConstInt, TH: ConstInt, D: ConstInt, IS_NEOX: ConstBool):
    """q_out/k_out[t, h] = RoPE(q/k[t, h], angle table row positions[t])."""
    tile_t = ct.bid(0)
    # tokens past T read position 0 (padding); their results are not stored
    pos = ct.load(positions, index=(tile_t,), shape=(BT,), padding_mode=ct.PaddingMode.ZERO)
    cos = ct.load_advanced_indexing(cos_table, (pos, ct.Slice(0, D // 2)))
    sin = ct.load_advanced_indexing(sin_table, (pos, ct.Slice(0, D // 2)))
    cos = ct.reshape(ct.astype(cos, ct.float32), (BT, 1, D // 2))
    sin = ct.reshape(ct.astype(sin, ct.float32), (BT, 1, D // 2))
    rotate_heads(q, q_out, tile_t, cos, sin, BT, TH, D, IS_NEOX)
    rotate_heads(k, k_out, tile_t, cos, sin, BT, TH, D, IS_NEOX)


rope = ct.kernel(_rope)


def rotate_halves(src, dst, tile_t, cos, sin, BT, TH, half):
    """rotate_heads for rotate-half pairs, each half of D its own tile: tile index 0 / 1 on
    the last axis is elements [0, D/2) / [D/2, D)."""
    for h in range(ct.cdiv(src.shape[1], TH)):
        x1 = ct.astype(ct.load(src, index=(tile_t, h, 0), shape=(BT, TH, half)), ct.float32)
        x2 = ct.astype(ct.load(src, index=(tile_t, h, 1), shape=(BT, TH, half)), ct.float32)
        ct.store(dst, index=(tile_t, h, 0), tile=ct.astype(x1 * cos - x2 * sin, dst.dtype))
        ct.store(dst, index=(tile_t, h, 1), tile=ct.astype(x2 * cos + x1 * sin, dst.dtype))


def _rope_neox_split(positions, q, k, cos_table, sin_table, q_out, k_out,
                     BT: ConstInt, TH: ConstInt, D: ConstInt):
    """rope with IS_NEOX=True, tuned for the H200 (docs/results/tuning.md): the two halves of D
    are tiles of their own (rotate_halves), so no extract/cat moves the rotation through shared
    memory; its variants declare the last extent D a multiple of 8 (16-byte accesses)."""
    tile_t = ct.bid(0)
    half = D // 2
    pos = ct.load(positions, index=(tile_t,), shape=(BT,), padding_mode=ct.PaddingMode.ZERO)
    cos = ct.load_advanced_indexing(cos_table, (pos, ct.Slice(0, half)))
    sin = ct.load_advanced_indexing(sin_table, (pos, ct.Slice(0, half)))
    cos = ct.reshape(ct.astype(cos, ct.float32), (BT, 1, half))
    sin = ct.reshape(ct.astype(sin, ct.float32), (BT, 1, half))
    rotate_halves(q, q_out, tile_t, cos, sin, BT, TH, half)
    rotate_halves(k, k_out, tile_t, cos, sin, BT, TH, half)


# 4 blocks per SM: registers capped at 128 (with TH=4 the tiles fit without spills)
rope_neox_split = ct.kernel(_rope_neox_split, occupancy=4)

# The same bodies under occupancy=8: 8 blocks of 4 warps per SM (32 warps, twice the tuned
# variants' 16), registers capped at 64; their variants take tiles of 1024-2048 elements (one or
# two 16-byte loads per thread) to fit that cap without spills (docs/results/tuning.md, "rope at
# occupancy 8").
rope_o8 = ct.kernel(_rope, occupancy=8)
rope_neox_split_o8 = ct.kernel(_rope_neox_split, occupancy=8)


def select_variant(dtype: str, head_dim: int, is_neox: bool) -> str | None:
    """The launcher's choice for q, k of `dtype` (a torch dtype name) with head_dim D: the one
    variant built for (dtype, D, pairing), None for any other combination. The Rust library's
    cutile_rope chooses the same (tests/rust/test_selection.py). The tuned variants: on the
    H200 (2026-12-01, T=16384, Hq=32, Hkv=8) bf16_neox_d128_split takes 148 us against
    bf16_neox_d128's 1483, f16_neox_d64_split 77 against 1193, bf16_gptj_d128_a8_th2 111 against
    1487 (docs/results/tuning.md, "rope"); they accept every input the untuned ones do."""
    # Occupancy 8 (32 warps per SM instead of 16; tuning.md "rope at occupancy 8"): on the H100 grid
    # (T = 1, 512, 16384; two passes) each pick is within 1.02x of the fastest variant for its
    # (dtype, D, pairing), the previous picks 1.08-2.64x.
    built = {("bfloat16", 128, True): "bf16_neox_d128_split_bt2_th8_o8", ("float16", 64, True): "f16_neox_d64_split_bt4_th8_o8",
             ("bfloat16", 128, False): "bf16_gptj_d128_a8_bt4_th2_o8"}
    return built.get((dtype, head_dim, bool(is_neox)))
