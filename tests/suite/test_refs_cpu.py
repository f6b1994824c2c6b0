"""ref.py files and the GPU script's comparison logic, run on the CPU with torch.

Skipped where torch is not installed (the default CPU image has none; the GPU image does).
Covers what the GPU run relies on: make_inputs builds every parameter with the dtype, rank,
layout and alignment the export assumes (pack_arguments enforces the signature's assumptions);
outputs are poisoned; reference returns every output in its shape without NaN; the grid from
tensor shapes matches the grid from the test shape; the torch baseline (what the performance
table times) computes the same values as reference wherever it runs on the CPU. Part A: the
elementwise, normalization and reduction families; part B: the GEMM / attention / MoE /
quantization / layout / positional operators.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tileir_diff.launch.abi import ArrayArg, host_dtype_name, pack_arguments  # noqa: E402
from tileir_diff.launch.launcher import grid_for_inputs  # noqa: E402
from tileir_diff.suite.catalog import load_catalog  # noqa: E402
from tileir_diff.suite.refutil import POISON_INT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PART_A_FAMILIES = {"elementwise", "normalization", "reduction"}
PART_B_OPS = {"matmul", "bmm", "group_gemm", "splitk_matmul", "flash_attention", "flash_decode",
              "attention_sink", "rope", "moe_align_block_size", "fused_moe", "fp8_quantize", "transpose"}
CATALOG = load_catalog(ROOT / "reference")
SPECS = [s for s in CATALOG if s.family in PART_A_FAMILIES]
CASES = [(op, v, i) for op in SPECS for v in op.variants for i in range(len(v.test_shapes))]
SPECS_B = [s for s in CATALOG if s.op in PART_B_OPS]
CASES_B = [(op, v, i) for op in SPECS_B for v in op.variants for i in range(len(v.test_shapes))]
# part B baselines that need a GPU (fp8 GEMM) or only exist there
CPU_BASELINE_SKIP = {("matmul", "matmul_fp8")}


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _array_arg(t) -> ArrayArg:
    return ArrayArg(t.data_ptr(), tuple(t.shape), tuple(t.stride()), host_dtype_name(t.dtype))


def _poisoned(t) -> bool:
    if t.dtype.is_floating_point:
        return bool(torch.isnan(t.float()).all())
    return bool((t == POISON_INT).all())


def _inputs_as_exported(ref, variant, shape, *, scalars_may_default: bool = False) -> dict:
    """make_inputs' values for ``shape``, checked against what the export assumes: every parameter
    but the constants (a scalar with a default may be left out where ``scalars_may_default``), each
    array's dtype, rank and layout, poisoned outputs, the signature's alignment / static stride /
    index assumptions (pack_arguments raises) and the grid."""
    inputs = ref.make_inputs(variant.raw, shape, seed=1234, device="cpu")
    defaulted = {p.name for p in variant.params if p.kind == "scalar" and p.name not in inputs
                 and p.value is not None} if scalars_may_default else set()
    assert set(inputs) == {p.name for p in variant.params if p.kind != "constant"} - defaulted
    for p in variant.arrays:
        t = inputs[p.name]
        assert host_dtype_name(t.dtype) == p.dtype and t.dim() == p.ndim, p.name
        if p.name in shape.get("noncontiguous", []):
            assert not t.is_contiguous(), p.name
        if p.is_output:
            assert _poisoned(t), f"output {p.name} is not poisoned"
    values = {k: (_array_arg(v) if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()}
    pack_arguments(variant, values)
    assert grid_for_inputs(variant, values) == variant.grid_for(shape)
    return inputs


@pytest.mark.parametrize("op, variant, shape_index", CASES,
                         ids=[f"{op.op}-{v.name}-{i}" for op, v, i in CASES])
def test_make_inputs_and_reference(op, variant, shape_index):
    ref = _load(op.ref_path, f"_ref_cpu_{op.op}")
    inputs = _inputs_as_exported(ref, variant, variant.test_shapes[shape_index], scalars_may_default=True)
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


# --- part B ----------------------------------------------------------------------------------

def test_every_part_b_op_is_in_the_catalog():
    assert {s.op for s in SPECS_B} == PART_B_OPS


@pytest.mark.parametrize("op, variant, shape_index", CASES_B,
                         ids=[f"{op.op}-{v.name}-{i}" for op, v, i in CASES_B])
def test_make_inputs_reference_and_baseline(op, variant, shape_index):
    ref = _load(op.ref_path, f"_ref_cpu_b_{op.op}")
    inputs = _inputs_as_exported(ref, variant, variant.test_shapes[shape_index])
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
    spec = next(s for s in SPECS_B if s.op == "fused_moe")
    variant = spec.variants[0]
    ref = _load(spec.ref_path, "_ref_cpu_b_fused_moe_routing")
    inputs = ref.make_inputs(variant.raw, variant.test_shapes[0], seed=7, device="cpu")
    good = ref.reference(variant.raw, inputs)["out"]
    used = inputs["expert_ids"] >= 0
    swapped = dict(inputs, expert_ids=torch.where(used, (inputs["expert_ids"] + 1) % inputs["w"].shape[0],
                                                  inputs["expert_ids"]))
    assert not torch.allclose(ref.reference(variant.raw, swapped)["out"], good)


def test_moe_align_sort_rejects_inconsistent_offsets():
    spec = next(s for s in SPECS_B if s.op == "moe_align_block_size")
    variant = next(v for v in spec.variants if v.kernel == "moe_align_sort")
    ref = _load(spec.ref_path, "_ref_cpu_b_moe_align_bad")
    inputs = ref.make_inputs(variant.raw, variant.test_shapes[0], seed=3, device="cpu")
    inputs["expert_offsets"][1] += 1
    with pytest.raises(AssertionError, match="not the histogram"):
        ref.reference(variant.raw, inputs)


def test_flash_decode_split_ranges_cover_each_sequence_once():
    spec = next(s for s in SPECS_B if s.op == "flash_decode")
    ref = _load(spec.ref_path, "_ref_cpu_b_flash_decode_ranges")
    for seq_len in (1, 127, 128, 129, 1000):
        for splits in (1, 3, 8, 16):
            ranges = [r for r in ref._split_ranges(seq_len, 128, splits) if r[1] > r[0]]
            covered = [k for k0, k1 in ranges for k in range(k0, k1)]
            assert covered == list(range(seq_len)), (seq_len, splits)


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


ENV_FIELDS = {"gpu": "H100", "compute_capability": "9.0", "arch": "sm_90", "driver": "580", "cuda_driver_api_version": 13000,
              "torch": "2.11", "torch_cuda": "13.0", "timing": "events"}
SUMMARY = {"pass": 0, "fail": 0, "error": 0, "cases": 0, "variants": 0, "variants_all_pass": 0}


def test_a_file_merged_twice_names_each_ops_run(script):
    """Merging onto a file that itself merged an earlier run keeps, per op, the run that measured
    it: the middle run for its ops, the oldest (an entry without `ops`: the rest) for the others."""
    def run(date, ops, **extra):
        return {"results": [{"op": op, "variant": "v", "status": "pass"} for op in ops],
                "bench": [{"op": op, "variant": "v"} for op in ops], "summary": {},
                "environment": {"date": date, "copy_bandwidth_gbps": len(date)}, **extra}
    middle = run("middle", ["gelu", "swiglu", "rope"], ops_run=["gelu", "swiglu"], merged_from=[{"date": "oldest"}])
    newest = run("newest", ["swiglu"])
    script._merge(newest, middle)
    assert newest["ops_run"] == ["swiglu"]
    assert [(m["date"], m["ops"]) for m in newest["merged_from"]] == [("middle", ["gelu"]), ("oldest", ["rope"])]
    assert sorted(r["op"] for r in newest["results"]) == ["gelu", "rope", "swiglu"]
    assert "(gelu)" in script.render_markdown({**newest, "environment": {**newest["environment"], **ENV_FIELDS},
                                               "summary": SUMMARY, "results": [], "bench": []})
