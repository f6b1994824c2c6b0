"""``diff(..., execute=True)`` and ``tileir-diff diff --execute``: the execution object in the
result, the JSON report (schema-valid) and the text/markdown/HTML sections."""
from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from tileir_diff import load
from tileir_diff.api import diff
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.report.json_schema import validate
from tileir_diff.suite.catalog import repo_root

from ..compare.transforms import MUTATIONS

KERNEL = repo_root() / "tests" / "corpus" / "data" / "reduce_builtin_float.v13_4.tileirbc"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    m = load(str(KERNEL))
    mutant = MUTATIONS["op-kind"][1](m, random.Random(0)) or MUTATIONS["swap-noncommutative"][1](m, random.Random(0))
    if mutant is None:
        mutant = MUTATIONS["reduce-combiner"][1](m, random.Random(0))
    d = tmp_path_factory.mktemp("pair")
    right = d / "right.tileirbc"
    right.write_bytes(write_bytecode(mutant, tuple(m.version)))
    return str(KERNEL), str(right)


def test_execute_off_by_default(pair):
    r = diff(*pair)
    assert r.verdict == "different" and r.execution is None
    assert r.to_dict()["execution"] is None


def test_execute_reports_a_counterexample(pair):
    r = diff(*pair, execute=True, trials=8, seed=3)
    ex = r.execution.to_dict()
    assert ex["status"] == "diverged" and ex["seed"] == 3
    cex = ex["counterexample"]
    assert cex["kind"] == "values" and cex["left"] != cex["right"]
    assert cex["inputs"]["arrays"] and cex["inputs"]["grid"]
    assert validate(r.to_dict()) == []
    text = r.to_text()
    assert "execution (auto): diverged" in text and "first difference" in text
    assert "Execution (diverged)" in r.to_html()
    assert "### Execution" in r.to_markdown()


def test_identical_pair_is_not_executed():
    r = diff(str(KERNEL), str(KERNEL), execute=True)
    assert r.verdict == "identical" and r.execution is None


def test_cli_execute_json(pair):
    out = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", *pair, "--execute", "--trials", "4",
                          "--seed", "1", "-f", "json"], capture_output=True, text=True, cwd=repo_root())
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["execution"]["status"] == "diverged"
    assert report["execution"]["trials"] <= 4


def test_cli_rejects_zero_trials(pair):
    out = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", *pair, "--execute", "--trials", "0"],
                         capture_output=True, text=True, cwd=repo_root())
    assert out.returncode == 2 and "--trials" in out.stderr
