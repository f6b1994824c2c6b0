"""A CPU pre-check of the ports' numerics: each Rust variant's IR (emit-ir, no GPU) runs in the
NumPy interpreter on the reference fixture of its analysis.json variant (ref.make_inputs and
ref.reference, recorded in tests/interp/fixtures/) and must match at the analysis.json tolerances,
write every output element and nothing else (the same check as the Python reference IR in
tests/interp/test_reference_fixtures.py). The GPU run (test_gpu_ports.py) stays the real test.
"""
from __future__ import annotations

import json

import pytest

from tests.interp import test_reference_fixtures as fixtures
from tileir_diff import ports

from .test_variant_table import NOT_YET_PORTED
from .conftest import emitted_ir

pytestmark = pytest.mark.cargo

PORTED = [key for key in sorted(fixtures.MANIFEST["fixtures"])
          if key.split("/")[0] in ports.PORTED_OPS and tuple(key.split("/")) not in NOT_YET_PORTED]


@pytest.fixture(scope="module")
def rust_ir(request):
    """Every variant's IR (emit-ir --all; build_ports.sh's when it is current: conftest.emitted_ir)."""
    return emitted_ir(request)


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


# The i64-indexed embedding gather (a raw-pointer port) beyond its one fixture shape: the other
# small analysis.json shapes, padded rows included, against a NumPy gather; and ids past the
# table (>= V), where the reference's gather view reads its zero padding, against the reference IR.
IDX64 = ("embedding", "f16_i64_gather_bt8_h256_idx64")


def _embedding_inputs(tokens, rows, h, padded, seed, id_high=None):
    import numpy as np
    from tileir_diff.interp import HostArray

    rng = np.random.default_rng(seed)
    ids = rng.integers(0, id_high or rows, size=tokens, dtype=np.int64)
    ids[0], ids[-1] = rows - 1, 0  # the first and last rows of the table
    weight = rng.standard_normal((rows, h)).astype(np.float16)
    row = h + 64 if "weight" in padded else h
    out_row = h + 64 if "out" in padded else h
    return {"ids": ids,
            "weight": HostArray(weight, "float16", (row, 1) if "weight" in padded else None),
            "out": HostArray(np.full((tokens, h), np.nan, np.float16), "float16", (out_row, 1))}


def _run_embedding(bytecode, inputs):
    from tests.interp.test_reference_fixtures import VARIANTS
    from tileir_diff import load
    from tileir_diff.interp import run_variant

    return run_variant(VARIANTS["/".join(IDX64)][1], load(str(bytecode)), inputs).arrays["out"]


@pytest.mark.parametrize("tokens, rows, h, padded", [(77, 1000, 1000, ()), (300, 37, 2056, ()),
                                                     (130, 503, 1000, ("out",)), (33, 300, 520, ("weight", "out"))])
def test_embedding_idx64_port_gathers_every_small_test_shape(rust_ir, tokens, rows, h, padded):
    import numpy as np

    inputs = _embedding_inputs(tokens, rows, h, padded, seed=tokens)
    got = _run_embedding(rust_ir / IDX64[0] / f"{IDX64[1]}.tileirbc", inputs)
    want = inputs["weight"].values[inputs["ids"]]
    assert got.shape == want.shape and np.array_equal(got, want)  # bit-exact, nothing left unwritten (NaN)


def test_embedding_idx64_port_reads_zeros_past_the_table_like_the_reference(rust_ir):
    import numpy as np

    from tests.interp.test_reference_fixtures import VARIANTS
    from tileir_diff.suite.export import artifact_paths

    reference = artifact_paths(VARIANTS["/".join(IDX64)][1], archs=())[0]
    if not reference.is_file():
        pytest.skip(f"{reference} missing")
    inputs = _embedding_inputs(40, 30, 304, (), seed=7, id_high=60)
    assert (inputs["ids"] >= 30).any()
    got = _run_embedding(rust_ir / IDX64[0] / f"{IDX64[1]}.tileirbc", inputs)
    want = _run_embedding(reference, _embedding_inputs(40, 30, 304, (), seed=7, id_high=60))
    assert np.array_equal(got, want) and not got[inputs["ids"] >= 30].any()
