"""Torch semantics of reference/attention_sink: causal (sliding-window) attention with per-head sink logits."""
import math

import torch


def _qkv(B, H, S, D, dtype, device, gen, bshd):
    if bshd:  # (B, S, H, D) buffer viewed as (B, H, S, D)
        return torch.randn(B, S, H, D, generator=gen, device=device).to(dtype).transpose(1, 2)
    return torch.randn(B, H, S, D, generator=gen, device=device).to(dtype)


def make_inputs(variant, shape, *, seed, device):
    B, Hq, Hkv, S = shape["B"], shape["Hq"], shape["Hkv"], shape["S"]
    D, group = variant["constants"]["D"], variant["constants"]["QUERY_GROUP"]
    if Hq != Hkv * group:
        raise ValueError(f"Hq={Hq} must equal Hkv={Hkv} * QUERY_GROUP={group}")
    nc = set(shape.get("noncontiguous", ()))
    dt = getattr(torch, variant["dtypes"]["q"])
    gen = torch.Generator(device=device).manual_seed(seed)
    return {"q": _qkv(B, Hq, S, D, dt, device, gen, "q" in nc),
            "k": _qkv(B, Hkv, S, D, dt, device, gen, "k" in nc),
            "v": _qkv(B, Hkv, S, D, dt, device, gen, "v" in nc),
            # sink logits on the scale of the scores, so they take a visible share of the weight
            "sinks": torch.randn(Hq, generator=gen, device=device) * 2.0,
            "o": torch.full((B, Hq, S, D), float("nan"), dtype=dt, device=device),
            "sm_scale": 1.0 / math.sqrt(D)}


def _attention(q, k, v, sinks, scale, window, group):
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    S = q.shape[2]
    scores = (q @ k.transpose(-1, -2)) * scale
    i = torch.arange(S, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    visible = j <= i
    if window > 0:
        visible &= j > i - window
    scores = scores.masked_fill(~visible, float("-inf"))
    sink_col = sinks.to(scores.dtype)[None, :, None, None].expand(q.shape[0], -1, S, 1)
    probs = torch.softmax(torch.cat([scores, sink_col], dim=-1), dim=-1)[..., :-1]
    return probs.to(v.dtype) @ v


def reference(variant, inputs):
    c = variant["constants"]
    f64 = {n: inputs[n].to(torch.float64) for n in ("q", "k", "v", "sinks")}
    o = _attention(f64["q"], f64["k"], f64["v"], f64["sinks"], inputs["sm_scale"], c["WINDOW"], c["QUERY_GROUP"])
    return {"o": o.to(torch.float32)}


def torch_baseline(variant, inputs):
    """Eager torch (as the gpt-oss reference does it): SDPA has no sink column."""
    c = variant["constants"]
    return _attention(inputs["q"], inputs["k"], inputs["v"], inputs["sinks"], inputs["sm_scale"],
                      c["WINDOW"], c["QUERY_GROUP"])
