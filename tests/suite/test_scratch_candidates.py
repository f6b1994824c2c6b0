"""scripts/gpu/scratch_candidates.py stages candidate variants in a scratch reference root: the
catalog must accept what it writes (every candidate a variant of a kernel the catalog finds), the
launched variants stay as they are, a candidate's compiler hints are its base kernel's options
with the hints laid over them, and a candidate body (scripts/gpu/candidate_kernels) is appended. Nothing is exported here (no tileiras needed)."""
from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from tileir_diff.suite.catalog import load_catalog

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu" / "scratch_candidates.py"


def _script():
    spec = importlib.util.spec_from_file_location("scratch_candidates_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _kernel_options(kernel_py: Path) -> dict:
    """kernel name -> {option: value} of its ``name = ct.kernel(function, **options)`` line."""
    out = {}
    for node in ast.parse(kernel_py.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and getattr(node.value.func, "attr", None) == "kernel":
            out[node.targets[0].id] = {k.arg: ast.literal_eval(k.value) for k in node.value.keywords}
    return out


@pytest.mark.parametrize("op", sorted(_script().CANDIDATES))
def test_the_catalog_takes_the_staged_candidates(op, tmp_path):
    script = _script()
    assert script.main([str(tmp_path), "--only", op, "--no-export"]) == 0
    spec, = load_catalog(tmp_path / "reference", ops=[op])
    baselines, candidates = script.CANDIDATES[op]
    assert [v.name for v in spec.variants] == baselines + [c[0] for c in candidates]
    original = {v.name: v for v in load_catalog(ops=[op])[0].variants}
    staged = {v.name: v for v in spec.variants}
    for name in baselines:  # the launched variants as they are
        assert staged[name].kernel == original[name].kernel and staged[name].constants == original[name].constants
    options = _kernel_options(tmp_path / "reference" / op / "kernel.py")
    for name, base, constants, hints, *fields in candidates:
        v = staged[name]
        assert v.constants == {**original[base].constants, **constants}
        # a candidate body (scripts/gpu/candidate_kernels/<op>.py) named by the fields, else the base's kernel
        kernel = (fields[0] if fields else {}).get("kernel", original[base].kernel)
        if hints:
            assert options[v.kernel] == {**options.get(kernel, {}), **hints}
        else:
            assert v.kernel == kernel
        # a contract laid over a parameter (e.g. c's shape_divisible_by), the others as the base's
        overrides = (fields[0] if fields else {}).get("param_overrides", {})
        base_params = {p["name"]: p for p in original[base].raw["params"]}
        for param in v.raw["params"]:
            if param["name"] not in base_params:  # a candidate body's own constant
                assert param == {"name": param["name"], "kind": "constant"}, (name, param)
                continue
            assert param == {**base_params[param["name"]], **overrides.get(param["name"], {})}, (name, param["name"])


def test_a_decorated_kernel_becomes_an_assignment_with_its_options():
    forms = _script()._kernel_forms
    text, kernels = forms("import cuda.tile as ct\n\n\n@ct.kernel(occupancy=4)\ndef k(x, y):\n    pass\n\n\n"
                          "def _b(x):\n    pass\n\n\nb2 = ct.kernel(_b, num_worker_warps=8)\n")
    assert "@ct.kernel" not in text and "def _scratch_k(x, y):" in text
    assert "k = ct.kernel(_scratch_k, occupancy=4)" in text
    assert kernels == {"k": ("_scratch_k", {"occupancy": "4"}), "b2": ("_b", {"num_worker_warps": "8"})}


def test_a_candidate_body_is_appended_and_described(tmp_path):
    script = _script()
    bodies = sorted(p.stem for p in (SCRIPT.parent / "candidate_kernels").glob("*.py"))
    assert bodies, "no candidate bodies to check"
    op = bodies[0]
    assert script.main([str(tmp_path), "--only", op, "--no-export"]) == 0
    new = script._kernel_docs((SCRIPT.parent / "candidate_kernels" / f"{op}.py").read_text())
    spec, = load_catalog(tmp_path / "reference", ops=[op])
    assert new and set(new) <= set(spec.kernels)  # each body a kernel the catalog finds
    for name, doc in new.items():
        assert spec.kernels[name].startswith(doc.split("\n")[0])
