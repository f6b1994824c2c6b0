"""Torch semantics of reference/fp8_quantize: per-row absmax scaling to float8_e4m3fn."""
import torch

FP8_E4M3_MAX = 448.0
MIN_ABSMAX = 1e-12


def make_inputs(variant, shape, *, seed, device):
    M, N = shape["M"], shape["N"]
    dt = getattr(torch, variant["dtypes"]["x"])
    gen = torch.Generator(device="cpu").manual_seed(seed)
    # rows with very different magnitudes, one all-zero row
    x = torch.randn(M, N, generator=gen) * torch.logspace(-3, 3, M)[torch.randperm(M, generator=gen)][:, None]
    x[M // 2] = 0.0
    x = x.to(dt)
    if "x" in shape.get("noncontiguous", ()):
        wide = torch.full((M, N + 64), float("nan"), dtype=dt)
        wide[:, :N] = x
        x = wide.to(device)[:, :N]
    else:
        x = x.to(device)
    return {"x": x,
            "q": torch.full((M, N), float("nan"), device=device).to(torch.float8_e4m3fn),
            "scales": torch.full((M,), float("nan"), device=device)}


def _quantize(x):
    xf = x.to(torch.float32)
    scale = xf.abs().amax(dim=1, keepdim=True).clamp_min(MIN_ABSMAX) / FP8_E4M3_MAX
    q = (xf / scale).clamp(-FP8_E4M3_MAX, FP8_E4M3_MAX).to(torch.float8_e4m3fn)
    return q, scale[:, 0]


def reference(variant, inputs):
    q, scale = _quantize(inputs["x"])
    return {"q": q.to(torch.float32), "scales": scale}


def torch_baseline(variant, inputs):
    """The same math in torch ops (amax, divide, clamp, cast): there is no fused torch op."""
    q, scale = _quantize(inputs["x"])
    return q, scale
