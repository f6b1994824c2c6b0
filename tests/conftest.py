"""Shared fixtures: the decoder-oracle corpus, NVIDIA's tools, the exported reference suite."""
from __future__ import annotations

import importlib.util
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
