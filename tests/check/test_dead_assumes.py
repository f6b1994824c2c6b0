"""An ``assume`` nothing reads is still an assumption: a launch whose value breaks it is undefined
when the op executes (the interpreter raises AssumeViolation there, docs/interpreter.md), so a
one-sided assume is a ``specialization`` root, dead or live, never absorbed into ``equivalent``.
(The cuTile Rust ports of fused_moe and group_gemm keep such assumes on arrays they do not read.)"""
from __future__ import annotations

import pytest

import tileir_diff

from .test_overflow_flags import k


def _with(assume: str, source: str = "%arg3") -> str:
    text = k(source=source)
    return text.replace("  %i = trunci", f"  {assume}\n  %i = trunci", 1)


@pytest.mark.parametrize("predicate", ["bounded<0, ?>", "div_by<4>"])
def test_a_dead_assume_on_one_side_is_a_specialization(predicate):
    r = tileir_diff.diff(k(), _with(f"%dead = assume {predicate}, %arg4 : tile<i64>"))
    assert r.verdict == "specialized", r.to_text()
    assert [(d.category, d.detail["assumes_more"]) for d in r.differences] == [("specialization", "right")]


def test_mutant_the_same_assume_read_by_the_load_index_is_not_absorbed():
    live = _with("%live = assume bounded<0, ?>, %arg3 : tile<i64>", source="%live")
    r = tileir_diff.diff(k(), live)
    assert r.verdict not in ("identical", "equivalent"), r.to_text()
    assert {d.category for d in r.differences} == {"specialization"}


def test_a_dead_assume_that_never_holds_is_different():
    r = tileir_diff.diff(k(), _with("%dead = assume bounded<0, ?>, %neg : tile<i64>").replace(
        "  %small = constant", "  %neg = constant <i64: -1> : tile<i64>\n  %small = constant", 1))
    assert r.verdict == "different", r.to_text()
