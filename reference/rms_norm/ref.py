"""RMSNorm semantics in torch (float64): forward y = x * rstd * w, and its backward."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn

EPS = 1e-6


def _rstd(x, eps):
    import torch

    x64 = x.to(torch.float64)
    return torch.rsqrt(x64.pow(2).mean(dim=-1) + eps)


def make_inputs(variant, shape, *, seed, device):
    import torch

    gen = generator(seed)
    m, n = shape["M"], shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    if variant["kernel"].startswith("rms_norm_fwd"):
        return {
            "x": randn((m, n), dt["x"], gen=gen, device=device, noncontiguous="x" in nc),
            "w": randn((n,), dt["w"], gen=gen, device=device, scale=0.5, shift=1.0),
            "out": empty_poisoned((m, n), dt["out"], device=device, noncontiguous="out" in nc),
            "rstd": empty_poisoned((m,), dt["rstd"], device=device),
            "eps": EPS,
        }
    consts = variant["constants"]
    rows_per_block = consts["TILE_M"] * consts["ROW_TILES"]
    x = randn((m, n), dt["x"], gen=gen, device=device, noncontiguous="x" in nc)
    return {
        "dy": randn((m, n), dt["dy"], gen=gen, device=device, noncontiguous="dy" in nc),
        "x": x,
        "w": randn((n,), dt["w"], gen=gen, device=device, scale=0.5, shift=1.0),
        # rstd as the forward saved it (float32)
        "rstd": _rstd(x, EPS).to(torch.float32).contiguous(),
        "dx": empty_poisoned((m, n), dt["dx"], device=device, noncontiguous="dx" in nc),
        "dw_partial": empty_poisoned((-(-m // rows_per_block), n), dt["dw_partial"], device=device),
    }


def reference(variant, inputs):
    import torch

    if variant["kernel"].startswith("rms_norm_fwd"):
        x = inputs["x"].to(torch.float64)
        rstd = _rstd(inputs["x"], inputs["eps"])
        return {"out": x * rstd[:, None] * inputs["w"].to(torch.float64), "rstd": rstd}
    x = inputs["x"].to(torch.float64)
    dy = inputs["dy"].to(torch.float64)
    w = inputs["w"].to(torch.float64)
    rstd = inputs["rstd"].to(torch.float64)[:, None]
    n = x.shape[1]
    g = dy * w
    c = (g * x).sum(dim=1, keepdim=True) / n
    dx = rstd * (g - x * rstd * rstd * c)
    consts = variant["constants"]
    rows_per_block = consts["TILE_M"] * consts["ROW_TILES"]
    contrib = dy * x * rstd
    blocks = inputs["dw_partial"].shape[0]
    dw_partial = torch.stack([contrib[b * rows_per_block:(b + 1) * rows_per_block].sum(dim=0) for b in range(blocks)])
    return {"dx": dx, "dw_partial": dw_partial}


def torch_baseline(variant, inputs):
    import torch

    if variant["kernel"].startswith("rms_norm_fwd"):
        return torch.nn.functional.rms_norm(inputs["x"], (inputs["x"].shape[1],), inputs["w"], inputs["eps"])
    # What autograd would run for the backward: recompute normalized x, then dx and dw.
    x = inputs["x"].float()
    rstd = inputs["rstd"][:, None]
    g = inputs["dy"].float() * inputs["w"].float()
    c = (g * x).mean(dim=1, keepdim=True)
    dx = (rstd * (g - x * rstd * rstd * c)).to(inputs["dx"].dtype)
    dw = (inputs["dy"].float() * x * rstd).sum(dim=0)
    return dx, dw
