"""Transcendental and rounding math functions (one kernel per group, f32 unless noted)."""
from ._common import arr, case, const, ct

B = 128


@ct.kernel
def exp_log_family(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = ct.exp(a) + ct.exp2(a) + ct.log(a) + ct.log2(a)
    r = r + ct.exp2(a, flush_to_zero=True)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def sqrt_family(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = ct.sqrt(a) + ct.rsqrt(a) + ct.sqrt(a, rounding_mode=ct.RoundingMode.APPROX)
    r = r + ct.sqrt(a, rounding_mode=ct.RoundingMode.RZ, flush_to_zero=True)
    r = r + ct.rsqrt(a, flush_to_zero=True)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def trig_family(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = ct.sin(a) + ct.cos(a) + ct.tan(a)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def hyperbolic_family(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = ct.sinh(a) + ct.cosh(a) + ct.tanh(a)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def approx_exp_tanh(x, z, BLOCK: ct.Constant[int]):
    # Version-gated modes: tanh approx needs 13.2, exp approx needs 13.3.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = ct.exp(a, rounding_mode=ct.RoundingMode.APPROX)
    r = r + ct.tanh(a, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def rounding_family(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    r = ct.floor(a) + ct.ceil(a) + ct.abs(a) + ct.negative(a) + a % 3.0
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def int_abs_neg(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=ct.abs(a) + ct.negative(a))


@ct.kernel
def softplus_f16(x, z, BLOCK: ct.Constant[int]):
    # Half-precision input goes through the f32 math path and back.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,)).astype(ct.float32)
    r = ct.log(1.0 + ct.exp(a))
    ct.store(z, index=(i,), tile=r.astype(z.dtype))


f32 = arr(ct.float32, 1)
CASES = [
    case("exp_log_family", exp_log_family, [f32, f32, const(B)]),
    case("sqrt_family", sqrt_family, [f32, f32, const(B)]),
    case("trig_family", trig_family, [f32, f32, const(B)]),
    case("hyperbolic_family", hyperbolic_family, [f32, f32, const(B)]),
    case("approx_exp_tanh", approx_exp_tanh, [f32, f32, const(B)]),
    case("rounding_family", rounding_family, [f32, f32, const(B)]),
    case("int_abs_neg", int_abs_neg, [arr(ct.int32, 1), arr(ct.int32, 1), const(B)]),
    case("softplus_f16", softplus_f16, [arr(ct.float16, 1), arr(ct.float16, 1), const(B)]),
]
