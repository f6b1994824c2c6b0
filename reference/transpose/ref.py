"""Torch semantics of reference/transpose: y = x.transpose(-1, -2), materialised."""
import torch


def make_inputs(variant, shape, *, seed, device):
    dt = getattr(torch, variant["dtypes"]["x"])
    dims = (shape["B"], shape["M"], shape["N"]) if "B" in shape else (shape["M"], shape["N"])
    gen = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(*dims, generator=gen).to(dt)
    if "x" in shape.get("noncontiguous", ()):
        wide = torch.full(dims[:-1] + (dims[-1] + 64,), float("nan"), dtype=dt)
        wide[..., :dims[-1]] = x
        x = wide.to(device)[..., :dims[-1]]
    else:
        x = x.to(device)
    y = torch.full(dims[:-2] + (dims[-1], dims[-2]), float("nan"), dtype=dt, device=device)
    return {"x": x, "y": y}


def reference(variant, inputs):
    return {"y": inputs["x"].transpose(-1, -2).to(torch.float32)}


def torch_baseline(variant, inputs):
    return inputs["y"].copy_(inputs["x"].transpose(-1, -2))
