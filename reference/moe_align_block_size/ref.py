"""Torch semantics of reference/moe_align_block_size (moe_align_histogram and moe_align_sort)."""
import torch

_POISON = 0x7F7F7F7F
# the parallel pair's kernels (one block per TILE ids, in SUB-id steps)
COUNT_KERNELS = ("moe_align_count_sub",)
PLACE_KERNELS = ("moe_align_place_sub",)


def _topk_ids(N, E, topk, gen, device):
    """Flattened (tokens, topk) ids: topk distinct experts per token, skewed so some experts are empty or hot."""
    if N % topk:
        raise ValueError(f"N={N} must be a multiple of topk={topk}")
    tokens = N // topk
    bias = torch.linspace(0.0, 2.0, E)  # later experts more popular; early ones often empty
    scores = torch.rand(tokens, E, generator=gen) + bias
    ids = scores.argsort(dim=1, descending=True)[:, :topk]
    return ids.reshape(-1).to(torch.int32).to(device)


def align(topk_ids, E, block_m):
    """All outputs of the alignment, computed on the host with a stable sort."""
    ids = topk_ids.long().cpu()
    N = ids.numel()
    counts = torch.bincount(ids, minlength=E)
    padded = (counts + block_m - 1) // block_m * block_m
    offsets = torch.zeros(E + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(padded, 0)
    total = int(offsets[-1])
    EM = N + E * (block_m - 1)
    NB = -(-EM // block_m)
    expert_ids = torch.full((NB,), -1, dtype=torch.int64)
    for e in range(E):
        expert_ids[int(offsets[e]) // block_m:int(offsets[e + 1]) // block_m] = e
    sorted_ids = torch.full((EM,), N, dtype=torch.int64)
    order = torch.argsort(ids, stable=True)
    for e in range(E):
        mine = order[ids[order] == e]
        sorted_ids[int(offsets[e]):int(offsets[e]) + mine.numel()] = mine
    return {"expert_counts": counts, "expert_offsets": offsets, "expert_ids": expert_ids,
            "num_tokens_post_padded": torch.tensor([total]), "sorted_token_ids": sorted_ids}


def tile_counts(topk_ids, E, tile):
    """(cdiv(N, tile), E) int32: the ids of each expert in each tile of `tile` ids (moe_align_count_sub)."""
    ids = topk_ids.long().cpu()
    T = -(-ids.numel() // tile)
    out = torch.zeros(T, E, dtype=torch.int64)
    for t in range(T):
        out[t] = torch.bincount(ids[t * tile:(t + 1) * tile], minlength=E)[:E]
    return out.to(torch.int32)


def _block_m(variant, shape):
    if variant["kernel"] in COUNT_KERNELS:
        return None  # (counts per tile: no padding)
    if variant["kernel"] == "moe_align_histogram" or variant["kernel"] in PLACE_KERNELS:
        return variant["constants"]["BLOCK_M"]
    return int(shape["block_m"])


def make_inputs(variant, shape, *, seed, device):
    N, E = shape["N"], shape["E"]
    if E >= variant["constants"]["E_PAD"]:
        raise ValueError(f"E={E} must be < E_PAD={variant['constants']['E_PAD']}")
    gen = torch.Generator(device="cpu").manual_seed(seed)
    topk_ids = _topk_ids(N, E, int(shape.get("topk", "1")), gen, device)
    bm = _block_m(variant, shape)

    def poisoned(n):
        return torch.full((n,), _POISON, dtype=torch.int32, device=device)
    if variant["kernel"] == "moe_align_histogram":
        NB = shape.get("NB", -(-(N + E * (bm - 1)) // bm))
        return {"topk_ids": topk_ids, "expert_counts": poisoned(E), "expert_offsets": poisoned(E + 1),
                "expert_ids": poisoned(NB), "num_tokens_post_padded": poisoned(1)}
    if variant["kernel"] in COUNT_KERNELS:
        T = -(-N // variant["constants"]["TILE"])
        return {"topk_ids": topk_ids, "tile_counts": torch.full((T, E), _POISON, dtype=torch.int32, device=device)}
    if variant["kernel"] in PLACE_KERNELS:
        EM = shape.get("EM", N + E * (bm - 1))
        return {"topk_ids": topk_ids, "tile_counts": tile_counts(topk_ids, E, variant["constants"]["TILE"]).to(device),
                "expert_counts": poisoned(E), "expert_offsets": poisoned(E + 1),
                "expert_ids": poisoned(shape.get("NB", -(-EM // bm))), "num_tokens_post_padded": poisoned(1),
                "sorted_token_ids": poisoned(EM)}
    if variant["kernel"] == "moe_align_sort":
        a = align(topk_ids, E, bm)
        return {"topk_ids": topk_ids, "expert_counts": a["expert_counts"].to(torch.int32).to(device),
                "expert_offsets": a["expert_offsets"].to(torch.int32).to(device),
                "sorted_token_ids": poisoned(shape.get("EM", N + E * (bm - 1)))}
    raise ValueError(f"unknown kernel {variant['kernel']!r}")


def reference(variant, inputs):
    dev = inputs["topk_ids"].device
    if variant["kernel"] in COUNT_KERNELS:
        E = inputs["tile_counts"].shape[1]
        return {"tile_counts": tile_counts(inputs["topk_ids"], E, variant["constants"]["TILE"]).to(dev)}
    E = inputs["expert_counts"].shape[0]
    if variant["kernel"] in PLACE_KERNELS:
        a = align(inputs["topk_ids"], E, variant["constants"]["BLOCK_M"])
        out = {k: a[k].to(torch.int32).to(dev) for k in
               ("expert_counts", "expert_offsets", "num_tokens_post_padded", "sorted_token_ids")}
        NB = inputs["expert_ids"].numel()
        ids = torch.full((NB,), -1, dtype=torch.int32)
        ids[:min(NB, a["expert_ids"].numel())] = a["expert_ids"][:NB].to(torch.int32)
        out["expert_ids"] = ids.to(dev)
        return out
    if variant["kernel"] == "moe_align_histogram":
        a = align(inputs["topk_ids"], E, variant["constants"]["BLOCK_M"])
        return {k: a[k].to(torch.int32).to(dev) for k in
                ("expert_counts", "expert_offsets", "expert_ids", "num_tokens_post_padded")}
    offsets = inputs["expert_offsets"].long().cpu()
    # BLOCK_M is implied by the offsets (every segment is a multiple of it) and by len(sorted_token_ids)
    N = inputs["topk_ids"].numel()
    EM = inputs["sorted_token_ids"].numel()
    block_m = (EM - N) // E + 1 if E else 1
    a = align(inputs["topk_ids"], E, block_m)
    assert torch.equal(a["expert_offsets"], offsets), "inputs are not the histogram of topk_ids"
    return {"sorted_token_ids": a["sorted_token_ids"].to(torch.int32).to(dev)}


def torch_baseline(variant, inputs):
    """The same alignment with torch ops on the device (bincount, cumsum, stable sort), as a user
    without the fused op would write it. The histogram stage (counts, offsets, expert_ids, total)
    is the baseline of moe_align_histogram and of moe_align_count_sub, the placement stage (from
    the offsets) that of moe_align_sort and moe_align_place_sub: a pair's two kernels against the two
    stages is the whole alignment against the whole alignment."""
    ids = inputs["topk_ids"].long()
    if variant["kernel"] in COUNT_KERNELS:
        E = inputs["tile_counts"].shape[1]
    else:
        E = inputs["expert_counts"].shape[0]
    counts = torch.bincount(ids, minlength=E)
    if variant["kernel"] == "moe_align_histogram" or variant["kernel"] in COUNT_KERNELS:
        bm = variant["constants"].get("BLOCK_M", 64)
        padded = (counts + bm - 1) // bm * bm
        ends = torch.cumsum(padded, 0)
        starts = ends - padded
        nb = inputs["expert_ids"].numel() if "expert_ids" in inputs else -(-(ids.numel() + E * (bm - 1)) // bm)
        blocks = torch.arange(nb, device=ids.device) * bm
        owner = torch.searchsorted(ends, blocks, right=True)
        return counts, starts, torch.where(blocks < ends[-1], owner, -1), ends[-1:]
    order = torch.argsort(ids, stable=True)
    if variant["kernel"] in PLACE_KERNELS:
        bm = variant["constants"]["BLOCK_M"]
        padded = (counts + bm - 1) // bm * bm
        starts = torch.cumsum(padded, 0) - padded
    else:
        starts = inputs["expert_offsets"].long()
    rank = torch.arange(ids.numel(), device=ids.device) - torch.cumsum(counts, 0)[ids[order]] + counts[ids[order]]
    out = torch.full_like(inputs["sorted_token_ids"], ids.numel())
    out[starts[ids[order]] + rank] = order.to(out.dtype)
    return out
