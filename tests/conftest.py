"""Shared fixtures: the decoder-oracle corpus and NVIDIA's tools."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

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
