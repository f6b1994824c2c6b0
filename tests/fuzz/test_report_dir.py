"""Issue 27: ``--tileir-report-dir`` naming a file, /dev/null or an unwritable folder (/proc/self)
no longer aborts the whole pytest session with INTERNALERROR: each is a usage error at start (the
plugin tries a write there), and a folder that stops being writable during the run leaves the
failure's report section saying why."""
from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
MMA = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_4.tileirbc"


def _plugin_args():
    names = {e.value for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "tileir_diff.pytest_plugin" in names else ["-p", "tileir_diff.pytest_plugin"]


@pytest.fixture
def failing_test(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_k=f'''
import tileir_diff
MMA = {str(MMA)!r}

def test_port_has_a_bug(tileir):
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    lines = text.splitlines()
    lines.insert(1, "  %x = constant <i32: 7> : tile<i32>")
    lines.insert(2, '  %t = print_tko "%d", %x : tile<i32> -> token')
    tileir.assert_equivalent(MMA, chr(10).join(lines) + chr(10))
''')
    return pytester


def _run(pytester, report_dir):
    return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider",
                                         f"--tileir-report-dir={report_dir}")


@pytest.mark.parametrize("target", ["file", "/dev/null"])
def test_a_report_dir_that_is_not_a_folder_is_a_usage_error(failing_test, tmp_path, target):
    path = tmp_path / "a-file" if target == "file" else Path(target)
    if target == "file":
        path.write_text("x")
    result = _run(failing_test, path)
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "not a folder" in out


def test_an_unwritable_report_dir_is_a_usage_error(failing_test):
    result = _run(failing_test, "/proc/self")
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--tileir-report-dir /proc/self: cannot write there" in out


def test_a_report_dir_gone_during_the_run_fails_the_test_not_the_session(pytester, monkeypatch, tmp_path):
    """The folder was usable at start; the test replaces it by a file before its failure is
    reported: the failure says the reports were not written, the session goes on."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    reports = tmp_path / "reports"
    pytester.makepyfile(test_k=f'''
import shutil
import tileir_diff
MMA = {str(MMA)!r}
REPORTS = {str(reports)!r}

def test_port_has_a_bug(tileir):
    shutil.rmtree(REPORTS, ignore_errors=True)
    open(REPORTS, "w").write("in the way")
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    lines = text.splitlines()
    lines.insert(1, "  %x = constant <i32: 7> : tile<i32>")
    lines.insert(2, '  %t = print_tko "%d", %x : tile<i32> -> token')
    tileir.assert_equivalent(MMA, chr(10).join(lines) + chr(10))

def test_after(tileir):
    assert True
''')
    result = _run(pytester, reports)
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out
    result.assert_outcomes(failed=1, passed=1)
    assert "tileir reports" in out and "not written to" in out
