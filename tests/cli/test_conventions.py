"""Conventions shared by the commands (issue 29): -f/--format everywhere (--json kept as an alias),
--compact JSON, an unwritable -o is one line, unknown names get close suggestions,
--ignore-category marks a category accepted the way --accept does."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests" / "corpus" / "data" / "float_arith.v13_4.tileirbc"


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def mutant(tmp_path_factory):
    text = cli("dump", KERNEL).stdout
    path = tmp_path_factory.mktemp("conventions") / "mutant.tileir"
    path.write_text(text.replace("%3 = mulf %1, %2 ", "%3 = addf %1, %2 ", 1))
    return path


@pytest.mark.parametrize("args", [("dump", KERNEL), ("summary", KERNEL), ("diff", KERNEL, KERNEL),
                                  ("suite", "list", "--op", "vector_add")])
def test_format_and_compact_json_on_every_command(args):
    pretty, compact = cli(*args, "-f", "json"), cli(*args, "--format", "json", "--compact")
    assert pretty.returncode == compact.returncode == 0, pretty.stderr + compact.stderr
    assert pretty.stdout.count("\n") > 3 and compact.stdout.count("\n") == 1
    a, b = json.loads(pretty.stdout), json.loads(compact.stdout)
    for doc in (a, b):
        if isinstance(doc, dict):  # suite list prints a list
            doc.pop("stats", None)  # timings
    assert a == b


def test_verify_and_analyze_take_format_and_keep_json(tmp_path):
    common = ("verify", "vector_add", "f32_t1024", "--stages", "performance", "--workdir", tmp_path, "-q")
    old, new = cli(*common, "--json"), cli(*common, "-f", "json", "--compact")
    assert old.returncode == new.returncode and old.stdout.count("\n") > 3 and new.stdout.count("\n") == 1
    assert json.loads(old.stdout)["kind"] == json.loads(new.stdout)["kind"] == "verify_report"
    for command in ("analyze", "diff"):
        help_text = cli(command, "--help").stdout
        assert "-f {" in help_text and "--json" in help_text and "--compact" in help_text
    for command in ("list", "export", "status", "sass"):
        help_text = cli("suite", command, "--help").stdout
        assert "-f {" in help_text and "--compact" in help_text, command
    assert "-o PATH, --output PATH, --json PATH" in cli("suite", "sass", "--help").stdout


def test_an_unwritable_output_is_one_line(tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "out.txt"
    for args in (("dump", KERNEL), ("summary", KERNEL), ("diff", KERNEL, KERNEL)):
        r = cli(*args, "-o", target)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr.splitlines() == [f"tileir-diff {args[0]}: error: cannot write {target}: "
                                         "No such file or directory"], r.stderr


def test_unknown_names_get_close_suggestions():
    r = cli("suite", "list", "--op", "softmx")
    assert r.returncode == 2 and "no such op(s): 'softmx' (did you mean 'softmax'?)" in r.stderr
    r = cli("verify", "vectoradd")
    assert r.returncode == 2 and "(did you mean 'vector_add'?)" in r.stderr.splitlines()[-1]
    r = cli("verify", "vector_add", "--stages", "numeric")
    assert r.returncode == 2 and "did you mean numerics?" in r.stderr.splitlines()[-1]
    r = cli("suite", "list", "--op", "qqqq")
    assert r.returncode == 2 and "known ops: " in r.stderr and "vector_add" in r.stderr


def test_ignore_category_accepts_that_category_only(mutant):
    assert cli("diff", KERNEL, mutant, "-q").returncode == 1
    r = cli("diff", KERNEL, mutant, "--ignore-category", "arith", "-f", "json", "--no-lines")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "different" and doc["accepted_from"] == "--ignore-category"  # the claim is unchanged
    assert all(d["accepted"]["file"] == "--ignore-category" for d in doc["differences"] if d["category"] == "arith")
    assert cli("diff", KERNEL, mutant, "--ignore-category", "memory,hints", "-q").returncode == 1
    r = cli("diff", KERNEL, mutant, "--ignore-category", "arth")
    assert r.returncode == 2 and "did you mean arith?" in r.stderr.splitlines()[-1]
