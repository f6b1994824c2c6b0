"""verify never lies by omission (issue 29): a stage the environment keeps from running says so in
its reason (not only in a log), is never cached nor replayed, never goes to a repair; cache keys
hold the environment; --no-cache recomputes; cargo reports progress; the text output says what
differs; ir_first runs the IR comparison before the Rust tests. No build needed."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tileir_diff.suite.catalog import load_catalog
from tileir_diff.verify import run as verify_run
from tileir_diff.verify import stages, workspace
from tileir_diff.verify.cache import BuildCache
from tileir_diff.verify.run import VerifyReport, run_order, verify_port
from tileir_diff.verify.stages import Context, StageResult, cached_result, pytest_environment_problem, run_stage
from tileir_diff.verify.workspace import Crate

SPEC = load_catalog(ops=["vector_add"])[0]


def _crate(root: Path) -> Crate:
    for rel, text in {"Cargo.toml": "[package]\n", "src/ops/vector_add/kernel.rs": "fn k() {}\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return Crate(root)


def _context(tmp_path: Path, cache: BuildCache) -> Context:
    return Context(SPEC, _crate(tmp_path / "crate"), None, tmp_path / "attempt", cache, lambda line: None)


def test_a_missing_pytest_is_the_reason_and_is_never_cached(tmp_path, monkeypatch):
    real = stages.importlib.util.find_spec
    monkeypatch.setattr(stages.importlib.util, "find_spec", lambda name, *a: None if name == "pytest" else real(name, *a))
    cache = BuildCache(tmp_path / "cache")
    result = run_stage("abi", _context(tmp_path, cache))
    assert result.status == "fail"
    assert result.reason.startswith("environment: pytest is not installed") and "pip install" in result.reason
    assert result.failure["environment"] and result.failure["message"] == result.reason
    assert not (tmp_path / "cache" / "abi").exists(), "an environment failure must not be stored"


def test_a_stored_environment_failure_is_not_replayed(tmp_path):
    cache = BuildCache(tmp_path / "cache")
    failure = {"message": "environment: x", "environment": "x"}
    cache.put("abi", "ab" * 32, result={"status": "fail", "reason": "environment: x", "failure": failure}, seconds=1.0)
    cache.put("abi", "cd" * 32, result={"status": "fail", "reason": "2 tests failed",
                                        "failure": {"message": "2 tests failed"}}, seconds=1.0)
    ctx = _context(tmp_path, cache)
    assert cached_result(ctx, "abi", "ab" * 32, lambda s: None) is None
    replayed = cached_result(ctx, "abi", "cd" * 32, lambda s: None)
    assert replayed is not None and replayed.reason == "2 tests failed"


@pytest.mark.parametrize("code, output, expect", [
    (1, "ImportError while importing test module\nE   ModuleNotFoundError: No module named 'torch'\n", "'torch'"),
    (2, "ERROR tests/rust/test_abi.py - SyntaxError\n1 error in 0.1s\n", "exit 2"),
    (4, "ERROR: file or directory not found: tests/rust/test_abi_x.py\n", "file or directory not found"),
])
def test_a_pytest_run_that_says_nothing_about_the_port_is_an_environment_failure(code, output, expect):
    result = pytest_environment_problem("abi", code, output)
    assert result is not None and result.reason.startswith("environment: ") and expect in result.reason


def test_failing_tests_are_not_an_environment_failure():
    assert pytest_environment_problem("abi", 1, "FAILED tests/rust/test_abi.py::test_x - assert 1 == 2\n"
                                                "1 failed, 3 passed in 0.2s\n") is None


def test_the_environment_is_part_of_the_keys(monkeypatch):
    before = workspace.environment_fingerprint()
    monkeypatch.setenv("TILEIR_CUBIN_DIR", "/somewhere/else")
    assert workspace.environment_fingerprint() != before
    monkeypatch.delenv("TILEIR_CUBIN_DIR")
    versions = dict(workspace._package_versions())
    monkeypatch.setattr(workspace, "_package_versions", lambda: {**versions, "pytest": "missing"})
    assert workspace.environment_fingerprint() != before  # installing pytest changes the key
    assert {"python", "executable", "packages", "toolchain", "env"} <= set(before)


def test_no_cache_recomputes_and_replaces(tmp_path):
    BuildCache(tmp_path).put("diff", "ef" * 32, result={"n": 1}, seconds=3.0)
    fresh = BuildCache(tmp_path, read=False)
    assert fresh.get("diff", "ef" * 32) is None and fresh.stats.misses == 1
    fresh.put("diff", "ef" * 32, result={"n": 2}, seconds=1.0)
    assert BuildCache(tmp_path).get("diff", "ef" * 32).result == {"n": 2}


def test_the_cli_takes_no_cache_and_ir_first(monkeypatch, tmp_path, capsys):
    from tileir_diff import cli
    seen = {}

    def fake(op, variant, **kwargs):
        seen.update(kwargs)
        return VerifyReport(op, variant, "pass", [], str(tmp_path), ["ir_compare"])
    monkeypatch.setattr("tileir_diff.verify.verify_port", fake)
    assert cli.main(["verify", "vector_add", "--no-cache", "--ir-first", "-q"]) == 0
    assert seen["use_cache"] is False and seen["ir_first"] is True


def test_cargo_reports_progress_while_it_builds(tmp_path, monkeypatch):
    fake_cargo = tmp_path / "cargo.py"
    fake_cargo.write_text("import sys, time\n"
                          "for name in ('a', 'b', 'c'):\n"
                          "    print(f'   Compiling {name} v1.0.0', file=sys.stderr, flush=True)\n"
                          "    time.sleep(0.05)\n"
                          "print('{\"reason\": \"build-finished\"}')\n")
    monkeypatch.setattr(workspace, "PROGRESS_EVERY_S", 0.0)
    lines = []
    r = workspace.run_with_progress([sys.executable, str(fake_cargo)], tmp_path, dict(workspace.os.environ),
                                    lines.append)
    assert r.returncode == 0 and "build-finished" in r.stdout and "Compiling c" in r.stderr
    assert any("3 crate(s) compiled, now c v1.0.0" in line for line in lines), lines
    assert lines[-1].startswith("cargo: done in")


def test_a_missing_cargo_is_a_build_error_not_a_crash(tmp_path):
    with pytest.raises(workspace.BuildError, match="cannot run") as info:
        workspace.run_with_progress([str(tmp_path / "no-such-cargo")], tmp_path, {}, lambda s: None)
    assert "cannot be run" in info.value.environment


@pytest.mark.parametrize("stage", ["cargo_test", "ir_compare"])
def test_a_build_the_environment_prevents_is_an_environment_failure(tmp_path, monkeypatch, stage):
    def no_cargo(self, log, progress=lambda s: None):
        raise workspace.BuildError("cannot run cargo: No such file or directory", "",
                                   environment="cargo cannot be run (No such file or directory)")
    monkeypatch.setattr(Crate, "build", no_cargo)
    monkeypatch.setattr(Crate, "fresh_for", lambda self, op: False)
    cache = BuildCache(tmp_path / "cache")
    result = run_stage(stage, _context(tmp_path, cache))
    assert result.status == "fail" and result.reason.startswith("environment: cargo cannot be run"), result.reason
    assert result.failure["environment"] and not (tmp_path / "cache" / stage).exists()


def _ir_failure_stage():
    rows = [{"variant": "tanh_f32", "verdict": "different", "status": "fail", "accepted": [], "rules_applied": {},
             "unexplained": [{"category": "constant", "message": "constant <f32: 0.044715> -> <f32: 0.04715>"},
                             {"category": "arith", "message": "mulf -> addf"}]},
            {"variant": "erf_f32", "verdict": "identical", "status": "pass", "accepted": [], "unexplained": [],
             "rules_applied": {}}]
    return {"name": "ir_compare", "index": 2, "status": "fail", "seconds": 1.0, "reason": "1 variant(s) differ",
            "artifacts": [], "details": {"variants": rows}, "cache": {}}


def test_the_text_says_what_differs_not_only_how_many():
    attempt = {"attempt": 1, "result": "fail", "stages": [_ir_failure_stage()]}
    text = VerifyReport("gelu", None, "fail", [attempt], "/tmp/x", ["ir_compare"]).to_text()
    assert "tanh_f32: different: constant: constant <f32: 0.044715> -> <f32: 0.04715> (+1 more)" in text
    assert "erf_f32" not in text  # a passing variant is not listed as a difference


def test_ir_first_moves_only_the_ir_comparison():
    every = ["cargo_test", "ir_compare", "tileiras", "abi", "numerics", "performance"]
    assert run_order(every, True) == ["ir_compare", "cargo_test", "tileiras", "abi", "numerics", "performance"]
    assert run_order(every, False) == every
    assert run_order(["cargo_test", "abi"], True) == ["cargo_test", "abi"]


def _fake_stages(monkeypatch, calls, results):
    def make(name):
        def stage(ctx):
            calls.append(name)
            return results.get(name) or StageResult(name, "pass")
        return stage
    monkeypatch.setattr(stages, "STAGE_FUNCTIONS", {name: make(name) for name in stages.STAGES})
    monkeypatch.setattr(verify_run, "prepare_ir", lambda ctx, name="ir_compare": None)


def test_an_environment_failure_goes_to_no_repair(tmp_path, monkeypatch):
    calls, asked = [], []
    _fake_stages(monkeypatch, calls, {"abi": stages.environment_failure("abi", "pytest is missing", "install it")})
    crate = _crate(tmp_path / "src" / "rust_kernels").root
    report = verify_port("vector_add", "f32_t1024", stages=["abi"], max_attempts=3, crate=crate,
                         repair=lambda request: asked.append(request) or "fn k() {}",
                         workdir=tmp_path / "work")
    assert report.result == "fail" and report.exit_code == 1 and not asked and len(report.attempts) == 1
    assert "environment: pytest is missing" in report.to_text()


def test_the_report_follows_the_run_order(tmp_path, monkeypatch):
    calls = []
    _fake_stages(monkeypatch, calls, {})
    crate = _crate(tmp_path / "src" / "rust_kernels").root
    report = verify_port("vector_add", "f32_t1024", stages=["cargo_test", "ir_compare"], crate=crate,
                         workdir=tmp_path / "work", ir_first=True)
    assert calls == ["ir_compare", "cargo_test"]
    assert [s["name"] for s in report.attempts[0]["stages"]] == ["ir_compare", "cargo_test"]
    assert json.loads(report.to_json())["stages"] == ["ir_compare", "cargo_test"]


def test_the_agent_loop_says_which_stage_caught_the_fault():
    import importlib.util
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("_agent_loop_caught", root / "examples" / "agent_loop.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    attempts = [{"failed_stage": "ir_compare", "failure": {"message": "1 variant(s) differ: tanh_f32\nmore"}},
                {"failed_stage": None, "failure": None}]
    assert module.caught_by(attempts) == {"stage": "ir_compare", "message": "1 variant(s) differ: tanh_f32"}
    assert module.caught_by([{"failed_stage": None, "failure": None}])["stage"] == "-"


def test_verify_takes_the_root_its_hint_names(tmp_path, capsys):
    from tileir_diff import cli
    assert cli.main(["verify", "vector_add", "--root", str(tmp_path)]) == 2
    assert f"{tmp_path}: no reference/ folder there (from --root)" in capsys.readouterr().err


def test_analyze_without_cuda_tile_names_the_extra(monkeypatch, tmp_path):
    import importlib.util

    from tileir_diff.verify import analyze as analyze_module
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "cuda.tile" else real(name, *a))
    root = Path(__file__).resolve().parents[2]
    with pytest.raises(analyze_module.AnalyzeError, match=r"cuda.tile is not installed: .*tileir_diff\[tools\]"):
        analyze_module.analyze(root / "reference" / "vector_add" / "kernel.py", cache_root=tmp_path)


def test_analyze_caches_in_the_user_cache_outside_a_checkout(monkeypatch, tmp_path):
    from tileir_diff import paths
    from tileir_diff.verify.analyze import default_cache_root
    monkeypatch.setattr(paths, "find_root", lambda explicit=None: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_root() == tmp_path / "tileir_diff" / "analyze"
