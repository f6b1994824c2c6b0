"""Large kernels (hundreds to thousands of ops) for decoder benchmarks."""
from ._common import arr, case, const, ct, scalar

P = ct.PaddingMode


@ct.kernel
def unrolled_polynomial_chain(x, z, BLOCK: ct.Constant[int], TERMS: ct.Constant[int]):
    # Compile-time unrolled: each term adds a handful of ops.
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(BLOCK,), padding_mode=P.ZERO)
    acc = ct.zeros((BLOCK,), dtype=ct.float32)
    for k in ct.static_iter(range(TERMS)):
        term = ct.sin(t * (k + 1)) * ct.exp2(-t * 0.5) + ct.sqrt(ct.abs(t) + k)
        acc = ct.where(acc > term, acc - term, acc + term * (1.0 / (k + 1)))
    ct.store(z, index=(i,), tile=acc)


@ct.kernel
def flash_attention_fwd(q, k, v, o, qk_scale, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    # Online-softmax attention: mma, reductions, exp2, loop-carried state, masking.
    bh = ct.bid(1)
    pm = ct.bid(0)
    tq = ct.load(q, index=(bh, pm, 0), shape=(1, BM, D), padding_mode=P.ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n_tiles = ct.num_tiles(k, axis=1, shape=(1, BN, D))
    rows = ct.expand_dims(ct.arange(BM, dtype=ct.int32) + pm * BM, 1)
    for j in range(n_tiles):
        tk = ct.load(k, index=(bh, j, 0), shape=(1, BN, D), padding_mode=P.ZERO).reshape((BN, D))
        tv = ct.load(v, index=(bh, j, 0), shape=(1, BN, D), padding_mode=P.ZERO).reshape((BN, D))
        s = ct.mma(tq, ct.transpose(tk), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        cols = ct.expand_dims(ct.arange(BN, dtype=ct.int32) + j * BN, 0)
        s = ct.where(cols <= rows, s, -1.0e30)             # causal mask
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(tv.dtype), tv, acc * alpha)
        m_i = m_new
    out = (acc / l_i).astype(o.dtype)
    ct.store(o, index=(bh, pm, 0), tile=out.reshape((1, BM, D)))


@ct.kernel
def layernorm_gelu_residual(x, w, b, res, out, N_COLS: ct.Constant[int], CHUNKS: ct.Constant[int]):
    # Row-wise layernorm over statically unrolled column chunks, GELU, residual add.
    r = ct.bid(0)
    W = N_COLS // CHUNKS
    total = ct.zeros((1, 1), dtype=ct.float32)
    total_sq = ct.zeros((1, 1), dtype=ct.float32)
    for c in ct.static_iter(range(CHUNKS)):
        t = ct.load(x, index=(r, c), shape=(1, W), padding_mode=P.ZERO).astype(ct.float32)
        total = total + ct.sum(t, axis=1, keepdims=True)
        total_sq = total_sq + ct.sum(t * t, axis=1, keepdims=True)
    mean = total / N_COLS
    rstd = ct.rsqrt(total_sq / N_COLS - mean * mean + 1e-5)
    for c in ct.static_iter(range(CHUNKS)):
        t = ct.load(x, index=(r, c), shape=(1, W), padding_mode=P.ZERO).astype(ct.float32)
        g = ct.load(w, index=(c,), shape=(W,)).astype(ct.float32).reshape((1, W))
        bb = ct.load(b, index=(c,), shape=(W,)).astype(ct.float32).reshape((1, W))
        y = (t - mean) * rstd * g + bb
        y = 0.5 * y * (1.0 + ct.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))
        skip = ct.load(res, index=(r, c), shape=(1, W)).astype(ct.float32)
        ct.store(out, index=(r, c), tile=(y + skip).astype(out.dtype))


@ct.kernel
def unrolled_matmul_epilogue(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int],
                             BK: ct.Constant[int], KSTEPS: ct.Constant[int]):
    # Fully unrolled K loop plus a per-column epilogue: many loads, mmas and elementwise ops.
    pm = ct.bid(0)
    pn = ct.bid(1)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for kk in ct.static_iter(range(KSTEPS)):
        ta = ct.load(a, index=(pm, kk), shape=(BM, BK), padding_mode=P.ZERO, latency=2)
        tb = ct.load(b, index=(kk, pn), shape=(BK, BN), padding_mode=P.ZERO, latency=2)
        acc = ct.mma(ta, tb, acc)
    bias_row = ct.load(bias, index=(pn,), shape=(BN,)).astype(ct.float32).reshape((1, BN))
    y = acc + bias_row
    y = ct.where(y > 0.0, y, 0.01 * y)
    y = ct.minimum(ct.maximum(y, -6.0), 6.0)
    ct.store(c, index=(pm, pn), tile=y.astype(c.dtype))


CASES = [
    case("large_unrolled_polynomial", unrolled_polynomial_chain,
         [arr(ct.float32, 1), arr(ct.float32, 1), const(128), const(48)]),
    case("large_flash_attention", flash_attention_fwd,
         [arr(ct.float16, 3), arr(ct.float16, 3), arr(ct.float16, 3), arr(ct.float16, 3),
          scalar(ct.float32), const(64), const(64), const(64)]),
    case("large_layernorm_gelu", layernorm_gelu_residual,
         [arr(ct.bfloat16, 2), arr(ct.bfloat16, 1), arr(ct.bfloat16, 1), arr(ct.bfloat16, 2),
          arr(ct.bfloat16, 2), const(4096), const(16)]),
    case("large_unrolled_matmul", unrolled_matmul_epilogue,
         [arr(ct.float16, 2), arr(ct.float16, 2), arr(ct.float16, 1), arr(ct.float16, 2),
          const(64), const(64), const(32), const(32)]),
]
