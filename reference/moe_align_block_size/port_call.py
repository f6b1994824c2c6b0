"""Inputs and expected outputs of the Rust port's one C call, for torch: cutile_moe_align_block_size
(moe_align_histogram, then moe_align_sort on the counts and offsets it wrote) or, for a count or
place variant, cutile_moe_align_block_size_tiled (moe_align_count_sub into the tile_counts
scratch, then moe_align_place_sub). A test that forces one variant therefore runs its partner too (the pair
built for block_m).
Named by tileir_diff/ports/registry.py (`call_module`); tests/rust/test_gpu_ports.py uses it in
place of ref.make_inputs / ref.reference. ref.py itself stays the reference's (its fixtures are
recorded from it).
"""
import importlib.util
from pathlib import Path

import torch

_spec = importlib.util.spec_from_file_location("_moe_align_ref", Path(__file__).with_name("ref.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def call_inputs(variant, shape, *, seed, device):
    """Inputs of the one call that runs `variant`: ref.make_inputs plus what the other kernel
    takes (the histogram's expert_ids (NB,) and num_tokens_post_padded for a sort variant, the
    sort's sorted_token_ids (N + E * (block_m - 1),) for a histogram variant, all poisoned) and
    block_m (the histogram's BLOCK_M, the sort shape's block_m)."""
    N, E = shape["N"], shape["E"]
    if variant["kernel"] in ref.COUNT_KERNELS + ref.PLACE_KERNELS:
        # the tiled call: every output poisoned, tile_counts a poisoned (ceil(N / 256), E) scratch
        # (the place variant's own inputs hold the true counts: replaced)
        e_pad = variant["constants"]["E_PAD"]
        place = variant if variant["kernel"] in ref.PLACE_KERNELS else {
            "kernel": "moe_align_place_sub", "constants": {"BLOCK_M": 64 if e_pad == 128 else 16, "E_PAD": e_pad,
                                                       "TILE": variant["constants"]["TILE"]}}
        block_m = place["constants"]["BLOCK_M"]
        em = N + E * (block_m - 1)
        inputs = ref.make_inputs(place, {**shape, "EM": em, "NB": -(-em // block_m)}, seed=seed, device=device)
        inputs["tile_counts"] = torch.full((-(-N // 256), E), ref._POISON, dtype=torch.int32, device=device)
        inputs["block_m"] = block_m
        return inputs
    inputs = ref.make_inputs(variant, shape, seed=seed, device=device)
    if variant["kernel"] == "moe_align_histogram":
        block_m = variant["constants"]["BLOCK_M"]
        inputs["sorted_token_ids"] = torch.full((N + E * (block_m - 1),), ref._POISON, dtype=torch.int32, device=device)
    else:
        block_m = int(shape["block_m"])
        blocks = -(-(N + E * (block_m - 1)) // block_m)
        inputs["expert_ids"] = torch.full((blocks,), ref._POISON, dtype=torch.int32, device=device)
        inputs["num_tokens_post_padded"] = torch.full((1,), ref._POISON, dtype=torch.int32, device=device)
    inputs["block_m"] = block_m
    return inputs


def call_reference(variant, inputs):
    """What the one call writes: the histogram's four outputs from topk_ids, and sorted_token_ids
    (ref.reference of the sort, which also checks that the offsets the call wrote are the
    histogram of topk_ids)."""
    if variant["kernel"] in ref.COUNT_KERNELS + ref.PLACE_KERNELS:
        return ref.reference({"kernel": "moe_align_place_sub", "constants": {"BLOCK_M": inputs["block_m"]}}, inputs)
    histogram = {"kernel": "moe_align_histogram", "constants": {"BLOCK_M": inputs["block_m"]}}
    expected = ref.reference(histogram, inputs)
    expected.update(ref.reference({"kernel": "moe_align_sort"}, inputs))
    return expected
