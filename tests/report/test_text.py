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


def test_word_diff_marks_only_the_changed_tokens_with_colour():
    from tileir_diff.report.color import colorize_report
    report = ("DIFFERENT: a vs b (1 root difference)\n"
              "[1] arith: op mulf -> addf\n"
              "    - f0/o17: %3 = mulf %1, %2  : tile<128xf32>    @ k.py:12:8\n"
              "    + f0/o17: %3 = addf %1, %2  : tile<128xf32>\n")
    minus, plus = colorize_report(report).split("\n")[2:4]
    assert minus == "\x1b[31m    - f0/o17: %3 = \x1b[7mmulf\x1b[27m %1, %2  : tile<128xf32>    @ k.py:12:8\x1b[0m"
    assert plus == "\x1b[32m    + f0/o17: %3 = \x1b[7maddf\x1b[27m %1, %2  : tile<128xf32>\x1b[0m"
    # an absent side has nothing to compare with: the line is coloured whole
    lone = colorize_report("    - (absent on this side)\n    + f0/o3: %1 = addf %0, %0\n").split("\n")
    assert "\x1b[7m" not in "".join(lone) and lone[1].startswith("\x1b[32m")


def test_word_diff_is_off_without_colour(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    kernel = root / "tests" / "corpus" / "data" / "float_arith.v13_4.tileirbc"
    text_ir = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "dump", str(kernel)], capture_output=True,
                             text=True, check=True).stdout
    port = tmp_path / "port.tileir"
    port.write_text(text_ir.replace("%3 = mulf %1, %2 ", "%3 = addf %1, %2 ", 1))
    colour = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(kernel), str(port), "--color=always"],
                            capture_output=True, text=True, cwd=root).stdout
    plain = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(kernel), str(port), "--color=never"],
                           capture_output=True, text=True, cwd=root).stdout
    assert "\x1b[7maddf\x1b[27m" in colour and "\x1b" not in plain
    assert "+ f0/o17: %3 = addf %1, %2" in plain
