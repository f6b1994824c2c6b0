"""dropout semantics in torch, recomputing the kernel's counter-based mask bit for bit."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randn

GOLDEN = 0x9E3779B1
MIX1 = 0x7FEB352D
MIX2 = 0x846CA68B
MASK32 = 0xFFFFFFFF
P = 0.3


def _mul32(h, constant):
    """(h * constant) mod 2^32 without int64 overflow: split the constant into 16-bit halves."""
    lo = h * (constant & 0xFFFF)
    hi = ((h * (constant >> 16)) & 0xFFFF) << 16
    return (lo + hi) & MASK32


def keep_mask(n, seed, p, device):
    import torch

    h = torch.arange(n, dtype=torch.int64, device=device)
    h = _mul32(h, GOLDEN) ^ (seed & MASK32)
    h = h ^ (h >> 16)
    h = _mul32(h, MIX1)
    h = h ^ (h >> 15)
    h = _mul32(h, MIX2)
    h = h ^ (h >> 16)
    u = (h >> 8).to(torch.float32) * (1.0 / 16777216.0)  # 24-bit integers are exact in float32
    return u >= torch.tensor(p, dtype=torch.float32)


def make_inputs(variant, shape, *, seed, device):
    n = shape["N"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    return {
        "x": randn((n,), dt["x"], gen=gen, device=device, noncontiguous="x" in nc),
        "out": empty_poisoned((n,), dt["out"], device=device, noncontiguous="out" in nc),
        "seed": 12345 + n % 1000,  # differs between test shapes
        "p": P,
    }


def reference(variant, inputs):
    import torch

    x = inputs["x"]
    p32 = torch.tensor(inputs["p"], dtype=torch.float32, device=x.device)
    scale = torch.tensor(1.0, dtype=torch.float32, device=x.device) / (1.0 - p32)
    keep = keep_mask(x.shape[0], inputs["seed"], inputs["p"], x.device)
    return {"out": torch.where(keep, x.to(torch.float32) * scale, torch.zeros((), device=x.device))}


def torch_baseline(variant, inputs):
    import torch

    return torch.nn.functional.dropout(inputs["x"], p=inputs["p"], training=True)
