"""The Rust ports as functions on torch tensors: fill descriptors, pass the current stream, raise on error.

Nothing here allocates: outputs are arguments, as in the C ABI. Tensors are read duck-typed
(`data_ptr()`, `shape`, `stride()`, `dtype`, `device`), so torch itself is imported only to
ask for the current CUDA stream of a CUDA tensor.
"""
from __future__ import annotations

import ctypes
import struct
import threading
from typing import Any, Optional

from tileir_diff.launch.abi import host_dtype_name
from tileir_diff.launch.stream import cuda_device_of, current_stream, stream_handle
from tileir_diff.ports._abi import (
    DTYPE_CODES, MAX_RANK, Status, TileirTensor, UnsupportedDtypeError, check, descriptor, load_library,
)

__all__ = ["vector_add", "softmax", "rms_norm", "rms_norm_bwd", "matmul", "matmul_fp8", "silu_and_mul", "swiglu",
           "swiglu_bwd", "gelu", "dropout", "RMS_NORM_BWD_ROWS_PER_BLOCK", "argmax",
           "cross_entropy", "cumsum", "embedding", "transpose", "fp8_quantize", "layer_norm", "layer_norm_bwd",
           "LAYER_NORM_BWD_ROWS_PER_BLOCK", "rope", "flash_attention", "attention_sink", "bmm", "splitk_matmul",
           "group_gemm", "fused_moe", "flash_decode", "moe_align_block_size", "moe_align_block_size_tiled"]

# dw_partial of rms_norm_bwd has ceil(M / RMS_NORM_BWD_ROWS_PER_BLOCK) rows.
RMS_NORM_BWD_ROWS_PER_BLOCK = 64


_dtype_codes: dict = {}  # dtype object -> TILEIR_DTYPE code, filled from DTYPE_CODES by name


def _dtype_code(dtype: Any) -> int:
    try:
        return _dtype_codes[dtype]
    except (KeyError, TypeError):  # TypeError: an unhashable stand-in dtype
        pass
    name = host_dtype_name(dtype)
    if name not in DTYPE_CODES:
        raise UnsupportedDtypeError(f"UNSUPPORTED_DTYPE: {name} has no TILEIR_DTYPE code", Status.UNSUPPORTED_DTYPE)
    code = DTYPE_CODES[name]
    try:
        _dtype_codes[dtype] = code
    except TypeError:
        pass
    return code


class OutOfRangeError(ValueError):
    """An argument that does not fit its C type (a tensor's address, extent or stride outside 64
    bits, an integer scalar outside int32): refused, where ctypes would wrap it silently."""


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1


def _desc(t: Any) -> TileirTensor:
    """The descriptor of tensor `t`, as descriptor() builds it, in one constructor call. Rank > 5
    keeps the true ndim (the library rejects it); the dims past 5 are dropped. A value outside
    its field (uint64 address, int64 extents and strides) is an OutOfRangeError: ctypes would
    store it modulo 2^64, a different tensor than the caller described."""
    data, shape, strides = int(t.data_ptr()), tuple(t.shape), tuple(t.stride())
    if not 0 <= data <= (1 << 64) - 1:
        raise OutOfRangeError(f"tensor data_ptr {data:#x} does not fit 64 bits")
    for what, values in (("shape", shape), ("strides", strides)):
        for v in values[:MAX_RANK]:
            if not _I64_MIN <= int(v) <= _I64_MAX:
                raise OutOfRangeError(f"tensor {what} {values}: {v} does not fit int64")
    return descriptor(data, shape, strides, _dtype_code(t.dtype))


def _check_scalars(fn_name: str, scalars) -> None:
    """Integer scalars are int32 in the C ABI (flags, sizes, seeds): refuse what ctypes would wrap."""
    for k, v in enumerate(scalars):
        if isinstance(v, int) and not _I32_MIN <= v <= _I32_MAX:
            raise OutOfRangeError(f"{fn_name}: integer argument {k + 1} ({v}) does not fit int32")


def _record_streams(tensors, stream: Any, device: int) -> None:
    """Tell torch's caching allocator that the tensors are in use on the caller's ``stream``: the
    port runs there, not on torch's current stream, and a tensor freed on the current stream
    must not be handed out again before the kernel is done with it (``Tensor.record_stream``).
    Tensors without ``record_stream`` (duck-typed stand-ins) and non-CUDA tensors are skipped;
    a raw handle is wrapped as a ``torch.cuda.ExternalStream``."""
    cuda = [t for t in tensors if getattr(getattr(t, "device", None), "type", None) == "cuda"
            and hasattr(t, "record_stream")]
    if not cuda:
        return
    target = stream
    if isinstance(stream, int):
        import torch
        target = torch.cuda.ExternalStream(stream, device=torch.device("cuda", device))
    for t in cuda:
        t.record_stream(target)


# The hot path writes the descriptors with one struct.pack_into each into a per-thread array of
# TileirTensor and passes pointers made once: building ctypes objects per call cost ~3 µs a tensor.
# The library copies each descriptor before it returns (descriptor.rs `read`), so reusing the
# slots across calls is safe. A call made while the slots are in use on the same thread (a tensor
# subclass whose `shape` or `data_ptr` hook calls a port) builds its own descriptors instead.
# One layout per rank n <= 5: data, the n shape entries, zero padding to 5, the n strides, zero
# padding, ndim, dtype code (pad bytes are written as zeros, so a slot keeps nothing of its last use).
_LAYOUTS = tuple(struct.Struct(f"<Q{n}q{8 * (MAX_RANK - n)}x{n}q{8 * (MAX_RANK - n)}xii") for n in range(MAX_RANK + 1))
_SIZE = ctypes.sizeof(TileirTensor)
assert all(layout.size == _SIZE for layout in _LAYOUTS)
_SLOTS = 8


class _Slots(threading.local):
    def __init__(self):
        self.busy = False  # from the first descriptor written until the C call returns
        self.array = (TileirTensor * _SLOTS)()
        self.pointers = [ctypes.pointer(self.array[i]) for i in range(_SLOTS)]


_slots = _Slots()


def _descriptor_pointers(tensors) -> list:
    """Pointers to descriptors of `tensors`, valid until this thread's next call."""
    if len(tensors) > _SLOTS:
        return [ctypes.byref(_desc(t)) for t in tensors]
    slots = _slots
    array = slots.array
    offset = 0
    for t in tensors:
        shape, strides = t.shape, t.stride()
        n = len(shape)
        if n > MAX_RANK or n != len(strides):
            array[offset // _SIZE] = _desc(t)  # rank > 5 (kept for the library to reject) or a bad tensor
        else:
            try:
                _LAYOUTS[n].pack_into(array, offset, t.data_ptr(), *shape, *strides, n, _dtype_code(t.dtype))
            except struct.error:  # a value outside its field's range: ctypes' conversion decides, as before
                array[offset // _SIZE] = _desc(t)
        offset += _SIZE
    return slots.pointers[:len(tensors)]


def _device_and_stream(tensors, stream) -> tuple[int, int]:
    """Device of the first CUDA tensor and the stream to launch on (launch/stream.py: `stream`
    when given, else torch's current stream on that device). With no CUDA tensor: device 0,
    stream `stream` or 0, and the library rejects the host memory."""
    device = cuda_device_of(tensors)
    if stream is not None:
        return (0 if device is None else device), stream_handle(stream, 0)
    if device is None:
        return 0, 0
    return device, int(current_stream()(device))  # stream_handle(None, device), one call less per launch


def _call(fn_name: str, tensors, *scalars, stream=None, library=None) -> None:
    _check_scalars(fn_name, scalars)
    lib = load_library(library)
    slots = _slots
    if slots.busy:  # re-entered while this thread's slots are being filled or read
        descs = [ctypes.byref(_desc(t)) for t in tensors]
        device, handle = _device_and_stream(tensors, stream)
        code = getattr(lib, fn_name)(*descs, *scalars, device, handle)
    else:
        slots.busy = True
        try:
            descs = _descriptor_pointers(tensors)
            device, handle = _device_and_stream(tensors, stream)
            code = getattr(lib, fn_name)(*descs, *scalars, device, handle)
        finally:
            slots.busy = False
    if code:
        check(lib, code)
    if stream is not None:
        _record_streams(tensors, stream, device)


def vector_add(x, y, out, *, stream: Optional[Any] = None, library=None):
    """out = x + y (1-D, one dtype: float16, bfloat16, float32; float32 also strided). Returns out."""
    _call("cutile_vector_add", (x, y, out), stream=stream, library=library)
    return out


def softmax(x, out, *, stream: Optional[Any] = None, library=None):
    """out = softmax(x, dim=-1) for 2-D x (row stride free, columns contiguous). Returns out."""
    _call("cutile_softmax", (x, out), stream=stream, library=library)
    return out


def rms_norm(x, w, out, rstd, eps: float = 1e-6, *, stream: Optional[Any] = None, library=None):
    """out = x * rsqrt(mean(x^2, -1) + eps) * w for 2-D x; rstd (M,) float32 receives the rsqrt.
    Returns (out, rstd)."""
    _call("cutile_rms_norm", (x, w, out, rstd), float(eps), stream=stream, library=library)
    return out, rstd


def rms_norm_bwd(dy, x, w, rstd, dx, dw_partial, *, stream: Optional[Any] = None, library=None):
    """Backward of rms_norm: dx (M, N) and dw_partial (ceil(M / 64), N) float32, whose column
    sums are dL/dw (dw = dw_partial.sum(0)). rstd is the forward's. Returns (dx, dw_partial)."""
    _call("cutile_rms_norm_bwd", (dy, x, w, rstd, dx, dw_partial), stream=stream, library=library)
    return dx, dw_partial


def matmul_fp8(a, b, c, scale_a: float, scale_b: float, *, trans_a: bool = False, trans_b: bool = True,
               stream: Optional[Any] = None, library=None):
    """c = (scale_a * scale_b) * (op(a) @ op(b)) for float8_e4m3fn a, b and a float16/bfloat16 c;
    b is stored (N, K) (trans_b=True), as torch._scaled_mm takes it. Returns c."""
    _call("cutile_matmul_fp8", (a, b, c), float(scale_a), float(scale_b), int(bool(trans_a)), int(bool(trans_b)),
          stream=stream, library=library)
    return c


def matmul(a, b, c, *, trans_a: bool = False, trans_b: bool = False, stream: Optional[Any] = None, library=None):
    """c = op(a) @ op(b) with op = transpose when the flag is set; a and b are the stored arrays
    (a is (K, M) with trans_a, b is (N, K) with trans_b), row-major. Returns c."""
    _call("cutile_matmul", (a, b, c), int(bool(trans_a)), int(bool(trans_b)), stream=stream, library=library)
    return c


def silu_and_mul(x, out, *, stream: Optional[Any] = None, library=None):
    """out = silu(x[:, :H]) * x[:, H:] for x (M, 2H), or x as its (M, 2, H) view; out (M, H).
    Returns out."""
    _call("cutile_silu_and_mul", (x, out), stream=stream, library=library)
    return out


def swiglu(a, b, c, *, stream: Optional[Any] = None, library=None):
    """c = silu(a) * b for 2-D a, b, c of one shape and dtype (row stride free, columns
    contiguous); c may be a or b. Returns c."""
    _call("cutile_swiglu", (a, b, c), stream=stream, library=library)
    return c


def swiglu_bwd(dc, a, b, da, db, *, stream: Optional[Any] = None, library=None):
    """Backward of swiglu for dc = dL/dc: da = dc * b * silu'(a), db = dc * silu(a).
    Returns (da, db)."""
    _call("cutile_swiglu_bwd", (dc, a, b, da, db), stream=stream, library=library)
    return da, db


_GELU_FORMS = {"none": 0, "tanh": 1, False: 0, True: 1}


def gelu(x, out, approximate="none", *, stream: Optional[Any] = None, library=None):
    """out = gelu(x) for 2-D x (row stride free, columns contiguous); `approximate` as in
    torch.nn.functional.gelu: "none" (erf) or "tanh" (also False / True). out may be x.
    Returns out."""
    try:
        form = _GELU_FORMS[approximate]
    except (KeyError, TypeError):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}") from None
    _call("cutile_gelu", (x, out), form, stream=stream, library=library)
    return out


def dropout(x, out, seed: int, p: float, *, stream: Optional[Any] = None, library=None):
    """out[i] = x[i] / (1 - p) if uniform(seed, i) >= p else 0 for 1-D x (a stateless hash of
    (i, seed): the same seed gives the same mask); p in [0, 1]. Only the low 32 bits of `seed`
    count. out may be x. Returns out."""
    bits = int(seed) & 0xFFFFFFFF
    _call("cutile_dropout", (x, out), bits - (1 << 32) if bits >= 1 << 31 else bits, float(p), stream=stream,
          library=library)
    return out


def argmax(x, out, *, stream: Optional[Any] = None, library=None):
    """out = x.argmax(dim=-1) for 2-D x (float16, bfloat16, float32; row stride free, columns
    contiguous) into out (M,) int64; ties give the first index. Returns out."""
    _call("cutile_argmax", (x, out), stream=stream, library=library)
    return out


def cross_entropy(logits, target, loss, lse, *, stream: Optional[Any] = None, library=None):
    """Per-row cross-entropy of 2-D logits (float16, bfloat16, float32) against int64 targets:
    loss (M,) float32 = logsumexp - the target logit (0 where target == -100), lse (M,) float32
    the logsumexp. Returns (loss, lse)."""
    _call("cutile_cross_entropy", (logits, target, loss, lse), stream=stream, library=library)
    return loss, lse


def cumsum(x, out, *, stream: Optional[Any] = None, library=None):
    """out = torch.cumsum(x, dim=-1) for 2-D x (float16, bfloat16, float32; row stride free,
    columns contiguous), accumulated in float32. Returns out."""
    _call("cutile_cumsum", (x, out), stream=stream, library=library)
    return out


def embedding(ids, weight, out, *, stream: Optional[Any] = None, library=None):
    """out = torch.nn.functional.embedding(ids, weight): ids (T,) int32/int64 in [0, V) (not
    checked), weight (V, H), out (T, H) of one dtype (float16, bfloat16, float32). Returns out."""
    _call("cutile_embedding", (ids, weight, out), stream=stream, library=library)
    return out
def transpose(x, y, *, stream: Optional[Any] = None, library=None):
    """y = x.T for 2-D x (f16, bf16, f32; y is (N, M)), or the last two axes of 3-D bf16 x swapped
    (y is (B, N, M)). Unit last strides; y must not overlap x. Returns y."""
    _call("cutile_transpose", (x, y), stream=stream, library=library)
    return y


def fp8_quantize(x, q, scales, *, stream: Optional[Any] = None, library=None):
    """Per-row fp8 e4m3 quantization of 2-D x (f16 with N <= 1024, or bf16): scales (M,) float32 =
    max(row absmax, 1e-12) / 448, q (M, N) float8_e4m3fn = clamp(x / scale, -448, 448). Outputs must
    not overlap x. Returns (q, scales)."""
    _call("cutile_fp8_quantize", (x, q, scales), stream=stream, library=library)
    return q, scales


# dw_partial and db_partial of layer_norm_bwd have ceil(M / LAYER_NORM_BWD_ROWS_PER_BLOCK) rows.
LAYER_NORM_BWD_ROWS_PER_BLOCK = 64


def layer_norm(x, w, b, out, mean, rstd, eps: float = 1e-5, *, stream: Optional[Any] = None, library=None):
    """out = layer_norm(x) * w + b over the last axis of 2-D x (N <= 8192); mean and rstd (M,) float32
    are written for the backward. out may be x. Returns out."""
    _call("cutile_layer_norm", (x, w, b, out, mean, rstd), float(eps), stream=stream, library=library)
    return out


def layer_norm_bwd(dy, x, w, mean, rstd, dx, dw_partial, db_partial, *, stream: Optional[Any] = None, library=None):
    """Backward of layer_norm (N <= 1024): dx, and per-block partial sums dw_partial, db_partial of shape
    (ceil(M / 64), N) float32 (dw = dw_partial.sum(0), db = db_partial.sum(0)). Returns dx."""
    _call("cutile_layer_norm_bwd", (dy, x, w, mean, rstd, dx, dw_partial, db_partial), stream=stream,
          library=library)
    return dx




def rope(positions, q, k, cos_table, sin_table, q_out, k_out, is_neox: bool = True, *,
         stream: Optional[Any] = None, library=None):
    """Rotary embedding of q (T, Hq, D) and k (T, Hkv, D) into q_out and k_out by the rows
    positions[t] (int32, each in [0, P)) of the float32 (P, D/2) cos/sin tables; is_neox: rotate-half
    pairs, else interleaved (GPT-J). q_out may be q, k_out may be k. Returns (q_out, k_out)."""
    _call("cutile_rope", (positions, q, k, cos_table, sin_table, q_out, k_out), int(bool(is_neox)), stream=stream,
          library=library)
    return q_out, k_out


def flash_attention(q, k, v, o, sm_scale: float, causal: bool = False, *, stream: Optional[Any] = None, library=None):
    """o = softmax(q @ k^T * sm_scale [causal, top-left]) @ v per head, GQA by Hq / Hkv: q, o
    (B, Hq, Sq, D), k, v (B, Hkv, Sk, D), float16 or bfloat16 (a (B, S, H, D) buffer's
    transpose(1, 2) is taken as it is). o overlaps no input. Returns o."""
    _call("cutile_flash_attention", (q, k, v, o), float(sm_scale), int(bool(causal)), stream=stream, library=library)
    return o


def attention_sink(q, k, v, sinks, o, sm_scale: float, window: int = 0, *, stream: Optional[Any] = None,
                   library=None):
    """Causal attention with one sink logit per query head (sinks (Hq,) float32, a key of value
    zero) and, for window > 0, a sliding window (query i sees keys i - window < j <= i): q, o
    (B, Hq, S, D), k, v (B, Hkv, S, D). Returns o."""
    _call("cutile_attention_sink", (q, k, v, sinks, o), float(sm_scale), int(window), stream=stream, library=library)
    return o
def bmm(a, b, c, *, trans_b: bool = False, stream: Optional[Any] = None, library=None):
    """c[z] = a[z] @ op(b[z]) for 3-D a (B, M, K) and c (B, M, N); b is the stored array, (B, K, N),
    or (B, N, K) with trans_b (e.g. Q @ K^T). Returns c."""
    _call("cutile_bmm", (a, b, c), int(bool(trans_b)), stream=stream, library=library)
    return c


def splitk_matmul(a, b, partial, c, *, stream: Optional[Any] = None, library=None):
    """c = a @ b for a (M, K), b (K, N), c (M, N) float16/bfloat16 through S = partial.shape[0]
    float32 slabs: partial (S, M, N) is the caller's scratch, written with the K slices' products
    and then summed into c, both launches on the stream (S: about one wave of 64x128 partial
    tiles, reference/splitk_matmul/kernel.py's splits_for). Returns c."""
    _call("cutile_splitk_matmul", (a, b, partial, c), stream=stream, library=library)
    return c


def group_gemm(a, w, offsets, c, trans_w: bool = False, *, stream: Optional[Any] = None, library=None):
    """c[o[g]:o[g+1]] = a[o[g]:o[g+1]] @ op(w[g]): a (T, K), w (G, K, N), or (G, N, K) with trans_w
    (nn.Linear layout), c (T, N) of one dtype (bfloat16; float16 with trans_w); offsets (G + 1,)
    int32 on the device, rising from 0 to at most T: not checked, and the kernels the library
    selects trust them (out-of-range offsets read and write outside a and c). Returns c."""
    _call("cutile_group_gemm", (a, w, offsets, c), int(bool(trans_w)), stream=stream, library=library)
    return c


def fused_moe(hidden, w, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights, out,
              mul_routed_weight: bool = True, block_m: int = 64, *, stream: Optional[Any] = None, library=None):
    """out[id] = hidden[id // TOPK] @ w[e].T (* topk_weights[id] when mul_routed_weight) on the
    moe_align_block_size layout aligned to block_m: hidden (T, K), w (E, N, K), out (T * TOPK, N);
    sorted_token_ids (EM,), expert_ids (cdiv(EM, block_m),), num_tokens_post_padded (1,) int32,
    topk_weights (T * TOPK,) float32. Returns out."""
    _call("cutile_fused_moe", (hidden, w, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights, out),
          int(bool(mul_routed_weight)), int(block_m), stream=stream, library=library)
    return out
def flash_decode(q, k, v, seq_lens, partial_o, partial_lse, o, sm_scale: float, *, stream: Optional[Any] = None,
                 library=None):
    """Decode attention o (B, Hq, D) of q (B, Hq, D) over the first seq_lens[b] (int32, each in [1, Smax]) keys
    of k, v (B, Hkv, Smax, D), Hq a multiple of Hkv (GQA), scaled by sm_scale: the split-KV partial kernel writes
    the caller's float32 scratch partial_o (B, Hq, S, D) and partial_lse (B, Hq, S) (base-2 log-sum-exps,
    1 <= S <= 16 splits), then the combine kernel merges them into o; both on one stream, in order. Returns o."""
    _call("cutile_flash_decode", (q, k, v, seq_lens, partial_o, partial_lse, o), float(sm_scale), stream=stream,
          library=library)
    return o


def moe_align_block_size(topk_ids, expert_counts, expert_offsets, expert_ids, num_tokens_post_padded,
                         sorted_token_ids, block_m: int, *, stream: Optional[Any] = None, library=None):
    """vLLM's moe_align_block_size on int32 arrays: from the flat top-k expert ids topk_ids (N,), each in
    [0, E), the histogram kernel writes expert_counts (E,), expert_offsets (E + 1,), expert_ids (NB,) and
    num_tokens_post_padded (1,), then the sort kernel sorted_token_ids (EM,) (segments padded to block_m with
    the sentinel N); EM >= N + E * (block_m - 1), NB >= ceil(that / block_m). Both are single-block kernels:
    moe_align_block_size_tiled is the fast path. Returns sorted_token_ids."""
    _call("cutile_moe_align_block_size",
          (topk_ids, expert_counts, expert_offsets, expert_ids, num_tokens_post_padded, sorted_token_ids),
          int(block_m), stream=stream, library=library)
    return sorted_token_ids


def moe_align_block_size_tiled(topk_ids, expert_counts, expert_offsets, expert_ids, num_tokens_post_padded,
                               sorted_token_ids, tile_counts, block_m: int, *, stream: Optional[Any] = None,
                               library=None):
    """moe_align_block_size's outputs by the parallel pair (one block per 256 ids): the count kernel writes
    each tile's per-expert counts into tile_counts, an int32 contiguous scratch of (ceil(N / 256), E) (or
    more rows; or 1-D of at least ceil(N / 256) * E elements), then the place kernel every output. Returns
    sorted_token_ids."""
    _call("cutile_moe_align_block_size_tiled",
          (topk_ids, expert_counts, expert_offsets, expert_ids, num_tokens_post_padded, sorted_token_ids,
           tile_counts), int(block_m), stream=stream, library=library)
    return sorted_token_ids
