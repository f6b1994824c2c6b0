"""Issue 11: proofs under a reordered calling convention, the tile count of a view, and roots
that say what each side computes (expressions and the solver's counterexample in values)."""
from __future__ import annotations

import pytest

from tileir_diff.check import smt
from tileir_diff.compare import compute_diff

from ..normalize.kernels import VIEW, kernel, load, store

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

BOUND = "  %n = assume bounded<0, 1000000>, %arg2 : tile<i32>\n"
NONNEG = "  %n = assume bounded<0, ?>, %arg2 : tile<i32>\n"
CDIV_PY = "  %c = constant <i32: 128> : tile<i32>\n  %q = divi %n, %c signed rounding<positive_inf> : tile<i32>\n"
CDIV_RS = ("  %c = constant <i32: 128> : tile<i32>\n  %d = constant <i32: 127> : tile<i32>\n"
           "  %s = addi %n, %d : tile<i32>\n  %q = divi %s, %c signed : tile<i32>\n")
TILES = f"  %q = get_index_space_shape %px : {VIEW} -> tile<i32>\n"
# the same body with the entry arguments in another order (the extent first)
REORDERED = "%arg2: tile<i32>, %arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>"


def _diff(a, b):
    return compute_diff(a, b, with_summary=False, with_lines=False)


def _indexed(lines: str, **kw):
    return kernel(lines + load("a", index="%q") + store("%a"), **kw)


def test_a_proof_holds_under_a_reordered_calling_convention():
    r = _diff(_indexed(BOUND + CDIV_PY), _indexed(BOUND + CDIV_RS, args=REORDERED))
    assert r.verdict == "specialized", r.brief()
    assert [d.category for d in r.differences] == ["signature"], r.brief()
    assert any(p["status"] == "equal" for p in r.proofs), r.proofs


def test_mutant_reordered_and_unbounded_ceil_division_stays_different_in_values():
    r = _diff(_indexed(NONNEG + CDIV_PY), _indexed(NONNEG + CDIV_RS, args=REORDERED))
    assert r.verdict == "different"
    (d,) = [d for d in r.differences if d.category == "arith"]
    # in values: both expressions, entry arguments with their side, the model on both names
    assert "cdiv(L%arg2, 128) -> " in d.message and "R%arg0" in d.message, d.message
    assert "which differ for L%arg2 = R%arg0 = " in d.message, d.message
    assert d.detail["counterexample"]["arg2"] > 2 ** 31 - 128
    # one root for the cause: the hand-written addi is listed under it, not a root of its own
    assert len([x for x in r.differences if x.category not in ("signature", "specialization")]) == 1, r.brief()


def test_tile_count_of_a_view_is_the_ceil_division_of_its_extent():
    r = _diff(_indexed(BOUND + TILES), _indexed(BOUND + CDIV_RS))
    assert r.verdict == "equivalent", r.brief()
    assert any(p["status"] == "equal" for p in r.proofs)


def test_mutant_tile_count_against_a_floor_division_stays_different():
    floor = CDIV_PY.replace("rounding<positive_inf>", "rounding<negative_inf>")
    r = _diff(_indexed(BOUND + TILES), _indexed(BOUND + floor))
    assert r.verdict == "different", r.brief()
    cex = [d.detail["counterexample"] for d in r.differences if "counterexample" in d.detail]
    assert cex and cex[0]["arg2"] % 128 != 0, cex
