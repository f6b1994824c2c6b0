"""Builds of rust_kernels/ for the port tests (marker `cargo`).

The ABI library is built without the compiler (--no-default-features: only libloading), so
a cold build takes seconds; emit-ir needs the full cuTile build (minutes cold, CI has it warm
from `cargo test`). Without cargo on PATH these tests skip.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

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
def library_without_cubins(tmp_path_factory) -> Path:
    """The library built against an empty cubin folder: valid calls stop at KERNEL_IMAGE_MISSING."""
    empty = tmp_path_factory.mktemp("no_cubins")
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
