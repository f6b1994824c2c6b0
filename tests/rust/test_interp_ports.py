"""A CPU pre-check of the ports' numerics: each Rust variant's IR (emit-ir, no GPU) runs in the
NumPy interpreter on the reference fixture of its analysis.json variant (ref.make_inputs and
ref.reference, recorded in tests/interp/fixtures/) and must match at the analysis.json tolerances,
write every output element and nothing else (the same check as the Python reference IR in
tests/interp/test_reference_fixtures.py). The GPU run (test_gpu_ports.py) stays the real test.
"""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.interp import test_reference_fixtures as fixtures
from tileir_diff import ports

from .test_variant_table import NOT_YET_PORTED

pytestmark = pytest.mark.cargo

PORTED = [key for key in sorted(fixtures.MANIFEST["fixtures"])
          if key.split("/")[0] in ports.PORTED_OPS and tuple(key.split("/")) not in NOT_YET_PORTED]


@pytest.fixture(scope="module")
def rust_ir(emit_ir, tmp_path_factory):
    out = tmp_path_factory.mktemp("rust_ir")
    r = subprocess.run([str(emit_ir), "--all", "--out", str(out)], capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr[-4000:]
    return out


def test_every_ported_variant_has_a_fixture():
    names = {f"{op}/{v.name}" for op in ports.PORTED_OPS for v in fixtures.CATALOG[op].variants
             if (op, v.name) not in NOT_YET_PORTED}
    assert names - set(PORTED) <= set(fixtures.MANIFEST["skipped"])
    assert len(PORTED) >= 100


@pytest.mark.parametrize("key", PORTED)
def test_port_matches_the_reference_in_the_interpreter(key, rust_ir):
    op, name = key.split("/")
    report = fixtures.run_fixture(key, rust_ir / op / f"{name}.tileirbc")
    assert report["passed"], json.dumps(report, indent=1)


def test_the_check_fails_a_wrong_port(rust_ir):
    """The check sees a wrong Rust kernel: the tanh GELU port on the erf GELU's fixture."""
    report = fixtures.run_fixture("gelu/erf_f32", rust_ir / "gelu" / "tanh_f32.tileirbc")
    assert not report["passed"] and report["outputs"]["out"]["mismatches"] > 0, report
