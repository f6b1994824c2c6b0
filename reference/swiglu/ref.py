"""SwiGLU semantics in torch (float64): c = silu(a) * b and its gradients da, db."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn


def make_inputs(variant, shape, *, seed, device):
    m, n = shape["M"], shape["N"]
    forward = variant["kernel"] in ("swiglu_fwd", "swiglu_fwd_fast")
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    arrays = {}
    names_in = ["a", "b"] if forward else ["dc", "a", "b"]
    names_out = ["c"] if forward else ["da", "db"]
    for name in names_in:
        arrays[name] = randn((m, n), dt[name], gen=gen, device=device, scale=2.0, noncontiguous=name in nc)
    for name in names_out:
        arrays[name] = empty_poisoned((m, n), dt[name], device=device, noncontiguous=name in nc)
    return arrays


def reference(variant, inputs):
    import torch

    a = inputs["a"].to(torch.float64)
    b = inputs["b"].to(torch.float64)
    silu = torch.nn.functional.silu(a)
    if variant["kernel"] in ("swiglu_fwd", "swiglu_fwd_fast"):
        return {"c": silu * b}
    dc = inputs["dc"].to(torch.float64)
    s = torch.sigmoid(a)
    return {"da": dc * b * s * (1 + a * (1 - s)), "db": dc * silu}


def torch_baseline(variant, inputs):
    import torch

    a, b = inputs["a"], inputs["b"]
    if variant["kernel"] in ("swiglu_fwd", "swiglu_fwd_fast"):
        return torch.nn.functional.silu(a) * b
    # the eager backward a user gets from autograd
    dc = inputs["dc"]
    s = torch.sigmoid(a)
    return dc * b * s * (1 + a * (1 - s)), dc * (a * s)
