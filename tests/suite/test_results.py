"""docs/results/reference_results.json (from scripts/gpu/run_reference.py) covers analysis.json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tileir_diff.suite.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results" / "reference_results.json"


@pytest.fixture(scope="module")
def results():
    if not RESULTS.is_file():
        pytest.skip("no GPU results yet: run scripts/gpu/run_reference.py on the H200 and commit docs/results/")
    return json.loads(RESULTS.read_text())


def _key(shape):
    return json.dumps(shape, sort_keys=True)


def test_results_have_environment(results):
    env = results["environment"]
    for field in ("date", "gpu", "driver", "arch", "timing"):
        assert env.get(field), field
    assert (ROOT / "docs" / "results" / "reference_results.md").is_file()


def test_results_cover_every_variant_and_test_shape(results):
    have = {(r["op"], r["variant"], _key(r["shape"])) for r in results["results"]}
    want = {(op.op, v.name, _key(s)) for op in load_catalog(ROOT / "reference") for v in op.variants
            for s in v.test_shapes}
    missing = sorted(want - have)
    stale = sorted(have - want)
    assert not missing, f"{len(missing)} cases without a result (rerun the GPU script): {missing[:10]}"
    assert not stale, f"{len(stale)} results for cases no longer in analysis.json: {stale[:10]}"


def test_results_are_consistent(results):
    statuses = [r["status"] for r in results["results"]]
    assert set(statuses) <= {"pass", "fail", "error"}
    s = results["summary"]
    assert s["pass"] == statuses.count("pass") and s["cases"] == len(statuses)
    for r in results["results"]:
        if r["status"] == "pass":
            for name, o in r["outputs"].items():
                assert o["mismatches"] == 0 and o["unwritten"] == 0, (r["op"], r["variant"], name)
