"""cuTile Python kernels of the equivalent-rewrite corpus: for each pair a reference kernel and the
same computation written the way another author would (or, for the controls, a rewrite that is
NOT the same computation). generate.py exports both with one signature and prints them as text;
where cuTile Python cannot spell the other author's form (a truncating division, an unsigned
itof), generate.py edits the printed text instead.
"""
from __future__ import annotations

import cuda.tile as ct

B = 128


# --- integer index arithmetic -------------------------------------------------------------------

@ct.kernel
def sub_broadcast_ref(x, z, off: int, T: ct.Constant[int]):
    base = ct.bid(0) * T - off                       # subtract on the scalar, then broadcast
    idx = base + ct.arange(T, dtype=ct.int32)
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def sub_broadcast_alt(x, z, off: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    idx = idx - off                                   # subtract on the tile, after the broadcast
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def reassoc_index_ref(x, z, s: int, T: ct.Constant[int]):
    r = ct.bid(0)
    idx = (r * T + ct.arange(T, dtype=ct.int32)) * s + 3
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def reassoc_index_alt(x, z, s: int, T: ct.Constant[int]):
    r = ct.bid(0)
    idx = ct.arange(T, dtype=ct.int32) * s + (3 + r * T * s)
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def commuted_index_ref(x, z, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0) * 2.0 + 1.0)


@ct.kernel
def commuted_index_alt(x, z, T: ct.Constant[int]):
    idx = ct.arange(T, dtype=ct.int32) + T * ct.bid(0)
    ct.scatter(z, idx, 1.0 + 2.0 * ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def shift_for_mul_ref(x, z, T: ct.Constant[int]):
    idx = ct.bid(0) * 8 + ct.arange(T, dtype=ct.int32) % 8
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def shift_for_mul_alt(x, z, T: ct.Constant[int]):
    idx = (ct.bid(0) << 3) | (ct.arange(T, dtype=ct.int32) & 7)
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def double_as_add_ref(x, z, T: ct.Constant[int]):
    idx = ct.arange(T, dtype=ct.int32) * 2 + ct.bid(0)
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def double_as_add_alt(x, z, T: ct.Constant[int]):
    a = ct.arange(T, dtype=ct.int32)
    idx = a + a + ct.bid(0)
    ct.scatter(z, idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def reverse_index_ref(x, z, n: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    ct.scatter(z, n - 1 - idx, ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def reverse_index_alt(x, z, n: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    ct.scatter(z, n + ct.bitwise_not(idx), ct.gather(x, idx, padding_value=0.0))


@ct.kernel
def cdiv_ref(x, z, n: int, T: ct.Constant[int]):
    tiles = ct.cdiv(n, T)
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + tiles)


@ct.kernel
def cdiv_alt(x, z, n: int, T: ct.Constant[int]):
    tiles = (n + T - 1) // T
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + tiles)


@ct.kernel
def pow2_div_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    q = i // 4
    r = i % 4
    t = ct.load(x, index=(q,), shape=(T,))
    ct.store(z, index=(i,), tile=t + r)


@ct.kernel
def pow2_div_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    q = i >> 2
    r = i & 3
    t = ct.load(x, index=(q,), shape=(T,))
    ct.store(z, index=(i,), tile=t + r)


@ct.kernel
def bid_floordiv_ref(x, z, groups: int, T: ct.Constant[int]):
    # floor division of a block id (written // in Python); the alt is Rust's truncating divi
    i = ct.bid(0)
    q = i // 3
    r = i % 3
    t = ct.load(x, index=(q,), shape=(T,))
    ct.store(z, index=(i,), tile=t + r)


@ct.kernel
def idx_floordiv_ref(x, z, T: ct.Constant[int]):
    # a tile of ids that are non-negative by construction: bid * T wraps only past the grid
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32)
    q = j // 2 + j % 2
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + q)


@ct.kernel
def masked_floordiv_ref(x, z, n: int, off: int, T: ct.Constant[int]):
    # rows below 0 (idx < 0) are masked: their index is never used
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32) - off
    keep = (idx >= 0) & (idx < n)
    v = ct.gather(x, idx, mask=keep, padding_value=0.0)
    ct.scatter(z, idx // 2, v, mask=keep)


@ct.kernel
def max_plus_one_ref(x, z, k: int, T: ct.Constant[int]):
    k64 = ct.assume_divisible_by(k, 64)
    blocks = max(k64 + 1, 0) // 64
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + blocks)


@ct.kernel
def max_plus_one_alt(x, z, k: int, T: ct.Constant[int]):
    k64 = ct.assume_divisible_by(k, 64)
    blocks = max(k64, 0) // 64
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + blocks)


@ct.kernel
def max_plus_one_nodiv_alt(x, z, k: int, T: ct.Constant[int]):
    # CONTROL: without the divisibility fact, k = 63 gives 1 on the left and 0 here
    blocks = max(k, 0) // 64
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + blocks)


@ct.kernel
def max_plus_one_nodiv_ref(x, z, k: int, T: ct.Constant[int]):
    blocks = max(k + 1, 0) // 64
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + blocks)


# --- masks and compares --------------------------------------------------------------------------

@ct.kernel
def mask_mirror_ref(x, z, n: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    m = idx < n
    ct.scatter(z, idx, ct.gather(x, idx, mask=m, padding_value=0.0), mask=m)


@ct.kernel
def mask_mirror_alt(x, z, n: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    m = n > idx
    ct.scatter(z, idx, ct.gather(x, idx, mask=m, padding_value=0.0), mask=m)


@ct.kernel
def mask_negated_alt(x, z, n: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    m = ~(idx >= n)
    ct.scatter(z, idx, ct.gather(x, idx, mask=m, padding_value=0.0), mask=m)


@ct.kernel
def mask_off_by_one_alt(x, z, n: int, T: ct.Constant[int]):
    # CONTROL: idx <= n lets one element more through
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    m = idx <= n
    ct.scatter(z, idx, ct.gather(x, idx, mask=m, padding_value=0.0), mask=m)


@ct.kernel
def mask_two_sided_ref(x, z, n: int, lo: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32) - lo
    m = (idx >= 0) & (idx < n)
    ct.scatter(z, idx, ct.gather(x, idx, mask=m, padding_value=0.0), mask=m)


@ct.kernel
def mask_two_sided_alt(x, z, n: int, lo: int, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32) - lo
    m = (idx < n) & (0 <= idx)
    ct.scatter(z, idx, ct.gather(x, idx, mask=m, padding_value=0.0), mask=m)


@ct.kernel
def eq_select_int_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(j % 2 == 0, t, -t))


@ct.kernel
def eq_select_int_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(j % 2 != 0, -t, t))


@ct.kernel
def eq_select_float_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(t == 0.0, 1.0, t))


@ct.kernel
def eq_select_float_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(t != 0.0, t, 1.0))


@ct.kernel
def le_zero_int_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32) - 64
    r = ct.where(j <= 0, 0, j)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + r)


@ct.kernel
def le_zero_int_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32) - 64
    r = ct.where(j < 0, 0, j)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + r)


@ct.kernel
def le_zero_float_exp_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    r = ct.where(t <= 0.0, 0.0, t)
    ct.store(z, index=(i,), tile=ct.exp(r))


@ct.kernel
def le_zero_float_exp_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    r = ct.where(t < 0.0, 0.0, t)
    ct.store(z, index=(i,), tile=ct.exp(r))


@ct.kernel
def le_zero_float_store_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(t <= 0.0, 0.0, t))


@ct.kernel
def le_zero_float_store_alt(x, z, T: ct.Constant[int]):
    # CONTROL: x = -0.0 is stored as +0.0 on the left and -0.0 here
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(t < 0.0, 0.0, t))


@ct.kernel
def not_less_ref(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(j >= n, 0.0, t))


@ct.kernel
def not_less_alt(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(~(j < n), 0.0, t))


@ct.kernel
def unsigned_bounds_ref(x, z, n: int, off: int, T: ct.Constant[int]):
    n0 = max(n, 0)
    idx = ct.arange(T, dtype=ct.int32) - off
    m = (idx >= 0) & (idx < n0)
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(m, t, 0.0))


@ct.kernel
def unsigned_bounds_alt(x, z, n: int, off: int, T: ct.Constant[int]):
    n0 = max(n, 0)
    idx = ct.arange(T, dtype=ct.int32) - off
    m = ct.bitcast(idx, ct.uint32) < ct.bitcast(n0, ct.uint32)
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.where(m, t, 0.0))


# --- select vs min/max ---------------------------------------------------------------------------

@ct.kernel
def select_min_ref(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.minimum(ct.arange(T, dtype=ct.int32), n)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + j)


@ct.kernel
def select_min_alt(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.arange(T, dtype=ct.int32)
    j = ct.where(a < n, a, n)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + j)


@ct.kernel
def select_max_const_ref(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.arange(T, dtype=ct.int32) - n
    j = ct.maximum(a, 0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + j)


@ct.kernel
def select_max_const_alt(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.arange(T, dtype=ct.int32) - n
    j = ct.where(a > 0, a, 0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + j)


@ct.kernel
def scalar_min_ref(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    last = min(i * T + T, n)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + last)


@ct.kernel
def scalar_min_alt(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    e = (i + 1) * T
    last = e if e < n else n
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + last)


# --- casts ---------------------------------------------------------------------------------------

@ct.kernel
def itof_iota_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    ramp = ct.arange(T, dtype=ct.int32).astype(ct.float32)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t * ramp)


@ct.kernel
def itof_bid_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t * ct.astype(i, ct.float32))


@ct.kernel
def itof_arg_ref(x, z, n: int, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t * ct.astype(n, ct.float32))


@ct.kernel
def exti_iota_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.arange(T, dtype=ct.int32).astype(ct.int64)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + j)


# --- float ---------------------------------------------------------------------------------------

@ct.kernel
def half_div_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t / 2.0)


@ct.kernel
def half_div_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t * 0.5)


@ct.kernel
def twice_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t * 2.0)


@ct.kernel
def twice_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=t + t)


@ct.kernel
def sub_neg_ref(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a - b)


@ct.kernel
def sub_neg_alt(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a + (-b))


@ct.kernel
def neg_sub_alt(x, y, z, T: ct.Constant[int]):
    # CONTROL: -(b - a) is -0.0 where a == b; a - b is +0.0 there
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=-(b - a))


@ct.kernel
def float_assoc_ref(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=(a + b) + 1.0)


@ct.kernel
def float_assoc_alt(x, y, z, T: ct.Constant[int]):
    # CONTROL: float addition is not associative
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a + (b + 1.0))


@ct.kernel
def fma_commuted_ref(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a * b + a)


@ct.kernel
def fma_commuted_alt(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a + b * a)


@ct.kernel
def exp_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.exp(t))


@ct.kernel
def exp2_scaled_alt(x, z, T: ct.Constant[int]):
    # CONTROL: exp2(x * log2(e)) rounds x * log2(e) first: not exp(x) bit for bit
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.exp2(t * 1.4426950408889634))


@ct.kernel
def rsqrt_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=ct.rsqrt(t))


@ct.kernel
def rsqrt_alt(x, z, T: ct.Constant[int]):
    # CONTROL: 1 / sqrt(x) rounds twice; rsqrt once (and approximately)
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=1.0 / ct.sqrt(t))


@ct.kernel
def exp_neg_ref(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=1.0 / (1.0 + ct.exp(-t)))


@ct.kernel
def exp_neg_alt(x, z, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=1.0 / (1.0 + ct.exp(0.0 - t)))


# --- shapes --------------------------------------------------------------------------------------

@ct.kernel
def transpose_ref(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(0, ct.bid(0)), shape=(BM, BN))
    ct.store(z, index=(ct.bid(0), 0), tile=ct.transpose(t))


@ct.kernel
def transpose_alt(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(0, ct.bid(0)), shape=(BM, BN))
    ct.store(z, index=(ct.bid(0), 0), tile=ct.permute(t, (1, 0)))


@ct.kernel
def permute3_ref(x, z, B0: ct.Constant[int], B1: ct.Constant[int], B2: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(B0, B1, B2))
    ct.store(z, index=(0, 0, ct.bid(0)), tile=ct.permute(t, (2, 1, 0)))


@ct.kernel
def permute3_alt(x, z, B0: ct.Constant[int], B1: ct.Constant[int], B2: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(B0, B1, B2))
    ct.store(z, index=(0, 0, ct.bid(0)), tile=ct.transpose(ct.transpose(t, 0, 1), 0, 2).transpose(1, 2))


@ct.kernel
def permute3_wrong_alt(x, z, B0: ct.Constant[int], B1: ct.Constant[int], B2: ct.Constant[int]):
    # CONTROL: (1, 0, 2) then (0, 2, 1) composes to (1, 2, 0), not (2, 1, 0)
    t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(B0, B1, B2))
    ct.store(z, index=(0, 0, ct.bid(0)), tile=ct.transpose(ct.transpose(t, 0, 1), 1, 2))


@ct.kernel
def transpose_twice_ref(x, z, BM: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(BM, BM))
    ct.store(z, index=(ct.bid(0), 0), tile=t * 2.0)


@ct.kernel
def transpose_twice_alt(x, z, BM: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(BM, BM))
    ct.store(z, index=(ct.bid(0), 0), tile=ct.transpose(ct.transpose(t) * 2.0))


# --- order, hoisting, sharing -------------------------------------------------------------------

@ct.kernel
def load_order_ref(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a * b)


@ct.kernel
def load_order_alt(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    b = ct.load(y, index=(i,), shape=(T,))
    a = ct.load(x, index=(i,), shape=(T,))
    ct.store(z, index=(i,), tile=a * b)


@ct.kernel
def hoist_loop_ref(x, z, k: int, T: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(k):
        s = i * 2 + 1
        acc = acc + ct.load(x, index=(j,), shape=(T,)) * s
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def hoist_loop_alt(x, z, k: int, T: ct.Constant[int]):
    i = ct.bid(0)
    s = i * 2 + 1
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(k):
        acc = acc + ct.load(x, index=(j,), shape=(T,)) * s
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def recompute_ref(x, z, T: ct.Constant[int]):
    idx = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
    v = ct.gather(x, idx, padding_value=0.0)
    ct.scatter(z, idx, v)


@ct.kernel
def recompute_alt(x, z, T: ct.Constant[int]):
    v = ct.gather(x, ct.bid(0) * T + ct.arange(T, dtype=ct.int32), padding_value=0.0)
    ct.scatter(z, ct.bid(0) * T + ct.arange(T, dtype=ct.int32), v)


@ct.kernel
def ssa_order_ref(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    p = a * a
    q = b * 3.0
    ct.store(z, index=(i,), tile=p - q)


@ct.kernel
def ssa_order_alt(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(T,))
    b = ct.load(y, index=(i,), shape=(T,))
    q = b * 3.0
    p = a * a
    ct.store(z, index=(i,), tile=p - q)


@ct.kernel
def row_offset_ref(x, z, n: int, BM: ct.Constant[int], BN: ct.Constant[int]):
    rows = ct.bid(0) * BM + ct.arange(BM, dtype=ct.int32)
    cols = ct.arange(BN, dtype=ct.int32)
    off = ct.expand_dims(rows, 1) * n + ct.expand_dims(cols, 0)
    ct.scatter(z, off, ct.gather(x, off, padding_value=0.0))


@ct.kernel
def row_offset_alt(x, z, n: int, BM: ct.Constant[int], BN: ct.Constant[int]):
    rows = ct.arange(BM, dtype=ct.int32) * n + ct.bid(0) * BM * n
    cols = ct.arange(BN, dtype=ct.int32)
    off = ct.expand_dims(cols, 0) + ct.expand_dims(rows, 1)
    ct.scatter(z, off, ct.gather(x, off, padding_value=0.0))
