"""GELU semantics in torch (float64): exact (erf) or tanh approximation, per APPROX."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def _approximate(variant):
    return "tanh" if variant["constants"]["APPROX"] == 1 else "none"


def make_inputs(variant, shape, *, seed, device):
    m, n = shape["M"], shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    return {
        "x": randn((m, n), dt["x"], gen=gen, device=device, scale=3.0, noncontiguous="x" in nc),
        "out": empty_poisoned((m, n), dt["out"], device=device, noncontiguous="out" in nc),
    }


def reference(variant, inputs):
    import torch

    return {"out": torch.nn.functional.gelu(inputs["x"].to(torch.float64), approximate=_approximate(variant))}


def torch_baseline(variant, inputs):
    import torch

    return torch.nn.functional.gelu(inputs["x"], approximate=_approximate(variant))
