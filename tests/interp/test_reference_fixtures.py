"""Every reference-suite variant, run by the interpreter on ref.py's inputs, matches torch's
expected outputs at the analysis.json tolerances, without torch: inputs and expected outputs were
recorded by scripts/make_interp_fixtures.py into tests/interp/fixtures/ (one small shape per
variant; see its docstring for how shapes are chosen).

Besides the values, each output must be written in full (a poisoned element the kernel never
stored fails even where the poison would compare equal), nothing may be written outside an
output's (possibly non-contiguous) view, and inputs must come back unchanged.

The bytecode is build/reference/<op>/<variant>.tileirbc copied into a temporary folder, where the
variants missing or older than their kernel are exported first (bytecode only; see
tests/conftest.py fresh_reference_bytecode).
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tileir_diff import load
from tileir_diff.verify.fixtures import FIXTURES, compare_output, host_values, load_fixture, run_fixture_on
from tileir_diff.suite.catalog import load_catalog, repo_root
from tests.conftest import fresh_reference_bytecode

ROOT = repo_root()
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())
REGENERATE = "/work/torch-venv/bin/python scripts/make_interp_fixtures.py --ops {op}  (any Python with torch)"
# the repository's share for them: 331 variants at <= 80 KiB each (make_interp_fixtures.py's cap)
# average ~29 KiB; raised from 8 MiB when session 16's 21 layer_norm and cumsum variants passed it,
# from 9 MiB when session 21's six flash_decode kernels did (9.17 MiB)
TOTAL_BYTES_LIMIT = 10 * 1024 * 1024


def _generator():
    """scripts/make_interp_fixtures.py as a module: the fixtures' format and fingerprint come from it."""
    spec = importlib.util.spec_from_file_location("_make_interp_fixtures", ROOT / "scripts" / "make_interp_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()
CATALOG = {op.op: op for op in load_catalog()}
VARIANTS = {f"{op.op}/{v.name}": (op, v) for op in CATALOG.values() for v in op.variants}


def run_fixture(key: str, bytecode_path: Path, grid=None) -> dict:
    """Run fixture ``key`` on ``bytecode_path`` (``grid``: override analysis.json's, for the self-checks)."""
    return run_fixture_on(VARIANTS[key][1], MANIFEST["fixtures"][key]["file"], load(str(bytecode_path)), grid=grid)


# --- bytecode ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    """variant key -> bytecode path: the built reference copied into a temporary folder, the missing
    or stale variants exported there (the repo's build/ is only read)."""
    from tileir_diff.suite.export import artifact_paths

    root = tmp_path_factory.mktemp("reference")
    wanted = sorted({key.split("/")[0] for key in MANIFEST["fixtures"] if key in VARIANTS})
    failed = fresh_reference_bytecode(root, [CATALOG[o] for o in wanted])
    paths = {key: artifact_paths(VARIANTS[key][1], root, archs=())[0]
             for key in MANIFEST["fixtures"] if key in VARIANTS}
    return paths, {f"{r.op}/{r.variant}": r.errors for r in failed}


@pytest.mark.parametrize("key", sorted(MANIFEST["fixtures"]))
def test_interpreter_matches_torch_reference(key, bytecode):
    if key not in VARIANTS:
        pytest.fail(f"fixture {key} has no variant in reference/ (delete it: {REGENERATE.format(op=key.split('/')[0])})")
    paths, export_errors = bytecode
    if key in export_errors:
        pytest.fail(f"exporting {key} failed: {export_errors[key]}")
    if not paths[key].is_file():
        pytest.skip(f"{paths[key]} missing and cuda-tile is not installed to export it")
    report = run_fixture(key, paths[key])
    assert report["passed"], json.dumps(report, indent=1)


def _bytecode_or_skip(bytecode, key):
    paths, _ = bytecode
    if not paths[key].is_file():
        pytest.skip(f"{paths[key]} missing")
    return paths[key]


def test_another_kernel_fails_the_fixture(bytecode):
    """The check sees a wrong kernel: the tanh GELU on the erf GELU's fixture (they differ by ~1e-3)."""
    report = run_fixture("gelu/erf_f32", _bytecode_or_skip(bytecode, "gelu/tanh_f32"))
    assert not report["passed"] and report["outputs"]["out"]["mismatches"] > 0, report


def test_missing_blocks_are_reported_unwritten(bytecode):
    """A launch that skips blocks leaves poisoned output elements: counted as unwritten and failed."""
    key = "softmax/f32_row_m4_n1024"
    good = run_fixture(key, _bytecode_or_skip(bytecode, key))
    assert good["passed"] and good["grid"][0] > 1, good
    report = run_fixture(key, _bytecode_or_skip(bytecode, key), grid=(1, 1, 1))
    assert not report["passed"] and report["outputs"]["out"]["unwritten"] > 0, report


# --- the fixtures themselves ---------------------------------------------------------------------

def test_fixtures_cover_every_variant():
    """A variant added to (or removed from) the catalog without regenerating fails here."""
    recorded = set(MANIFEST["fixtures"]) | set(MANIFEST["skipped"])
    missing = sorted(set(VARIANTS) - recorded)
    extra = sorted(recorded - set(VARIANTS))
    assert not missing, f"variants without a fixture: {missing}; run " + \
        REGENERATE.format(op=",".join(sorted({k.split('/')[0] for k in missing})))
    assert not extra, f"fixtures of variants no longer in reference/: {extra}"
    for key, entry in MANIFEST["skipped"].items():
        assert entry.get("reason"), f"skipped fixture {key} gives no reason"


def test_fixtures_are_current():
    """ref.py or the variant's signature changed since the fixture was recorded: regenerate."""
    stale = sorted(key for key, entry in {**MANIFEST["fixtures"], **MANIFEST["skipped"]}.items()
                   if key in VARIANTS and entry["fingerprint"] != GEN.fingerprint(*VARIANTS[key]))
    assert not stale, f"fixtures recorded from an older ref.py / variant: {stale}; run " + \
        REGENERATE.format(op=",".join(sorted({k.split('/')[0] for k in stale})))
    assert MANIFEST["generator_version"] == GEN.GENERATOR_VERSION, "fixtures from another generator version"


def test_fixture_files_match_manifest():
    on_disk = {p.name for p in FIXTURES.glob("*.npz")}
    listed = {e["file"] for e in MANIFEST["fixtures"].values()}
    assert on_disk == listed, f"unlisted: {sorted(on_disk - listed)}; absent: {sorted(listed - on_disk)}"
    total = sum((FIXTURES / f).stat().st_size for f in on_disk)
    assert total <= TOTAL_BYTES_LIMIT, f"fixtures take {total} bytes (limit {TOTAL_BYTES_LIMIT})"
    for key, entry in MANIFEST["fixtures"].items():
        meta, data = load_fixture(entry["file"])
        assert (meta["op"], meta["variant"]) == tuple(key.split("/")), f"{entry['file']} holds {meta['op']}/{meta['variant']}"
        assert meta["seed"] == MANIFEST["seed"]
        op, variant = VARIANTS[key] if key in VARIANTS else (None, None)
        if variant is not None:
            assert {p.name for p in variant.arrays} == set(meta["arrays"]), f"{key}: arrays differ from the variant's"
            assert all(f"expected.{p.name}" in data for p in variant.outputs), f"{key}: missing expected outputs"


def test_bf16_and_fp8_decoding_is_exact():
    """The fixture decoders agree with known bit patterns (so the interpreter is fed the values torch saw)."""
    bf = np.array([0x3F80, 0xC000, 0x7F80, 0x0001], dtype=np.uint16)
    assert host_values(bf, {"stored_as": "bits", "dtype": "bfloat16"}).tolist()[:3] == [1.0, -2.0, np.inf]
    e4 = np.array([0x38, 0x7E, 0x01, 0xB8, 0x7F], dtype=np.uint8)  # 1, 448 (max), 2^-9, -1, NaN
    v = host_values(e4, {"stored_as": "bits", "dtype": "float8_e4m3fn"})
    assert v[:4].tolist() == [1.0, 448.0, 2.0 ** -9, -1.0] and np.isnan(v[4])
    e5 = np.array([0x3C, 0x7B, 0x7C, 0x01], dtype=np.uint8)  # 1, 57344 (max), inf, 2^-16
    assert host_values(e5, {"stored_as": "bits", "dtype": "float8_e5m2"}).tolist() == [1.0, 57344.0, np.inf, 2.0 ** -16]


def test_comparison_catches_poison_and_tolerance():
    """The comparison is not vacuous: a value just outside the tolerance, and a poisoned NaN, fail."""
    tol = {"rtol": 0.01, "atol": 0.001}
    e = np.array([1.0, 2.0, 3.0])
    assert compare_output(e * 1.005, e, tol, 0.0)["passed"]
    assert not compare_output(e + np.array([0, 0, 0.05]), e, tol, 0.0)["passed"]
    assert not compare_output(np.array([1.0, np.nan, 3.0]), e, tol, 0.0)["passed"]
    assert not compare_output(np.array([1, 2, 0x7F7F7F7F]), np.array([1, 2, 3]), {"rtol": 0, "atol": 0}, 0.0)["passed"]
