"""The reference launchers (reference/<op>/kernel.py, whose select functions pick a variant) and the
selection benchmark script, loaded by path for the selection tests. A launcher imports cuda.tile;
callers inside a test skip without it (`launcher` does)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "reference"
BENCH_SELECTION = REPO / "scripts" / "gpu" / "bench_selection.py"


def load_path(name: str, path: Path):
    """The module at `path`, loaded once per process under `name` (kept in sys.modules: dataclasses
    defined in it look their module up)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def launcher(op: str):
    """reference/<op>/kernel.py; skips the calling test where cuda.tile is not installed."""
    import pytest
    pytest.importorskip("cuda.tile")
    return load_path(f"_launcher_{op}", REFERENCE / op / "kernel.py")


def bench_selection():
    """scripts/gpu/bench_selection.py (no torch needed to import it)."""
    return load_path("_bench_selection", BENCH_SELECTION)
