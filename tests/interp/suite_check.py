"""Run a reference-suite variant in the interpreter on its ref.py inputs and compare with
ref.reference at the suite's tolerances (torch on the CPU; imported only here)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Dict

import numpy as np

from tileir_diff import load
from tileir_diff.interp import HostArray, run_variant
from tileir_diff.launch.abi import host_dtype_name
from tileir_diff.suite.catalog import repo_root

SEED = 1234
BUILD = repo_root() / "build" / "reference"


def load_ref(op):
    spec = importlib.util.spec_from_file_location(f"_interp_ref_{op.op}", op.ref_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bytecode_path(variant) -> Path:
    return BUILD / variant.op / f"{variant.name}.tileirbc"


def smallest_shapes(variant, count: int = 1):
    """The test shapes with the fewest elements (ties keep the analysis.json order)."""
    def size(s):
        n = 1
        for k, v in s.items():
            if k in variant.shape_symbols and isinstance(v, int):
                n *= v
        return n
    return sorted(variant.test_shapes, key=size)[:count]


def to_host(torch, t) -> HostArray:
    dtype = host_dtype_name(t.dtype)
    values = t.detach().to(torch.float32).numpy() if dtype in ("bfloat16", "float8_e4m3fn", "float8_e5m2") \
        else t.detach().numpy()
    return HostArray(np.array(values), dtype, tuple(int(s) for s in t.stride()))


def compare(got: np.ndarray, expected: np.ndarray, tol: Dict[str, float], is_float: bool) -> dict:
    if got.shape != expected.shape:
        return {"passed": False, "error": f"shape {got.shape} vs reference {expected.shape}"}
    if is_float:
        g, e = got.astype(np.float64), expected.astype(np.float64)
        with np.errstate(invalid="ignore"):
            diff = np.abs(g - e)
            ok = (diff <= tol["atol"] + tol["rtol"] * np.abs(e)) | (np.isnan(g) & np.isnan(e)) | (np.isinf(e) & (g == e))
        finite = np.isfinite(diff)
        max_abs = float(diff[finite].max()) if finite.any() else 0.0
    else:
        ok = got.astype(np.int64) == expected.astype(np.int64)
        max_abs = float(np.abs(got.astype(np.int64) - expected.astype(np.int64)).max()) if got.size else 0.0
    out = {"passed": bool(ok.all()), "mismatches": int((~ok).sum()), "max_abs_err": max_abs, "numel": int(got.size)}
    if not ok.all():
        idx = tuple(int(i) for i in np.argwhere(~ok)[0])
        out["first_mismatch"] = {"index": list(idx), "got": float(got[idx]), "expected": float(expected[idx])}
    return out


def check_variant(torch, op, variant, shape, ref=None) -> dict:
    ref = ref or load_ref(op)
    inputs = ref.make_inputs(variant.raw, shape, seed=SEED, device="cpu")
    expected = ref.reference(variant.raw, {k: (v.clone() if hasattr(v, "clone") else v) for k, v in inputs.items()})
    names = {p.name for p in variant.params if p.kind != "constant"}
    arrays = {k: (to_host(torch, v) if hasattr(v, "stride") else v) for k, v in inputs.items() if k in names}
    result = run_variant(variant, load(str(bytecode_path(variant))), arrays, shape=shape)
    report = {"grid": list(result.grid), "outputs": {}}
    passed = True
    for p in variant.outputs:
        exp = expected[p.name]
        exp = exp.detach().to(torch.float64).numpy() if exp.dtype.is_floating_point else exp.detach().numpy()
        stats = compare(result.arrays[p.name], exp, variant.tolerances[p.dtype],
                        p.dtype.startswith(("float", "bfloat")))
        report["outputs"][p.name] = stats
        passed &= stats["passed"]
    report["passed"] = passed
    return report
