"""Every script in examples/ runs and prints what its docstring promises."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)


def test_every_example_is_covered():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    # agent_loop.py builds the crate: tests/verify/test_agent_loop.py runs it (marker cargo)
    assert scripts == {"diff_two_files.py", "summarize_kernel.py", "read_json_report.py", "test_with_fixture.py",
                       "agent_loop.py"}


def test_diff_two_files():
    r = run(EXAMPLES / "diff_two_files.py")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("verdict: identical")  # 13.3 vs 13.4: the same IR, encoded twice


def test_diff_two_files_reports_a_difference():
    data = ROOT / "tests" / "corpus" / "data"
    r = run(EXAMPLES / "diff_two_files.py", data / "mma_f16_f32acc.v13_4.tileirbc", data / "mma_bf16.v13_4.tileirbc")
    assert r.returncode == 1 and "verdict: different" in r.stdout and "[signature]" in r.stdout


def test_summarize_kernel():
    r = run(EXAMPLES / "summarize_kernel.py")
    assert r.returncode == 0, r.stderr
    assert "mma: 64x32 @ 32x64, f16 -> f32" in r.stdout and "load  [bid.x, loopIdx]" in r.stdout


def test_read_json_report():
    r = run(EXAMPLES / "read_json_report.py")
    assert r.returncode == 0, r.stderr
    assert "verdict: different (exit status 1)" in r.stdout
    assert "- reduction: " in r.stdout and "identities=[1.000000e+00 : f32]" in r.stdout


def test_fixture_example():
    args = [] if _plugin_installed() else ["-p", "tileir_diff.pytest_plugin"]
    r = run("-m", "pytest", "-q", "-p", "no:cacheprovider", *args, EXAMPLES / "test_with_fixture.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout and "tileir: 2 comparisons: 1 identical, 1 different" in r.stdout


def _plugin_installed() -> bool:
    import importlib.metadata
    return any(e.value == "tileir_diff.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11"))
