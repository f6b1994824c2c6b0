"""Inputs and expected outputs of the Rust port's one C call (cutile_splitk_matmul), for torch.

The call launches splitk_partial, then splitk_reduce on the slabs it wrote. A test that forces one
variant therefore runs its partner too: the dtype's 4x256 reduce after a forced partial, the dtype's
partial (BK = 64) before a forced reduce. Named by tileir_diff/ports/registry.py (`call_module`);
tests/rust/test_gpu_ports.py uses it in place of ref.make_inputs / ref.reference. ref.py itself
stays the reference's (its fixtures are recorded from it).
"""
import importlib.util
from pathlib import Path

import torch

_spec = importlib.util.spec_from_file_location("_splitk_matmul_ref", Path(__file__).with_name("ref.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

_BK = 64  # the K tile of every partial variant


def call_inputs(variant, shape, *, seed, device):
    """Inputs of the one call that runs `variant` (a, b, partial, c): for a partial variant
    ref.make_inputs plus a poisoned c; for a reduce variant, whose shapes have no K, the partial
    kernel's inputs with K = 128 S + 40 (2S + 1 K tiles: a ragged last tile, and for S >= 4 splits
    past the last tile, which write zeros), the slabs laid out as the reduce shape asks (every other
    slab of a 2S-slab buffer when non-contiguous), plus c."""
    if variant["kernel"] == "splitk_partial":
        inputs = ref.make_inputs(variant, shape, seed=seed, device=device)
    else:
        M, N, S = shape["M"], shape["N"], shape["S"]
        partial = {"kernel": "splitk_partial", "dtypes": {"a": variant["dtypes"]["c"]}}
        inputs = ref.make_inputs(partial, {"M": M, "N": N, "S": S, "K": 2 * _BK * S + 40}, seed=seed, device=device)
        if "partial" in shape.get("noncontiguous", ()):
            inputs["partial"] = torch.full((2 * S, M, N), float("nan"), dtype=torch.float32, device=device)[::2]
    a, slabs = inputs["a"], inputs["partial"]
    inputs["c"] = torch.full(slabs.shape[1:], float("nan"), dtype=a.dtype, device=device)
    return inputs


def call_reference(variant, inputs):
    """What the one call writes: the slabs as splitk_partial's reference computes them from a and b
    (at BK = 64), and c as splitk_reduce's reference sums the slabs the call wrote (so c is checked
    given the slabs, and the slabs against a and b)."""
    expected = ref.reference({"kernel": "splitk_partial", "constants": {"BK": _BK}}, inputs)
    expected.update(ref.reference({"kernel": "splitk_reduce"}, inputs))
    return expected
