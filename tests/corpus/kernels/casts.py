"""Casts: int<->float, widening/narrowing, bitcast, fp8, packing, rounding-mode casts."""
from ._common import arr, case, const, ct

B = 128


@ct.kernel
def float_int_casts(x, zi, zu, zf, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    as_int = a.astype(ct.int32)            # ftoi signed
    as_uint = a.astype(ct.uint32)          # ftoi unsigned
    back = as_int.astype(ct.float32) + as_uint.astype(ct.float32)   # itof signed + unsigned
    ct.store(zi, index=(i,), tile=as_int)
    ct.store(zu, index=(i,), tile=as_uint)
    ct.store(zf, index=(i,), tile=back)


@ct.kernel
def int_widen_narrow(x, u, z64, z8, zu16, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))   # int32
    b = ct.load(u, index=(i,), shape=(BLOCK,))   # uint8
    wide = a.astype(ct.int64) + b.astype(ct.int64)          # exti signed and unsigned
    ct.store(z64, index=(i,), tile=wide)
    ct.store(z8, index=(i,), tile=a.astype(ct.int8))        # trunci
    ct.store(zu16, index=(i,), tile=b.astype(ct.uint16) + 1)


@ct.kernel
def float_widen_narrow(x, z16, zbf, z64, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.store(z16, index=(i,), tile=a.astype(ct.float16))
    ct.store(zbf, index=(i,), tile=a.astype(ct.bfloat16))
    ct.store(z64, index=(i,), tile=a.astype(ct.float64) * 2.0)


@ct.kernel
def fp8_casts(x, z4, z5, zf, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    e4 = a.astype(ct.float8_e4m3fn)
    e5 = a.astype(ct.float8_e5m2)
    ct.store(z4, index=(i,), tile=e4)
    ct.store(z5, index=(i,), tile=e5)
    ct.store(zf, index=(i,), tile=e4.astype(ct.float32) + e5.astype(ct.float32))


@ct.kernel
def bitcasts(x, zi, zf, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    bits = ct.bitcast(a, ct.int32)
    ct.store(zi, index=(i,), tile=bits & 0x7FFFFFFF)
    ct.store(zf, index=(i,), tile=ct.bitcast(bits ^ 1, ct.float32))


@ct.kernel
def bool_casts(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    positive = a > 0.0
    ct.store(z, index=(i,), tile=positive.astype(ct.int32) + positive.astype(ct.float32).astype(ct.int32))


@ct.kernel
def pack_unpack_bytes(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    raw = ct.pack_to_bytes(a)
    ct.store(z, index=(i,), tile=ct.unpack_from_bytes(raw, ct.float32) + 1.0)


@ct.kernel
def float_cast_rounding(x, z16, zbf, BLOCK: ct.Constant[int]):
    # Explicit rounding modes on float narrowing (only float->float accepts them); needs 13.4.
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.store(z16, index=(i,), tile=a.astype(ct.float16, rounding_mode=ct.RoundingMode.RZ))
    ct.store(zbf, index=(i,), tile=ct.astype(a, ct.bfloat16, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def float_to_small_int(x, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(BLOCK,))
    ct.store(z, index=(i,), tile=ct.astype(a, ct.int16).astype(ct.int32) + a.astype(ct.uint8).astype(ct.int32))


f32 = arr(ct.float32, 1)
CASES = [
    case("float_int_casts", float_int_casts,
         [f32, arr(ct.int32, 1), arr(ct.uint32, 1), f32, const(B)]),
    case("int_widen_narrow", int_widen_narrow,
         [arr(ct.int32, 1), arr(ct.uint8, 1), arr(ct.int64, 1), arr(ct.int8, 1),
          arr(ct.uint16, 1), const(B)]),
    case("float_widen_narrow", float_widen_narrow,
         [f32, arr(ct.float16, 1), arr(ct.bfloat16, 1), arr(ct.float64, 1), const(B)]),
    case("fp8_casts", fp8_casts,
         [f32, arr(ct.float8_e4m3fn, 1), arr(ct.float8_e5m2, 1), f32, const(B)]),
    case("bitcasts", bitcasts, [f32, arr(ct.int32, 1), f32, const(B)]),
    case("bool_casts", bool_casts, [f32, arr(ct.int32, 1), const(B)]),
    case("pack_unpack_bytes", pack_unpack_bytes, [f32, f32, const(B)]),
    case("float_cast_rounding", float_cast_rounding,
         [f32, arr(ct.float16, 1), arr(ct.bfloat16, 1), const(B)]),
    case("float_to_small_int", float_to_small_int, [f32, arr(ct.int32, 1), const(B)]),
]
