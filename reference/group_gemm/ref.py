"""Torch semantics of reference/group_gemm: c[o[g]:o[g+1]] = a[o[g]:o[g+1]] @ op(w[g])."""
import torch


def _group_sizes(T, G, split, gen, device):
    """Row counts per group summing to T: 'even', 'random', or 'with_empty' (every third group empty)."""
    if split == "even":
        sizes = [T // G + (1 if g < T % G else 0) for g in range(G)]
    elif split in ("random", "with_empty"):
        weights = torch.rand(G, generator=gen, device=device).cpu() + 0.05
        if split == "with_empty":
            weights[::3] = 0.0
        raw = (weights / weights.sum() * T).floor().to(torch.int64)
        raw[int(torch.argmax(weights))] += T - int(raw.sum())
        sizes = raw.tolist()
    else:
        raise ValueError(f"unknown split {split!r}; expected even, random or with_empty")
    assert sum(sizes) == T and min(sizes) >= 0
    return sizes


def make_inputs(variant, shape, *, seed, device):
    T, G, K, N = shape["T"], shape["G"], shape["K"], shape["N"]
    nc = set(shape.get("noncontiguous", ()))
    dt = getattr(torch, variant["dtypes"]["a"])
    gen = torch.Generator(device=device).manual_seed(seed)
    s = K ** -0.25
    sizes = _group_sizes(T, G, shape.get("split", "even"), gen, device)
    offsets = torch.zeros(G + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(torch.tensor(sizes), 0)
    if "a" in nc:
        a = (torch.randn(T, K + 64, generator=gen, device=device) * s).to(dt)[:, :K]
    else:
        a = (torch.randn(T, K, generator=gen, device=device) * s).to(dt)
    w_shape = (G, N, K) if variant["constants"]["TRANS_W"] else (G, K, N)
    w = (torch.randn(*w_shape, generator=gen, device=device) * s).to(dt)
    c = torch.full((T, N), float("nan"), dtype=dt, device=device)
    return {"a": a, "w": w, "offsets": offsets.to(device), "c": c}


def _weights(variant, w):
    return w.transpose(1, 2) if variant["constants"]["TRANS_W"] else w


def reference(variant, inputs):
    a, offs = inputs["a"].to(torch.float64), inputs["offsets"].tolist()
    w = _weights(variant, inputs["w"]).to(torch.float64)
    c = torch.empty(a.shape[0], w.shape[2], dtype=torch.float64, device=a.device)
    for g in range(w.shape[0]):
        c[offs[g]:offs[g + 1]] = a[offs[g]:offs[g + 1]] @ w[g]
    return {"c": c.to(torch.float32)}


def torch_baseline(variant, inputs):
    """torch._grouped_mm (cuBLAS/CUTLASS grouped GEMM) where available, else a per-group matmul loop."""
    a, w, offs = inputs["a"], _weights(variant, inputs["w"]), inputs["offsets"]
    grouped = getattr(torch, "_grouped_mm", None)
    if grouped is not None and a.dtype == torch.bfloat16:
        try:
            return grouped(a, w, offs=offs[1:])
        except RuntimeError:
            pass  # unsupported layout/arch: fall through to the loop
    out = inputs["c"]
    bounds = offs.tolist()
    for g in range(w.shape[0]):
        torch.matmul(a[bounds[g]:bounds[g + 1]], w[g], out=out[bounds[g]:bounds[g + 1]])
    return out
