"""silu_and_mul semantics in torch: out = silu(x[:, :H]) * x[:, H:], x of shape (M, 2H).

The kernel takes x as the (M, 2, H) view of that (M, 2H) tensor.
"""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def make_inputs(variant, shape, *, seed, device):
    m, h = shape["M"], shape["H"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    x2d = randn((m, 2 * h), dt["x"], gen=gen, device=device, scale=2.0, noncontiguous="x" in nc)
    return {
        "x": x2d.view(m, 2, h),
        "out": empty_poisoned((m, h), dt["out"], device=device, noncontiguous="out" in nc),
    }


def reference(variant, inputs):
    import torch

    x = inputs["x"].to(torch.float64)
    return {"out": torch.nn.functional.silu(x[:, 0]) * x[:, 1]}


def torch_baseline(variant, inputs):
    import torch

    x = inputs["x"]
    return torch.nn.functional.silu(x[:, 0]) * x[:, 1]
