"""argmax semantics in torch: index of the first maximum along the last axis (int64)."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def make_inputs(variant, shape, *, seed, device):
    m, n = shape["M"], shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    x = randn((m, n), dt["x"], gen=gen, device=device, noncontiguous="x" in nc)
    if n > 3:
        # force exact ties: the first occurrence must win, also across tiles
        x[0, n // 3] = 100.0
        x[0, n - 1] = 100.0
    return {"x": x, "out": empty_poisoned((m,), dt["out"], device=device)}


def reference(variant, inputs):
    import torch

    # on the CPU: torch documents first-occurrence ties there
    return {"out": torch.argmax(inputs["x"].cpu(), dim=-1)}


def torch_baseline(variant, inputs):
    import torch

    return torch.argmax(inputs["x"], dim=-1)
