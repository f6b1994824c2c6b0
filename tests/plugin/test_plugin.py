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


def test_fixture_outcomes_and_compact_message(kernel_tests, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")  # the short summary line is cut at the terminal width
    result = run(kernel_tests)
    result.assert_outcomes(passed=2, failed=2)
    # The first root cause is the exception's first line, so also the short summary's; the
    # headline with both paths follows.
    result.stdout.fnmatch_lines(["E*tileir_diff.NotEquivalent: DIFFERENT: memory: store_view_tko operands "
                                 "index[[]0] and index[[]1] swapped*",
                                 "E*  *mma_f16_f32acc.v13_4.tileirbc vs <text> (1 root difference*"])
    result.stdout.fnmatch_lines(["FAILED test_kernels.py::test_port_has_a_bug - tileir_diff.NotEquivalent: "
                                 "DIFFERENT: memory: store_view_tko operands index*swapped*"])
    # Neither the plugin's nor the library's frames (with their docstrings) are shown.
    out = result.stdout.str()
    assert "pytest_plugin.py" not in out and "api.py" not in out
    assert "Return the DiffResult when" not in out and "Fail the test" not in out
    result.stdout.fnmatch_lines(["tileir: 4 comparisons: 1 identical, 1 equivalent, 2 different"])


def test_long_message_is_cut_with_a_pointer_to_the_report(kernel_tests, tmp_path):
    report_dir = tmp_path / "reports"
    result = run(kernel_tests, "--tileir-max-lines=6", f"--tileir-report-dir={report_dir}",
                 "-k", "port_has_a_bug")
    result.assert_outcomes(failed=1)
    html = report_dir / "test_kernels.py_test_port_has_a_bug.html"
    result.stdout.fnmatch_lines([f"E*... * more lines (full report: {html}, *.json)"])
    # cut after 6 lines: the root difference's first line is in the message, what follows is not
    out = result.stdout.str()
    assert "[1] (the first line)" in out  # the root is the first line: not repeated
    assert "in @mma_f16_f32acc: f0/o27" not in out and "summary (what each side does" not in out


def test_long_message_without_report_dir_says_how_to_get_it(kernel_tests):
    result = run(kernel_tests, "--tileir-max-lines=6", "-k", "port_has_a_bug")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E*... * more lines (pytest --tileir-report-dir DIR writes the full report*"])


def test_assert_different_failure_gets_a_report(pytester, tmp_path):
    pytester.makepyfile(test_same=f'''
MMA = {str(MMA)!r}
MMA_13_3 = {str(MMA_13_3)!r}

def test_not_a_mutant(tileir):
    tileir.assert_different(MMA_13_3, MMA)
''')
    report_dir = tmp_path / "reports"
    result = run(pytester, f"--tileir-report-dir={report_dir}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E*tileir_diff.NotDifferent: expected a difference, got IDENTICAL: *"])
    doc = json.loads((report_dir / "test_same.py_test_not_a_mutant.json").read_text())
    assert doc["verdict"] == "identical"


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


def test_rules_option_is_the_clis(kernel_tests):
    # only the rules named run: dead-code is not among them, so the dead constant is a difference
    result = run(kernel_tests, "--tileir-rules=token-order,cse-pure-ops", "-k", "two_versions")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["tileir: 2 comparisons: 1 identical, 1 different"])
    result = run(kernel_tests, "--tileir-rules=dead-code,token-order,cse-pure-ops,empty-target-hints",
                 "-k", "two_versions")
    result.assert_outcomes(passed=1)


def test_bad_option_value_is_a_usage_error(kernel_tests):
    result = run(kernel_tests, "--tileir-execute=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tileir: execute mode must be one of auto, always, got 'sometimes'*"])


def test_no_summary_line_without_comparisons(pytester):
    pytester.makepyfile("def test_nothing():\n    assert True\n")
    result = run(pytester)
    result.assert_outcomes(passed=1)
    assert "tileir:" not in result.stdout.str()


def test_option_is_documented_in_help(pytester):
    result = run(pytester, "--help")
    result.stdout.fnmatch_lines(["*--tileir-report-dir=DIR*"])
    # the comparison options are those of `tileir-diff diff`, under the tileir- prefix
    from tileir_diff.options import DIFF_OPTIONS
    for name in DIFF_OPTIONS:
        result.stdout.fnmatch_lines([f"*--tileir-{name}*"])


def test_the_failure_says_each_thing_once(kernel_tests, tmp_path):
    report_dir = tmp_path / "reports"
    result = run(kernel_tests, f"--tileir-report-dir={report_dir}", "-k", "port_has_a_bug")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    message = [line for line in out.splitlines() if line.startswith("E ")]
    assert sum("index[0] and index[1] swapped" in line for line in message) == 1, message
    assert sum("DIFFERENT" in line for line in message) == 1, message
    # in the message, no extra section (pytest's own short summary repeats the message, in full
    # where CI is set: it is not the plugin's repetition)
    failure = out.split("short test summary info")[0]
    assert failure.count("test_kernels.py_test_port_has_a_bug.html") == 1
    assert "tileir reports" not in out


def test_reports_are_overwritten_per_test_id_across_runs(kernel_tests, tmp_path):
    report_dir = tmp_path / "reports"
    for _ in range(3):
        run(kernel_tests, f"--tileir-report-dir={report_dir}", "-k", "port_has_a_bug").assert_outcomes(failed=1)
    assert sorted(p.name for p in report_dir.iterdir()) == ["test_kernels.py_test_port_has_a_bug.html",
                                                            "test_kernels.py_test_port_has_a_bug.json"]


def test_colliding_safe_names_in_one_run_are_kept_apart(tmp_path):
    from tileir_diff.pytest_plugin import TileIRSession

    class Result:
        def to_html(self):
            return "<!DOCTYPE html>"

        def to_json(self):
            return "{}"
    session = TileIRSession(tmp_path, {})
    a = session.write_reports("t.py::test[a b]", Result())
    b = session.write_reports("t.py::test[a/b]", Result())
    again = session.write_reports("t.py::test[a b]", Result())
    assert a != b and a == again and len(set(tmp_path.iterdir())) == 4


@pytest.mark.parametrize("option, message", [
    ("--tileir-disable=no-such-rule", "*tileir: unknown normalization rule 'no-such-rule'*"),
    ("--tileir-rules=token-order,no-such-rule", "*tileir: unknown normalization rule 'no-such-rule'*"),
    ("--tileir-disable=version-defaults", "*tileir: rule 'version-defaults' cannot be switched off*"),
])
def test_a_bad_rule_name_is_one_usage_error_at_configure_time(kernel_tests, option, message):
    result = run(kernel_tests, option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("where", ["a_file", "/dev/null", "/proc/self"])
def test_an_unusable_report_dir_is_a_usage_error(kernel_tests, tmp_path, where):
    if where == "a_file":
        where = str(tmp_path / "a_file")
        Path(where).write_text("x")
    result = run(kernel_tests, f"--tileir-report-dir={where}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*tileir: --tileir-report-dir {where}: *"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
