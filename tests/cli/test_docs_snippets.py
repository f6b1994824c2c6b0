"""The docs' examples run: every ```console block of docs/*.md (commands after ``$ ``, run by bash
with ``tileir-diff`` being this checkout's CLI, in a scratch folder where ``tests/`` is the
repository's; each other line is expected output, ``...`` matching anything) and the ```python
blocks of docs/api.md and docs/interpreter.md (run from the repository root; those reading
build/reference/ skip without the reference export)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(console|python)\n(.*?)^```", re.M | re.S)


def _blocks(kind):
    out = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for n, m in enumerate(BLOCK.finditer(doc.read_text())):
            if m.group(1) == kind:
                out.append(pytest.param(m.group(2), id=f"{doc.name}#{n}"))
    return out


def _matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


@pytest.mark.parametrize("block", _blocks("console"))
def test_console_block(block, tmp_path):
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    bin_dir = tmp_path / "bin"  # an executable, not a shell function: git runs textconv/difftool commands itself
    bin_dir.mkdir()
    (bin_dir / "tileir-diff").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tileir_diff.cli "$@"\n')
    (bin_dir / "tileir-diff").chmod(0o755)
    script: list = []
    expected = []
    for line in block.splitlines():
        if line.startswith("$ "):
            script.append(line[2:])
        elif line.strip():
            expected.append(line)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "NO_COLOR": "1",
           "PATH": str(bin_dir) + os.pathsep + os.environ.get("PATH", ""), "HOME": str(tmp_path),
           "GIT_CONFIG_NOSYSTEM": "1"}
    r = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True, cwd=tmp_path, env=env,
                       timeout=300)
    actual = [line for line in r.stdout.splitlines() if line.strip()]
    assert len(actual) == len(expected), (expected, actual, r.stderr)
    for want, got in zip(expected, actual):
        assert _matches(want, got), (want, got)


@pytest.mark.parametrize("block", [b for b in _blocks("python") if "api.md" in b.id or "interpreter.md" in b.id])
def test_api_python_block(block, monkeypatch):
    if "build/reference/" in block and not (ROOT / "build" / "reference").is_dir():
        pytest.skip("needs the reference export in build/reference (bash scripts/test.sh builds it)")
    monkeypatch.chdir(ROOT)
    exec(compile(block, "docs", "exec"), {})
