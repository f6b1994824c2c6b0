"""What a whole-process diff leaves out (docs/performance.md, "Session 18: imports"): a diff
without a root difference imports no fold and not the proof step's encoder (check/smt.py), and
no diff calls ``compile()`` (the first call of a process builds the AST types, ~9 M instructions:
typing's NamedTuple class form does it for each string annotation). Each case runs in a process
of its own, as the CLI does."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# compile() calls outside the import system (which compiles a module whose cached bytecode is
# stale or not written), then the diff as the CLI's main runs it, then what was imported
_CHILD = r"""
import builtins, contextlib, io, json, sys
calls = []
real = builtins.compile
def counting(*args, **kwargs):
    if not sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
        calls.append(repr(args[0])[:60])
    return real(*args, **kwargs)
builtins.compile = counting
from tileir_diff import cli
with contextlib.redirect_stdout(io.StringIO()):
    code = cli.main(["diff", sys.argv[1], sys.argv[2]])
print(json.dumps({"exit": code, "compile": calls, "smt": "tileir_diff.check.smt" in sys.modules,
                  "folds": sorted(m for m in sys.modules if m.startswith("tileir_diff.compare.folds."))}))
"""


def _run(left: Path, right: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(left), str(right)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_diff_without_differences_imports_no_fold_nor_the_encoder():
    data = ROOT / "tests/corpus/data"
    got = _run(data / "annotated_int64.v13_3.tileirbc", data / "annotated_int64.v13_4.tileirbc")
    assert got["exit"] == 0, got
    assert got == {"exit": 0, "compile": [], "smt": False, "folds": ["tileir_diff.compare.folds.base"]}, got


def test_a_diff_with_differences_finds_the_folds_and_calls_no_compile():
    left = sorted((ROOT / "tests/corpus/third_party_style").glob("*.left.tir"))[0]
    got = _run(left, Path(str(left).replace(".left.", ".right.")))
    assert got["exit"] in (1, 3, 4), got
    assert got["compile"] == [], got
    # every fold module, found on first use (compare/folds/__init__.py)
    modules = {p.stem for p in (ROOT / "tileir_diff/compare/folds").glob("*.py")} - {"__init__"}
    assert got["folds"] == sorted(f"tileir_diff.compare.folds.{m}" for m in modules), got
