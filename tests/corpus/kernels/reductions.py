"""Reductions and scans: every built-in combiner, custom and multi-operand combiners."""
from ._common import arr, case, const, ct

RM = ct.RoundingMode


@ct.kernel
def reduce_builtin_float(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    r = ct.sum(t, axis=1) + ct.max(t, axis=1) + ct.min(t, axis=1) + ct.prod(t, axis=1)
    r = r + ct.sum(t, axis=1, rounding_mode=RM.RZ) + ct.max(t, axis=1, propagate_nan=True)
    r = r + ct.min(t, axis=1, flush_to_zero=True)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def reduce_keepdims_and_full(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    centered = t - ct.sum(t, axis=1, keepdims=True) / BN
    total = ct.sum(centered)              # all axes
    ct.store(z, index=(i,), tile=ct.full((BM,), total, dtype=ct.float32) + ct.max(t, axis=0))


@ct.kernel
def reduce_builtin_int(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    r = ct.sum(t, axis=1) + ct.max(t, axis=1) + ct.min(t, axis=1) + ct.prod(t, axis=1)
    ct.store(z, index=(i,), tile=r)


@ct.kernel
def argmax_argmin(x, zi, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    r = ct.argmax(t, axis=1) + ct.argmin(t, axis=1) + ct.argmax(t, axis=1, propagate_nan=True)
    r = r + ct.argmin(t, axis=0)
    ct.store(zi, index=(i,), tile=r.astype(ct.int32))


@ct.kernel
def reduce_custom(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    sum_sq = ct.reduce(t, axis=1, func=lambda a, b: a + b * b, identity=0.0)
    absmax = ct.reduce(t, axis=1, func=lambda a, b: ct.maximum(ct.abs(a), ct.abs(b)),
                       identity=0.0, keepdims=False)
    ct.store(z, index=(i,), tile=sum_sq + absmax)


def _max_with_index(v0, i0, v1, i1):
    take_first = v0 >= v1
    return ct.where(take_first, v0, v1), ct.where(take_first, i0, i1)


@ct.kernel
def reduce_multi_operand(x, zv, zi, BM: ct.Constant[int], BN: ct.Constant[int]):
    # A tuple reduce: one region reducing (value, index) pairs together.
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    idx = ct.broadcast_to(ct.expand_dims(ct.arange(BN, dtype=ct.int32), 0), (BM, BN))
    v, k = ct.reduce((t, idx), axis=1, func=_max_with_index, identity=(-1.0e30, 0))
    ct.store(zv, index=(i,), tile=v)
    ct.store(zi, index=(i,), tile=k)


@ct.kernel
def scan_builtin(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    r = ct.cumsum(t, axis=1) + ct.cumprod(t, axis=1) + ct.cumsum(t, axis=0, reverse=True)
    r = r + ct.cumprod(t, axis=1, reverse=True, rounding_mode=RM.RZ)
    ct.store(z, index=(i, 0), tile=r)


@ct.kernel
def scan_int(x, z, BLOCK: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))
    ct.store(z, index=(ct.bid(0),), tile=ct.cumsum(t) + ct.cumprod(t, axis=0))


@ct.kernel
def scan_custom(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    running_max = ct.scan(t, axis=1, func=lambda a, b: ct.maximum(a, b), identity=-1.0e30)
    rev_min = ct.scan(t, axis=1, func=ct.minimum, identity=1.0e30, reverse=True)
    ct.store(z, index=(i, 0), tile=running_max + rev_min)


def _affine_combine(a0, b0, a1, b1):
    # Composition of x -> a*x + b maps: the classic linear-recurrence scan.
    return a0 * a1, b0 * a1 + b1


@ct.kernel
def scan_multi_operand(a, b, z, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ta = ct.load(a, index=(i,), shape=(BLOCK,))
    tb = ct.load(b, index=(i,), shape=(BLOCK,))
    _, h = ct.scan((ta, tb), axis=0, func=_affine_combine, identity=(1.0, 0.0))
    ct.store(z, index=(i,), tile=h)


f32_2d = arr(ct.float32, 2)
CASES = [
    case("reduce_builtin_float", reduce_builtin_float,
         [f32_2d, arr(ct.float32, 1), const(8), const(64)]),
    case("reduce_keepdims_and_full", reduce_keepdims_and_full,
         [f32_2d, arr(ct.float32, 1), const(16), const(16)]),
    case("reduce_builtin_int", reduce_builtin_int,
         [arr(ct.int32, 2), arr(ct.int32, 1), const(8), const(64)]),
    case("reduce_builtin_f16", reduce_builtin_int,
         [arr(ct.float16, 2), arr(ct.float16, 1), const(8), const(64)]),
    case("argmax_argmin", argmax_argmin, [f32_2d, arr(ct.int32, 1), const(16), const(16)]),
    case("reduce_custom", reduce_custom, [f32_2d, arr(ct.float32, 1), const(8), const(64)]),
    case("reduce_multi_operand", reduce_multi_operand,
         [f32_2d, arr(ct.float32, 1), arr(ct.int32, 1), const(8), const(64)]),
    case("scan_builtin", scan_builtin, [f32_2d, f32_2d, const(8), const(64)]),
    case("scan_int", scan_int, [arr(ct.int32, 1), arr(ct.int32, 1), const(128)]),
    case("scan_custom", scan_custom, [f32_2d, f32_2d, const(8), const(64)]),
    case("scan_multi_operand", scan_multi_operand,
         [arr(ct.float32, 1)] * 3 + [const(128)]),
]
