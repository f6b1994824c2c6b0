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
    outside_code = re.sub(r"^ *(`{3,})diff\n.*?^ *\1$", "", md, flags=re.M | re.S)  # fenced blocks: literal
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", outside_code)  # code spans: literal too
    assert "<script>" not in outside_code
    assert text(EVIL) == "&lt;script&gt;alert('x')&lt;/script&gt;"
    assert text("*bold* [link](x)") == "\\*bold\\* \\[link\\](x)"


def test_both_sides_are_a_diff_block_not_bullets(different_result):
    md = render(different_result, "markdown")
    blocks = re.findall(r"^   (`{3,})diff\n(.*?)^   \1$", md, flags=re.M | re.S)
    assert len(blocks) == len(different_result.differences)
    for _, body in blocks:
        signs = [line[3] for line in body.splitlines()]
        assert signs == ["-", "+"], body
    assert not re.search(r"^   [-+] `", md, flags=re.M)  # the old list-item form


def test_a_diff_block_cannot_be_closed_by_the_kernel_text():
    from types import SimpleNamespace

    from tileir_diff.report.markdown import diff_block
    side = SimpleNamespace(op_id="f0/o1", text='print_tko "```\n# heading"', location=None)
    block = diff_block(SimpleNamespace(left=side, right=None))
    fence = block[1].strip()[:-len("diff")]
    assert len(fence) > 3 and all(fence not in line for line in block[2:-1])
    assert len(block) == 5 and "\\x0a" in block[2]  # the newline escaped: one line


def test_an_equivalent_verdict_says_written_differently(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import tileir_diff
    root = Path(__file__).resolve().parents[2]
    kernel = root / "tests" / "corpus" / "data" / "float_arith.v13_4.tileirbc"
    text_ir = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "dump", str(kernel)], capture_output=True,
                             text=True, check=True, cwd=root).stdout.splitlines()
    at = next(i for i, line in enumerate(text_ir) if "= addf" in line)
    text_ir.insert(at, "  %deadx = addf %tile, %tile_8  : tile<128xf32>")  # a dead op: the rules absorb it
    port = tmp_path / "port.tileir"
    port.write_text("\n".join(text_ir) + "\n")
    result = tileir_diff.diff(kernel, port)
    assert result.verdict == "equivalent"
    for fmt in ("text", "markdown"):
        out = render(result, fmt)
        assert "written differently in op" in out and "absorbed by the rules: " in out, fmt
        assert "differs in" not in out and "≠" not in out, fmt
    # without the rules that absorb it, the pair is different and keeps the words of a difference
    different = tileir_diff.diff(kernel, port, disable=["dead-code", "cse-pure-ops"])
    assert different.verdict == "different"
    assert "differs in" in render(different, "text") and "written differently" not in render(different, "markdown")
