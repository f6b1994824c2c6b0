"""The scripted agent of examples/agent_loop.py, end to end (marker ``cargo``: it builds the crate).

Six faults planted in one copy of rust_kernels/ (never the repository's): the five the agent has
rules for converge within the attempt bound, reading only each attempt's JSON; the sixth ends
``not converged`` and leaves a diagnostics folder a person can open. Cost, measured on the 2-core
machine: two crate builds (the shipped sources, then all faults at once) plus stages 1-5 of one
variant per op; the repaired attempts are cache hits (docs/agents.md).
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
jsonschema = pytest.importorskip("jsonschema")
pytestmark = [pytest.mark.cargo, pytest.mark.slow]  # ~180 s of module fixture on a loaded 2-core machine


def _agent_loop():
    spec = importlib.util.spec_from_file_location("_agent_loop_e2e", ROOT / "examples" / "agent_loop.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    if shutil.which("cargo") is None:
        pytest.skip("cargo not installed")
    if importlib.util.find_spec("cuda.tile") is None and not (ROOT / "build" / "reference").is_dir():
        pytest.skip("neither cuda.tile nor the exported reference IR is available")
    loop = _agent_loop()
    return loop.run(tmp_path_factory.mktemp("agent_loop"), ["1", "2", "3", "4", "5"], 3, say=lambda line: None)


def test_shipped_ports_pass(summary):
    assert summary["clean"] and all(c["result"] == "pass" for c in summary["clean"].values()), summary["clean"]


def test_five_kinds_of_fault_converge_within_the_bound(summary):
    fixed = [r for r in summary["faults"] if r["expected"] == "pass"]
    assert len({r["kind"] for r in fixed}) >= 5
    for r in fixed:
        assert r["result"] == "pass", r
        assert 2 <= r["attempts"] <= 3, r  # the fault was seen (attempt 1 failed), then repaired
        assert r["failed_stages"], r
        assert r["caught_by"]["stage"] == r["failed_stages"][0] and r["caught_by"]["message"], r


def test_repaired_attempts_cost_no_rebuild(summary):
    """The repaired sources equal the shipped ones: every artifact of the last attempt is a cache hit."""
    for r in summary["faults"]:
        if r["expected"] != "pass":
            continue
        report = json.loads((Path(r["diagnostics"]) / "report.json").read_text())
        last = report["attempts"][-1]
        assert last["cache"]["misses"] == 0 and last["cache"]["hits"] > 0, (r["op"], last["cache"])
        assert last["changes"], "the record says what the repair changed"


def test_the_unfixable_fault_is_not_converged_with_diagnostics(summary):
    schema = json.loads((ROOT / "tileir_diff" / "verify" / "verify.schema.json").read_text())
    (stuck,) = [r for r in summary["faults"] if r["expected"] == "not_converged"]
    assert stuck["result"] == "not_converged"
    run_dir = Path(stuck["diagnostics"])
    report = json.loads((run_dir / "report.json").read_text())
    jsonschema.validate(report, schema, cls=jsonschema.Draft202012Validator)
    failed = report["attempts"][-1]
    assert failed["failure"]["message"] and (run_dir / "report.html").is_file()
    assert (Path(failed["diagnostics"]) / "logs" / f"{failed['failed_stage']}.log").is_file()


def test_every_record_validates_and_a_diff_failure_leaves_its_html(summary):
    schema = json.loads((ROOT / "tileir_diff" / "verify" / "verify.schema.json").read_text())
    saw_html = False
    for r in summary["faults"]:
        for record in sorted(Path(r["diagnostics"]).glob("attempt-*/record.json")):
            jsonschema.validate(json.loads(record.read_text()), schema, cls=jsonschema.Draft202012Validator)
        saw_html |= any(Path(p).is_file() and Path(p).read_text().lstrip().lower().startswith("<!doctype html")
                        for p in r["html"])
    assert saw_html, "the constant fault fails the IR comparison: its diff HTML is in the diagnostics"
