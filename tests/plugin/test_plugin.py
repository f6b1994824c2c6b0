"""The pytest plugin through pytester: fixture, failure message, report dir, verdict summary."""
from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest

from tileir_diff.report import json_schema

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
MMA = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_4.tileirbc"
MMA_13_3 = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_3.tileirbc"


def _plugin_args():
    """Load the plugin by module unless the installed entry point already does."""
    names = {e.value for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "tileir_diff.pytest_plugin" in names else ["-p", "tileir_diff.pytest_plugin"]


@pytest.fixture(autouse=True)
def importable_package(monkeypatch):
    # Runs go to a subprocess: in-process runs drop the modules they import afterwards and
    # numpy's C extension cannot be imported twice in one process.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def run(pytester, *args):
    return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider", *args)


@pytest.fixture
def kernel_tests(pytester):
    """A test file with a passing comparison, a failing one and a plain diff."""
    pytester.makepyfile(test_kernels=f'''
import tileir_diff

MMA = {str(MMA)!r}
MMA_13_3 = {str(MMA_13_3)!r}


def swapped():
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    return text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token")


def with_dead_constant():
    lines = tileir_diff.print_module(tileir_diff.load(MMA)).splitlines()
    lines.insert(1, "  %dead = constant <i32: 7> : tile<i32>")
    return chr(10).join(lines) + chr(10)


def test_same_kernel_two_versions(tileir):
    assert tileir.assert_equivalent(MMA_13_3, MMA).verdict == "identical"
    result = tileir.assert_equivalent(MMA, with_dead_constant())
    assert result.verdict == "equivalent"


def test_port_has_a_bug(tileir):
    tileir.assert_equivalent(MMA, swapped())


def test_mutant_is_caught(tileir):
    tileir.assert_different(MMA, swapped(), categories=["memory"])


def test_library_assert_without_fixture():
    tileir_diff.assert_equivalent(MMA, swapped())
''')
    return pytester


def test_fixture_outcomes_and_compact_message(kernel_tests):
    result = run(kernel_tests)
    result.assert_outcomes(passed=2, failed=2)
    # Root difference first, right under the exception line; no plugin frames in the traceback.
    result.stdout.fnmatch_lines(["*NotEquivalent: DIFFERENT: *(1 root difference*",
                                 "E*[[]1] memory: *"])
    assert "pytest_plugin.py" not in result.stdout.str()
    result.stdout.fnmatch_lines(["tileir: 4 comparisons: 1 identical, 1 equivalent, 2 different"])


def test_report_dir_gets_html_and_json_per_failure(kernel_tests, tmp_path):
    report_dir = tmp_path / "reports"
    result = run(kernel_tests, f"--tileir-report-dir={report_dir}")
    result.assert_outcomes(passed=2, failed=2)
    files = sorted(p.name for p in report_dir.iterdir())
    assert files == ["test_kernels.py_test_library_assert_without_fixture.html",
                     "test_kernels.py_test_library_assert_without_fixture.json",
                     "test_kernels.py_test_port_has_a_bug.html",
                     "test_kernels.py_test_port_has_a_bug.json"]
    doc = json.loads((report_dir / "test_kernels.py_test_port_has_a_bug.json").read_text())
    assert doc["verdict"] == "different" and json_schema.validate(doc) == []
    html = (report_dir / "test_kernels.py_test_port_has_a_bug.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "memory" in html
    result.stdout.fnmatch_lines([f"*2 failure report(s) in {report_dir}*"])


def test_disable_option_reaches_every_comparison(kernel_tests):
    result = run(kernel_tests, "--tileir-disable=dead-code",
                                    "-k", "two_versions")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["tileir: 2 comparisons: 1 identical, 1 different"])


def test_no_summary_line_without_comparisons(pytester):
    pytester.makepyfile("def test_nothing():\n    assert True\n")
    result = run(pytester)
    result.assert_outcomes(passed=1)
    assert "tileir:" not in result.stdout.str()


def test_option_is_documented_in_help(pytester):
    result = run(pytester, "--help")
    result.stdout.fnmatch_lines(["*--tileir-report-dir=DIR*"])
