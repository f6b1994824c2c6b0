"""Torch semantics of reference/fused_moe: out[t*TOPK + k] = hidden[t] @ w[topk_ids[t, k]].T (* topk_weights[t, k])."""
import torch


def _route(T, E, topk, gen):
    """Top-k distinct experts per token (skewed popularity) and softmax routing weights."""
    logits = torch.randn(T, E, generator=gen) + torch.linspace(0.0, 1.5, E)
    weights, ids = torch.topk(torch.softmax(logits, dim=-1), topk, dim=-1)
    return ids.reshape(-1), weights.reshape(-1).to(torch.float32)


def _align(flat_ids, E, block_m):
    """moe_align_block_size on the host: sorted ids (sentinel N), expert per block (-1 past the end), padded total."""
    N = flat_ids.numel()
    counts = torch.bincount(flat_ids, minlength=E)
    padded = (counts + block_m - 1) // block_m * block_m
    offsets = torch.zeros(E + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(padded, 0)
    EM = N + E * (block_m - 1)
    sorted_ids = torch.full((EM,), N, dtype=torch.int64)
    expert_ids = torch.full((-(-EM // block_m),), -1, dtype=torch.int64)
    order = torch.argsort(flat_ids, stable=True)
    for e in range(E):
        mine = order[flat_ids[order] == e]
        sorted_ids[int(offsets[e]):int(offsets[e]) + mine.numel()] = mine
        expert_ids[int(offsets[e]) // block_m:int(offsets[e + 1]) // block_m] = e
    return sorted_ids, expert_ids, int(offsets[-1])


def make_inputs(variant, shape, *, seed, device):
    T, E, K, N = shape["T"], shape["E"], shape["K"], shape["N"]
    c = variant["constants"]
    dt = getattr(torch, variant["dtypes"]["hidden"])
    gen = torch.Generator(device="cpu").manual_seed(seed)
    flat_ids, weights = _route(T, E, c["TOPK"], gen)
    sorted_ids, expert_ids, total = _align(flat_ids, E, c["BM"])
    s = K ** -0.25
    hidden = (torch.randn(T, K, generator=gen) * s).to(dt)
    if "hidden" in shape.get("noncontiguous", ()):
        wide = torch.empty(T, K + 64, dtype=dt)
        wide[:, :K] = hidden
        hidden = wide.to(device)[:, :K]
    else:
        hidden = hidden.to(device)
    return {"hidden": hidden,
            "w": (torch.randn(E, N, K, generator=gen) * s).to(dt).to(device),
            "sorted_token_ids": sorted_ids.to(torch.int32).to(device),
            "expert_ids": expert_ids.to(torch.int32).to(device),
            "num_tokens_post_padded": torch.tensor([total], dtype=torch.int32, device=device),
            "topk_weights": weights.to(device),
            "out": torch.full((T * c["TOPK"], N), float("nan"), dtype=dt, device=device)}


def _expert_of_ids(inputs, block_m):
    """Recover the expert of every flat id from the aligned routing inputs."""
    sorted_ids = inputs["sorted_token_ids"].long().cpu()
    expert_ids = inputs["expert_ids"].long().cpu()
    num_ids = inputs["out"].shape[0]
    experts = torch.full((num_ids,), -1, dtype=torch.int64)
    keep = sorted_ids < num_ids
    experts[sorted_ids[keep]] = expert_ids[torch.arange(sorted_ids.numel())[keep] // block_m]
    assert (experts >= 0).all(), "every routed row must appear in sorted_token_ids"
    return experts


def reference(variant, inputs):
    c = variant["constants"]
    experts = _expert_of_ids(inputs, c["BM"]).to(inputs["hidden"].device)
    rows = inputs["hidden"].to(torch.float64)[torch.arange(inputs["out"].shape[0], device=experts.device) // c["TOPK"]]
    w = inputs["w"].to(torch.float64)
    out = torch.einsum("rk,rnk->rn", rows, w[experts])
    if c["MUL_ROUTED_WEIGHT"]:
        out = out * inputs["topk_weights"].to(torch.float64)[:, None]
    return {"out": out.to(torch.float32)}


def torch_baseline(variant, inputs):
    """Eager per-expert loop (index_select + matmul + index_copy), as HF-style MoE layers do."""
    c = variant["constants"]
    hidden, w, out = inputs["hidden"], inputs["w"], inputs["out"]
    sorted_ids = inputs["sorted_token_ids"]
    num_ids = out.shape[0]
    experts_per_block = inputs["expert_ids"].tolist()
    total = int(inputs["num_tokens_post_padded"][0])
    bm = c["BM"]
    e_prev, seg_start = None, 0
    bounds = []
    for b in range(total // bm):
        e = experts_per_block[b]
        if e != e_prev:
            if e_prev is not None:
                bounds.append((e_prev, seg_start, b * bm))
            e_prev, seg_start = e, b * bm
    if e_prev is not None:
        bounds.append((e_prev, seg_start, total))
    for e, lo, hi in bounds:
        ids = sorted_ids[lo:hi]
        ids = ids[ids < num_ids].long()
        y = hidden.index_select(0, ids // c["TOPK"]) @ w[e].t()
        if c["MUL_ROUTED_WEIGHT"]:
            y = y * inputs["topk_weights"][ids, None].to(y.dtype)
        out.index_copy_(0, ids, y)
    return out
