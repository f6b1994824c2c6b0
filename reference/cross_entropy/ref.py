"""Cross-entropy semantics in torch (float64): per-row loss (0 for ignored rows) and logsumexp."""

from tileir_diff.suite.refutil import empty_poisoned, generator, randint, randn


def make_inputs(variant, shape, *, seed, device):
    m, v = shape["M"], shape["V"]
    nc = set(shape.get("noncontiguous", []))
    dt = variant["dtypes"]
    gen = generator(seed)
    logits = randn((m, v), dt["logits"], gen=gen, device=device, scale=3.0, noncontiguous="logits" in nc)
    target = randint((m,), 0, v, gen=gen, device=device)
    target[::7] = variant["constants"]["IGNORE_INDEX"]  # every 7th row is ignored
    target[1::11] = v - 1  # the last (possibly ragged-tile) column
    return {
        "logits": logits,
        "target": target,
        "loss": empty_poisoned((m,), dt["loss"], device=device),
        "lse": empty_poisoned((m,), dt["lse"], device=device),
    }


def reference(variant, inputs):
    import torch

    logits = inputs["logits"].to(torch.float64)
    ignore = variant["constants"]["IGNORE_INDEX"]
    loss = torch.nn.functional.cross_entropy(logits, inputs["target"], reduction="none", ignore_index=ignore)
    return {"loss": loss, "lse": torch.logsumexp(logits, dim=-1)}


def torch_baseline(variant, inputs):
    import torch

    return torch.nn.functional.cross_entropy(inputs["logits"], inputs["target"], reduction="none",
                                             ignore_index=variant["constants"]["IGNORE_INDEX"])
