"""The library API: diff, assert_equivalent / NotEquivalent, summarize."""
from __future__ import annotations

from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.api import NotEquivalent, source_label

DATA = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "data"
MMA = DATA / "mma_f16_f32acc.v13_4.tileirbc"


def swapped_text():
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    return text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token")


def test_diff_stays_callable_after_the_engine_is_imported():
    # The subpackage tileir_diff.diff shares the function's name; calling twice must work.
    assert tileir_diff.diff(MMA, MMA).verdict == "identical"
    assert tileir_diff.diff(MMA, MMA.read_bytes()).verdict == "identical"
    assert callable(tileir_diff.diff)


def test_assert_equivalent_returns_the_result_or_raises_with_the_text_report():
    result = tileir_diff.assert_equivalent(DATA / "mma_f16_f32acc.v13_3.tileirbc", MMA)
    assert result.verdict == "equivalent" and result.rules_applied
    with pytest.raises(AssertionError) as info:
        tileir_diff.assert_equivalent(MMA, swapped_text())
    err = info.value
    assert isinstance(err, NotEquivalent) and isinstance(err, tileir_diff.NotEquivalent)
    assert str(err) == err.result.to_text()
    assert str(err).startswith("DIFFERENT: ") and "[1] memory: " in str(err)


def test_options_reach_the_engine():
    old = DATA / "mma_f16_f32acc.v13_3.tileirbc"
    assert tileir_diff.diff(old, MMA, disable=["version-defaults"]).verdict == "different"
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
