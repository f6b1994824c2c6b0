"""CPU pre-check of the ports' numerics: each Rust variant's IR (build/rust/<op>/<variant>.tileirbc,
written by emit-ir) run by the NumPy interpreter on the reference fixture of the same variant
(tests/interp/fixtures: ref.make_inputs' inputs, ref.reference's outputs), with the checks of the
reference suite: values at the analysis.json tolerances, every output element written, nothing
outside the outputs, inputs unchanged. The Rust entry takes the arguments of cutile_python_v2
(pointer, extents, strides per array; scalars by value), so the variant's own packing applies.

Skips a variant whose Rust IR is not built here; the GPU test (test_gpu_ports.py) is the real check.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tileir_diff import ports
from tests.interp.test_reference_fixtures import MANIFEST, VARIANTS, run_fixture

RUST_BUILD = Path(__file__).resolve().parents[2] / "build" / "rust"


def _keys():
    for key in sorted(MANIFEST["fixtures"]):
        op = key.split("/")[0]
        if op in ports.PORTED_OPS and key in VARIANTS:
            yield key


@pytest.mark.parametrize("key", list(_keys()))
def test_rust_ir_matches_the_reference_fixture(key):
    op, variant = key.split("/")
    path = RUST_BUILD / op / f"{variant}.tileirbc"
    if not path.is_file():
        pytest.skip(f"{path} not built (emit-ir --op {op})")
    report = run_fixture(key, path)
    assert report["passed"], json.dumps(report, indent=1)


def test_the_check_fails_a_wrong_port():
    """The check sees a wrong Rust kernel: the tanh GELU port on the erf GELU's fixture."""
    path = RUST_BUILD / "gelu" / "tanh_f32.tileirbc"
    if not path.is_file():
        pytest.skip(f"{path} not built")
    report = run_fixture("gelu/erf_f32", path)
    assert not report["passed"] and report["outputs"]["out"]["mismatches"] > 0, report
