"""ref.py files of the GEMM / attention / MoE / quantization / layout / positional operators, on the CPU with torch.

Skipped where torch is not installed (the default CPU image has none). Checks what the GPU run
relies on: make_inputs builds every parameter with the dtype, rank, layout and alignment the
export assumes (pack_arguments enforces the signature's assumptions), outputs are poisoned,
the grid from tensors equals the grid from the test shape, reference returns every output in
its shape without NaN, and the torch baseline (what the performance table times) computes the
same values as reference wherever it runs on the CPU.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tileir_diff.launch.abi import ArrayArg, pack_arguments  # noqa: E402
from tileir_diff.launch.launcher import grid_for_inputs  # noqa: E402
from tileir_diff.suite.catalog import load_catalog  # noqa: E402
from tileir_diff.suite.refutil import POISON_INT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PART_B_OPS = {"matmul", "bmm", "group_gemm", "splitk_matmul", "flash_attention", "flash_decode",
              "attention_sink", "rope", "moe_align_block_size", "fused_moe", "fp8_quantize", "transpose"}
SPECS = [s for s in load_catalog(ROOT / "reference") if s.op in PART_B_OPS]
CASES = [(op, v, i) for op in SPECS for v in op.variants for i in range(len(v.test_shapes))]
# baselines that need a GPU (fp8 GEMM) or only exist there
CPU_BASELINE_SKIP = {("matmul", "matmul_fp8")}


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _array_arg(t) -> ArrayArg:
    return ArrayArg(t.data_ptr(), tuple(t.shape), tuple(t.stride()), str(t.dtype).removeprefix("torch."))


def _poisoned(t) -> bool:
    if t.dtype.is_floating_point:
        return bool(torch.isnan(t.float()).all())
    return bool((t == POISON_INT).all())


def test_every_part_b_op_is_in_the_catalog():
    assert {s.op for s in SPECS} == PART_B_OPS


@pytest.mark.parametrize("op, variant, shape_index", CASES,
                         ids=[f"{op.op}-{v.name}-{i}" for op, v, i in CASES])
def test_make_inputs_reference_and_baseline(op, variant, shape_index):
    ref = _load(op.ref_path, f"_ref_cpu_b_{op.op}")
    shape = variant.test_shapes[shape_index]
    inputs = ref.make_inputs(variant.raw, shape, seed=1234, device="cpu")
    assert set(inputs) == {p.name for p in variant.params if p.kind != "constant"}
    for p in variant.arrays:
        t = inputs[p.name]
        assert str(t.dtype).removeprefix("torch.") == p.dtype and t.dim() == p.ndim, p.name
        if p.name in shape.get("noncontiguous", []):
            assert not t.is_contiguous(), p.name
        if p.is_output:
            assert _poisoned(t), f"output {p.name} is not poisoned"
    values = {k: (_array_arg(v) if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
    pack_arguments(variant, values)  # raises if a tensor breaks the exported alignment/stride assumptions
    assert grid_for_inputs(variant, values) == variant.grid_for(shape)

    clone = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
    expected = ref.reference(variant.raw, clone)
    assert set(expected) == {p.name for p in variant.outputs}
    for p in variant.outputs:
        e = expected[p.name]
        assert tuple(e.shape) == tuple(inputs[p.name].shape), p.name
        assert not torch.isnan(e.double()).any(), p.name

    if (op.op, variant.kernel) in CPU_BASELINE_SKIP or not hasattr(ref, "torch_baseline"):
        return
    got = ref.torch_baseline(variant.raw, inputs)
    got = got if isinstance(got, tuple) else (got,)
    first = variant.outputs[0]
    tol = variant.tolerances[first.dtype]
    e = expected[first.name].double()
    g = got[0].double()
    if tuple(g.shape) != tuple(e.shape):
        return  # e.g. splitk partial: the baseline is the whole GEMM, not one slab
    # the baseline runs in the storage dtype: allow twice the kernel's tolerance
    torch.testing.assert_close(g, e, rtol=2 * tol["rtol"] + 1e-6, atol=2 * tol["atol"] + 1e-6, equal_nan=False)


def test_fused_moe_reference_follows_routing_not_block_order():
    """A wrong expert per block must change the expected output (the reference reads the routing)."""
    spec = next(s for s in SPECS if s.op == "fused_moe")
    variant = spec.variants[0]
    ref = _load(spec.ref_path, "_ref_cpu_b_fused_moe_routing")
    inputs = ref.make_inputs(variant.raw, variant.test_shapes[0], seed=7, device="cpu")
    good = ref.reference(variant.raw, inputs)["out"]
    used = inputs["expert_ids"] >= 0
    swapped = dict(inputs, expert_ids=torch.where(used, (inputs["expert_ids"] + 1) % inputs["w"].shape[0],
                                                  inputs["expert_ids"]))
    assert not torch.allclose(ref.reference(variant.raw, swapped)["out"], good)


def test_moe_align_sort_rejects_inconsistent_offsets():
    spec = next(s for s in SPECS if s.op == "moe_align_block_size")
    variant = next(v for v in spec.variants if v.kernel == "moe_align_sort")
    ref = _load(spec.ref_path, "_ref_cpu_b_moe_align_bad")
    inputs = ref.make_inputs(variant.raw, variant.test_shapes[0], seed=3, device="cpu")
    inputs["expert_offsets"][1] += 1
    with pytest.raises(AssertionError, match="not the histogram"):
        ref.reference(variant.raw, inputs)


def test_flash_decode_split_ranges_cover_each_sequence_once():
    spec = next(s for s in SPECS if s.op == "flash_decode")
    ref = _load(spec.ref_path, "_ref_cpu_b_flash_decode_ranges")
    for seq_len in (1, 127, 128, 129, 1000):
        for splits in (1, 3, 8, 16):
            ranges = [r for r in ref._split_ranges(seq_len, 128, splits) if r[1] > r[0]]
            covered = [k for k0, k1 in ranges for k in range(k0, k1)]
            assert covered == list(range(seq_len)), (seq_len, splits)
