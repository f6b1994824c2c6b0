"""cumsum semantics in torch: inclusive prefix sum along the last axis, in float64."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def make_inputs(variant, shape, *, seed, device):
    m, n = shape["M"], shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    return {
        "x": randn((m, n), dt["x"], gen=gen, device=device, noncontiguous="x" in nc),
        "out": empty_poisoned((m, n), dt["out"], device=device, noncontiguous="out" in nc),
    }


def reference(variant, inputs):
    import torch

    return {"out": torch.cumsum(inputs["x"].to(torch.float64), dim=-1)}


def torch_baseline(variant, inputs):
    import torch

    return torch.cumsum(inputs["x"], dim=-1)
