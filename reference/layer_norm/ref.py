"""LayerNorm semantics in torch (float64): forward (out, mean, rstd) and backward (dx, dw/db partial sums)."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn

EPS = 1e-5


def _stats(x, eps):
    import torch

    x64 = x.to(torch.float64)
    mean = x64.mean(dim=-1)
    var = x64.var(dim=-1, unbiased=False)
    return mean, torch.rsqrt(var + eps)


def make_inputs(variant, shape, *, seed, device):
    import torch

    m, n = shape["M"], shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    # a non-zero mean makes the centering matter
    x = randn((m, n), dt["x"], gen=gen, device=device, shift=0.5, noncontiguous="x" in nc)
    w = randn((n,), dt["w"], gen=gen, device=device, scale=0.5, shift=1.0)
    if variant["kernel"].startswith("layer_norm_fwd"):
        return {
            "x": x, "w": w,
            "b": randn((n,), dt["b"], gen=gen, device=device, scale=0.5),
            "out": empty_poisoned((m, n), dt["out"], device=device, noncontiguous="out" in nc),
            "mean": empty_poisoned((m,), dt["mean"], device=device),
            "rstd": empty_poisoned((m,), dt["rstd"], device=device),
            "eps": EPS,
        }
    consts = variant["constants"]
    blocks = -(-m // (consts["TILE_M"] * consts["ROW_TILES"]))
    mean, rstd = _stats(x, EPS)
    return {
        "dy": randn((m, n), dt["dy"], gen=gen, device=device, noncontiguous="dy" in nc),
        "x": x, "w": w,
        "mean": mean.to(torch.float32).contiguous(),
        "rstd": rstd.to(torch.float32).contiguous(),
        "dx": empty_poisoned((m, n), dt["dx"], device=device, noncontiguous="dx" in nc),
        "dw_partial": empty_poisoned((blocks, n), dt["dw_partial"], device=device),
        "db_partial": empty_poisoned((blocks, n), dt["db_partial"], device=device),
    }


def reference(variant, inputs):
    import torch

    x = inputs["x"].to(torch.float64)
    w = inputs["w"].to(torch.float64)
    if variant["kernel"].startswith("layer_norm_fwd"):
        mean, rstd = _stats(inputs["x"], inputs["eps"])
        out = (x - mean[:, None]) * rstd[:, None] * w + inputs["b"].to(torch.float64)
        return {"out": out, "mean": mean, "rstd": rstd}
    dy = inputs["dy"].to(torch.float64)
    mean = inputs["mean"].to(torch.float64)[:, None]
    rstd = inputs["rstd"].to(torch.float64)[:, None]
    xhat = (x - mean) * rstd
    g = dy * w
    dx = rstd * (g - g.mean(dim=1, keepdim=True) - xhat * (g * xhat).mean(dim=1, keepdim=True))
    consts = variant["constants"]
    rows = consts["TILE_M"] * consts["ROW_TILES"]
    blocks = inputs["dw_partial"].shape[0]
    dw = torch.stack([(dy * xhat)[b * rows:(b + 1) * rows].sum(dim=0) for b in range(blocks)])
    db = torch.stack([dy[b * rows:(b + 1) * rows].sum(dim=0) for b in range(blocks)])
    return {"dx": dx, "dw_partial": dw, "db_partial": db}


def torch_baseline(variant, inputs):
    import torch

    if variant["kernel"].startswith("layer_norm_fwd"):
        return torch.nn.functional.layer_norm(inputs["x"], (inputs["x"].shape[1],), inputs["w"], inputs["b"],
                                              inputs["eps"])
    # eager backward: xhat, dx, dw, db
    x = inputs["x"].float()
    rstd = inputs["rstd"][:, None]
    xhat = (x - inputs["mean"][:, None]) * rstd
    g = inputs["dy"].float() * inputs["w"].float()
    dx = rstd * (g - g.mean(dim=1, keepdim=True) - xhat * (g * xhat).mean(dim=1, keepdim=True))
    return dx.to(inputs["dx"].dtype), (inputs["dy"].float() * xhat).sum(0), inputs["dy"].float().sum(0)
