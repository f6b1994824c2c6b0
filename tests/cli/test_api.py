"""The library API: diff, assert_equivalent / NotEquivalent, summarize."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.api import NotEquivalent, source_label

DATA = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "data"
MMA = DATA / "mma_f16_f32acc.v13_4.tileirbc"


def swapped_text():
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    return text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token")


def _fresh_python(code: str) -> str:
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                       env=dict(os.environ, PYTHONPATH=str(root)), timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_diff_stays_callable_after_the_engine_is_imported():
    # The engine lives in tileir_diff.compare, so importing it never shadows the function
    # tileir_diff.diff. Fresh interpreter: other tests have imported the engine already.
    out = _fresh_python(f"import tileir_diff; p = {str(MMA)!r}; "
                        "print(tileir_diff.diff(p, p).verdict, tileir_diff.diff(p, p).verdict)")
    assert out == "identical identical"


def test_diff_is_callable_when_the_engine_was_imported_first():
    out = _fresh_python(f"import tileir_diff.compare.result, tileir_diff; p = {str(MMA)!r}; "
                        "print(tileir_diff.diff(p, p).verdict)")
    assert out == "identical"


def test_assert_equivalent_returns_the_result_or_raises_with_the_text_report():
    result = tileir_diff.assert_equivalent(DATA / "mma_f16_f32acc.v13_3.tileirbc", MMA)
    assert result.verdict == "identical"  # the same kernel, encoded at 13.3 and 13.4
    with pytest.raises(AssertionError) as info:
        tileir_diff.assert_equivalent(MMA, swapped_text())
    err = info.value
    assert isinstance(err, NotEquivalent) and isinstance(err, tileir_diff.NotEquivalent)
    # first line: the first root cause; then the text report (short enough here to be whole), saying
    # nothing twice: its verdict header keeps the inputs, its root [1] points at the first line
    first, rest = str(err).split("\n", 1)
    assert first.startswith("DIFFERENT: memory: store_view_tko operands index[0] and index[1] swapped")
    report = err.result.to_text().rstrip("\n").splitlines()
    lines = rest.splitlines()
    assert len(lines) == len(report) and lines[0] == "  " + report[0].split(": ", 1)[1]
    assert "[1] (the first line)" in lines and first.endswith(report[lines.index("[1] (the first line)")][4:])
    assert all(a == b for a, b in zip(lines, report) if not a.startswith(("  ", "[1]")) or a == b)


def test_not_equivalent_message_is_cut_after_max_lines():
    result = tileir_diff.diff(MMA, swapped_text())
    whole = str(NotEquivalent(result, max_lines=None)).splitlines()
    cut = str(NotEquivalent(result, max_lines=5)).splitlines()
    assert len(whole) > 6 and cut[:5] == whole[:5]
    assert cut[5] == f"... {len(whole) - 5} more lines (pytest --tileir-report-dir DIR writes the full report; " \
                     "result.to_text() has it)"
    assert len(cut) == 6


def test_options_reach_the_engine():
    old = DATA / "mma_f16_f32acc.v13_3.tileirbc"
    assert tileir_diff.diff(old, MMA).verdict == "identical"
    assert tileir_diff.diff(old, MMA, rules=[]).verdict == "identical"  # version-defaults is always on
    with pytest.raises(ValueError, match="cannot be switched off"):
        tileir_diff.diff(old, MMA, disable=["version-defaults"])
    with pytest.raises(ValueError, match="no-such-rule"):
        tileir_diff.diff(MMA, MMA, disable=["no-such-rule"])


def test_bad_input_raises_format_error(tmp_path):
    bad = tmp_path / "x.tileirbc"
    bad.write_bytes(b"\x7fTileIR\x00\x0d")
    with pytest.raises(tileir_diff.TileIRFormatError) as info:
        tileir_diff.diff(bad, MMA)
    assert str(info.value).startswith(str(bad))


def test_summarize_and_source_labels():
    s = tileir_diff.summarize(MMA)
    assert s["source"] == str(MMA) and s["functions"][0]["mma"][0]["acc_dtype"] == "f32"
    assert tileir_diff.summarize(MMA.read_bytes())["functions"][0]["name"] == "mma_f16_f32acc"
    assert source_label(b"\x7fTileIR") == "<bytes>"
    assert source_label("entry @k() {\n}") == "<text>"
    assert source_label(MMA) == str(MMA)
