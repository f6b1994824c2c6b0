"""Elementwise arithmetic, comparison, bitwise and select kernels."""
from ._common import arr, case, const, ct, scalar

B = 128  # tile length of the 1-D kernels


@ct.kernel
def float_arith(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = (a + b) * (a - b) / (b + 1.0)
    r = r + ct.mul(a, b, rounding_mode=ct.RoundingMode.RZ)
    r = r + ct.add(a, b, rounding_mode=ct.RoundingMode.RM, flush_to_zero=True)
    r = r - ct.sub(a, b, rounding_mode=ct.RoundingMode.RP)
    r = r + ct.truediv(a, b, rounding_mode=ct.RoundingMode.APPROX)
    r = r + ct.truediv(a, b, rounding_mode=ct.RoundingMode.FULL)
    r = r + a % b + a // b + (-a)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def fused_mul_add(x, y, w, z, BLOCK: ct.Constant[int]):
    # a * b + c is fused into one fma by cuTile's rewrite pass.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    c = ct.load(w, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=a * b + c)


@ct.kernel
def signed_int_arith(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = a + b - a * b + a // (b | 1) + a % (b | 1) + ct.cdiv(a, 7) - (-a)
    r = r + ct.maximum(a, b) - ct.minimum(a, b)
    q, m = ct.divmod(a, 5)
    ct.store(z, index=(i,), tile=r + q + m + ct.abs(b))


@ct.kernel
def unsigned_int_arith(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    # Not `a // b`: cuTile 1.7.0 emits unsigned divi with rounding<negative_inf>, which
    # tileirdisasm's verifier rejects (see docs/corpus.md).
    r = ct.cdiv(a, b | 1) + a % (b | 1) + ct.maximum(a, b) + ct.minimum(a, b) + (a >> 3)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def float_min_max(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = ct.maximum(a, b) + ct.minimum(a, b)
    r = r + ct.maximum(a, b, propagate_nan=True) + ct.minimum(a, b, flush_to_zero=True)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def float_compare_select(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = ct.where(a < b, a, b) + ct.where(a <= b, 1.0, 2.0) + ct.where(a > b, a, 0.0)
    r = r + ct.where(a >= b, b, 3.0) + ct.where(a == b, a, b) + ct.where(a != b, 4.0, b)
    r = r + ct.where(ct.isnan(a), 0.0, a)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def int_compare_select(x, y, z, u, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    ua = ct.load(u, index=(i,), shape=(BLOCK,))
    r = ct.where(a < b, a, b) + ct.where(a <= b, 1, 2) + ct.where(a > b, a, 0)
    r = r + ct.where(a >= b, b, 3) + ct.where(a == b, a, b) + ct.where(a != b, 4, b)
    # unsigned predicates come from uint operands
    r = r + ct.where(ua < 7, 1, 0) + ct.where(ua >= 9, 5, 6)
    both = (a < b) & (a > 0) | (b == 3) ^ (a != 1)
    ct.store(z, index=(i,), tile=ct.where(both, r, -r))


@ct.kernel
def bitwise_signed(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = (a & b) | (a ^ b) | (a << 2) | (a >> 1) | ~b
    r = r + ct.bitwise_and(a, 3) + ct.bitwise_or(a, 4) + ct.bitwise_xor(a, b)
    r = r + ct.bitwise_lshift(a, b & 7) + ct.bitwise_rshift(a, b & 7) + ct.bitwise_not(a)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def bitwise_unsigned(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = (a & b) | (a ^ b) | (a << 2) | (a >> 1) | ~b | ct.bitwise_rshift(a, b & 7)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def scalar_params(x, z, alpha, n, flag, small, big, BLOCK: ct.Constant[int]):
    # Non-array parameters of several dtypes arrive as rank-0 tiles.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = a * alpha + n + small + big
    r = ct.where(flag, r, a)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def half_precision_arith(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=(a * b + a - b) / (b + 2.0))


@ct.kernel
def f64_arith(x, y, z, BLOCK: ct.Constant[int]):
    # f64 allows no flush_to_zero / approx modes, so it gets its own kernel.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = (a + b) * (a - b) / (b + 1.0) + a % b + a // b
    r = r + ct.truediv(a, b, rounding_mode=ct.RoundingMode.RZ)
    ct.store(z, index=(i,), tile=r + ct.sqrt(a) + ct.exp(b) + ct.floor(a))


@ct.kernel
def float_pow_atan2(x, y, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    b = ct.load(y, index=(i,), shape=(BLOCK,))
    r = a ** b + ct.pow(a, 3) + ct.atan2(a, b) + a ** 2.5
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def float_pow_int_exponent(x, e, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    k = ct.load(e, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=ct.pow(a, k))


f32 = arr(ct.float32, 1)
i32 = arr(ct.int32, 1)
u32 = arr(ct.uint32, 1)
i64 = arr(ct.int64, 1)

CASES = [
    case("float_arith", float_arith, [f32, f32, f32, const(B)]),
    case("fused_mul_add", fused_mul_add, [f32, f32, f32, f32, const(B)]),
    case("signed_int_arith", signed_int_arith, [i32, i32, i32, const(B)]),
    case("signed_int64_arith", signed_int_arith, [i64, i64, i64, const(B)]),
    case("unsigned_int_arith", unsigned_int_arith, [u32, u32, u32, const(B)]),
    case("float_min_max", float_min_max, [f32, f32, f32, const(B)]),
    case("float_compare_select", float_compare_select, [f32, f32, f32, const(B)]),
    case("int_compare_select", int_compare_select, [i32, i32, i32, u32, const(B)]),
    case("bitwise_signed", bitwise_signed, [i32, i32, i32, const(B)]),
    case("bitwise_unsigned", bitwise_unsigned, [u32, u32, u32, const(B)]),
    case("scalar_params", scalar_params,
         [f32, f32, scalar(ct.float32), scalar(ct.int32), scalar(ct.bool_), scalar(ct.float16),
          scalar(ct.int64), const(B)]),
    case("half_precision_arith", half_precision_arith,
         [arr(ct.float16, 1), arr(ct.float16, 1), arr(ct.float16, 1), const(B)]),
    case("bf16_arith", half_precision_arith,
         [arr(ct.bfloat16, 1), arr(ct.bfloat16, 1), arr(ct.bfloat16, 1), const(B)]),
    case("f64_arith", f64_arith, [arr(ct.float64, 1)] * 3 + [const(B)]),
    case("float_pow_atan2", float_pow_atan2, [f32, f32, f32, const(B)]),
    case("float_pow_int_exponent", float_pow_int_exponent, [f32, i32, f32, const(B)]),
]
