"""Torch semantics of reference/flash_attention: softmax(q k^T * scale [causal, top-left]) v with GQA."""
import math

import torch


def _qkv(B, H, S, D, dtype, device, gen, bshd):
    """(B, H, S, D) tensor; with bshd, a transposed view of a (B, S, H, D) buffer (what a fused QKV projection gives)."""
    if bshd:
        return torch.randn(B, S, H, D, generator=gen, device=device).to(dtype).transpose(1, 2)
    return torch.randn(B, H, S, D, generator=gen, device=device).to(dtype)


def make_inputs(variant, shape, *, seed, device):
    B, Hq, Hkv, Sq, Sk = shape["B"], shape["Hq"], shape["Hkv"], shape["Sq"], shape["Sk"]
    D, group = variant["constants"]["D"], variant["constants"]["QUERY_GROUP"]
    if Hq != Hkv * group:
        raise ValueError(f"Hq={Hq} must equal Hkv={Hkv} * QUERY_GROUP={group}")
    nc = set(shape.get("noncontiguous", ()))
    dt = getattr(torch, variant["dtypes"]["q"])
    gen = torch.Generator(device=device).manual_seed(seed)
    return {"q": _qkv(B, Hq, Sq, D, dt, device, gen, "q" in nc),
            "k": _qkv(B, Hkv, Sk, D, dt, device, gen, "k" in nc),
            "v": _qkv(B, Hkv, Sk, D, dt, device, gen, "v" in nc),
            "o": torch.full((B, Hq, Sq, D), float("nan"), dtype=dt, device=device),
            "sm_scale": 1.0 / math.sqrt(D)}


def reference(variant, inputs):
    group, causal = variant["constants"]["QUERY_GROUP"], variant["constants"]["CAUSAL"]
    q = inputs["q"].to(torch.float64)
    k = inputs["k"].to(torch.float64).repeat_interleave(group, dim=1)
    v = inputs["v"].to(torch.float64).repeat_interleave(group, dim=1)
    scores = (q @ k.transpose(-1, -2)) * inputs["sm_scale"]
    if causal:
        Sq, Sk = q.shape[2], k.shape[2]
        visible = torch.ones(Sq, Sk, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~visible, float("-inf"))
    return {"o": (torch.softmax(scores, dim=-1) @ v).to(torch.float32)}


def torch_baseline(variant, inputs):
    return torch.nn.functional.scaled_dot_product_attention(
        inputs["q"], inputs["k"], inputs["v"], is_causal=variant["constants"]["CAUSAL"],
        scale=inputs["sm_scale"], enable_gqa=variant["constants"]["QUERY_GROUP"] > 1)
