"""A ``for``'s index inside its body lies below the upper bound, and at or above the lower bound
when the step is the constant 1 (the proof step's loop facts): an overflow flag that the loop's
range keeps from ever applying excludes nothing (``equivalent``); a range that lets it wrap, or a
step that may take the index below its start, keeps the flag an assumption (``specialized``)."""
from __future__ import annotations

import pytest

from tileir_diff.check import smt
from tileir_diff.compare import compute_diff

from ..normalize.kernels import kernel, load, store

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")


def _loop(flag: str = "", bound: str = "cdiv", step: str = "%c1"):
    ub = ("  %ub = divi %n, %c1024 signed rounding<positive_inf> : tile<i32>\n" if bound == "cdiv"
          else "  %ub = addi %n, %c0 : tile<i32>\n")
    return kernel("  %n = assume bounded<0, ?>, %arg2 : tile<i32>\n"
                  "  %c0 = constant <i32: 0> : tile<i32>\n  %c1 = constant <i32: 1> : tile<i32>\n"
                  "  %c1024 = constant <i32: 1024> : tile<i32>\n" + ub +
                  f"  for %i in (%c0 to %ub, step {step}) : tile<i32> {{\n"
                  f"    %j = muli %i, %c1024{flag} : tile<i32>\n"
                  + load("a", index="%j") + store("%a", index="%j") + "  }\n")


def _verdict(a, b):
    return compute_diff(a, b, with_summary=False, with_lines=False).verdict


def test_a_flag_the_loop_range_keeps_from_applying_excludes_nothing():
    # i < cdiv(n, 1024) and i >= 0: i * 1024 < n + 1024 never wraps either way
    assert _verdict(_loop(), _loop(" overflow<no_wrap>")) == "equivalent"


def test_mutant_a_range_that_lets_the_product_wrap_keeps_the_flag_an_assumption():
    # i < n: i * 1024 wraps for i >= 2^21
    assert _verdict(_loop(bound="n"), _loop(" overflow<no_wrap>", bound="n")) == "specialized"


def test_mutant_a_step_other_than_one_gives_no_lower_bound():
    # a step of arg2 (>= 0, may be huge): the index may wrap below its start, so no_unsigned_wrap
    # is an assumption even within cdiv(n, 1024)
    step = "%n"
    assert _verdict(_loop(step=step), _loop(" overflow<no_unsigned_wrap>", step=step)) == "specialized"


def test_without_the_loop_facts_the_flag_stays_an_assumption(monkeypatch):
    """(the facts are what prove the first case: the index alone is any i32)"""
    monkeypatch.setattr(smt._Side, "_loop_facts", lambda self, nid, iv: None)
    assert _verdict(_loop(), _loop(" overflow<no_wrap>")) == "specialized"
