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


# --- the Rust port's one call (cutile_splitk_matmul runs partial then reduce) ----------------

PARTIAL_BK = 64  # the K tile of the partial kernel the port launches with a forced reduce variant


def make_port_inputs(variant, shape, *, seed, device):
    """Arrays of one cutile_splitk_matmul call (a, b, partial, c) for a variant's test shape: the
    call runs the forced variant's kernel with the partner the library picks. A partial variant's
    inputs plus a poisoned c; for a reduce variant, whose shapes have no K, K = 128 * S + 40
    (2S + 1 K tiles: a ragged last tile, and splits past the last tile that write zeros) and the
    partial slabs keep the reduce shape's layout (every other slab of a 2S-slab buffer when
    non-contiguous)."""
    if variant["kernel"] == "splitk_partial":
        inputs = make_inputs(variant, shape, seed=seed, device=device)
        dt = inputs["a"].dtype
    else:
        dt = getattr(torch, variant["dtypes"]["c"])
        M, N, S = shape["M"], shape["N"], shape["S"]
        partial_shape = {"M": M, "N": N, "S": S, "K": 2 * PARTIAL_BK * S + 40}
        partial_variant = {"kernel": "splitk_partial", "dtypes": {"a": variant["dtypes"]["c"]}}
        inputs = make_inputs(partial_variant, partial_shape, seed=seed, device=device)
        if "partial" in shape.get("noncontiguous", ()):
            inputs["partial"] = torch.full((2 * S, M, N), float("nan"), dtype=torch.float32, device=device)[::2]
    M, N = inputs["partial"].shape[1:]
    inputs["c"] = torch.full((M, N), float("nan"), dtype=dt, device=device)
    return inputs


def port_reference(variant, inputs):
    """What the call writes: the slabs (as splitk_partial's reference, at the partial kernel's BK)
    and c, their sum."""
    partial_variant = {"kernel": "splitk_partial", "constants": {"BK": PARTIAL_BK}}
    slabs = reference(partial_variant, inputs)["partial"]
    a, b = inputs["a"].to(torch.float64), inputs["b"].to(torch.float64)
    return {"partial": slabs, "c": (a @ b).to(torch.float32)}
