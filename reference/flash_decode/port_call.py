"""Inputs and expected outputs of the Rust port's one C call (cutile_flash_decode), for torch.

The call launches flash_decode_partial, then flash_decode_combine on its partials. A test that
forces one variant therefore runs its partner too: the combine built for the same dtype and head
dim after a forced partial, the partial built for them before a forced combine. Named by
tileir_diff/ports/registry.py (`call_module`); tests/rust/test_gpu_ports.py uses it in place of
ref.make_inputs / ref.reference. ref.py itself stays the reference's (its fixtures are recorded
from it).
"""
import importlib.util
from pathlib import Path

import torch

_spec = importlib.util.spec_from_file_location("_flash_decode_ref", Path(__file__).with_name("ref.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

_BUILT_PARTIALS = {("bfloat16", 128): (1, 4), ("float16", 64): (8,)}  # QUERY_GROUP of kernel.py's partial variants
# The key tile BN of the partial kernel the launcher picks for (dtype, D, QUERY_GROUP) when the
# call forces a combine: the split boundaries (and so the partials) depend on it.
# tests/suite/test_flash_decode_launch.py holds it to kernel.select_variant and analysis.json.
LAUNCHED_BN = {("bfloat16", 128, 1): 64, ("bfloat16", 128, 4): 128, ("float16", 64, 8): 64}
_BN = 128  # the key tile of the partials laid out for a forced combine (Smax = 2 * BN * S)


def call_inputs(variant, shape, *, seed, device):
    """Inputs of the one call that runs `variant`: for a partial variant ref.make_inputs plus the
    combine's output o (B, Hq, D); for a combine variant the partial kernel's inputs for (B, Hq, S)
    (the largest built QUERY_GROUP dividing Hq, Smax = 2 * BN * S keys; every sequence full, or with
    'empty_splits' S // 2 + 1 key tiles long, the last one ragged, so the later splits are empty)
    plus o. Where no built QUERY_GROUP divides Hq (float16 D=64 is built for 8 only), Hq is rounded
    up to a multiple of the group: the one call cannot merge partials no partial kernel writes."""
    c = variant["constants"]
    if variant["kernel"].startswith("flash_decode_partial"):
        inputs = ref.make_inputs(variant, shape, seed=seed, device=device)
        q = inputs["q"]
        inputs["o"] = torch.full(q.shape, float("nan"), dtype=q.dtype, device=device)
        return inputs
    dtype, D, B, Hq, S = variant["dtypes"]["o"], c["D"], shape["B"], shape["Hq"], shape["S"]
    built = _BUILT_PARTIALS[(dtype, D)]
    group = max([g for g in built if Hq % g == 0] or [min(built)])
    Hq = -(-Hq // group) * group
    partial = {"kernel": "flash_decode_partial", "constants": {"BN": LAUNCHED_BN[(dtype, D, group)], "D": D,
                                                               "QUERY_GROUP": group}, "dtypes": {"q": dtype}}
    inputs = ref.make_inputs(partial, {"B": B, "Hq": Hq, "Hkv": Hq // group, "Smax": 2 * _BN * S, "S": S,
                                       "lens": "full"}, seed=seed, device=device)
    if shape.get("empty_splits"):
        inputs["seq_lens"].fill_((S // 2 + 1) * _BN - 3)
    inputs["o"] = torch.full((B, Hq, D), float("nan"), dtype=getattr(torch, dtype), device=device)
    return inputs


def call_reference(variant, inputs):
    """What the one call writes, from its inputs after the call: partial_o and partial_lse as the
    partial kernel's reference computes them from q, k, v (with the key tile of the partial that
    ran: the forced one, else the launcher's pick); o as the combine of the partials the call
    wrote (so o is checked given the partials, and the partials against q, k, v)."""
    q, k = inputs["q"], inputs["k"]
    d, group = q.shape[2], q.shape[1] // k.shape[1]
    if variant["kernel"].startswith("flash_decode_partial"):
        bn = variant["constants"]["BN"]
    else:
        bn = LAUNCHED_BN[(str(q.dtype).removeprefix("torch."), d, group)]
    partial = {"kernel": "flash_decode_partial", "constants": {"BN": bn, "D": d, "QUERY_GROUP": group}}
    expected = ref.reference(partial, inputs)
    expected.update(ref.reference({"kernel": "flash_decode_combine"}, inputs))
    return expected
