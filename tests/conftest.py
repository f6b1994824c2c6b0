"""Shared fixtures: the decoder-oracle corpus and NVIDIA's tools."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tileir_diff.tools import find_tool

CORPUS = Path(__file__).parent / "corpus" / "data"


def corpus_files():
    return sorted(CORPUS.glob("*.tileirbc"))


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
