"""The verdict policy (compare/verdict.py) as a table: one row per decision branch, each with the
runs it reads and the verdict, reason, differences and follow-ups it must give."""
from __future__ import annotations

import pytest

from tileir_diff.compare.verdict import RunFacts, VerdictInputs, decide, follow_up
from tileir_diff.report.result import Difference, OpRef

LEFT, RIGHT = OpRef("f0/o3", "assume ...", None), OpRef("f0/o4", "assume ...", None)


def assumption(left=LEFT, right=RIGHT, **detail):
    return Difference("specialization", "assume bounded<0, ?>", left, right, "k", detail=dict(detail))


def calling_convention():
    return Difference("signature", "calling convention: the arguments are in another order", None, None, "k",
                      detail={"calling_convention": {"moved": []}})


def tie():
    return Difference("specialization", "arguments tied", None, None, "k", detail={"tie": {}, "assumes_more": "left"})


def arith():
    return Difference("arith", "addi -> subi", OpRef("f0/o1", "addi", None), OpRef("f0/o1", "subi", None), "k")


REWRITES = {"constant-dedup": 3, "dead-code": 0}

ROWS = [
    # (name, inputs, follow_up of first, verdict, reason, rules_applied, from_raw, rule_hints)
    ("limit hit: unknown, the limits as the reason",
     VerdictInputs(RunFacts((), ("node budget", "time budget"), REWRITES)),
     None, "unknown", "node budget; time budget", {}, False, False),
    ("a limit outranks differences",
     VerdictInputs(RunFacts((arith(),), ("node budget",), REWRITES)),
     None, "unknown", "node budget", {}, False, False),
    ("no difference, no rewrite: identical without a further run",
     VerdictInputs(RunFacts((), (), {"constant-dedup": 0})),
     None, "identical", None, {}, False, False),
    ("no difference after rewrites, the renaming-only run clean: identical, that run's result",
     VerdictInputs(RunFacts((), (), REWRITES), raw=RunFacts()),
     "raw", "identical", None, {}, True, False),
    ("no difference after rewrites, the renaming-only run differs: equivalent under the rewriting rules",
     VerdictInputs(RunFacts((), (), REWRITES), raw=RunFacts((arith(),))),
     "raw", "equivalent", None, {"constant-dedup": 3}, False, False),
    ("the renaming-only run past a limit: still equivalent (never identical unproven)",
     VerdictInputs(RunFacts((), (), REWRITES), raw=RunFacts((), ("node budget",))),
     "raw", "equivalent", None, {"constant-dedup": 3}, False, False),
    ("a computational difference: different, no run without assumptions",
     VerdictInputs(RunFacts((assumption(), arith()), (), REWRITES)),
     None, "different", None, {"constant-dedup": 3}, False, True),
    ("only assumptions, the bare run leaves only the calling convention and ties: specialized",
     VerdictInputs(RunFacts((assumption(kind="only_right", left=None),), (), REWRITES),
                   bare=RunFacts((calling_convention(), tie()))),
     "bare", "specialized", None, {"constant-dedup": 3}, False, True),
    ("only assumptions, but the bare run still differs: different",
     VerdictInputs(RunFacts((assumption(),), (), REWRITES), bare=RunFacts((arith(),))),
     "bare", "different", None, {"constant-dedup": 3}, False, True),
    ("only assumptions, the bare run past a limit: different",
     VerdictInputs(RunFacts((assumption(),), (), REWRITES), bare=RunFacts((), ("node budget",))),
     "bare", "different", None, {"constant-dedup": 3}, False, True),
    ("only assumptions, one never holds: different, its root says why",
     VerdictInputs(RunFacts((assumption(),), (), REWRITES), bare=RunFacts(),
                   never_holding=({}, {"f0/o4": "bounded<0, ?> on -1"})),
     "bare", "different", None, {"constant-dedup": 3}, False, True),
    ("a bare run not asked for is not read: different",
     VerdictInputs(RunFacts((assumption(), arith()), (), REWRITES), bare=RunFacts()),
     None, "different", None, {"constant-dedup": 3}, False, True),
]


@pytest.mark.parametrize("name,inputs,then,verdict,reason,applied,from_raw,hints", ROWS, ids=[r[0] for r in ROWS])
def test_policy_row(name, inputs, then, verdict, reason, applied, from_raw, hints):
    assert follow_up(inputs.first) == then
    got = decide(inputs)
    assert (got.verdict, got.reason, dict(got.rules_applied), got.from_raw, got.rule_hints) == \
        (verdict, reason, applied, from_raw, hints)
    if verdict in ("identical", "equivalent", "unknown"):
        assert got.differences == ()
    else:
        assert len(got.differences) == len(inputs.first.differences)


def test_specialized_roots_say_which_side_assumes_more():
    only_right = assumption(kind="only_right", left=None)
    got = decide(VerdictInputs(RunFacts((only_right,), ()), bare=RunFacts()))
    assert got.verdict == "specialized"
    (d,) = got.differences
    assert d.message == "assume bounded<0, ?> (the right assumes more: it is valid only for inputs that satisfy it)"
    assert d.detail["assumes_more"] == "right" and "assumes_more" not in only_right.detail


def test_a_never_holding_assumption_is_named_on_its_side_only():
    on_left = {"f0/o4": "div_by<8> on 12"}  # the right's op id on the left side: not this root
    got = decide(VerdictInputs(RunFacts((assumption(),), ()), bare=RunFacts(), never_holding=(on_left, {})))
    assert got.verdict == "specialized"
    got = decide(VerdictInputs(RunFacts((assumption(),), ()), bare=RunFacts(), never_holding=({}, on_left)))
    (d,) = got.differences
    assert got.verdict == "different" and d.detail["never_holds"] == "div_by<8> on 12"
    assert "it can never hold (div_by<8> on 12), so every launch of that kernel is undefined" in d.message


def test_the_policy_is_pure():
    inputs = VerdictInputs(RunFacts((assumption(kind="only_left", right=None),), (), REWRITES), bare=RunFacts())
    assert decide(inputs) == decide(inputs)
    assert inputs.first.differences[0].message == "assume bounded<0, ?>"
