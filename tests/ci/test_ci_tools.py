"""The CI tooling of scripts/test.sh: the phase timer, the budget check, and the stamp that lets
tests/rust reuse the IR rust_kernels/build_ports.sh emitted."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rust.conftest import CRATE, crate_sources

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("ci_budget", ROOT / "scripts" / "ci_budget.py")
ci_budget = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ci_budget)


def _phases(tmp_path, text: str) -> Path:
    path = tmp_path / "phases.tsv"
    path.write_text(text)
    return path


def test_a_phase_over_its_budget_fails_only_when_enforced(tmp_path, capsys, monkeypatch):
    phases = _phases(tmp_path, "ruff\t2.0\t1.5\t0\npytest\t1250.0\t2400.0\t0\ntotal\t1300.0\t\t0\n")
    monkeypatch.delenv("TILEIR_CI_BUDGET", raising=False)
    assert ci_budget.main([str(phases)]) == 0
    assert "warning: phase 'pytest' took 1250 s, over its budget of 1200 s" in capsys.readouterr().err
    monkeypatch.setenv("TILEIR_CI_BUDGET", "enforce")
    assert ci_budget.main([str(phases)]) == 1
    out = capsys.readouterr()
    assert "FAILED: phase 'pytest'" in out.err and "'ruff'" not in out.err
    assert "pytest         1250.0   2400.0      1200     104 %  ok" in out.out
    assert ci_budget.main([str(phases), "--report-only"]) == 0


def test_a_phase_without_a_budget_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TILEIR_CI_BUDGET", "enforce")
    assert ci_budget.main([str(_phases(tmp_path, "new-step\t1.0\t0.5\t0\n"))]) == 1
    assert "phase 'new-step' has no budget in .ci/budget.tsv" in capsys.readouterr().err


def test_within_budget_passes_and_a_failed_phase_shows(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TILEIR_CI_BUDGET", "enforce")
    assert ci_budget.main([str(_phases(tmp_path, "mypy\t30.0\t28.0\t1\n"))]) == 0
    assert "failed: 1" in capsys.readouterr().out


def test_a_malformed_phase_file_is_a_one_line_error(tmp_path, capsys):
    assert ci_budget.main([str(_phases(tmp_path, "ruff 2.0\n"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "phases.tsv:1: expected 4 tab-separated fields" in err


def test_every_phase_test_sh_times_has_a_budget():
    budget = ci_budget.read_budget(ROOT / ".ci" / "budget.tsv")
    named = set()
    for script in ("scripts/test.sh", "rust_kernels/build_ports.sh"):
        for line in (ROOT / script).read_text().splitlines():
            words = line.split()
            if words[:1] == ["phase"] and len(words) > 1:
                named.add(words[1])
    assert named and named | {"total"} <= set(budget), sorted(named - set(budget))
    # the failing threshold: 45 min (the goal, 30 min, is measured and stated in README; a fresh CI
    # machine's install and cold downloads must not block a landing), far inside CI's 90
    assert budget["total"] <= 2700


def test_phase_prints_and_logs_seconds_and_keeps_the_status(tmp_path):
    log = tmp_path / "phases.tsv"
    script = f'source {ROOT / "scripts" / "phase_times.sh"}; TILEIR_PHASE_LOG={log}; ' \
             f'phase spin {sys.executable} -c "sum(range(3000000))"; phase broken false || echo "status $?"'
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("phase spin: ") and lines[0].endswith(" s)")
    assert "failed: status 1" in lines[1] and lines[2] == "status 1"
    rows = [line.split("\t") for line in log.read_text().splitlines()]
    assert [(row[0], row[3]) for row in rows] == [("spin", "0"), ("broken", "1")]
    assert float(rows[0][1]) >= 0 and float(rows[0][2]) > 0  # the child's CPU seconds are counted


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="no sha256sum")
def test_the_ir_stamp_is_computed_alike_in_bash_and_python(tmp_path):
    """build_ports.sh writes the stamp with scripts/crate_sources.sh; tests/rust/conftest.py reuses
    build/rust only when its own digest is the same text: they must agree, and see an edit."""
    r = subprocess.run(["bash", str(ROOT / "scripts" / "crate_sources.sh"), str(CRATE)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == crate_sources(CRATE) and len(r.stdout.splitlines()) > 10
    copy = tmp_path / "crate"
    for name in ("src", "build.rs", "Cargo.toml", "Cargo.lock"):
        src = CRATE / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, copy / name)
    before = crate_sources(copy)
    (copy / "src" / "lib.rs").write_text((copy / "src" / "lib.rs").read_text() + "\n// edited\n")
    after = crate_sources(copy)
    assert before != after and before.splitlines()[1:] != after.splitlines()[1:]
    r = subprocess.run(["bash", str(ROOT / "scripts" / "crate_sources.sh"), str(copy)], capture_output=True,
                       text=True, timeout=60)
    assert r.stdout == after
