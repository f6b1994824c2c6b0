"""softmax semantics in torch: softmax over the last axis, computed in float64."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def make_inputs(variant, shape, *, seed, device):
    gen = generator(seed)
    m, n = shape["M"], shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    return {
        # scale 4 spreads the logits so that the max subtraction matters
        "x": randn((m, n), dt["x"], gen=gen, device=device, scale=4.0, noncontiguous="x" in nc),
        "out": empty_poisoned((m, n), dt["out"], device=device, noncontiguous="out" in nc),
    }


def reference(variant, inputs):
    import torch

    return {"out": torch.softmax(inputs["x"].to(torch.float64), dim=-1)}


def torch_baseline(variant, inputs):
    import torch

    return torch.softmax(inputs["x"], dim=-1)
