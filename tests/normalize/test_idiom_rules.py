"""The cross-frontend idiom rules: each absorbs its case (equivalent with it, different
without it) and does NOT absorb its mutant."""
from __future__ import annotations

import pytest

from .kernels import kernel, load, store, verdict
from .test_rules import assert_absorbed, assert_not_absorbed

F = "tile<128xf32>"
I = "tile<i32>"


def _int_kernel(expr_lines: str, result: str) -> object:
    """A kernel that loads at block index f(bx), f given by ``expr_lines`` computing ``result``."""
    return kernel(expr_lines + load("a", index=result) + store("%a"))


# --- splat-constants ----------------------------------------------------------------------------
def test_splat_constants_broadcast_of_a_scalar_constant():
    python = ("  %c = constant <f32: 2.000000e+00> : tile<f32>\n  %r = reshape %c : tile<f32> -> tile<1xf32>\n"
              f"  %k = broadcast %r : tile<1xf32> -> {F}\n")
    rust = f"  %k = constant <f32: 2.000000e+00> : {F}\n"
    a = kernel(load("a") + python + f"  %s = mulf %a, %k : {F}\n" + store("%s"))
    b = kernel(load("a") + rust + f"  %s = mulf %a, %k : {F}\n" + store("%s"))
    assert_absorbed(a, b, "splat-constants")


def test_splat_constants_mutant_other_value():
    python = ("  %c = constant <f32: 2.000000e+00> : tile<f32>\n  %r = reshape %c : tile<f32> -> tile<1xf32>\n"
              f"  %k = broadcast %r : tile<1xf32> -> {F}\n")
    a = kernel(load("a") + python + f"  %s = mulf %a, %k : {F}\n" + store("%s"))
    b = kernel(load("a") + f"  %k = constant <f32: 2.500000e+00> : {F}\n  %s = mulf %a, %k : {F}\n" + store("%s"))
    assert_not_absorbed(a, b, "constant")


# --- neutral-operands ---------------------------------------------------------------------------
@pytest.mark.parametrize("op,const", [("addi", "0"), ("muli", "1"), ("subi", "0"), ("ori", "0"), ("divi", "1")])
def test_neutral_operands_integer(op, const):
    extra = " signed" if op == "divi" else ""
    a = _int_kernel("", "%bx")
    b = _int_kernel(f"  %z = constant <i32: {const}> : {I}\n  %i = {op} %bx, %z{extra} : {I}\n", "%i")
    assert_absorbed(a, b, "neutral-operands")


def test_neutral_operands_float_times_one_and_plus_negative_zero():
    a = kernel(load("a") + store("%a"))
    for body in (f"  %one = constant <f32: 1.000000e+00> : {F}\n  %s = mulf %a, %one : {F}\n",
                 f"  %nz = constant <f32: -0.000000e+00> : {F}\n  %s = addf %a, %nz : {F}\n"):
        assert_absorbed(a, kernel(load("a") + body + store("%s")), "neutral-operands")


def test_neutral_operands_mutants():
    a = kernel(load("a") + store("%a"))
    # x + 0.0 is not x for x = -0.0; x * 1.0 with flush_to_zero flushes subnormals; x * 1 on ints
    # with another constant
    plus_zero = kernel(load("a") + f"  %z = constant <f32: 0.000000e+00> : {F}\n  %s = addf %a, %z : {F}\n"
                       + store("%s"))
    assert_not_absorbed(a, plus_zero)
    ftz = kernel(load("a") + f"  %one = constant <f32: 1.000000e+00> : {F}\n"
                 f"  %s = mulf %a, %one flush_to_zero : {F}\n" + store("%s"))
    assert_not_absorbed(a, ftz)
    b = _int_kernel(f"  %z = constant <i32: 2> : {I}\n  %i = muli %bx, %z : {I}\n", "%i")
    assert_not_absorbed(_int_kernel("", "%bx"), b)


# --- mirrored-compares --------------------------------------------------------------------------
def _guarded(pred: str, lhs: str, rhs: str) -> str:
    return (f"  %c0 = constant <i32: 0> : {I}\n  %g = cmpi {pred} {lhs}, {rhs}, signed : {I} -> tile<i1>\n"
            f"  %i = select %g, %bx, %c0 : tile<i1>, {I}\n")


def test_mirrored_compares():
    a = _int_kernel(_guarded("less_than", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("greater_than", "%bx", "%arg2"), "%i")
    assert_absorbed(a, b, "mirrored-compares")


def test_mirrored_compares_mutant_turned_without_swap():
    a = _int_kernel(_guarded("less_than", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("greater_than", "%arg2", "%bx"), "%i")
    assert_not_absorbed(a, b)


# --- select-min-max -----------------------------------------------------------------------------
def test_select_min_max_integer_min_and_max():
    for name, arms in (("mini", "%bx, %arg2"), ("maxi", "%arg2, %bx")):
        a = _int_kernel(f"  %i = {name} %bx, %arg2 signed : {I}\n", "%i")
        b = _int_kernel(f"  %g = cmpi less_than %bx, %arg2, signed : {I} -> tile<i1>\n"
                        f"  %i = select %g, {arms} : tile<i1>, {I}\n", "%i")
        assert_absorbed(a, b, "select-min-max")


def test_select_min_max_mutants():
    a = _int_kernel(f"  %i = mini %bx, %arg2 signed : {I}\n", "%i")
    unsigned = _int_kernel(f"  %g = cmpi less_than %bx, %arg2, unsigned : {I} -> tile<i1>\n"
                           f"  %i = select %g, %bx, %arg2 : tile<i1>, {I}\n", "%i")
    assert_not_absorbed(a, unsigned)
    third = _int_kernel(f"  %c = constant <i32: 3> : {I}\n  %g = cmpi less_than %bx, %arg2, signed : {I} -> tile<i1>\n"
                        f"  %i = select %g, %bx, %c : tile<i1>, {I}\n", "%i")
    assert_not_absorbed(a, third)
    # floats: select(a < b, a, b) is not minf (NaN, signed zeros)
    fa = kernel(load("a") + load("b", view="%py") + f"  %s = minf %a, %b : {F}\n" + store("%s"))
    fb = kernel(load("a") + load("b", view="%py") + f"  %g = cmpf less_than ordered %a, %b : {F} -> tile<128xi1>\n"
                f"  %s = select %g, %a, %b : tile<128xi1>, {F}\n" + store("%s"))
    assert_not_absorbed(fa, fb)


# --- sub-as-add-neg -----------------------------------------------------------------------------
def test_sub_as_add_neg():
    two = load("a") + load("b", view="%py")
    a = kernel(two + f"  %s = subf %a, %b : {F}\n" + store("%s"))
    b = kernel(two + f"  %n = negf %b : {F}\n  %s = addf %n, %a : {F}\n" + store("%s"))
    assert_absorbed(a, b, "sub-as-add-neg")


def test_sub_as_add_neg_mutant_other_operand_negated():
    two = load("a") + load("b", view="%py")
    a = kernel(two + f"  %s = subf %a, %b : {F}\n" + store("%s"))
    b = kernel(two + f"  %n = negf %a : {F}\n  %s = addf %n, %b : {F}\n" + store("%s"))
    assert_not_absorbed(a, b)
    assert verdict(a, b).verdict == "different"


# --- commutative-operands: (in)equality compares ---------------------------------------------------
def test_equality_compare_operands_commute():
    a = _int_kernel(_guarded("equal", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("equal", "%bx", "%arg2"), "%i")
    assert_absorbed(a, b, "commutative-operands")


def test_ordering_compare_operands_do_not_commute():
    a = _int_kernel(_guarded("less_than", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("less_than", "%bx", "%arg2"), "%i")
    assert_not_absorbed(a, b)


# --- if-select ----------------------------------------------------------------------------------
def _if_min(then_arm: str) -> str:
    return (f"  %g = cmpi less_than %bx, %arg2, signed : {I} -> tile<i1>\n"
            f"  %i = if %g -> ({I}) {{\n{then_arm}  }} else {{\n    yield %arg2 : {I}\n  }}\n")


def test_if_select_min_written_as_an_if():
    # cuTile Rust `if a < b { a } else { b }` against Python's min(a, b)
    a = _int_kernel(f"  %i = mini %bx, %arg2 signed : {I}\n", "%i")
    b = _int_kernel(_if_min(f"    yield %bx : {I}\n"), "%i")
    r = verdict(a, b)
    assert r.verdict == "equivalent", r.brief()
    assert "if-select" in r.rules_applied and "select-min-max" in r.rules_applied
    assert verdict(a, b, disable=["if-select"]).verdict == "different"


def test_if_select_mutants():
    a = _int_kernel(f"  %i = mini %bx, %arg2 signed : {I}\n", "%i")
    # an arm that computes before yielding is control flow, not a choice between two values
    computes = _int_kernel(_if_min(f"    %c = constant <i32: 1> : {I}\n    %t = addi %bx, %c : {I}\n"
                                   f"    yield %t : {I}\n"), "%i")
    assert_not_absorbed(a, computes)
    # the arms swapped: max, not min
    swapped = _int_kernel(f"  %g = cmpi less_than %bx, %arg2, signed : {I} -> tile<i1>\n"
                          f"  %i = if %g -> ({I}) {{\n    yield %arg2 : {I}\n  }} else {{\n    yield %bx : {I}\n  }}\n",
                          "%i")
    assert_not_absorbed(a, swapped)
