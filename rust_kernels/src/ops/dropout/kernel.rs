//! cuTile Rust port of reference/dropout/kernel.py: out[i] = x[i] / (1 - p) if
//! uniform(seed, i) >= p else 0, one TILE-element tile per block. uniform(seed, i) is the top
//! 24 bits of a 32-bit multiply-xorshift hash of (i, seed) over 2^24, computed in the kernel
//! in u32 (Tile IR integers are signless: the u32 type only makes the shifts logical and the
//! int-to-float conversion unsigned, as Python's `ct.uint32` does). `seed` (int32 in the C
//! ABI, read as its u32 bits) and `p` are runtime scalars on both sides.
//!
//! The two odd multipliers above i32::MAX are written as the i32 constants with the same bits
//! and `bitcast` to u32: cuTile Rust 0.5.0 encodes a `constant(v)` of a u32 tile by parsing v
//! as i32, so `constant(0x9E3779B1u32, ..)` would silently become 0 (and a scalar u32 literal
//! above i32::MAX panics the compiler). The bitcast maps tile<i32> to tile<i32>: the identity.
//! analysis.json accepts it; tests/variants.rs checks the constants' bits.

#[cutile::module]
pub mod dropout_kernel {
    use cutile::core::*;

    /// 0x9E3779B1 as i32: spreads consecutive indices before mixing.
    const GOLDEN_BITS: i32 = -1640531535i32;
    /// 0x7FEB352D: fits in i32, a u32 literal is exact.
    const MIX1: u32 = 2146121005u32;
    /// 0x846CA68B as i32.
    const MIX2_BITS: i32 = -2073254261i32;
    /// 2^-24: 24-bit integers are exact in f32, so u is exact.
    const INV_2_24: f32 = 5.9604644775390625e-8f32;
    /// 2^24: p * 2^24 is exact, and no 24-bit k reaches it.
    const TWO_POW_24: f32 = 16777216.0f32;

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn dropout<E: ElementType, const TILE: i32>(
        x: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1] }>,
        seed: u32,
        p: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        // `partition` pads with zero, like padding_mode=ZERO.
        let t: Tile<E, { [TILE] }> = x.partition(shape![TILE]).load([block.0]);
        // Flat element index: arange(TILE) + block * TILE, as u32. `as u32` on a scalar is a
        // relabel in cuTile Rust (no op), like Python's astype to uint32.
        let base: u32 = (block.0 * TILE) as u32;
        let index: Tile<u32, { [TILE] }> = iota(shape![TILE]) + broadcast_scalar(base, shape![TILE]);
        let golden_bits: Tile<i32, { [TILE] }> = constant(GOLDEN_BITS, shape![TILE]);
        let golden: Tile<u32, { [TILE] }> = bitcast(golden_bits);
        let mix2_bits: Tile<i32, { [TILE] }> = constant(MIX2_BITS, shape![TILE]);
        let mix2: Tile<u32, { [TILE] }> = bitcast(mix2_bits);
        // h = index * GOLDEN ^ seed, then three multiply-xorshift rounds (shifts 16, 15, 16).
        let h: Tile<u32, { [TILE] }> = index * golden ^ broadcast_scalar(seed, shape![TILE]);
        let h: Tile<u32, { [TILE] }> = h ^ (h >> constant(16u32, shape![TILE]));
        let h: Tile<u32, { [TILE] }> = h * constant(MIX1, shape![TILE]);
        let h: Tile<u32, { [TILE] }> = h ^ (h >> constant(15u32, shape![TILE]));
        let h: Tile<u32, { [TILE] }> = h * mix2;
        let h: Tile<u32, { [TILE] }> = h ^ (h >> constant(16u32, shape![TILE]));
        let top24: Tile<f32, { [TILE] }> = convert_tile(h >> constant(8u32, shape![TILE]));
        let u: Tile<f32, { [TILE] }> = top24 * broadcast_scalar(INV_2_24, shape![TILE]);
        // scale = 1 / (1 - p) once per block, on the scalar; IEEE division like Python's `/`.
        let one: Tile<f32, { [] }> = constant(1.0f32, shape![]);
        let scale: Tile<f32, { [] }> = divf(one, one - scalar_to_tile(p), rounding::NearestEven, ftz::Disabled);
        let keep: Tile<bool, { [TILE] }> = ge_tile(u, broadcast_scalar(p, shape![TILE]));
        let v: Tile<f32, { [TILE] }> = convert_tile(t);
        let scaled: Tile<f32, { [TILE] }> = v * scale.reshape(shape![1]).broadcast(shape![TILE]);
        let kept: Tile<f32, { [TILE] }> = select(keep, scaled, broadcast_scalar(0.0f32, shape![TILE]));
        let y: Tile<E, { [TILE] }> = convert_tile(kept);
        // `out` is read-only in the signature (Python's calling convention); the store goes
        // through a full-tensor mutable view at the block's tile.
        let mut out_tiles: PartitionMut<E, { [TILE] }> = unsafe { out.partition_full_mut(shape![TILE]) };
        unsafe { out_tiles.store_unchecked(y, [block.0]) };
    }

    /// `dropout_fast` of reference/dropout/kernel.py: the same mask and values in fewer
    /// instructions per element. uniform >= p becomes the unsigned compare
    /// h >= ceil(p * 2^24) << 8 (nothing kept when p * 2^24 >= 2^24 or NaN: `any_kept`), the
    /// seed's xorshift is folded into one scalar (a logical shift distributes over xor), and
    /// index * GOLDEN is iota * GOLDEN + (block * TILE) * GOLDEN.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn dropout_fast<E: ElementType, const TILE: i32>(
        x: &Tensor<E, { [-1] }>,
        out: &Tensor<E, { [-1] }>,
        seed: u32,
        p: f32,
    ) {
        let block: (i32, i32, i32) = get_tile_block_id();
        let t: Tile<E, { [TILE] }> = x.partition(shape![TILE]).load([block.0]);
        let golden_bits: Tile<i32, { [TILE] }> = constant(GOLDEN_BITS, shape![TILE]);
        let golden: Tile<u32, { [TILE] }> = bitcast(golden_bits);
        let mix2_bits: Tile<i32, { [TILE] }> = constant(MIX2_BITS, shape![TILE]);
        let mix2: Tile<u32, { [TILE] }> = bitcast(mix2_bits);
        // (block * TILE) * GOLDEN on the i32 scalar (the same bits as u32), `as u32` a relabel.
        let base_g: u32 = (block.0 * TILE * GOLDEN_BITS) as u32;
        let g: Tile<u32, { [TILE] }> = iota(shape![TILE]) * golden + broadcast_scalar(base_g, shape![TILE]);
        let g: Tile<u32, { [TILE] }> = g ^ (g >> constant(16u32, shape![TILE]));
        let s: Tile<u32, { [] }> = scalar_to_tile(seed);
        let sixteen: Tile<u32, { [] }> = constant(16u32, shape![]);
        let s: Tile<u32, { [] }> = s ^ (s >> sixteen);
        let h: Tile<u32, { [TILE] }> = g ^ s.reshape(shape![1]).broadcast(shape![TILE]);
        let h: Tile<u32, { [TILE] }> = h * constant(MIX1, shape![TILE]);
        let h: Tile<u32, { [TILE] }> = h ^ (h >> constant(15u32, shape![TILE]));
        let h: Tile<u32, { [TILE] }> = h * mix2;
        let h: Tile<u32, { [TILE] }> = h ^ (h >> constant(16u32, shape![TILE]));
        // Threshold on the scalar: ceil(p * 2^24) << 8, 0 when p * 2^24 <= 0 (or nothing kept).
        let two_pow_24: Tile<f32, { [] }> = constant(TWO_POW_24, shape![]);
        let pt: Tile<f32, { [] }> = scalar_to_tile(p) * two_pow_24;
        let limit: Tile<f32, { [] }> = constant(TWO_POW_24, shape![]);
        let any_kept: Tile<bool, { [] }> = lt_tile(pt, limit);
        let zero: Tile<f32, { [] }> = constant(0.0f32, shape![]);
        let positive: Tile<bool, { [] }> = gt_tile(pt, zero);
        let zero_f: Tile<f32, { [] }> = constant(0.0f32, shape![]);
        let clamped: Tile<f32, { [] }> = select(any_kept & positive, pt, zero_f);
        let ceiled: Tile<f32, { [] }> = ceil(clamped);
        let threshold: Tile<u32, { [] }> = convert_tile(ceiled);
        let eight: Tile<u32, { [] }> = constant(8u32, shape![]);
        let threshold: Tile<u32, { [] }> = threshold << eight;
        let one: Tile<f32, { [] }> = constant(1.0f32, shape![]);
        let scale: Tile<f32, { [] }> = divf(one, one - scalar_to_tile(p), rounding::NearestEven, ftz::Disabled);
        let keep: Tile<bool, { [TILE] }> = ge_tile(h, threshold.reshape(shape![1]).broadcast(shape![TILE]));
        let keep: Tile<bool, { [TILE] }> = keep & any_kept.reshape(shape![1]).broadcast(shape![TILE]);
        let v: Tile<f32, { [TILE] }> = convert_tile(t);
        let scaled: Tile<f32, { [TILE] }> = v * scale.reshape(shape![1]).broadcast(shape![TILE]);
        let kept: Tile<f32, { [TILE] }> = select(keep, scaled, broadcast_scalar(0.0f32, shape![TILE]));
        let y: Tile<E, { [TILE] }> = convert_tile(kept);
        let mut out_tiles: PartitionMut<E, { [TILE] }> = unsafe { out.partition_full_mut(shape![TILE]) };
        unsafe { out_tiles.store_unchecked(y, [block.0]) };
    }
}
