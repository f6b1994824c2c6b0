"""The proof step beyond one pair: a pair whose results differ is discharged only when every use
of it lies inside a proof at the pairs that read it (a reassociated expression), and a pointer
index is compared only where the memory op's mask lets an element through (floor against
truncating division of ids whose negative rows are masked). Float compares and divisions are
encoded bit-exactly. Each with the mutant that must stay different."""
from __future__ import annotations

from pathlib import Path

import pytest

from tileir_diff.check import smt
from tileir_diff.compare import compute_diff
from tileir_diff.text.parser import parse_text

from ..normalize.kernels import kernel, load, store

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

I32 = "tile<i32>"
F = "tile<128xf32>"
REWRITES = Path(__file__).resolve().parents[1] / "corpus" / "rewrites"


def _diff(a, b, **kw):
    return compute_diff(a, b, with_summary=False, with_lines=False, **kw)


def _reassociated(right: bool, extra_use: bool = False):
    """Index (bx - n) + 1 on the left, (bx + 1) - n on the right; ``extra_use``: the inner step
    is also a store index of its own (where the two sides differ)."""
    pre = f"  %c1 = constant <i32: 1> : {I32}\n"
    if right:
        pre += f"  %t = addi %bx, %c1 : {I32}\n  %i = subi %t, %arg2 : {I32}\n"
    else:
        pre += f"  %t = subi %bx, %arg2 : {I32}\n  %i = addi %t, %c1 : {I32}\n"
    body = pre + load("a", index="%i") + store("%a", index="%i")
    if extra_use:
        body += store("%a", name="st2", index="%t")
    return kernel(body)


def test_a_refuted_inner_pair_is_discharged_by_the_proof_at_its_user():
    r = _diff(_reassociated(False), _reassociated(True))
    assert r.verdict == "equivalent", r.brief()
    assert r.rules_applied.get("smt-equivalence", 0) > 0
    refuted = [p for p in r.proofs if p["status"] == "different"]
    assert refuted and all("not observed" in p.get("note", "") for p in refuted), r.proofs
    off = _diff(_reassociated(False), _reassociated(True), disable=["smt-equivalence"])
    assert off.verdict == "different"


def test_mutant_a_refuted_pair_with_a_use_outside_the_proof_stays_different():
    r = _diff(_reassociated(False, extra_use=True), _reassociated(True, extra_use=True))
    assert r.verdict == "different", r.brief()


def _masked(edit=None):
    texts = [(REWRITES / f"masked_floor_vs_trunc.{side}.tir").read_text() for side in ("left", "right")]
    if edit:
        texts = [edit(t) for t in texts]
    return [parse_text(t) for t in texts]


def test_masked_off_elements_need_not_agree():
    """idx // 2 floor (left) against truncating (right): they differ for idx < 0 only, and the
    mask (idx >= 0) & (idx < n) keeps those elements from being read or written."""
    a, b = _masked()
    r = _diff(a, b)
    assert r.verdict == "equivalent", r.brief()
    assert any(p["status"] == "equal" and p["of"] == "operand 1" for p in r.proofs), r.proofs
    assert _diff(a, b, disable=["smt-equivalence"]).verdict == "different"


def test_mutant_mask_that_lets_negative_ids_through_stays_different():
    # the mask is idx < n alone: idx = -1 stores to z[0] on the truncating side only
    a, b = _masked(lambda t: t.replace("%7 = andi %5, %6", "%7 = andi %6, %6"))
    r = _diff(a, b)
    assert r.verdict == "different", r.brief()


def test_mutant_unmasked_store_stays_different():
    # the store writes every element: the negative rows' indices matter
    def unmask(t):
        line = next(x for x in t.splitlines() if "store_ptr_tko" in x)
        dest, value = line.split("weak ")[1].split(" token")[0].split(", ")[:2]
        new = line.split("=")[0] + f"= store_ptr_tko weak {dest}, {value} token=%0 : tile<128xptr<f32>>, {F} -> token"
        return t.replace(line, new)
    a, b = _masked(unmask)
    r = _diff(a, b)
    assert r.verdict == "different", r.brief()


def _select(pred: str, ordering: str, swapped: bool):
    arms = "%a, %one" if swapped else "%one, %a"
    return kernel(load("a") + f"  %z = constant <f32: 0.000000e+00> : {F}\n  %one = constant <f32: 1.000000e+00> : {F}\n"
                  f"  %c = cmpf {pred} {ordering} %a, %z : {F} -> tile<128xi1>\n"
                  f"  %s = select %c, {arms} : tile<128xi1>, {F}\n" + store("%s"))


def test_float_equal_against_not_equal_with_the_arms_swapped():
    # == is ordered, != unordered: NaN takes the else arm of == and the then arm of !=
    r = _diff(_select("equal", "ordered", False), _select("not_equal", "unordered", True))
    assert r.verdict == "equivalent", r.brief()


def test_mutant_float_not_equal_ordered_differs_for_nan():
    r = _diff(_select("equal", "ordered", False), _select("not_equal", "ordered", True))
    assert r.verdict == "different", r.brief()


def _scaled(op: str, value: str):
    return kernel(load("a") + f"  %k = constant <f32: {value}> : {F}\n  %s = {op} %a, %k : {F}\n" + store("%s"))


def test_division_by_two_is_multiplication_by_a_half():
    r = _diff(_scaled("divf", "2.000000e+00"), _scaled("mulf", "5.000000e-01"), limits={"smt_timeout_s": 30})
    assert r.verdict == "equivalent", r.brief()


def test_mutant_division_by_three_is_not_multiplication_by_its_rounded_inverse():
    r = _diff(_scaled("divf", "3.000000e+00"), _scaled("mulf", "0.333333343"), limits={"smt_timeout_s": 30})
    assert r.verdict == "different", r.brief()


def _relu(pred: str, under_exp: bool):
    """where(a <pred> 0, 0, a), stored as is or through exp."""
    body = load("a") + (f"  %z = constant <f32: 0.000000e+00> : {F}\n"
                        f"  %c = cmpf {pred} ordered %a, %z : {F} -> tile<128xi1>\n"
                        f"  %r = select %c, %z, %a : tile<128xi1>, {F}\n")
    if under_exp:
        return kernel(body + f"  %e = exp %r : {F}\n" + store("%e"))
    return kernel(body + store("%r"))


def test_zero_boundary_compare_under_exp():
    # the selects differ only at a = -0.0 (+0.0 against -0.0); exp gives 1.0 for both
    r = _diff(_relu("less_than_or_equal", True), _relu("less_than", True))
    assert r.verdict == "equivalent", r.brief()


def test_mutant_zero_boundary_compare_stored():
    r = _diff(_relu("less_than_or_equal", False), _relu("less_than", False))
    assert r.verdict == "different", r.brief()


def test_mutant_exp_against_exp2_of_the_same_input():
    a = kernel(load("a") + f"  %e = exp %a : {F}\n" + store("%e"))
    b = kernel(load("a") + f"  %e = exp2 %a : {F}\n" + store("%e"))
    r = _diff(a, b)
    assert r.verdict == "different", r.brief()
    assert not any(p["status"] == "equal" for p in r.proofs)
