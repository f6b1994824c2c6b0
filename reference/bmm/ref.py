"""Torch semantics of reference/bmm: c[z] = a[z] @ (b[z].T if TRANS_B else b[z])."""
import torch


def _random(shape, dtype, device, gen, scale):
    return (torch.randn(*shape, generator=gen, device=device) * scale).to(dtype)


def make_inputs(variant, shape, *, seed, device):
    Bt, M, N, K = shape["B"], shape["M"], shape["N"], shape["K"]
    nc = set(shape.get("noncontiguous", ()))
    tb = variant["constants"]["TRANS_B"]
    dt = getattr(torch, variant["dtypes"]["a"])
    gen = torch.Generator(device=device).manual_seed(seed)
    s = K ** -0.25  # keeps |c| O(1)
    if "a" in nc:
        # batch-interleaved layout: a view of an (M, B, K) buffer, batch stride K
        a = _random((M, Bt, K), dt, device, gen, s).transpose(0, 1)
    else:
        a = _random((Bt, M, K), dt, device, gen, s)
    b_shape = (Bt, N, K) if tb else (Bt, K, N)
    if "b" in nc:
        # every other batch of a twice-as-long buffer: batch stride twice the matrix size
        b = _random((2 * Bt,) + b_shape[1:], dt, device, gen, s)[::2]
    else:
        b = _random(b_shape, dt, device, gen, s)
    c = torch.full((Bt, M, N), float("nan"), dtype=getattr(torch, variant["dtypes"]["c"]), device=device)
    return {"a": a, "b": b, "c": c}


def _b_op(b, tb):
    return b.transpose(1, 2) if tb else b


def reference(variant, inputs):
    a = inputs["a"].to(torch.float64)
    b = _b_op(inputs["b"], variant["constants"]["TRANS_B"]).to(torch.float64)
    return {"c": torch.bmm(a, b).to(torch.float32)}


def torch_baseline(variant, inputs):
    a, b = inputs["a"], _b_op(inputs["b"], variant["constants"]["TRANS_B"])
    if a.dtype == torch.float32:
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return torch.bmm(a, b, out=inputs["c"])
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
    return torch.bmm(a, b, out=inputs["c"])
