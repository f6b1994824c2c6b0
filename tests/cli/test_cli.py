"""`tileir-diff diff` / `summary`: exit statuses, formats, output files, one-line errors."""
from __future__ import annotations

import re

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.cli import main
from tileir_diff.report import json_schema

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "data"
MMA = CORPUS / "mma_f16_f32acc.v13_4.tileirbc"


def run_cli(*args):
    """The CLI in a fresh interpreter, as a user runs it (stderr and exit status included)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


@pytest.fixture(scope="module")
def mutant(tmp_path_factory):
    """The matmul printed as text with its store index swapped (one memory root difference)."""
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    swapped = text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token")
    assert swapped != text
    path = tmp_path_factory.mktemp("cli") / "swapped.tileir"
    path.write_text(swapped)
    return path


def test_identical_exits_0(capsys):
    assert main(["diff", str(MMA), str(MMA)]) == 0
    assert capsys.readouterr().out.startswith("IDENTICAL: ")


def test_bytecode_vs_its_own_text_is_identical(tmp_path, capsys):
    text = tmp_path / "same.tileir"
    text.write_text(tileir_diff.print_module(tileir_diff.load(MMA)))
    assert main(["diff", str(MMA), str(text), "-q"]) == 0
    assert capsys.readouterr().out == ""


def test_different_exits_1_with_root_cause_first(mutant, capsys):
    assert main(["diff", str(MMA), str(mutant)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("DIFFERENT: ") and "(1 root difference" in lines[0]
    assert any(l.startswith("[1] memory: ") for l in lines[:6])


def test_json_output_file_validates(mutant, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["diff", str(MMA), str(mutant), "--format", "json", "-o", str(out)]) == 1
    assert capsys.readouterr().out == ""
    doc = json.loads(out.read_text())
    assert json_schema.validate(doc) == []
    assert doc["verdict"] == "different" and [d["category"] for d in doc["differences"]] == ["memory"]


@pytest.mark.parametrize("fmt, marker", [("html", "<!DOCTYPE html>"), ("markdown", "## tileir-diff: **different**")])
def test_other_formats(mutant, fmt, marker, capsys):
    assert main(["diff", str(MMA), str(mutant), "-f", fmt]) == 1
    assert capsys.readouterr().out.startswith(marker)


def test_disabling_a_rule_turns_equivalent_into_different(tmp_path, capsys):
    # The same kernel at 13.3 and 13.4 is identical (version-defaults is always on); a copy
    # with a dead constant needs dead-code.
    old, new = CORPUS / "mma_f16_f32acc.v13_3.tileirbc", MMA
    assert main(["diff", str(old), str(new), "-q"]) == 0
    assert main(["diff", str(old), str(new), "-q", "--disable", "version-defaults"]) == 2
    lines = run_cli("dump", MMA).stdout.splitlines()
    lines.insert(1, "  %dead = constant <i32: 7> : tile<i32>")
    dead = tmp_path / "dead.tileir"
    dead.write_text("\n".join(lines) + "\n")
    assert main(["diff", str(MMA), str(dead), "-q"]) == 0
    assert main(["diff", str(MMA), str(dead), "-q", "--disable", "dead-code"]) == 1


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.tileirbc"
    bad.write_bytes(b"\x7fTileIR\x00\x0d\x03\x00\x00\x99")
    r = run_cli("diff", bad, MMA)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"{bad}: offset ")


def test_missing_file_and_usage_errors_exit_2(tmp_path):
    r = run_cli("diff", tmp_path / "nope.tileirbc", MMA)
    assert r.returncode == 2 and "nope.tileirbc: cannot read" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("diff", MMA)
    assert r.returncode == 2 and "two inputs" in r.stderr
    r = run_cli("diff", MMA, MMA, "--format", "pdf")
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = run_cli("diff", MMA, MMA, "--disable", "no-such-rule")
    assert r.returncode == 2 and "no-such-rule" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("diff", MMA, MMA, "-o", tmp_path / "missing-dir" / "r.txt")
    assert r.returncode == 2 and "cannot write" in r.stderr
    r = run_cli()
    assert r.returncode == 2


def test_list_rules():
    r = run_cli("diff", "--list-rules")
    assert r.returncode == 0
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert "version-defaults" in names and "commutative-operands" in names


def test_summary_text_and_json(tmp_path):
    r = run_cli("summary", MMA)
    assert r.returncode == 0
    assert "mmaf 64x32·32x64 f16·f16 -> f32" in r.stdout and "load [bid.x, loopIdx]" in r.stdout
    out = tmp_path / "s.json"
    r = run_cli("summary", MMA, "--format", "json", "-o", out)
    assert r.returncode == 0 and r.stdout == ""
    doc = json.loads(out.read_text())
    assert doc["functions"][0]["mma"][0]["m"] == 64
    r = run_cli("summary", tmp_path / "nope")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_help_lists_commands_and_exit_codes():
    r = run_cli("--help")
    assert r.returncode == 0
    for word in ("diff", "summary", "exit status"):
        assert word in r.stdout


def test_summary_does_not_import_the_engine():
    # Fast startup: summary must not pull in networkx or the matcher.
    code = ("import sys; from tileir_diff.cli import main; main(['summary', %r]);"
            "print('networkx' in sys.modules, 'tileir_diff.match' in sys.modules)" % str(MMA))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert r.stdout.strip().splitlines()[-1] == "False False"
