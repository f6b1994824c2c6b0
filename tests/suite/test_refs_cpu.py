"""ref.py files and the GPU script's comparison logic, run on the CPU with torch.

Skipped where torch is not installed (the default CPU image has none; the GPU image does).
Covers what the GPU run relies on: make_inputs builds every parameter with the dtype, rank,
layout and alignment the export assumes; outputs are poisoned; reference returns every output
in its shape; the grid from tensor shapes matches the grid from the test shape.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tileir_diff.launch.abi import ArrayArg, pack_arguments  # noqa: E402
from tileir_diff.launch.launcher import grid_for_inputs  # noqa: E402
from tileir_diff.suite.catalog import load_catalog  # noqa: E402
from tileir_diff.suite.refutil import POISON_INT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PART_A_FAMILIES = {"elementwise", "normalization", "reduction"}
SPECS = [s for s in load_catalog(ROOT / "reference") if s.family in PART_A_FAMILIES]
CASES = [(op, v, i) for op in SPECS for v in op.variants for i in range(len(v.test_shapes))]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _array_arg(t) -> ArrayArg:
    return ArrayArg(t.data_ptr(), tuple(t.shape), tuple(t.stride()), str(t.dtype).removeprefix("torch."))


@pytest.mark.parametrize("op, variant, shape_index", CASES,
                         ids=[f"{op.op}-{v.name}-{i}" for op, v, i in CASES])
def test_make_inputs_and_reference(op, variant, shape_index):
    ref = _load(op.ref_path, f"_ref_cpu_{op.op}")
    shape = variant.test_shapes[shape_index]
    inputs = ref.make_inputs(variant.raw, shape, seed=1234, device="cpu")
    assert set(inputs) == {p.name for p in variant.params if p.kind != "constant"} - \
        {p.name for p in variant.params if p.kind == "scalar" and p.name not in inputs and p.value is not None}
    for p in variant.arrays:
        t = inputs[p.name]
        assert str(t.dtype).removeprefix("torch.") == p.dtype and t.dim() == p.ndim, p.name
        if p.name in shape.get("noncontiguous", []):
            assert not t.is_contiguous(), p.name
        if p.is_output:
            poisoned = torch.isnan(t).all() if t.dtype.is_floating_point else (t == POISON_INT).all()
            assert poisoned, f"output {p.name} is not poisoned"
    # the export's assumptions hold for these tensors (alignment, static strides, index range)
    values = {k: (_array_arg(v) if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
    pack_arguments(variant, values)
    assert grid_for_inputs(variant, values) == variant.grid_for(shape)
    clone = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
    expected = ref.reference(variant.raw, clone)
    for p in variant.outputs:
        assert p.name in expected, f"reference lacks output {p.name}"
        assert tuple(expected[p.name].shape) == tuple(inputs[p.name].shape), p.name
        assert not torch.isnan(expected[p.name].double()).any(), p.name
    all_f32 = all(d == "float32" or d.startswith("int") for d in variant.dtypes.values())
    if op.op != "dropout" and hasattr(ref, "torch_baseline") and all_f32:
        # the baseline a user would call computes the same thing (dropout's uses torch's own RNG)
        got = ref.torch_baseline(variant.raw, inputs)
        got = got[0] if isinstance(got, tuple) else got
        first = variant.outputs[0].name
        if tuple(got.shape) == tuple(expected[first].shape):
            torch.testing.assert_close(got.double(), expected[first].double(), rtol=1e-4, atol=1e-4)


def test_dropout_mask_matches_plain_integer_hash():
    ref = _load(ROOT / "reference" / "dropout" / "ref.py", "_ref_cpu_dropout_hash")

    def plain(i, seed, p):
        m = 0xFFFFFFFF
        h = ((i * ref.GOLDEN) & m) ^ (seed & m)
        h ^= h >> 16
        h = (h * ref.MIX1) & m
        h ^= h >> 15
        h = (h * ref.MIX2) & m
        h ^= h >> 16
        return (h >> 8) / 16777216.0 >= p

    mask = ref.keep_mask(5000, 777, 0.3, "cpu")
    assert [bool(b) for b in mask[:200]] == [plain(i, 777, 0.3) for i in range(200)]
    assert 0.65 < mask.double().mean().item() < 0.75
    assert not torch.equal(mask, ref.keep_mask(5000, 778, 0.3, "cpu"))


# --- the GPU script's comparison helpers --------------------------------------------------------

@pytest.fixture(scope="module")
def script():
    return _load(ROOT / "scripts" / "gpu" / "run_reference.py", "_run_reference_cpu")


def test_compare_detects_errors_and_unwritten(script):
    tol = {"rtol": 1e-2, "atol": 1e-3}
    exp = torch.linspace(-1, 1, 100, dtype=torch.float64)
    good = exp.to(torch.float16)
    assert script._compare(torch, "o", good, exp, tol, POISON_INT)["passed"]
    bad = good.clone()
    bad[7] += 0.5
    stats = script._compare(torch, "o", bad, exp, tol, POISON_INT)
    assert not stats["passed"] and stats["mismatches"] == 1 and stats["first_mismatch"]["index"] == [7]
    hole = good.clone()
    hole[3] = float("nan")
    stats = script._compare(torch, "o", hole, exp, tol, POISON_INT)
    assert not stats["passed"] and stats["unwritten"] == 1
    ints = torch.tensor([1, 2, POISON_INT])
    stats = script._compare(torch, "i", ints, torch.tensor([1, 2, 3]), {"rtol": 0, "atol": 0}, POISON_INT)
    assert not stats["passed"] and stats["unwritten"] == 1 and stats["mismatches"] == 1
    shape_bad = script._compare(torch, "o", good[:10], exp, tol, POISON_INT)
    assert not shape_bad["passed"] and "shape" in shape_bad["error"]


def test_padding_guard(script):
    wide = torch.full((4, 10), float("nan"))
    view = wide[:, :6]
    snap = script._padding_snapshot(torch, view)
    view.fill_(1.0)
    assert script._padding_untouched(torch, view, snap)
    wide[2, 8] = 0.0
    assert not script._padding_untouched(torch, view, snap)
    assert script._padding_snapshot(torch, torch.zeros(3)) is None


def test_assemble_and_markdown(script):
    (op,) = load_catalog(ROOT / "reference", ops=["vector_add"])
    v = op.variants[0]
    recs = [{"kind": "check", "op": op.op, "variant": v.name, "shape": s, "shape_key": script.shape_key(s),
             "status": "pass", "outputs": {"out": {"max_abs_err": 0.0, "max_rel_err": 0.0, "mismatches": 0, "unwritten": 0}}}
            for s in v.test_shapes]
    recs.append({"kind": "bench", "op": op.op, "variant": v.name, "shape": v.bench_shape, "kernel_us": 10.0,
                 "gbps": 100.0, "pct_copy_bw": 50.0, "tflops": None, "baseline_us": 12.0, "speedup_vs_baseline": 1.2})
    env = {"date": "d", "gpu": "G", "compute_capability": "9.0", "driver": "580", "cuda_driver_api_version": 13000,
           "torch": "t", "torch_cuda": "13.0", "arch": "sm_90", "timing": "events", "copy_bandwidth_gbps": 200.0}
    doc = script._assemble([op], env, recs)
    s = doc["summary"]
    assert s["pass"] == len(v.test_shapes) and s["error"] == s["cases"] - s["pass"]  # other variants: not run
    assert s["variants_all_pass"] == 1
    md = script.render_markdown(doc)
    assert "| vector_add | f16_t1024 |" in md and "not run" in md
    json.dumps(doc)


def _fake_launcher(ref, *, spoil=None):
    """Stands in for the GPU launch: writes ref.reference into the outputs (optionally spoiled)."""

    def launch(variant, cubin, inputs):
        expected = ref.reference(variant.raw, {k: (v.clone() if isinstance(v, torch.Tensor) else v)
                                               for k, v in inputs.items()})
        for p in variant.outputs:
            inputs[p.name].copy_(expected[p.name].to(inputs[p.name].dtype))
        if spoil:
            spoil(inputs)
        return (1, 1, 1)

    return launch


@pytest.mark.parametrize("op_name, variant_name", [("softmax", "f16_row_m4_n1024"), ("argmax", "f32_m4_n1024"),
                                                   ("rms_norm", "bwd_bf16_m4_n1024")])
def test_check_case_pipeline(script, op_name, variant_name):
    (op,) = load_catalog(ROOT / "reference", ops=[op_name])
    v = op.variant(variant_name)
    ref = _load(op.ref_path, f"_ref_pipeline_{op_name}")
    shape = v.test_shapes[-1]
    ok = script.check_case(torch, op, v, ref, shape, None, _fake_launcher(ref), POISON_INT, device="cpu")
    assert ok["status"] == "pass", ok
    first_out = v.outputs[0].name

    def hole(inputs):  # one element never written
        t = inputs[first_out]
        t[(0,) * t.dim()] = float("nan") if t.dtype.is_floating_point else POISON_INT

    bad = script.check_case(torch, op, v, ref, shape, None, _fake_launcher(ref, spoil=hole), POISON_INT, device="cpu")
    assert bad["status"] == "fail" and bad["outputs"][first_out]["unwritten"] == 1


def test_check_case_catches_writes_outside_a_strided_output(script):
    (op,) = load_catalog(ROOT / "reference", ops=["softmax"])
    v = op.variant("f32_row_m4_n1024")
    ref = _load(op.ref_path, "_ref_pipeline_softmax_pad")
    shape = next(s for s in v.test_shapes if "out" in s.get("noncontiguous", []))

    def scribble(inputs):
        inputs["out"]._base.view(-1)[-1] = 0.0  # the padding after the last row

    res = script.check_case(torch, op, v, ref, shape, None, _fake_launcher(ref, spoil=scribble), POISON_INT,
                            device="cpu")
    assert res["status"] == "fail" and any("outside" in c for c in res["checks"])


def test_merge_keeps_other_ops(script):
    doc = {"results": [{"op": "a", "variant": "v", "status": "pass"}], "bench": [], "summary": {},
           "environment": {"date": "new"}}
    old = {"results": [{"op": "a", "variant": "v", "status": "fail"}, {"op": "b", "variant": "w", "status": "fail"}],
           "bench": [{"op": "b", "variant": "w"}], "environment": {"date": "old"}}
    script._merge(doc, old)
    assert [(r["op"], r["status"]) for r in doc["results"]] == [("a", "pass"), ("b", "fail")]
    assert doc["summary"]["cases"] == 2 and doc["summary"]["variants_all_pass"] == 1 and len(doc["bench"]) == 1
