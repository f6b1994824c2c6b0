"""Builds of rust_kernels/ for the port tests (marker `cargo`).

The ABI library is built without the compiler (--no-default-features: only libloading), so
a cold build takes seconds; emit-ir needs the full cuTile build (minutes cold, CI has it warm
from `cargo test`). Without cargo on PATH these tests skip.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Sequence

import pytest

REPO = Path(__file__).resolve().parents[2]
# $TILEIR_PORTS_CRATE: a copy of the crate to build and test instead (tileir-diff verify runs
# these tests on the copy an agent edits, never on the repository's kernels).
CRATE = Path(os.environ.get("TILEIR_PORTS_CRATE") or REPO / "rust_kernels")
BUILD_TIMEOUT_S = 1800


def _cargo(args, env=None):
    if shutil.which("cargo") is None:
        pytest.skip("cargo not installed")
    full_env = dict(os.environ)
    full_env.setdefault("CARGO_BUILD_JOBS", "2")
    full_env.update(env or {})
    r = subprocess.run(["cargo", *args], cwd=CRATE, env=full_env, capture_output=True, text=True,
                       timeout=BUILD_TIMEOUT_S)
    assert r.returncode == 0, f"cargo {' '.join(args)} failed:\n{r.stderr[-4000:]}"


@pytest.fixture(scope="session")
def ports_library() -> Path:
    """The C ABI library as shipped (cubins embedded from build/rust when present)."""
    _cargo(["build", "--release", "--locked", "--lib", "--no-default-features", "--target-dir", "target/abi"])
    return CRATE / "target" / "abi" / "release" / "libtileir_kernels.so"


@pytest.fixture(scope="session")
def library_without_cubins() -> Path:
    """The library built against an empty cubin folder: valid calls stop at KERNEL_IMAGE_MISSING.
    A stable folder (not a temporary one): build.rs reruns when $TILEIR_CUBIN_DIR changes, so a new
    folder per session (or per pytest-xdist worker) would rebuild the library every time."""
    empty = CRATE / "target" / "empty-cubins"
    shutil.rmtree(empty, ignore_errors=True)
    empty.mkdir(parents=True)
    _cargo(["build", "--release", "--locked", "--lib", "--no-default-features", "--target-dir", "target/abi-nocubin"],
           env={"TILEIR_CUBIN_DIR": str(empty)})
    return CRATE / "target" / "abi-nocubin" / "release" / "libtileir_kernels.so"


def _rust_env() -> dict:
    """CUDA_TOOLKIT_PATH / LIBCLANG_PATH from the environment, else from scripts/setup_rust.sh."""
    if os.environ.get("CUDA_TOOLKIT_PATH") and os.environ.get("LIBCLANG_PATH"):
        return {}
    r = subprocess.run(["bash", str(REPO / "scripts" / "setup_rust.sh")], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        pytest.skip(f"scripts/setup_rust.sh failed: {r.stderr[-2000:]}")
    env = {}
    for line in r.stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            env[key] = value.strip("'")
    return env


@pytest.fixture(scope="session")
def emit_ir() -> Path:
    """The emit-ir binary (the full cuTile build: minutes when cold)."""
    _cargo(["build", "--release", "--locked", "--bin", "emit-ir"], env=_rust_env())
    return CRATE / "target" / "release" / "emit-ir"


def crate_sources(crate: Path) -> str:
    """What the IR emit-ir writes depends on, as scripts/crate_sources.sh prints it: the crate's
    folder and the sha256 of every source, manifest and lock file, in byte order."""
    files = []
    for top in ("src", "build.rs", "Cargo.toml", "Cargo.lock"):
        path = crate / top
        files += [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
    names = sorted((p.relative_to(crate).as_posix() for p in files), key=lambda name: name.encode())
    lines = [f"crate {crate.resolve()}"]
    lines += [f"{hashlib.sha256((crate / name).read_bytes()).hexdigest()}  {name}" for name in names]
    return "\n".join(lines) + "\n"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (pytest-xdist workers, or two sessions, share the folder)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def emitted_ir(request, ops: Optional[Sequence[str]] = None) -> Path:
    """A folder with ``<op>/<variant>.tileirbc`` as emit-ir writes them from the crate's current
    sources, for ``ops`` (None: every op). That is build/rust ($TILEIR_CUBIN_DIR) when
    rust_kernels/build_ports.sh emitted it from these very sources (its stamp .emit-ir-sources),
    so the IR is not emitted a second time; else target/emit-ir-cache/<digest of the sources>/,
    filled once under a lock (emit-ir is built only then)."""
    sources = crate_sources(CRATE)
    built = Path(os.environ.get("TILEIR_CUBIN_DIR") or REPO / "build" / "rust")
    stamp = built / ".emit-ir-sources"
    if stamp.is_file() and stamp.read_text() == sources:
        return built
    cache = CRATE / "target" / "emit-ir-cache" / hashlib.sha256(sources.encode()).hexdigest()[:20]

    def missing() -> list:
        if (cache / ".done-all").is_file():
            return []
        return [op for op in ops or [None] if not (cache / (f".done-{op}" if op else ".done-all")).is_file()]

    if not missing():
        return cache
    emit_ir = request.getfixturevalue("emit_ir")
    cache.mkdir(parents=True, exist_ok=True)
    with _locked(cache / ".lock"):
        for op in missing():
            selection = ["--op", op] if op else ["--all"]
            r = subprocess.run([str(emit_ir), *selection, "--out", str(cache)], capture_output=True, text=True,
                               timeout=1200)
            assert r.returncode == 0, r.stderr[-4000:]
            (cache / (f".done-{op}" if op else ".done-all")).touch()
    return cache
