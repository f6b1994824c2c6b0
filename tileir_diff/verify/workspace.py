"""The crate a verification builds: the repository's rust_kernels/ in place, or a copy an agent edits.

A copy lives at ``<workdir>/crate/rust_kernels`` with its own cargo target dir (seeded once from
the repository's, so the cuTile dependency tree is never rebuilt) and is re-synced from a source
crate before each run, writing only files whose content differs (cargo's fingerprints are mtimes).

What produced an op's artifacts is hashed per op: the crate's shared sources (everything but
``src/ops/<op>/`` folders and ``target/``) plus ``src/ops/<op>/``. An op's kernels, variant
table and C entry live only in its folder (``ops!`` in src/ops/mod.rs is shared), so an edit to
one op never invalidates another's artifacts. ``build-state.json`` records, per op, the hash the
current binaries were built from: a binary whose op hash still matches is reused without
calling cargo, even when another op's sources have changed since.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

from tileir_diff.suite.catalog import repo_root

SKIP_DIRS = {"target", ".git"}
CARGO_TIMEOUT_S = 1800
TEST_TARGETS = ("abi", "variants")


class BuildError(RuntimeError):
    """cargo failed; ``log`` holds its output. ``environment``: what the environment lacks when
    the build could not even start (no cargo, the Rust set-up failed), else None."""

    def __init__(self, message: str, log: str, environment: Optional[str] = None):
        super().__init__(message)
        self.log = log
        self.environment = environment


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_json(value) -> str:
    return sha256_bytes(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())


@lru_cache(maxsize=None)
def package_fingerprint() -> str:
    """Hash of tileir_diff's own Python sources: a cached diff or numerics result is only reused by
    the code that computed it."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


#: Python distributions a stage's outcome can depend on: the test runner, the interpreter's and the
#: checker's libraries, the reference frontend, the wrappers' torch.
STAGE_PACKAGES = ("pytest", "numpy", "networkx", "z3-solver", "torch", "cuda-tile", "nvidia-cuda-tileiras",
                  "ml-dtypes", "jsonschema")
#: Environment variables a stage or the tools it starts read (the variables' values are hashed).
STAGE_ENV_PREFIXES = ("TILEIR_", "CUDA_", "LIBCLANG_PATH", "PYTHONPATH", "CARGO_", "RUSTFLAGS", "RUSTUP_",
                      "LD_LIBRARY_PATH", "PATH")


@lru_cache(maxsize=None)
def _package_versions() -> Dict[str, str]:
    from importlib import metadata
    out = {}
    for name in STAGE_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "missing"
    return out


def environment_fingerprint() -> Dict[str, Any]:
    """What of the environment a stage reads besides its inputs: the Python running the tests
    (version, executable), the installed versions of the packages that matter (missing ones
    included: installing pytest changes the key), rustc/cargo, and the relevant environment
    variables. Part of every cache key whose stage runs code of the environment, so that a
    result computed in one environment is never replayed in another."""
    env = {k: v for k, v in sorted(os.environ.items())
           if k.startswith(STAGE_ENV_PREFIXES) and k != "TILEIR_TEST_OP"}
    return {"python": sys.version, "executable": sys.executable, "packages": _package_versions(),
            "toolchain": toolchain(), "env": env}


def missing_module(output: str) -> Optional[str]:
    """The module an output says is missing (``No module named 'x'`` / ``No module named x``)."""
    import re
    m = re.search(r"No module named '?([\w.]+)'?", output)
    return m.group(1) if m else None


@lru_cache(maxsize=None)
def tool_version(*command: str) -> str:
    """First line of ``command --version`` style output, or ``missing``."""
    try:
        r = subprocess.run(list(command), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "missing"
    return (r.stdout or r.stderr).strip().splitlines()[0] if (r.stdout or r.stderr).strip() else "unknown"


def rust_env(progress: Callable[[str], None] = lambda s: None) -> Dict[str, str]:
    """The environment cargo needs (scripts/setup_rust.sh's exports: CUDA_TOOLKIT_PATH, LIBCLANG_PATH)."""
    env = dict(os.environ)
    env.setdefault("CARGO_BUILD_JOBS", "2")
    if env.get("CUDA_TOOLKIT_PATH") and env.get("LIBCLANG_PATH"):
        return env
    script = repo_root() / "scripts" / "setup_rust.sh"
    progress(f"{script.name}: finding CUDA headers and libclang for the Rust build (may install them)")
    r = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])[-1]
        raise BuildError(f"{script} failed (exit {r.returncode}): {last}", r.stderr[-4000:],
                         environment=f"the Rust build set-up ({script.name}) failed: {last}")
    for line in r.stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            env[key] = value.strip("'\"")
    return env


@dataclass
class Crate:
    """A rust_kernels/ checkout to build: ``root`` is the folder holding Cargo.toml."""
    root: Path
    is_copy: bool = False
    _state: Dict[str, object] = field(default_factory=dict, repr=False)

    # --- sources ---------------------------------------------------------------------------------
    def files(self) -> List[Path]:
        """Every source file, relative to root (target/ left out)."""
        out = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                out.append((Path(dirpath) / name).relative_to(self.root))
        return out

    def op_dir(self, op: str) -> Path:
        return self.root / "src" / "ops" / op

    def op_files(self, op: str) -> Dict[str, str]:
        """The op folder's files by name (kernel.rs, ffi.rs, mod.rs, ...) -> text."""
        folder = self.op_dir(op)
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.rs"))} if folder.is_dir() else {}

    def ops(self) -> List[str]:
        base = self.root / "src" / "ops"
        return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    def op_hash(self, op: str, *, with_tests: bool = False) -> str:
        """What an op's IR and tests are built from: shared sources + src/ops/<op>/ (+ tests/)."""
        h = hashlib.sha256()
        for rel in self.files():
            parts = rel.parts
            if parts[:2] == ("src", "ops") and len(parts) > 3 and parts[2] != op:
                continue
            if parts[0] == "tests" and not with_tests:
                continue
            h.update(str(rel).encode() + b"\0" + (self.root / rel).read_bytes() + b"\0")
        h.update(toolchain().encode())
        return h.hexdigest()

    # --- building ----------------------------------------------------------------------------------
    @property
    def target(self) -> Path:
        return self.root / "target"

    def _state_path(self) -> Path:
        return self.target / "tileir-verify-build-state.json"

    def _read_state(self) -> dict:
        try:
            return json.loads(self._state_path().read_text())
        except (OSError, ValueError):
            return {}

    def fresh_for(self, op: str) -> bool:
        """Whether the built emit-ir and test binaries were built from this op's current sources."""
        state = self._read_state()
        exes = state.get("executables", {})
        return (state.get("ops", {}).get(op) == self.op_hash(op, with_tests=True)
                and (self.target / "release" / "emit-ir").is_file()
                and all(Path(p).is_file() for p in exes.values()) and set(exes) == set(TEST_TARGETS))

    def build(self, log: Callable[[str], None], progress: Callable[[str], None] = lambda s: None) -> Dict[str, str]:
        """cargo: emit-ir and the abi/variants test binaries (release). Returns the test executables.
        ``progress`` hears a line when cargo starts and then every ``PROGRESS_EVERY_S`` seconds
        (what it is compiling), so a first build of many minutes is never silent."""
        env = rust_env(progress)
        cmd = ["cargo", "test", "--release", "--locked", "--no-run", "--message-format=json-render-diagnostics"]
        for t in TEST_TARGETS:
            cmd += ["--test", t]
        snapshot = {op: self.op_hash(op, with_tests=True) for op in self.ops()}
        log("$ " + " ".join(cmd))
        progress(f"cargo build of {self.root} started (a first build takes minutes; progress every "
                 f"{PROGRESS_EVERY_S:.0f}s)")
        r = run_with_progress(cmd, self.root, env, progress)
        log(r.stderr)
        if r.returncode != 0:
            raise BuildError(f"cargo test --no-run exited {r.returncode}", r.stderr[-20000:])
        exes: Dict[str, str] = {}
        emit_ir: Optional[str] = None
        for line in r.stdout.splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            target = msg.get("target", {})
            if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
                continue
            if "test" in target.get("kind", []):
                exes[target["name"]] = msg["executable"]
            elif target.get("name") == "emit-ir" and not msg.get("profile", {}).get("test"):
                emit_ir = msg["executable"]  # integration tests build the package's binaries too
        log(f"emit-ir from the test build: {emit_ir}")
        if emit_ir is None or Path(emit_ir).resolve() != self.emit_ir.resolve():
            emit = ["cargo", "build", "--release", "--locked", "--bin", "emit-ir"]
            log("$ " + " ".join(emit))
            r = run_with_progress(emit, self.root, env, progress)
            log(r.stderr)
            if r.returncode != 0:
                raise BuildError(f"cargo build --bin emit-ir exited {r.returncode}", r.stderr[-20000:])
        self._state_path().write_text(json.dumps({"ops": snapshot, "executables": exes}, indent=1))
        return exes

    def executables(self) -> Dict[str, str]:
        return dict(self._read_state().get("executables", {}))

    @property
    def emit_ir(self) -> Path:
        return self.target / "release" / "emit-ir"


PROGRESS_EVERY_S = 30.0


def run_with_progress(cmd: List[str], cwd: Path, env: Mapping[str, str],
                      progress: Callable[[str], None]) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)`` for cargo, with a progress line every
    PROGRESS_EVERY_S seconds naming the crate cargo last reported (``Compiling x v1``) and how many
    it has compiled; BuildError past CARGO_TIMEOUT_S."""
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace")
    except OSError as e:
        raise BuildError(f"cannot run {cmd[0]}: {e.strerror or e}", "",
                         environment=f"{cmd[0]} cannot be run ({e.strerror or e})") from None
    out: List[str] = []
    drain = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    drain.start()
    killer = threading.Timer(CARGO_TIMEOUT_S, proc.kill)  # a silent hang is bounded too
    killer.start()
    err: List[str] = []
    started = last = time.monotonic()
    compiled = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        err.append(line)
        words = line.split()
        if words[:1] == ["Compiling"]:
            compiled += 1
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY_S:
                last = now
                progress(f"cargo: {now - started:.0f}s, {compiled} crate(s) compiled, now {' '.join(words[1:3])}")
    code = proc.wait()
    killer.cancel()
    drain.join()
    if time.monotonic() - started >= CARGO_TIMEOUT_S and code != 0:
        raise BuildError(f"cargo timed out after {CARGO_TIMEOUT_S}s", "".join(err)[-20000:])
    if compiled:
        progress(f"cargo: done in {time.monotonic() - started:.0f}s ({compiled} crate(s) compiled)")
    return subprocess.CompletedProcess(cmd, code, "".join(out), "".join(err))


@lru_cache(maxsize=None)
def toolchain() -> str:
    """rustc and cargo versions (the crate versions are pinned in Cargo.lock, which is hashed)."""
    return f"{tool_version('rustc', '--version')}; {tool_version('cargo', '--version')}"


def repo_crate() -> Crate:
    return Crate(repo_root() / "rust_kernels")


def sync_tree(source: Path, dest: Path) -> int:
    """Make dest's sources equal source's (target/ untouched); returns the files written or removed."""
    changed = 0
    wanted = set()
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            rel = (Path(dirpath) / name).relative_to(source)
            wanted.add(rel)
            changed += write_if_changed(dest / rel, (source / rel).read_bytes())
    for dirpath, dirnames, filenames in os.walk(dest):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            rel = (Path(dirpath) / name).relative_to(dest)
            if rel not in wanted:
                (dest / rel).unlink()
                changed += 1
    return changed


def write_if_changed(path: Path, data: bytes) -> int:
    if path.is_file() and path.read_bytes() == data:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return 1


@contextmanager
def crate_copy(workdir: Path, source: Path, overrides: Optional[Mapping[str, Mapping[str, str]]] = None,
               log: Callable[[str], None] = lambda s: None) -> Iterator[Crate]:
    """The workspace copy of ``source`` (locked for the duration), synced, with ``overrides``
    ({op: {file name: text}}) written into src/ops/<op>/."""
    root = workdir / "crate" / "rust_kernels"
    root.mkdir(parents=True, exist_ok=True)
    with open(workdir / "crate" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "target" / "release").is_dir():
            seed = repo_root() / "rust_kernels" / "target" / "release"
            if seed.is_dir():
                t0 = time.monotonic()
                log(f"seeding {root / 'target'} from {seed}")
                (root / "target").mkdir(exist_ok=True)
                shutil.copytree(seed, root / "target" / "release", symlinks=True)
                log(f"seeded in {time.monotonic() - t0:.1f}s")
        sync_tree(source, root)
        seed_cubins(repo_root() / "build" / "rust", workdir / "crate" / "build" / "rust")
        crate = Crate(root, is_copy=True)
        for op, files in (overrides or {}).items():
            apply_files(crate, op, files)
        yield crate


def seed_cubins(shipped: Path, dest: Path) -> None:
    """The copy's build.rs embeds <copy>/../build/rust/<op>/<variant>.sm_90.cubin: start from the
    repository's cubins, so every variant has an image and the ABI tests' valid calls get as far as
    the driver; stage 3 replaces the cubins of the variants it compiles."""
    if not shipped.is_dir():
        return
    for cubin in shipped.glob("*/*.sm_90.cubin"):
        target = dest / cubin.parent.name / cubin.name
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cubin, target)


def apply_files(crate: Crate, op: str, files: Mapping[str, str]) -> None:
    """Write an op's files (names inside src/ops/<op>/ only: a repair cannot reach elsewhere)."""
    folder = crate.op_dir(op)
    for name, text in files.items():
        if "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".rs"):
            raise ValueError(f"a repair may only write .rs files of src/ops/{op}/, not {name!r}")
        write_if_changed(folder / name, text.encode("utf-8"))
