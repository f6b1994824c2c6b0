"""Torch semantics of reference/matmul: c = op(a) @ op(b) (op = transpose when TRANS_ is set)."""
import math

import torch

# Extra columns for non-contiguous views: 64 elements keeps every row stride a
# multiple of 16 bytes for all dtypes here, which the export signature assumes.
_NONCONTIG_PAD = 64


def _alloc(rows, cols, dtype, device, noncontiguous):
    """A (rows, cols) tensor; a column slice of a wider buffer when noncontiguous."""
    if noncontiguous:
        return torch.empty(rows, cols + _NONCONTIG_PAD, dtype=dtype, device=device)[:, :cols]
    return torch.empty(rows, cols, dtype=dtype, device=device)


def _random(rows, cols, dtype, device, gen, scale, noncontiguous):
    t = _alloc(rows, cols, dtype, device, noncontiguous)
    t.copy_((torch.randn(rows, cols, generator=gen, device=device) * scale).to(dtype))
    return t


def _op(x, transposed):
    return x.t() if transposed else x


def make_inputs(variant, shape, *, seed, device):
    M, N, K = shape["M"], shape["N"], shape["K"]
    nc = set(shape.get("noncontiguous", ()))
    ta, tb = variant["constants"]["TRANS_A"], variant["constants"]["TRANS_B"]
    in_dt = getattr(torch, variant["dtypes"]["a"])
    out_dt = getattr(torch, variant["dtypes"]["c"])
    gen = torch.Generator(device=device).manual_seed(seed)
    fp8 = variant["kernel"].startswith("matmul_fp8")
    # Scale so every |c| is O(1) regardless of K; e4m3 keeps unit-normal values as is.
    s = 1.0 if fp8 else K ** -0.25
    a_shape = (K, M) if ta else (M, K)
    b_shape = (N, K) if tb else (K, N)
    inputs = {"a": _random(*a_shape, in_dt, device, gen, s, "a" in nc),
              "b": _random(*b_shape, in_dt, device, gen, s, "b" in nc)}
    # Poison: NaN everywhere, so any output element the kernel does not write fails.
    inputs["c"] = _alloc(M, N, out_dt, device, "c" in nc).fill_(float("nan"))
    if fp8:
        inputs["scale_a"] = 0.5
        inputs["scale_b"] = 2.0 / math.sqrt(K)
    return inputs


def reference(variant, inputs):
    ta, tb = variant["constants"]["TRANS_A"], variant["constants"]["TRANS_B"]
    a = _op(inputs["a"], ta).to(torch.float64)
    b = _op(inputs["b"], tb).to(torch.float64)
    c = a @ b
    if variant["kernel"].startswith("matmul_fp8"):
        c = c * (inputs["scale_a"] * inputs["scale_b"])
    return {"c": c.to(torch.float32)}


_scale_cache = {}


def _scale_tensor(value, device):
    key = (value, str(device))
    if key not in _scale_cache:
        _scale_cache[key] = torch.tensor(value, dtype=torch.float32, device=device)
    return _scale_cache[key]


def torch_baseline(variant, inputs):
    """What a user would call: cuBLAS through torch.matmul (tf32 allowed for f32), or torch._scaled_mm for fp8."""
    ta, tb = variant["constants"]["TRANS_A"], variant["constants"]["TRANS_B"]
    a, b, c = _op(inputs["a"], ta), _op(inputs["b"], tb), inputs["c"]
    if variant["kernel"].startswith("matmul_fp8"):
        dev = a.device
        return torch._scaled_mm(a, b, scale_a=_scale_tensor(inputs["scale_a"], dev),
                                scale_b=_scale_tensor(inputs["scale_b"], dev), out_dtype=c.dtype)
    if a.dtype == torch.float32:
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return torch.matmul(a, b, out=c)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
    return torch.matmul(a, b, out=c)
