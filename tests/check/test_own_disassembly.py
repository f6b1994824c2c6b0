"""A bytecode file diffed with its own tileirdisasm text is identical (the text carries no
version and omits default fields; version-defaults, always on, reads both the same way)."""
from __future__ import annotations

import pytest

import tileir_diff

from ..conftest import corpus_files, disassemble


@pytest.mark.slow  # every corpus file through tileirdisasm: ~26 s on a loaded 2-core machine
def test_bytecode_and_its_own_disassembly_are_identical(tileirdisasm):
    files = corpus_files()
    sample = files[::5]  # every version, Python and Rust producers; the full set: 524 files, 0 differ
    assert len(sample) > 60
    for path in sample:
        text = disassemble(tileirdisasm, path)
        r = tileir_diff.diff(path, text)
        assert r.verdict == "identical", f"{path.name}: {r.brief()}"
        assert tileir_diff.diff(text, path).verdict == "identical", path.name
