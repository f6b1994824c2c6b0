"""Every reference-suite variant, run by the interpreter on its ref.py inputs, matches
ref.reference at the suite's tolerances (CPU torch; skipped without torch).

The smallest test shape of each variant runs by default (the interpreter is slow);
TILEIR_INTERP_ALL_SHAPES=1 runs every test shape. Needs build/reference/*.tileirbc
(``python3 -m tileir_diff.suite.command export``).
"""
from __future__ import annotations

import os

import pytest

from tileir_diff.suite.catalog import load_catalog

from .suite_check import bytecode_path, check_variant, load_ref, smallest_shapes

torch = pytest.importorskip("torch", reason="the suite's ref.py files need torch (CPU is enough)")

ALL_SHAPES = os.environ.get("TILEIR_INTERP_ALL_SHAPES") == "1"


def _cases():
    out = []
    for op in load_catalog():
        for v in op.variants:
            shapes = v.test_shapes if ALL_SHAPES else smallest_shapes(v, 1)
            for k, shape in enumerate(shapes):
                out.append(pytest.param(op, v, shape, id=f"{op.op}/{v.name}/{k}"))
    return out


_REFS = {}


@pytest.mark.parametrize("op,variant,shape", _cases())
def test_variant_matches_reference(op, variant, shape):
    if not bytecode_path(variant).is_file():
        pytest.skip(f"{bytecode_path(variant)} not exported")
    ref = _REFS.setdefault(op.op, load_ref(op))
    report = check_variant(torch, op, variant, shape, ref)
    assert report["passed"], report
