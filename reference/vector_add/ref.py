"""vector_add semantics in torch."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def make_inputs(variant, shape, *, seed, device):
    gen = generator(seed)
    n = shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    return {
        "x": randn((n,), dt["x"], gen=gen, device=device, noncontiguous="x" in nc),
        "y": randn((n,), dt["y"], gen=gen, device=device, noncontiguous="y" in nc),
        "out": empty_poisoned((n,), dt["out"], device=device, noncontiguous="out" in nc),
    }


def reference(variant, inputs):
    import torch

    out = inputs["x"].to(torch.float64) + inputs["y"].to(torch.float64)
    return {"out": out}


def torch_baseline(variant, inputs):
    import torch

    return torch.add(inputs["x"], inputs["y"], out=inputs["out"])
