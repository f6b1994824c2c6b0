"""Markdown report: structure and neutralised input strings."""
from __future__ import annotations

import re

from tests.report.builders import EVIL
from tileir_diff.report import render
from tileir_diff.report.markdown import code, text


def test_structure(different_result):
    md = render(different_result, "markdown")
    assert md.startswith("## tileir-diff: **different**")
    assert "### Root differences (2)" in md
    assert "1. **mma** — mma operand dtype f16 vs bf16" in md
    assert "| `cse` | 3 |" in md
    assert md.index("Root differences") < md.index("Rules applied") < md.index("### Summary")
    assert "| ≠ | `mmaf 64x32·32x64 f16·f16 -> f32 acc=iter_0` |" in md


def test_code_spans_survive_backticks_and_pipes():
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("x | y") == "`x \\| y`"


def test_plain_text_cannot_inject_markup(evil_result):
    md = render(evil_result, "markdown")
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", md)  # drop code spans (literal in Markdown)
    assert "<script>" not in outside_code
    assert text(EVIL) == "&lt;script&gt;alert('x')&lt;/script&gt;"
    assert text("*bold* [link](x)") == "\\*bold\\* \\[link\\](x)"
