"""Text report: verdict line first, root causes before everything else, compact."""
from __future__ import annotations

from tests.report.builders import EVIL
from tileir_diff.compare.result import DiffResult, MatchStats
from tileir_diff.report import FORMATS, render


def test_root_differences_come_first_with_both_sides(different_result):
    text = render(different_result, "text")
    lines = text.splitlines()
    assert lines[0].startswith("DIFFERENT: left.tileirbc vs right.tileirbc (2 root differences, 2 affected ops)")
    first_diff = next(i for i, l in enumerate(lines) if l.startswith("[1] mma: mma operand dtype f16 vs bf16"))
    assert first_diff < next(i for i, l in enumerate(lines) if l.startswith("rules applied"))
    d = different_result.differences[0]
    assert f"- {d.left.op_id}: {d.left.text}    @ k.py:12:9" in text
    assert f"+ {d.right.op_id}: {d.right.text}" in text
    assert "affected downstream: f0/o26, f0/o27" in text
    assert "+ (absent on this side)" in text  # the left-only store
    assert "rules applied: cse ×3, dead-code ×2" in text


def test_affected_list_is_capped(different_result):
    text = render(different_result, "text", max_affected=1)
    assert "affected downstream: f0/o26 (+1 more)" in text


def test_summary_section_shows_what_differs(different_result):
    text = render(different_result, "text")
    assert "mma:" in text and "f16·f16" in text and "bf16·bf16" in text
    assert "only left: 32x64xf16, 64x32xf16" in text
    assert "summary" not in render(different_result, "text", summary=False)


def test_equivalent_and_unknown_verdicts(different_result):
    eq = DiffResult("equivalent", [], {"constant-dedup": 4}, None, "a", "b", (), [], MatchStats())
    text = eq.to_text()
    assert text.startswith("EQUIVALENT: a vs b") and "root differences" not in text
    assert "constant-dedup ×4" in text
    unknown = DiffResult("unknown", [], {}, None, "a", "b", (), [], MatchStats(), reason="vf2 budget of 1000 states hit")
    assert "unknown because: vf2 budget of 1000 states hit" in unknown.to_text()


def test_every_format_renders_from_to_dict_round_trip(different_result):
    again = DiffResult.from_dict(different_result.to_dict())
    for fmt in FORMATS:
        assert render(again, fmt) == render(different_result, fmt)


def test_unknown_format_is_refused(different_result):
    import pytest
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        render(different_result, "pdf")


def test_text_keeps_strings_verbatim(evil_result):
    # Plain text is not markup: names appear as written (escaping belongs to HTML/Markdown).
    assert f"@{EVIL}" in render(evil_result, "text")
