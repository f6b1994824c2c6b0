"""Torch semantics of reference/flash_decode (flash_decode_partial and flash_decode_combine)."""
import math

import torch


def _split_ranges(seq_len, BN, S):
    """Key ranges [k0, k1) of the S splits for one sequence, as flash_decode_partial computes them."""
    tiles = -(-seq_len // BN)
    per = -(-tiles // S)
    out = []
    for s in range(S):
        t0 = min(s * per, tiles)
        t1 = min(t0 + per, tiles)
        out.append((t0 * BN, min(t1 * BN, seq_len)))
    return out


def _lens(B, Smax, mode, gen, device):
    if mode == "full":
        return torch.full((B,), Smax, dtype=torch.int32)
    if mode == "random":
        lens = torch.randint(1, Smax + 1, (B,), generator=gen, device=device).to(torch.int32).cpu()
        lens[0] = Smax  # always exercise the longest sequence
        return lens
    raise ValueError(f"unknown lens mode {mode!r}; expected full or random")


def make_inputs(variant, shape, *, seed, device):
    gen = torch.Generator(device=device).manual_seed(seed)
    nc = set(shape.get("noncontiguous", ()))
    c = variant["constants"]
    if variant["kernel"].startswith("flash_decode_partial"):
        B, Hq, Hkv, Smax, S = shape["B"], shape["Hq"], shape["Hkv"], shape["Smax"], shape["S"]
        D, group = c["D"], c["QUERY_GROUP"]
        if Hq != Hkv * group:
            raise ValueError(f"Hq={Hq} must equal Hkv={Hkv} * QUERY_GROUP={group}")
        dt = getattr(torch, variant["dtypes"]["q"])

        def cache():
            if "k" in nc:  # (B, Smax, Hkv, D) cache layout viewed as (B, Hkv, Smax, D)
                return torch.randn(B, Smax, Hkv, D, generator=gen, device=device).to(dt).transpose(1, 2)
            return torch.randn(B, Hkv, Smax, D, generator=gen, device=device).to(dt)
        return {"q": torch.randn(B, Hq, D, generator=gen, device=device).to(dt),
                "k": cache(), "v": cache(),
                "seq_lens": _lens(B, Smax, shape.get("lens", "full"), gen, device).to(device),
                "partial_o": torch.full((B, Hq, S, D), float("nan"), device=device),
                "partial_lse": torch.full((B, Hq, S), float("nan"), device=device),
                "sm_scale": 1.0 / math.sqrt(D)}
    if variant["kernel"].startswith("flash_decode_combine"):  # (and its scratch candidates' twins)
        B, Hq, S, D = shape["B"], shape["Hq"], shape["S"], c["D"]
        if S > c["MAX_SPLITS"]:
            raise ValueError(f"S={S} exceeds MAX_SPLITS={c['MAX_SPLITS']}")
        partial_o = torch.randn(B, Hq, S, D, generator=gen, device=device)
        partial_lse = torch.randn(B, Hq, S, generator=gen, device=device) * 4 + 10
        if shape.get("empty_splits"):
            # trailing splits of a short sequence are empty: lse -inf, o 0 (split 0 never is)
            partial_lse[:, :, S // 2 + 1:] = float("-inf")
            partial_o[:, :, S // 2 + 1:] = 0.0
        return {"partial_o": partial_o, "partial_lse": partial_lse,
                "o": torch.full((B, Hq, D), float("nan"), dtype=getattr(torch, variant["dtypes"]["o"]), device=device)}
    raise ValueError(f"unknown kernel {variant['kernel']!r}")


def reference(variant, inputs):
    if variant["kernel"].startswith("flash_decode_partial"):
        c = variant["constants"]
        q = inputs["q"].to(torch.float64)
        k = inputs["k"].to(torch.float64).repeat_interleave(c["QUERY_GROUP"], dim=1)
        v = inputs["v"].to(torch.float64).repeat_interleave(c["QUERY_GROUP"], dim=1)
        po = torch.zeros_like(inputs["partial_o"], dtype=torch.float64)
        plse = torch.full_like(inputs["partial_lse"], float("-inf"), dtype=torch.float64)
        S = po.shape[2]
        for b, seq_len in enumerate(inputs["seq_lens"].tolist()):
            for s, (k0, k1) in enumerate(_split_ranges(seq_len, c["BN"], S)):
                if k1 <= k0:
                    continue
                scores = torch.einsum("hd,hkd->hk", q[b], k[b, :, k0:k1]) * inputs["sm_scale"]
                lse = torch.logsumexp(scores, dim=-1)
                po[b, :, s] = torch.einsum("hk,hkd->hd", torch.exp(scores - lse[:, None]), v[b, :, k0:k1])
                plse[b, :, s] = lse / math.log(2.0)  # base-2 log-sum-exp, as the kernel keeps it
        return {"partial_o": po.to(torch.float32), "partial_lse": plse.to(torch.float32)}
    lse = inputs["partial_lse"].to(torch.float64)
    w = torch.softmax(lse * math.log(2.0), dim=-1)
    return {"o": torch.einsum("bhs,bhsd->bhd", w, inputs["partial_o"].to(torch.float64)).to(torch.float32)}


def torch_baseline(variant, inputs):
    """partial: the whole decode step as a user would run it (SDPA over the full cache, no split); combine: the same merge in torch ops."""
    if variant["kernel"].startswith("flash_decode_partial"):
        group = variant["constants"]["QUERY_GROUP"]
        q = inputs["q"].unsqueeze(2)
        return torch.nn.functional.scaled_dot_product_attention(
            q, inputs["k"], inputs["v"], scale=inputs["sm_scale"], enable_gqa=group > 1)
    w = torch.softmax(inputs["partial_lse"] * math.log(2.0), dim=-1)
    return torch.einsum("bhs,bhsd->bhd", w, inputs["partial_o"]).to(inputs["o"].dtype)
