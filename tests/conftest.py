"""Shared fixtures: the decoder-oracle corpus, NVIDIA's tools, the exported reference suite."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.reference_build import built_reference_dir
from tileir_diff.tools import find_tool

CORPUS = Path(__file__).parent / "corpus" / "data"
RUST_CORPUS = Path(__file__).parent / "corpus" / "rust"  # cuTile Rust output (emit-ir)


def corpus_files(include_rust: bool = True):
    """Every corpus file: cuTile Python exports (13.1-13.4) and cuTile Rust output (13.3)."""
    files = sorted(CORPUS.glob("*.tileirbc"))
    return files + (sorted(RUST_CORPUS.glob("*.tileirbc")) if include_rust else [])


@pytest.fixture(scope="session")
def tileirdisasm():
    path = find_tool("tileirdisasm")
    if path is None:
        pytest.skip("tileirdisasm not installed (pip install nvidia-cuda-tileiras)")
    return path


def disassemble(tool: str, path) -> str:
    r = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"tileirdisasm failed on {path}: {r.stderr}"
    return r.stdout


def fresh_reference_bytecode(dest: Path, specs) -> list:
    """Fill ``dest`` (a temporary folder) with the bytecode of every variant of ``specs``: the built
    files copied (times kept, so that fresh ones count as up to date), the missing or stale ones
    exported there (when cuda.tile is installed). Returns the failed export records."""
    from tileir_diff.suite.export import artifact_paths, export_all
    built = built_reference_dir()
    for op in specs:
        for v in op.variants:
            src, _ = artifact_paths(v, built, archs=())
            if src.is_file():
                dst, _ = artifact_paths(v, dest, archs=())
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    if importlib.util.find_spec("cuda.tile") is None:
        return []
    return [r for r in export_all(specs, archs=(), build_root=dest, jobs=2) if not r.ok]


# Where the test time goes: the seconds of every test (setup, call and teardown) summed per tests/
# folder, printed after the run (`--durations=30` in scripts/test.sh names the slowest tests).
# Under pytest-xdist the controller receives every worker's reports, so the sums are worker seconds
# (their total is about the wall time times the number of workers). $TILEIR_TEST_TIMES names a JSON
# file to write them to (scripts/test.sh: scripts/ci_budget.py reads it).
_FOLDER_SECONDS: dict[str, float] = {}
_FOLDER_TESTS: dict[str, int] = {}


def _folder_of(nodeid: str) -> str:
    parts = nodeid.split("::", 1)[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else "(top level)"


def pytest_runtest_logreport(report):
    folder = _folder_of(report.nodeid)
    _FOLDER_SECONDS[folder] = _FOLDER_SECONDS.get(folder, 0.0) + report.duration
    if report.when == "setup":
        _FOLDER_TESTS[folder] = _FOLDER_TESTS.get(folder, 0) + 1


def pytest_terminal_summary(terminalreporter):
    if not _FOLDER_SECONDS:
        return
    total = sum(_FOLDER_SECONDS.values())
    terminalreporter.write_sep("=", f"test seconds per tests/ folder ({total:.0f} s in all)")
    for folder, seconds in sorted(_FOLDER_SECONDS.items(), key=lambda kv: (-kv[1], kv[0])):
        share = 100.0 * seconds / total if total else 0.0
        terminalreporter.write_line(f"{folder:<16} {seconds:8.1f} s {share:5.1f} %  {_FOLDER_TESTS.get(folder, 0):6d} tests")
    out = os.environ.get("TILEIR_TEST_TIMES")
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps({f: {"seconds": round(s, 2), "tests": _FOLDER_TESTS.get(f, 0)}
                                         for f, s in sorted(_FOLDER_SECONDS.items())}, indent=1) + "\n")



# pytest-xdist (scripts/test.sh runs `-n auto --dist loadfile`): a test file is one unit of work, so
# a module- or class-scoped fixture is built once, not once per worker (xdist_group marks do not
# work with pytest 9: xdist 3.8 cannot rename the test ids any more). The files holding a test
# marked `slow` are handed out first, so that no long file starts last and leaves the other
# workers idle. Only in a worker: a serial run keeps the file order.
def _module_of(item) -> str:
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items):
    if not hasattr(config, "workerinput"):
        return
    slow_modules = {_module_of(item) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: _module_of(item) not in slow_modules)  # stable: file order otherwise
