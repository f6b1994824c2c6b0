"""Torch semantics of reference/rope: rotary embedding of q and k by per-token positions."""
import torch


def _tables(P, D, device, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float64, device=device) / D))
    angles = torch.arange(P, dtype=torch.float64, device=device)[:, None] * inv_freq[None, :]
    return torch.cos(angles).to(torch.float32), torch.sin(angles).to(torch.float32)


def make_inputs(variant, shape, *, seed, device):
    T, Hq, Hkv, P = shape["T"], shape["Hq"], shape["Hkv"], shape["P"]
    D = variant["constants"]["D"]
    dt = getattr(torch, variant["dtypes"]["q"])
    nc = set(shape.get("noncontiguous", ()))
    gen = torch.Generator(device=device).manual_seed(seed)
    if nc & {"q", "k"}:
        # q and k as views of a fused (T, Hq + 2*Hkv, D) QKV projection output
        qkv = torch.randn(T, Hq + 2 * Hkv, D, generator=gen, device=device).to(dt)
        q, k = qkv[:, :Hq], qkv[:, Hq:Hq + Hkv]
    else:
        q = torch.randn(T, Hq, D, generator=gen, device=device).to(dt)
        k = torch.randn(T, Hkv, D, generator=gen, device=device).to(dt)
    cos, sin = _tables(P, D, device)
    positions = torch.randint(0, P, (T,), generator=gen, device=device).to(torch.int32)
    return {"positions": positions, "q": q, "k": k, "cos_table": cos, "sin_table": sin,
            "q_out": torch.full((T, Hq, D), float("nan"), dtype=dt, device=device),
            "k_out": torch.full((T, Hkv, D), float("nan"), dtype=dt, device=device)}


def _rotate(x, cos, sin, neox):
    """x (T, H, D); cos/sin (T, D/2) broadcast over heads."""
    cos, sin = cos[:, None, :], sin[:, None, :]
    if neox:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).flatten(-2)


def _is_neox(variant):
    """The pairing: rope's IS_NEOX constant; rope_neox_split (and _o8) computes rotate-half pairs only."""
    return variant["kernel"].startswith("rope_neox_split") or bool(variant["constants"]["IS_NEOX"])


def reference(variant, inputs):
    neox = _is_neox(variant)
    pos = inputs["positions"].long()
    cos = inputs["cos_table"].to(torch.float64)[pos]
    sin = inputs["sin_table"].to(torch.float64)[pos]
    return {"q_out": _rotate(inputs["q"].to(torch.float64), cos, sin, neox).to(torch.float32),
            "k_out": _rotate(inputs["k"].to(torch.float64), cos, sin, neox).to(torch.float32)}


def torch_baseline(variant, inputs):
    """Eager torch RoPE in f32 (what model code does without a fused kernel)."""
    neox = _is_neox(variant)
    pos = inputs["positions"].long()
    cos, sin = inputs["cos_table"][pos], inputs["sin_table"][pos]
    inputs["q_out"].copy_(_rotate(inputs["q"].float(), cos, sin, neox))
    inputs["k_out"].copy_(_rotate(inputs["k"].float(), cos, sin, neox))
    return inputs["q_out"], inputs["k_out"]
