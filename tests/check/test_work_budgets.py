"""Verdicts do not depend on the machine's load (issue 27): the proof step's budget is z3's
resource count (``rlimit``), the matcher's is counted steps; only wall-clock safety nets far
above them read the clock, and past one the diff is ``unknown`` ("time limit (machine too
slow/overloaded)"), never ``different`` or ``equivalent``. Loaded against unloaded port tables:
scripts/stress_load.py (figures in docs/robustness.md, "Work budgets")."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.check import smt

from .proof_pairs import stable_json
from .test_smt import CDIV_PY, CDIV_RS, _indexed

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(os.environ.get("TILEIR_REFERENCE_BUILD", ROOT / "build" / "reference"))
RUST = Path(os.environ.get("TILEIR_CUBIN_DIR", ROOT / "build" / "rust"))
#: port pairs whose verdict rests on proofs: bmm's grouped swizzle under its launch fact (the
#: rows that turned ``different`` on a loaded machine under time budgets) and flash attention
PORTS = [("bmm", "f16_nn_64x64x64"), ("bmm", "bf16_nn_w8_128x256x64"), ("flash_attention", "f16_d64_causal")]


def _slow_clock(monkeypatch, step_s: float) -> None:
    """Every read of ``time.perf_counter`` is ``step_s`` later than the one before: the diff runs
    as if each stretch of work between two reads took ``step_s`` (a machine 100-1000 times
    slower), yet every safety net stays far off for a diff of this size."""
    now = [time.perf_counter()]

    def tick() -> float:
        now[0] += step_s
        return now[0]
    monkeypatch.setattr(time, "perf_counter", tick)


def _port(op: str, variant):
    from tileir_diff.suite.catalog import load_catalog
    from tileir_diff.suite.launch_facts import facts_for
    spec = next((s for s in load_catalog(ROOT / "reference", ops=[op]) if s.op == op), None)
    if spec is None:
        pytest.skip(f"no catalog entry for {op}")
    v = next((v for v in spec.variants if variant in (None, v.name)), None)
    a, b = REFERENCE / op / f"{v.name}.tileirbc", RUST / op / f"{v.name}.tileirbc"
    if not (a.is_file() and b.is_file()):
        pytest.skip(f"the port pair {a} / {b} is not built (TILEIR_REFERENCE_BUILD, TILEIR_CUBIN_DIR)")
    return a, b, facts_for(spec, v, str(spec.analysis_path.relative_to(ROOT)))


@pytest.mark.parametrize("op,variant", PORTS)
def test_a_port_pair_gives_the_same_report_on_a_slowed_clock(monkeypatch, op, variant):
    a, b, facts = _port(op, variant)
    expected = tileir_diff.diff(str(a), str(b), launch=facts)
    assert expected.proofs, "the pair must reach the proof step"
    _slow_clock(monkeypatch, 0.1)  # time budgets of old: every proof undecided, the verdict different
    again = tileir_diff.diff(str(a), str(b), launch=facts)
    assert stable_json(again) == stable_json(expected)


def test_the_work_budget_decides_the_same_way_on_any_clock(monkeypatch):
    """A budget too small for the proof: undecided (not absorbed), with the same note, whatever
    the clock says; a budget big enough: proven, however slow the clock."""
    a, b = _indexed(CDIV_PY), _indexed(CDIV_RS)
    small = {"smt_rlimit": 300}
    tight = tileir_diff.diff(a, b, limits=small, with_lines=False)
    assert tight.verdict == "different"
    undecided = [p for p in tight.proofs if p["status"] == "undecided"]
    assert undecided and "work budget" in undecided[0]["note"], tight.proofs
    proven = tileir_diff.diff(a, b, with_lines=False)
    assert proven.verdict == "equivalent"
    _slow_clock(monkeypatch, 0.5)
    assert stable_json(tileir_diff.diff(a, b, limits=small, with_lines=False)) == stable_json(tight)
    assert stable_json(tileir_diff.diff(a, b, with_lines=False)) == stable_json(proven)


def test_the_proofs_safety_net_gives_unknown_never_a_verdict(monkeypatch):
    """A clock that passes the proof's safety net between two reads: ``unknown`` naming the
    machine, for a pair that is equivalent and for one that is different."""
    off_by_one = _indexed(CDIV_RS.replace("<i32: 127>", "<i32: 128>"))
    assert tileir_diff.diff(_indexed(CDIV_PY), off_by_one, with_lines=False).verdict == "different"
    _slow_clock(monkeypatch, 10.0)  # past the proof's net at its first read, far from the matcher's
    for right in (_indexed(CDIV_RS), off_by_one):
        r = tileir_diff.diff(_indexed(CDIV_PY), right, limits={"smt_timeout_s": 5.0}, with_lines=False)
        assert r.verdict == "unknown", r.brief()
        assert r.reason.startswith("time limit (machine too slow/overloaded)"), r.reason
        assert r.exit_code == 3 and not r.differences and not r.proofs

