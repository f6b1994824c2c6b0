"""Torch semantics of reference/splitk_matmul (splitk_partial and splitk_reduce)."""
import torch


def _split_bounds(K, BK, S):
    """Element ranges [k0, k1) of the S splits, as splitk_partial computes them from K tiles."""
    k_tiles = -(-K // BK)
    per = -(-k_tiles // S)
    bounds = []
    for s in range(S):
        t0 = min(s * per, k_tiles)
        t1 = min(t0 + per, k_tiles)
        bounds.append((min(t0 * BK, K), min(t1 * BK, K)))
    return bounds


def _wide(rows, cols, dtype, device, noncontiguous):
    if noncontiguous:
        return torch.empty(rows, cols + 64, dtype=dtype, device=device)[:, :cols]
    return torch.empty(rows, cols, dtype=dtype, device=device)


def make_inputs(variant, shape, *, seed, device):
    gen = torch.Generator(device=device).manual_seed(seed)
    nc = set(shape.get("noncontiguous", ()))
    M, N, S = shape["M"], shape["N"], shape["S"]
    if variant["kernel"] == "splitk_partial":
        K = shape["K"]
        dt = getattr(torch, variant["dtypes"]["a"])
        s = K ** -0.25
        a = _wide(M, K, dt, device, "a" in nc)
        a.copy_(torch.randn(M, K, generator=gen, device=device) * s)
        b = (torch.randn(K, N, generator=gen, device=device) * s).to(dt)
        partial = torch.full((S, M, N), float("nan"), dtype=torch.float32, device=device)
        return {"a": a, "b": b, "partial": partial}
    if variant["kernel"] == "splitk_reduce":
        if "partial" in nc:
            # every other slab of a 2S-slab buffer
            partial = torch.randn(2 * S, M, N, generator=gen, device=device)[::2]
        else:
            partial = torch.randn(S, M, N, generator=gen, device=device)
        c = torch.full((M, N), float("nan"), dtype=getattr(torch, variant["dtypes"]["c"]), device=device)
        return {"partial": partial, "c": c}
    raise ValueError(f"unknown kernel {variant['kernel']!r}")


def reference(variant, inputs):
    if variant["kernel"] == "splitk_partial":
        a, b = inputs["a"].to(torch.float64), inputs["b"].to(torch.float64)
        S = inputs["partial"].shape[0]
        out = torch.stack([a[:, k0:k1] @ b[k0:k1, :]
                           for k0, k1 in _split_bounds(a.shape[1], variant["constants"]["BK"], S)])
        return {"partial": out.to(torch.float32)}
    return {"c": inputs["partial"].to(torch.float64).sum(0).to(torch.float32)}


def torch_baseline(variant, inputs):
    """partial: the whole GEMM as a user would run it (torch.matmul); reduce: torch.sum over splits."""
    if variant["kernel"] == "splitk_partial":
        return torch.matmul(inputs["a"], inputs["b"])
    c = inputs["c"]
    return torch.sum(inputs["partial"], dim=0, dtype=torch.float32).to(c.dtype)
