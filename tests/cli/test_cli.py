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


def run_cli(*args, stdin=None, env=None):
    """The CLI in a fresh interpreter, as a user runs it (stderr and exit status included)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", *map(str, args)], capture_output=True,
                          text=stdin is None or isinstance(stdin, str), input=stdin, env=env, cwd=ROOT, timeout=120)


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


def test_list_rules_gives_whole_descriptions_as_plain_text():
    from tileir_diff.normalize import REGISTRY
    r = run_cli("diff", "--list-rules")
    assert r.returncode == 0
    names = [line.split()[0] for line in r.stdout.splitlines() if line and not line.startswith(" ")]
    assert names == list(REGISTRY)
    assert "`" not in r.stdout  # no RST marks
    # the whole description, not its first 99 characters: every paragraph's last words are there
    flat = " ".join(r.stdout.split())
    for rule in REGISTRY.values():
        for paragraph in rule.doc().strip().split("\n\n"):
            tail = " ".join(paragraph.replace("`", "").split()[-4:])
            assert tail in flat, (rule.name, tail)


def test_dash_reads_standard_input(mutant):
    r = run_cli("diff", MMA, "-", stdin=mutant.read_text())
    assert r.returncode == 1 and r.stdout.startswith(f"DIFFERENT: {MMA} vs <stdin> ")
    r = run_cli("dump", "-", stdin=MMA.read_bytes())
    assert r.returncode == 0 and r.stdout.decode() == tileir_diff.print_module(tileir_diff.load(MMA))
    r = run_cli("summary", "-f", "json", "-", stdin=MMA.read_bytes())
    assert r.returncode == 0 and json.loads(r.stdout)["source"] == "<stdin>"
    r = run_cli("summary", "-", stdin="entry garbage")
    assert r.returncode == 2 and r.stderr.startswith("<stdin>: offset 1:")
    r = run_cli("diff", "-", "-", stdin="")
    assert r.returncode == 2 and "only one input can be -" in r.stderr


def test_dump_has_short_format_option():
    r = run_cli("dump", "-f", "json", MMA)
    assert r.returncode == 0 and json.loads(r.stdout)["format"] == "tileir_diff.ir"



def test_dump_normalized_prints_what_the_rules_leave(tmp_path):
    """The softmax port's 89 printed lines less what the rules absorbed (duplicate and dead
    constants, implied assumes); the result still reads back and is equivalent to the file."""
    port = ROOT / "tests" / "corpus" / "rust" / "softmax.f32_row_m4_n1024.tileirbc"
    plain, normalized = run_cli("dump", port), run_cli("dump", port, "--normalized")
    assert plain.returncode == normalized.returncode == 0
    assert len(normalized.stdout.splitlines()) < len(plain.stdout.splitlines())
    constants = [line for line in normalized.stdout.splitlines() if " = constant " in line]
    assert len(constants) == len(set(line.split(" = ", 1)[1] for line in constants))  # deduplicated
    out = tmp_path / "normalized.tileir"
    out.write_text(normalized.stdout)
    assert tileir_diff.diff(port, out).verdict == "equivalent"
    only_dead = run_cli("dump", port, "--normalized", "--rules", "dead-code")
    assert len(plain.stdout.splitlines()) > len(only_dead.stdout.splitlines()) > len(normalized.stdout.splitlines())


def test_rule_names_are_checked_with_a_suggestion():
    r = run_cli("dump", MMA, "--rules", "dead-code")
    assert r.returncode == 2 and r.stderr.splitlines()[-1].endswith("choose the rules of --normalized; add it")
    r = run_cli("diff", MMA, MMA, "--disable", "commutativ-operands")
    assert r.returncode == 2 and r.stderr.splitlines()[-1] == (
        "tileir-diff diff: error: unknown normalization rule 'commutativ-operands' "
        "(did you mean 'commutative-operands' or 'neutral-operands'?)")
    r = run_cli("dump", MMA, "--normalized", "--rules", "xyzzy")
    assert r.returncode == 2 and "unknown normalization rule 'xyzzy'; known rules: ssa-renaming," in r.stderr
    r = run_cli("dump", MMA, "--normalized", "--disable", "version-defaults")
    assert r.returncode == 2 and "cannot be switched off" in r.stderr and "Traceback" not in r.stderr


def test_errors_show_the_subcommands_usage():
    r = run_cli("dump", MMA, MMA)
    assert r.returncode == 2 and r.stderr.startswith("usage: tileir-diff dump ")
    assert "tileir-diff dump: error: unrecognized arguments" in r.stderr
    r = run_cli("diff", MMA)  # found after parsing, by the subcommand
    assert r.returncode == 2 and r.stderr.startswith("usage: tileir-diff diff ")
    assert r.stderr.splitlines()[-1] == "tileir-diff diff: error: diff needs two inputs: tileir-diff diff LEFT RIGHT"
    r = run_cli("suite", "export", "--bogus")
    assert r.returncode == 2 and r.stderr.startswith("usage: tileir-diff suite export ")


def test_color_modes_and_no_color(mutant):
    plain = run_cli("diff", MMA, mutant)  # not a terminal: auto means no colour
    assert plain.returncode == 1 and "\x1b[" not in plain.stdout
    coloured = run_cli("diff", MMA, mutant, "--color=always")
    assert coloured.stdout.startswith("\x1b[31mDIFFERENT\x1b[0m: ")
    assert "\x1b[31m    - f0/o27:" in coloured.stdout and "\x1b[32m    + f0/o27:" in coloured.stdout
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.stdout) == plain.stdout  # colour only, same text
    assert run_cli("--color=always", "diff", MMA, mutant).stdout == coloured.stdout
    assert run_cli("diff", MMA, mutant, "--color=never").stdout == plain.stdout
    assert run_cli("diff", MMA, mutant, "--color=always", env={"NO_COLOR": "1"}).stdout == coloured.stdout


def test_color_auto_follows_the_terminal_and_no_color(monkeypatch):
    import io
    from tileir_diff.report.color import use_color

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_color("auto", Terminal()) and not use_color("auto", io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto", Terminal()) and use_color("always", io.StringIO())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no effect (no-color.org)
    assert use_color("auto", Terminal())


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
