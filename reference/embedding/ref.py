"""Torch semantics of reference/embedding: out[t, :] = weight[ids[t], :]."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randint, randn


def make_inputs(variant, shape, *, seed, device):
    T, V, H = shape["T"], shape["V"], shape["H"]
    if T < 1 or V < 1 or H < 1:
        raise ValueError(f"embedding needs T, V, H >= 1, got {shape}")
    dt = variant["dtypes"]
    nc = set(shape.get("noncontiguous", ()))
    gen = generator(seed)
    ids = randint((T,), 0, V, dt["ids"], gen=gen, device=device)
    # the table's first and last rows are the edges a wrong row index would miss
    ids[0] = V - 1
    if T > 1:
        ids[-1] = 0
    return {
        "ids": ids,
        "weight": randn((V, H), dt["weight"], gen=gen, device=device, noncontiguous="weight" in nc),
        "out": empty_poisoned((T, H), dt["out"], device=device, noncontiguous="out" in nc),
    }


def reference(variant, inputs):
    import torch

    ids, weight = inputs["ids"], inputs["weight"]
    V = weight.shape[0]
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= V):
        raise ValueError(f"token ids must lie in [0, {V})")
    # rows are selected before widening to float64 (the _idx64 test table is 4.3 GB of f16);
    # numpy indexing where the tensors live on the CPU, an independent path from torch's
    if ids.device.type == "cpu":
        table = weight.to(torch.float32) if weight.dtype == torch.bfloat16 else weight  # numpy has no bf16
        rows = table.numpy()[ids.numpy().astype("int64")]
        return {"out": torch.from_numpy(rows.astype("float64"))}
    return {"out": weight.index_select(0, ids.long()).to(torch.float64)}


def torch_baseline(variant, inputs):
    """torch.nn.functional.embedding: what model code calls (nn.Embedding.forward)."""
    import torch

    return torch.nn.functional.embedding(inputs["ids"], inputs["weight"])
