"""ref.py's recorded inputs and torch's expected outputs (tests/interp/fixtures/, written by
scripts/make_interp_fixtures.py), and a kernel run on them in the interpreter.

This is how a kernel is checked against ref.py on a machine without torch or a GPU: the test
suite runs every reference variant's Python IR on its fixture, and ``tileir-diff verify`` runs a
port's IR on the same fixture (its numerics stage on the CPU). One small shape per variant.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import numpy as np

from tileir_diff.suite.catalog import DTYPE_SIZES, repo_root

from tileir_diff.interp import HostArray, run_variant
from tileir_diff.interp.errors import InterpreterError
from tileir_diff.interp.memory import strided_offsets

FIXTURES = repo_root() / "tests" / "interp" / "fixtures"


def manifest(folder: Path = FIXTURES) -> dict:
    """The fixtures' manifest.json (``fixtures``: "op/variant" -> file, shape, fingerprint)."""
    return json.loads((folder / "manifest.json").read_text())


def _minifloat_values(bits: np.ndarray, exp_bits: int, man_bits: int, fn: bool) -> np.ndarray:
    """float32 values of 8-bit floats (OCP E4M3FN / E5M2), written out from the format so that the
    interpreter's own decoder is not what checks it."""
    bits = bits.astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    e = (bits >> man_bits) & ((1 << exp_bits) - 1)
    m = bits & ((1 << man_bits) - 1)
    bias = (1 << (exp_bits - 1)) - 1
    normal = (1.0 + m / (1 << man_bits)) * np.exp2(e - bias)
    sub = (m / (1 << man_bits)) * np.exp2(1 - bias)
    out = sign * np.where(e == 0, sub, normal)
    top = (1 << exp_bits) - 1
    if fn:  # E4M3FN: no infinities; only S.1111.111 is NaN
        out = np.where((e == top) & (m == (1 << man_bits) - 1), np.nan, out)
    else:
        out = np.where((e == top) & (m == 0), sign * np.inf, out)
        out = np.where((e == top) & (m != 0), np.nan, out)
    return out.astype(np.float32)


def host_values(stored: np.ndarray, info: dict) -> np.ndarray:
    """Fixture array -> the values a HostArray of its dtype takes (bf16 / fp8 as float32)."""
    if info["stored_as"] != "bits":
        return stored
    if info["dtype"] == "bfloat16":
        return (stored.astype(np.uint32) << 16).view(np.float32)
    if info["dtype"] == "float8_e4m3fn":
        return _minifloat_values(stored, 4, 3, fn=True)
    if info["dtype"] == "float8_e5m2":
        return _minifloat_values(stored, 5, 2, fn=False)
    raise AssertionError(f"unknown bit-stored dtype {info['dtype']!r}")


def load_fixture(name: str, folder: Path = FIXTURES):
    with np.load(folder / name, allow_pickle=False) as z:
        meta = json.loads(z["meta"].item())
        data = {k: z[k] for k in z.files if k != "meta"}
    return meta, data


def _allocation(memory, label: str) -> int:
    found = [i for i, a in enumerate(memory.allocations) if a.label == label]
    if len(found) != 1:
        raise InterpreterError(f"{label}: {len(found)} allocations with this label")
    return found[0]


def _written_offsets(memory, index: int) -> np.ndarray:
    parts = [off for (a, off) in memory.written if a == index]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)


def compare_output(got: np.ndarray, expected: np.ndarray, tol: dict, rounding_rel: float) -> dict:
    """Elementwise comparison with the GPU harness's rule (scripts/gpu/run_reference.py): floats within
    atol + rtol*|expected| (plus the recorded float32 rounding of ``expected``), NaN matches NaN, an
    infinity only itself; integers exactly."""
    if got.shape != expected.shape:
        return {"passed": False, "error": f"shape {got.shape} vs expected {expected.shape}"}
    if expected.dtype.kind == "f":
        g, e = got.astype(np.float64), expected.astype(np.float64)
        with np.errstate(invalid="ignore"):
            diff = np.abs(g - e)
            allowed = tol["atol"] + (tol["rtol"] + rounding_rel) * np.abs(e)
            ok = (diff <= allowed) | (np.isnan(g) & np.isnan(e)) | (np.isinf(e) & (g == e))
        finite = np.isfinite(diff)
        max_abs = float(diff[finite].max()) if finite.any() else 0.0
    else:
        ok = got.astype(np.int64) == expected.astype(np.int64)
        max_abs = float(np.abs(got.astype(np.int64) - expected.astype(np.int64)).max()) if got.size else 0.0
    out: Dict[str, Any] = {"passed": bool(ok.all()), "mismatches": int((~ok).sum()), "numel": int(got.size), "max_abs_err": max_abs}
    if not ok.all():
        idx = tuple(int(i) for i in np.argwhere(~ok)[0])
        out["first_mismatch"] = {"index": list(idx), "got": float(got[idx]), "expected": float(expected[idx])}
    return out


def run_fixture_on(variant, fixture_file: str, module, grid=None, folder: Path = FIXTURES) -> dict:
    """Run ``module`` (a kernel with ``variant``'s signature: the reference or its port) on the
    fixture in ``fixture_file`` and compare every output with torch's (``grid``: override
    analysis.json's). The report says ``passed``, per output the mismatches, max error, first
    mismatch and unwritten elements, and ``checks`` (stores outside a view, modified inputs)."""
    meta, data = load_fixture(fixture_file, folder)
    arrays = {}
    for name, info in meta["arrays"].items():
        values = host_values(data[f"in.{name}"], info)
        if list(values.shape) != info["shape"]:
            raise InterpreterError(f"{fixture_file}: {name}: stored shape {values.shape} != {info['shape']}")
        arrays[name] = HostArray(values, info["dtype"], tuple(info["strides"]))
    arrays.update(meta["scalars"])
    # Grid from the arrays' shapes through analysis.json, as the GPU harness launches it.
    result = run_variant(variant, module, arrays, grid=grid)
    report = {"shape": meta["shape"], "grid": list(result.grid), "outputs": {}, "checks": []}
    memory = result.memory
    for p in variant.outputs:
        out_meta = meta["outputs"][p.name]
        stats = compare_output(result.arrays[p.name], data[f"expected.{p.name}"], variant.tolerances[p.dtype],
                               out_meta["expected_rounding_rel"])
        info = meta["arrays"][p.name]
        view = np.unique(strided_offsets(tuple(info["shape"]), tuple(info["strides"])).ravel() * DTYPE_SIZES[p.dtype])
        written = _written_offsets(memory, _allocation(memory, p.name))
        stats["unwritten"] = int(np.setdiff1d(view, written, assume_unique=True).size)
        outside = np.setdiff1d(written, view, assume_unique=True)
        if outside.size:
            report["checks"].append(f"{p.name}: {outside.size} store(s) outside its view, "
                                    f"first at byte {int(outside[0])}")
        stats["passed"] = stats["passed"] and stats["unwritten"] == 0
        report["outputs"][p.name] = stats
    for p in variant.arrays:
        if p.role == "input" and p.name in meta["arrays"]:
            before = np.nan_to_num(arrays[p.name].values.astype(np.float64), nan=1.5)
            after = np.nan_to_num(result.arrays[p.name].astype(np.float64), nan=1.5)
            if not np.array_equal(before, after):
                report["checks"].append(f"{p.name}: input modified by the kernel")
    report["passed"] = all(s["passed"] for s in report["outputs"].values()) and not report["checks"]
    return report
