"""Matrix multiply-accumulate over every input dtype family, matmul, batched and scaled mma."""
from ._common import arr, case, const, ct

P = ct.PaddingMode


@ct.kernel
def tiled_mma(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    # Accumulator dtype follows c (f32 for float inputs, i32 for int8 inputs).
    pm = ct.bid(0)
    pn = ct.bid(1)
    acc = ct.zeros((BM, BN), dtype=c.dtype)
    for kk in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        ta = ct.load(a, index=(pm, kk), shape=(BM, BK), padding_mode=P.ZERO)
        tb = ct.load(b, index=(kk, pn), shape=(BK, BN), padding_mode=P.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(pm, pn), tile=acc)


@ct.kernel
def tf32_mma(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    pm = ct.bid(0)
    pn = ct.bid(1)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        ta = ct.load(a, index=(pm, kk), shape=(BM, BK)).astype(ct.tfloat32)
        tb = ct.load(b, index=(kk, pn), shape=(BK, BN)).astype(ct.tfloat32)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(pm, pn), tile=acc)


@ct.kernel
def fp8_mma_fast_acc(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    pm = ct.bid(0)
    pn = ct.bid(1)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        ta = ct.load(a, index=(pm, kk), shape=(BM, BK))
        tb = ct.load(b, index=(kk, pn), shape=(BK, BN))
        acc = ct.mma(ta, tb, acc, use_fast_acc=True)
    ct.store(c, index=(pm, pn), tile=acc)


@ct.kernel
def matmul_f16_out(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    # ct.matmul and the @ operator (no explicit accumulator); result cast to f16.
    pm = ct.bid(0)
    pn = ct.bid(1)
    ta = ct.load(a, index=(pm, 0), shape=(BM, BK))
    tb = ct.load(b, index=(0, pn), shape=(BK, BN))
    r = ct.matmul(ta, tb) + ta @ tb
    ct.store(c, index=(pm, pn), tile=r.astype(ct.float16))


@ct.kernel
def batched_mma(a, b, c, BB: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
                BK: ct.Constant[int]):
    pb = ct.bid(0)
    ta = ct.load(a, index=(pb, 0, 0), shape=(BB, BM, BK))
    tb = ct.load(b, index=(pb, 0, 0), shape=(BB, BK, BN))
    acc = ct.mma(ta, tb, ct.zeros((BB, BM, BN), dtype=ct.float32))
    ct.store(c, index=(pb, 0, 0), tile=acc)


@ct.kernel
def scaled_mma(a, sa, b, sb, c, BM: ct.Constant[int], BN: ct.Constant[int],
               BK: ct.Constant[int], BS: ct.Constant[int]):
    # Block-scaled mma: fp8 inputs with e8m0 scales, one scale per 32 K-elements.
    pm = ct.bid(0)
    pn = ct.bid(1)
    ta = ct.load(a, index=(pm, 0), shape=(BM, BK))
    tsa = ct.load(sa, index=(pm, 0), shape=(BM, BS))
    tb = ct.load(b, index=(0, pn), shape=(BK, BN))
    tsb = ct.load(sb, index=(0, pn), shape=(BS, BN))
    acc = ct.mma_scaled(ta, tsa, tb, tsb, ct.zeros((BM, BN), dtype=ct.float32))
    ct.store(c, index=(pm, pn), tile=acc)


def _mm(in_dtype, out_dtype, bm=64, bn=64, bk=32):
    return [arr(in_dtype, 2), arr(in_dtype, 2), arr(out_dtype, 2), const(bm), const(bn), const(bk)]


CASES = [
    case("mma_f16_f32acc", tiled_mma, _mm(ct.float16, ct.float32)),
    case("mma_f16_f16acc", tiled_mma, _mm(ct.float16, ct.float16)),
    case("mma_bf16", tiled_mma, _mm(ct.bfloat16, ct.float32)),
    case("mma_f32", tiled_mma, _mm(ct.float32, ct.float32)),
    case("mma_f64", tiled_mma, _mm(ct.float64, ct.float64, 32, 32, 16)),
    case("mma_tf32", tf32_mma, _mm(ct.float32, ct.float32)),
    case("mma_fp8_e4m3", tiled_mma, _mm(ct.float8_e4m3fn, ct.float32, bk=64)),
    case("mma_fp8_e5m2_f16acc", tiled_mma, _mm(ct.float8_e5m2, ct.float16, bk=64)),
    case("mma_fp8_fast_acc", fp8_mma_fast_acc, _mm(ct.float8_e4m3fn, ct.float32, bk=64)),
    case("mma_int8", tiled_mma, _mm(ct.int8, ct.int32, bk=64)),
    case("mma_uint8", tiled_mma, _mm(ct.uint8, ct.int32, bk=64)),
    case("matmul_f16_out", matmul_f16_out, _mm(ct.float16, ct.float16)),
    case("batched_mma", batched_mma,
         [arr(ct.float16, 3), arr(ct.float16, 3), arr(ct.float32, 3), const(2), const(32),
          const(32), const(32)]),
    case("mma_scaled_fp8", scaled_mma,
         [arr(ct.float8_e4m3fn, 2), arr(ct.float8_e8m0fnu, 2), arr(ct.float8_e4m3fn, 2),
          arr(ct.float8_e8m0fnu, 2), arr(ct.float32, 2), const(128), const(128), const(128),
          const(4)], gpu_code="sm_100",
         note="block-scaled mma exists only on Blackwell, so this case targets sm_100"),
]
