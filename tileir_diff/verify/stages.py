"""The six verification stages of a port, in order; each returns a StageResult and never raises
for a failure of the port (only for a bug of its own).

1. ``cargo_test``  the op's standalone Rust tests (``<op>_*`` of tests/abi.rs and tests/variants.rs)
2. ``ir_compare``  emitted Tile IR vs the Python reference IR (accepted differences, specialized)
3. ``tileiras``    the port's bytecode compiled for sm_90 and sm_100
4. ``abi``         the C ABI and the Python wrapper: tests/rust/test_abi*.py and test_fake_driver.py
                   selected by the op (every rejection path; launch words against a stand-in driver)
5. ``numerics``    a GPU run against ref.py when a CUDA device is present, else the port's IR in the
                   CPU interpreter on ref.py's recorded fixtures (small shapes), at analysis.json
                   tolerances
6. ``performance`` GPU only: device time of the port and of the reference, and their ratio
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from tileir_diff.progress import Eta
from tileir_diff.suite.catalog import OpSpec, VariantSpec, repo_root

from .cache import BuildCache, CacheStats
from .workspace import (BuildError, Crate, environment_fingerprint, missing_module, package_fingerprint, rust_env,
                        sha256_bytes, sha256_json, tool_version, write_if_changed)

STAGES = ("cargo_test", "ir_compare", "tileiras", "abi", "numerics", "performance")
ARCHS = ("sm_90", "sm_100")
SUBPROCESS_TIMEOUT_S = 1800
COUNTEREXAMPLE_TRIALS = 8


@dataclass
class StageResult:
    name: str
    status: str  # pass | fail | skip
    seconds: float = 0.0
    reason: str = ""
    artifacts: List[str] = field(default_factory=list)
    details: Dict[str, Any] = field(default_factory=dict)
    failure: Optional[Dict[str, Any]] = None  # what a repair needs: message, and per stage its data
    cache: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "index": STAGES.index(self.name) + 1, "status": self.status,
                "seconds": round(self.seconds, 3), "reason": self.reason, "artifacts": list(self.artifacts),
                "details": self.details, "cache": self.cache}


@dataclass
class Context:
    spec: OpSpec
    crate: Crate
    variant: Optional[str]
    attempt_dir: Path
    cache: BuildCache
    progress: Callable[[str], None]
    variants: List[VariantSpec] = field(default_factory=list)  # filled by ir_compare
    port_ir: Dict[str, Path] = field(default_factory=dict)  # variant -> emitted bytecode
    cubins: Dict[str, Dict[str, Path]] = field(default_factory=dict)

    def log_path(self, stage: str) -> Path:
        path = self.attempt_dir / "logs" / f"{stage}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def logger(self, stage: str) -> Callable[[str], None]:
        path = self.log_path(stage)

        def log(text: str) -> None:
            with open(path, "a", encoding="utf-8") as f:
                f.write(text if text.endswith("\n") else text + "\n")
        return log

    @property
    def op(self) -> str:
        return self.spec.op


def _stats_delta(cache: BuildCache, before: CacheStats) -> Dict[str, Any]:
    now = cache.stats
    return {"hits": now.hits - before.hits, "misses": now.misses - before.misses,
            "seconds_saved": round(now.seconds_saved - before.seconds_saved, 3)}


def _snapshot(cache: BuildCache) -> CacheStats:
    s = cache.stats
    return CacheStats(s.hits, s.misses, s.seconds_saved)


def run_stage(name: str, ctx: Context) -> StageResult:
    before = _snapshot(ctx.cache)
    t0 = time.monotonic()
    result = STAGE_FUNCTIONS[name](ctx)
    result.seconds = time.monotonic() - t0
    result.cache = _stats_delta(ctx.cache, before)
    log = ctx.log_path(name)
    if log.is_file():
        result.artifacts.insert(0, str(log))
    return result


def environment_failure(stage: str, what: str, fix: str, output: str = "") -> StageResult:
    """The stage could not run here: ``what`` is missing or broken in the environment. A failure
    of the verification (nothing is claimed about the port), said in the reason itself, never
    cached (the key would replay it after the environment is fixed) and never handed to a repair
    (a kernel edit cannot fix it)."""
    msg = f"environment: {what}; {fix} (the stage did not run: nothing is claimed about the port)"
    failure: Dict[str, Any] = {"message": msg, "environment": what}
    if output:
        failure["test_output"] = _tail(output, 6000)
    return StageResult(stage, "fail", reason=msg, details={"environment": what}, failure=failure)


def needs_pytest(stage: str) -> Optional[StageResult]:
    """An environment failure when pytest cannot be imported by the Python running the stage."""
    if importlib.util.find_spec("pytest") is not None:
        return None
    return environment_failure(stage, f"pytest is not installed for {sys.executable}",
                               "pip install 'tileir_diff[test]' (or pytest) and run verify again")


def pytest_environment_problem(stage: str, returncode: int, output: str) -> Optional[StageResult]:
    """A pytest run that says nothing about the port: a module the tests import is missing, or
    pytest stopped before any test ran (exit 2 interrupted / 3 internal error / 4 usage error)."""
    module = missing_module(output)
    if module is not None and returncode != 0:
        return environment_failure(stage, f"the tests need the Python module {module!r}, which is not installed "
                                          f"for {sys.executable}", f"install it (pip install {module.split('.')[0]})",
                                   output)
    if returncode in (2, 3, 4):
        first = next((line for line in output.splitlines() if line.startswith(("E ", "ERROR", "INTERNALERROR"))),
                     _last_line(output))
        return environment_failure(stage, f"pytest stopped before running the tests (exit {returncode}): {first}",
                                   "see the stage log", output)
    return None


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def cached_result(ctx: Context, stage: str, key: str, log) -> Optional[StageResult]:
    """A whole stage's outcome from the cache (stages whose result is a test run, not a file);
    an environment failure is never replayed (none is stored; an older entry is ignored)."""
    hit = ctx.cache.get(stage, key)
    if hit is None:
        return None
    if (hit.result.get("failure") or {}).get("environment"):
        log(f"cache entry {stage} {key[:16]} holds an environment failure: not replayed")
        return None
    log(f"cache hit {stage} {key[:16]}: {hit.result.get('summary')}")
    return StageResult(stage, hit.result["status"], reason=hit.result.get("reason", ""),
                       details={**hit.result.get("details", {}), "cached": True}, failure=hit.result.get("failure"))


# --- 1. cargo test -----------------------------------------------------------------------------------

def ensure_built(ctx: Context, log: Callable[[str], None]) -> None:
    if ctx.crate.fresh_for(ctx.op):
        log(f"binaries are current for {ctx.op}'s sources: no cargo build")
        return
    ctx.progress(f"cargo build: the binaries are not current for {ctx.op}'s sources (tens of seconds; "
                 "a first build of the crate takes several minutes)")
    ctx.crate.build(log, ctx.progress)


def stage_cargo_test(ctx: Context) -> StageResult:
    log = ctx.logger("cargo_test")
    key = sha256_json({"op": ctx.op, "sources": ctx.crate.op_hash(ctx.op, with_tests=True),
                       "environment": environment_fingerprint()})
    cached = cached_result(ctx, "cargo_test", key, log)
    if cached is not None:
        return cached
    t0 = time.monotonic()
    try:
        ensure_built(ctx, log)
    except BuildError as e:
        log(e.log)
        if e.environment:
            return environment_failure("cargo_test", e.environment, "install the Rust toolchain (rustup) or fix "
                                       "the set-up, then run verify again")
        # A build error is not cached: it may come from the environment (a missing tool).
        msg = f"the crate does not build: {e}{_first_error(e.log)}"
        return StageResult("cargo_test", "fail", reason=msg,
                           failure={"message": msg, "compiler_error": _tail(e.log, 6000)})
    exes = ctx.crate.executables()
    env = {**os.environ, "TILEIR_TEST_OP": ctx.op}
    ran: Dict[str, List[str]] = {}
    failed: List[str] = []
    output = []
    for target, exe in sorted(exes.items()):
        listing = subprocess.run([exe, "--list", "--format", "terse"], capture_output=True, text=True, env=env,
                                 cwd=ctx.crate.root, timeout=SUBPROCESS_TIMEOUT_S)
        names = [line.rsplit(": ", 1)[0] for line in listing.stdout.splitlines() if line.endswith(": test")]
        mine = [n for n in names if n.startswith(ctx.op + "_")]
        if not mine:
            continue
        ran[target] = mine
        ctx.progress(f"cargo test {target}: {len(mine)} test(s) of {ctx.op}")
        r = subprocess.run([exe, "--exact", *mine, "--test-threads", "2"], capture_output=True, text=True, env=env,
                           cwd=ctx.crate.root, timeout=SUBPROCESS_TIMEOUT_S)
        log(f"$ {exe} --exact {' '.join(mine)}\n{r.stdout}\n{r.stderr}")
        output.append(r.stdout + r.stderr)
        if r.returncode != 0:
            failed += [line.split()[1] for line in r.stdout.splitlines() if line.startswith("test ") and
                       line.rstrip().endswith("FAILED")] or [target]
    total = sum(len(v) for v in ran.values())
    failure: Optional[Dict[str, Any]]
    if total == 0:
        status, reason = "fail", f"no Rust test is named {ctx.op}_* in tests/abi.rs or tests/variants.rs"
        failure = {"message": reason}
    elif failed:
        reason = f"{len(failed)} of {total} Rust test(s) failed: {', '.join(failed)}"
        status = "fail"
        failure = {"message": reason, "failed_tests": failed, "test_output": _tail("\n".join(output), 6000)}
    else:
        status, reason, failure = "pass", "", None
    details = {"tests": ran, "failed": failed}
    ctx.cache.put("cargo_test", key, result={"status": status, "reason": reason, "details": details,
                                              "failure": failure, "summary": f"{total} tests, {len(failed)} failed"},
                  seconds=time.monotonic() - t0, inputs={"op": ctx.op})
    return StageResult("cargo_test", status, reason=reason, details=details, failure=failure)


def _first_error(log: str) -> str:
    """``: <the compiler's first error line>`` for a reason (the whole log is in the stage's log)."""
    line = next((x.strip() for x in log.splitlines() if x.lstrip().startswith("error")), "")
    return f": {line[:300]}" if line else ""


def _tail(text: str, n: int) -> str:
    return text if len(text) <= n else "...\n" + text[-n:]


# --- 2. IR comparison ------------------------------------------------------------------------------

def _emit(ctx: Context, log) -> Dict[str, Path]:
    """The op's (or the one variant's) emitted bytecode, from the cache or emit-ir."""
    out = ctx.attempt_dir / "build" / ctx.op
    out.mkdir(parents=True, exist_ok=True)
    key = sha256_json({"op": ctx.op, "variant": ctx.variant or "*", "sources": ctx.crate.op_hash(ctx.op),
                       "options": "default", "environment": environment_fingerprint()})
    hit = ctx.cache.get("ir", key)
    if hit is None:
        t0 = time.monotonic()
        ensure_built(ctx, log)
        cmd = [str(ctx.crate.emit_ir), "--op", ctx.op, "--out", str(out.parent)]
        if ctx.variant:
            cmd += ["--variant", ctx.variant]
        ctx.progress(f"emit-ir {ctx.op}{'/' + ctx.variant if ctx.variant else ''}")
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ctx.crate.root, timeout=SUBPROCESS_TIMEOUT_S)
        log(f"$ {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
        if r.returncode != 0:
            raise BuildError(f"emit-ir exited {r.returncode}", r.stderr[-20000:] or r.stdout[-20000:])
        files = {p.name: p for p in sorted(out.iterdir()) if p.suffix in (".tileirbc", ".json")}
        ctx.cache.put("ir", key, result={"variants": sorted(p.stem for p in files.values() if p.suffix == ".tileirbc")},
                      seconds=time.monotonic() - t0, files=files, inputs={"op": ctx.op, "variant": ctx.variant})
    else:
        log(f"cache hit ir {key[:16]}")
        for p in hit.folder.iterdir():
            if p.name != "entry.json":
                (out / p.name).write_bytes(p.read_bytes())
    return {p.stem: p for p in sorted(out.glob("*.tileirbc"))}


def _reference_ir(ctx: Context, v: VariantSpec, log) -> Path:
    from tileir_diff.suite.export import artifact_paths, export_variant
    path, _ = artifact_paths(v, archs=())
    rec = export_variant(ctx.spec, v, archs=())  # up to date: a stat; else cuda.tile exports it
    if not rec.ok:
        raise BuildError(f"exporting the reference {ctx.op}/{v.name} failed", "\n".join(rec.errors))
    log(f"reference {v.name}: {path} ({rec.bytecode_status})")
    return path


def prepare_ir(ctx: Context, stage: str = "ir_compare") -> Optional[StageResult]:
    """Emit the port's IR into the attempt (cache or emit-ir) and pair it with analysis.json
    variants; a failed StageResult when that is impossible. Later stages need it even when
    ``ir_compare`` itself is not selected."""
    if ctx.port_ir:
        return None
    log = ctx.logger(stage)
    try:
        emitted = _emit(ctx, log)
    except BuildError as e:
        log(e.log)
        if e.environment:
            return environment_failure(stage, e.environment, "install the Rust toolchain (rustup) or fix the set-up, "
                                       "then run verify again")
        msg = f"emit-ir failed: {e}{_first_error(e.log)}"
        return StageResult(stage, "fail", reason=msg, failure={"message": msg, "compiler_error": _tail(e.log, 6000)})
    known = {v.name: v for v in ctx.spec.variants}
    unknown = sorted(set(emitted) - set(known))
    msg = ""
    if ctx.variant and ctx.variant not in emitted:
        msg = f"the port has no variant {ctx.variant!r} (it has: {', '.join(sorted(emitted)) or 'none'})"
    elif unknown:
        msg = f"variants not in reference/{ctx.op}/analysis.json: {', '.join(unknown)}"
    elif not emitted:
        msg = f"emit-ir wrote no variant of {ctx.op}"
    if msg:
        return StageResult(stage, "fail", reason=msg, failure={"message": msg})
    ctx.variants = [known[name] for name in sorted(emitted)]
    ctx.port_ir = dict(emitted)
    return None


def stage_ir_compare(ctx: Context) -> StageResult:
    from tileir_diff.suite.accept import abi_checked, apply_accepted, port_passes
    log = ctx.logger("ir_compare")
    failed = prepare_ir(ctx)
    if failed is not None:
        return failed
    known = {v.name: v for v in ctx.spec.variants}
    emitted = ctx.port_ir
    diff_dir = ctx.attempt_dir / "diff"
    diff_dir.mkdir(exist_ok=True)
    rows, artifacts, failing = [], [], []
    accepted = list(ctx.spec.accepted_differences)
    eta = Eta()
    for i, v in enumerate(ctx.variants, 1):
        ctx.progress(f"ir_compare {i}/{len(ctx.variants)}: {v.name}{eta.line(i, len(ctx.variants))}")
        try:
            ref = _reference_ir(ctx, v, log)
        except BuildError as e:
            log(e.log)
            detail = _last_line(e.log) if e.log.strip() else ""
            msg = f"the reference IR of {v.name} is not available: {e}{': ' + detail if detail else ''}"
            return StageResult("ir_compare", "fail", reason=msg, failure={"message": msg, "export_error": e.log})
        port_bytes = emitted[v.name].read_bytes()
        from tileir_diff.suite.launch_facts import facts_for
        launch = facts_for(ctx.spec, v, str(ctx.spec.analysis_path))
        key = sha256_json({"ref": sha256_bytes(ref.read_bytes()), "port": sha256_bytes(port_bytes),
                           "accepted": accepted, "abi_checked": list(ctx.spec.abi_checked_preconditions),
                           "launch": launch, "variant": v.name,
                           "code": package_fingerprint(), "environment": environment_fingerprint()})
        hit = ctx.cache.get("diff", key)
        json_path, html_path = diff_dir / f"{v.name}.json", diff_dir / f"{v.name}.html"
        if hit is not None:
            json_path.write_bytes(hit.file("diff.json").read_bytes())
            html_path.write_bytes(hit.file("diff.html").read_bytes())
            row = hit.result
        else:
            t0 = time.monotonic()
            from tileir_diff.api import diff
            from tileir_diff.errors import TileIRFormatError
            try:
                result = diff(ref, emitted[v.name], launch=launch)
            except TileIRFormatError as e:
                msg = f"{v.name}: the emitted IR does not read: {e}"
                return StageResult("ir_compare", "fail", reason=msg, failure={"message": msg})
            # marked as `tileir-diff diff --accept` marks them: the reports say what is accepted
            result, _ = apply_accepted(result, accepted, v.name, str(ctx.spec.analysis_path))
            ok = port_passes(result)
            checked, rest = abi_checked(result, ctx.spec.abi_checked_preconditions, v.name)
            open_roots = [] if result.verdict == "specialized" else rest
            acc = [{"category": d.category, "message": d.message, "accepted_as": d.accepted["what"]}
                   for d in result.differences if d.accepted is not None]
            unexplained = [{"category": d.category, "message": d.message} for d in open_roots]
            row = {"variant": v.name, "verdict": result.verdict, "status": "pass" if ok else "fail", "accepted": acc,
                   "abi_checked": [{"category": d.category, "message": d.message, "checked_as": e["what"]}
                                   for d, e in checked],
                   "unexplained": unexplained, "rules_applied": dict(result.rules_applied)}
            json_path.write_text(result.to_json(), encoding="utf-8")
            html_path.write_text(result.to_html(), encoding="utf-8")
            ctx.cache.put("diff", key, result=row, seconds=time.monotonic() - t0,
                          files={"diff.json": json_path, "diff.html": html_path}, inputs={"variant": v.name})
        rows.append(dict(row))
        artifacts += [str(json_path), str(html_path)]
        log(f"{v.name}: {row['verdict']} ({row['status']}; {len(row['accepted'])} accepted, "
            f"{len(row['unexplained'])} unexplained)")
        if row["status"] != "pass":
            failing.append(v.name)
    details = {"variants": rows}
    if not failing:
        return StageResult("ir_compare", "pass", artifacts=artifacts, details=details)
    first = next(r for r in rows if r["status"] != "pass")
    roots = first["unexplained"]
    what = f" (first: {roots[0]['category']}: {roots[0]['message']})" if roots else ""
    failure = {"message": f"{len(failing)} variant(s) differ from the reference: {', '.join(failing)}{what}",
               "variant": first["variant"], "verdict": first["verdict"],
               "differences": first["unexplained"],
               "first_divergence": first["unexplained"][0] if first["unexplained"] else None,
               "diff_json": str(diff_dir / f"{first['variant']}.json"),
               "diff_html": str(diff_dir / f"{first['variant']}.html")}
    full = json.loads((diff_dir / f"{first['variant']}.json").read_text())
    failure["diff"] = {k: full.get(k) for k in ("verdict", "reason", "differences", "summary")}
    cex = _counterexample(ctx, known[first["variant"]], log)
    if cex is not None:
        path = ctx.attempt_dir / "counterexample.json"
        path.write_text(json.dumps(cex, indent=1), encoding="utf-8")
        failure["counterexample"] = cex
        artifacts.append(str(path))
    return StageResult("ir_compare", "fail", reason=failure["message"], artifacts=artifacts, details=details,
                       failure=failure)


def _counterexample(ctx: Context, v: VariantSpec, log) -> Optional[Dict[str, Any]]:
    """Both kernels on generated inputs in the interpreter: a concrete input where they differ."""
    from tileir_diff.api import diff
    ctx.progress(f"ir_compare: looking for a counterexample on {v.name} (interpreter)")
    try:
        from tileir_diff.suite.export import artifact_paths
        ref, _ = artifact_paths(v, archs=())
        # through diff: the interpreter runs both on the argument mapping the structural diff proved
        result = diff(str(ref), str(ctx.port_ir[v.name]), execute="always", trials=COUNTEREXAMPLE_TRIALS, seed=0,
                      execute_options={"time_budget": 60.0}, with_summary=False, with_lines=False)
    except Exception as e:  # noqa: BLE001 - the interpreter's limits are not the port's failure
        log(f"counterexample search stopped: {type(e).__name__}: {e}")
        return None
    data = result.execution.to_dict() if result.execution is not None else {}
    log(f"counterexample search: {data.get('status')}" + (f" ({data['could_not_check']})" if data.get("could_not_check") else ""))
    valid = data.get("status") == "diverged" and (data.get("counterexample") or {}).get("valid") is True
    return data if valid else None


# --- 3. tileiras -------------------------------------------------------------------------------------

def stage_tileiras(ctx: Context) -> StageResult:
    from tileir_diff.suite.export import ExportError, ToolNotFound, compile_cubin, find_tileiras
    log = ctx.logger("tileiras")
    try:
        tileiras = find_tileiras()
    except ToolNotFound as e:
        return StageResult("tileiras", "skip", reason=str(e))
    version = tool_version(str(tileiras), "--version")
    artifacts: List[str] = []
    compiled: Dict[str, Any] = {}
    errors: List[Dict[str, str]] = []
    shipped = _shipped_cubin_dir(ctx)
    total = len(ctx.port_ir) * len(ARCHS)
    done = 0
    eta = Eta()
    for name, bytecode in sorted(ctx.port_ir.items()):
        for arch in ARCHS:
            done += 1
            out = bytecode.with_name(f"{name}.{arch}.cubin")
            key = sha256_json({"bytecode": sha256_bytes(bytecode.read_bytes()), "arch": arch, "tileiras": version})
            hit = ctx.cache.get("cubin", key)
            if hit is not None:
                out.write_bytes(hit.file("cubin").read_bytes())
            else:
                ctx.progress(f"tileiras {done}/{total}: {name} {arch}{eta.line(done, total)}")
                t0 = time.monotonic()
                try:
                    compile_cubin(tileiras, bytecode, arch, out)
                except ExportError as e:
                    errors.append({"variant": name, "arch": arch, "compiler_error": str(e)})
                    (ctx.attempt_dir / "compiler").mkdir(exist_ok=True)
                    (ctx.attempt_dir / "compiler" / f"{name}.{arch}.log").write_text(str(e), encoding="utf-8")
                    log(f"{name} {arch}: FAILED {e}")
                    continue
                ctx.cache.put("cubin", key, result={}, seconds=time.monotonic() - t0, files={"cubin": out},
                              inputs={"variant": name, "arch": arch})
            compiled.setdefault(name, {})[arch] = out
            artifacts.append(str(out))
            if shipped is not None and arch == "sm_90":  # unchanged bytes keep the ABI library fresh
                write_if_changed(shipped / f"{name}.{arch}.cubin", out.read_bytes())
    ctx.cubins = compiled
    details = {"tileiras": version, "compiled": {n: sorted(a) for n, a in compiled.items()}, "failed": errors}
    if errors:
        msg = f"tileiras failed on {len(errors)} of {total} compile(s)"
        return StageResult("tileiras", "fail", reason=msg, artifacts=artifacts, details=details,
                           failure={"message": msg, "compiler_error": errors[0]["compiler_error"], "errors": errors})
    return StageResult("tileiras", "pass", artifacts=artifacts, details=details)


def _shipped_cubin_dir(ctx: Context) -> Optional[Path]:
    """Where the copy's build.rs looks for cubins to embed (<copy>/../build/rust/<op>); None in place."""
    if not ctx.crate.is_copy:
        return None
    folder = ctx.crate.root.parent / "build" / "rust" / ctx.op
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- 4. C ABI and the Python wrapper ---------------------------------------------------------------

def abi_tests(root: Path) -> List[str]:
    """The C ABI and wrapper test files: tests/rust/test_abi*.py (rejection paths, one file per
    group of ops) and test_fake_driver.py (the launch path against a stand-in libcuda)."""
    files = sorted(p.relative_to(root).as_posix() for p in (root / "tests" / "rust").glob("test_abi*.py"))
    return files + ["tests/rust/test_fake_driver.py"]


def stage_abi(ctx: Context) -> StageResult:
    log = ctx.logger("abi")
    root = repo_root()
    tests = abi_tests(root)
    test_files = [root / t for t in tests] + [root / "tests" / "rust" / "conftest.py",
                                              root / "tests" / "rust" / "fake_libcuda.c"]
    ports = sorted((root / "tileir_diff" / "ports").glob("*.py"))
    key = sha256_json({"op": ctx.op, "sources": ctx.crate.op_hash(ctx.op),
                       "tests": [sha256_bytes(p.read_bytes()) for p in test_files if p.is_file()],
                       "ports": [sha256_bytes(p.read_bytes()) for p in ports], "code": package_fingerprint(),
                       "environment": environment_fingerprint()})
    cached = cached_result(ctx, "abi", key, log)
    if cached is not None:
        return cached
    missing = needs_pytest("abi")
    if missing is not None:
        return missing
    t0 = time.monotonic()
    env = rust_env()
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    if ctx.crate.is_copy:
        env["TILEIR_PORTS_CRATE"] = str(ctx.crate.root)
        # the copy's cubins (shipped ones, then stage 3's), whatever $TILEIR_CUBIN_DIR the caller set
        env["TILEIR_CUBIN_DIR"] = str(ctx.crate.root.parent / "build" / "rust")
    report = ctx.attempt_dir / "abi-junit.xml"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not gpu", "-k", ctx.op,
           f"--junitxml={report}", *tests]
    ctx.progress(f"abi: {' '.join(cmd[3:])} (builds the ABI library when its sources changed)")
    r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S)
    log(f"$ {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    unable = pytest_environment_problem("abi", r.returncode, r.stdout + "\n" + r.stderr)
    if unable is not None:
        return unable
    summary = _last_line(r.stdout) if r.stdout.strip() else _last_line(r.stderr)
    failed = [line.split(" ", 1)[1].split(" - ")[0] for line in r.stdout.splitlines() if line.startswith("FAILED ")]
    details = {"summary": summary, "failed": failed}
    if r.returncode == 5:
        status, reason = "fail", f"no ABI or wrapper test selects {ctx.op} (-k {ctx.op}) in {', '.join(tests)}"
    elif r.returncode != 0:
        status, reason = "fail", f"ABI / wrapper tests failed: {summary}"
    else:
        status, reason = "pass", ""
    failure = None if status == "pass" else {"message": reason, "failed_tests": failed,
                                              "test_output": _tail(r.stdout, 8000)}
    ctx.cache.put("abi", key, result={"status": status, "reason": reason, "details": details, "failure": failure,
                                       "summary": summary}, seconds=time.monotonic() - t0, inputs={"op": ctx.op})
    return StageResult("abi", status, reason=reason, artifacts=[str(report)] if report.is_file() else [],
                       details=details, failure=failure)


# --- 5. numerics ------------------------------------------------------------------------------------

def cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return bool(torch.cuda.is_available())


def stage_numerics(ctx: Context) -> StageResult:
    if cuda_available():
        return _numerics_gpu(ctx)
    return _numerics_interpreter(ctx)


def _numerics_interpreter(ctx: Context) -> StageResult:
    from tileir_diff import load
    from tileir_diff.verify.fixtures import FIXTURES, manifest, run_fixture_on
    log = ctx.logger("numerics")
    recorded = manifest()
    rows, failing, skipped = [], [], []
    eta = Eta()
    for i, v in enumerate(ctx.variants, 1):
        key_name = f"{ctx.op}/{v.name}"
        entry = recorded["fixtures"].get(key_name)
        if entry is None:
            why = recorded.get("skipped", {}).get(key_name, {}).get("reason", "no fixture recorded")
            skipped.append({"variant": v.name, "reason": why})
            continue
        ctx.progress(f"numerics {i}/{len(ctx.variants)}: {v.name} in the interpreter, shape {entry['shape']}"
                     f"{eta.line(i, len(ctx.variants))}")
        port = ctx.port_ir[v.name]
        key = sha256_json({"port": sha256_bytes(port.read_bytes()), "fixture": entry["sha256"], "variant": v.name,
                           "tolerances": v.tolerances, "code": package_fingerprint(),
                           "environment": environment_fingerprint()})
        hit = ctx.cache.get("numerics", key)
        if hit is not None:
            report = hit.result
        else:
            t0 = time.monotonic()
            try:
                report = run_fixture_on(v, entry["file"], load(str(port)), folder=FIXTURES)
            except ImportError as e:  # the environment's, not the port's: said, not cached
                return environment_failure("numerics", f"the interpreter needs the Python module {e.name or e!s}",
                                           f"install it for {sys.executable}")
            except Exception as e:  # noqa: BLE001 - an interpreter error on the port is its failure, with the reason
                report = {"passed": False, "error": f"{type(e).__name__}: {e}", "shape": entry["shape"]}
            report = json.loads(json.dumps(report, default=str))
            ctx.cache.put("numerics", key, result=report, seconds=time.monotonic() - t0, inputs={"variant": v.name})
        report = {"variant": v.name, **report}
        rows.append(report)
        log(json.dumps(report))
        if not report.get("passed"):
            failing.append(report)
    details = {"mode": "interpreter", "where": "CPU: the NumPy interpreter on ref.py's recorded fixtures "
                                              "(tests/interp/fixtures, one small shape per variant); no CUDA device",
               "variants": rows, "skipped": skipped}
    if failing:
        first = failing[0]
        msg = f"{len(failing)} variant(s) disagree with ref.py in the interpreter: " + \
              ", ".join(f["variant"] for f in failing)
        path = ctx.attempt_dir / "numerics-counterexample.json"
        path.write_text(json.dumps(first, indent=1), encoding="utf-8")
        return StageResult("numerics", "fail", reason=msg, details=details, artifacts=[str(path)],
                           failure={"message": msg, "variant": first["variant"], "counterexample": first})
    if not rows:
        return StageResult("numerics", "skip", reason="no variant has a recorded fixture: " +
                           "; ".join(f"{s['variant']}: {s['reason']}" for s in skipped), details=details)
    return StageResult("numerics", "pass", details=details,
                       reason="interpreter on the CPU (no CUDA device), fixture shapes")


def port_library_env(ctx: Context) -> Dict[str, str]:
    """$TILEIR_KERNELS_LIB for a copy: the ABI library stage 4 built from it (sm_90 cubins of stage
    3 embedded), so the GPU stages run the port being verified, not the shipped library."""
    if not ctx.crate.is_copy:
        return {}
    return {"TILEIR_KERNELS_LIB": str(ctx.crate.target / "abi" / "release" / "libtileir_kernels.so")}


def _numerics_gpu(ctx: Context) -> StageResult:
    log = ctx.logger("numerics")
    missing = needs_pytest("numerics")
    if missing is not None:
        return missing
    root = repo_root()
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "TILEIR_PORTS_RESULTS": str(ctx.attempt_dir / "ports_results.json"), **port_library_env(ctx)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "gpu", "-k", ctx.op,
           "tests/rust/test_gpu_ports.py"]
    ctx.progress("numerics on the GPU: " + " ".join(cmd[3:]))
    r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S)
    log(f"$ {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    unable = pytest_environment_problem("numerics", r.returncode, r.stdout + "\n" + r.stderr)
    if unable is not None:
        return unable
    summary = _last_line(r.stdout) if r.stdout.strip() else _last_line(r.stderr)
    details = {"mode": "gpu", "where": "CUDA device, analysis.json test shapes", "summary": summary}
    if r.returncode != 0:
        msg = f"GPU numerics failed: {summary}"
        return StageResult("numerics", "fail", reason=msg, details=details,
                           failure={"message": msg, "test_output": _tail(r.stdout, 8000)})
    return StageResult("numerics", "pass", reason="GPU, analysis.json test shapes", details=details)


# --- 6. performance ----------------------------------------------------------------------------------

def stage_performance(ctx: Context) -> StageResult:
    if not cuda_available():
        return StageResult("performance", "skip", reason="no CUDA device here (torch.cuda unavailable or torch "
                                                         "missing): device time is measured on a GPU only")
    failed = prepare_ir(ctx, "performance")
    if failed is not None:
        return failed
    from .perf import measure
    log = ctx.logger("performance")
    os.environ.update(port_library_env(ctx))
    rows = measure(ctx.spec, ctx.variants, log)
    return StageResult("performance", "pass", details={"variants": rows},
                       reason="device time of the port and of ref.py's torch reference on each bench_shape")


STAGE_FUNCTIONS = {"cargo_test": stage_cargo_test, "ir_compare": stage_ir_compare, "tileiras": stage_tileiras,
                   "abi": stage_abi, "numerics": stage_numerics, "performance": stage_performance}
