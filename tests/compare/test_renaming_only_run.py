"""The renaming-only run (``identical`` vs ``equivalent``) stops at its first certain difference,
and still runs every pass when it finds none (then it is the result's run)."""
from __future__ import annotations

import pytest

import tileir_diff
from tileir_diff.compare import engine

HEAD = "entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<f32>) optimization_hints=<default = {}> {\n"
#: the result stored (else dead-code leaves nothing to compare)
TAIL = """  %0 = make_token : token
  %w = store_ptr_tko weak %arg0, %t token=%0 : tile<ptr<f32>>, tile<f32> -> token
  return
}
"""

#: two equal constants: constant-dedup rewrites them into one
TWO_CONSTANTS = HEAD + """  %c = constant <f32: 1.0> : tile<f32>
  %c2 = constant <f32: 1.0> : tile<f32>
  %s = addf %arg1, %c : tile<f32>
  %t = addf %s, %c2 : tile<f32>
""" + TAIL

#: the same computation with the constant written once (one op fewer: a certain difference
#: for the run without optional rules, before any graph)
ONE_CONSTANT = HEAD + """  %c = constant <f32: 1.0> : tile<f32>
  %s = addf %arg1, %c : tile<f32>
  %t = addf %s, %c : tile<f32>
""" + TAIL

#: the same ops as TWO_CONSTANTS, one addition's operands commuted: the op names agree, so the
#: renaming-only run gets as far as the classifier, whose root ends it
COMMUTED = HEAD + """  %c = constant <f32: 1.0> : tile<f32>
  %c2 = constant <f32: 1.0> : tile<f32>
  %s = addf %c, %arg1 : tile<f32>
  %t = addf %s, %c2 : tile<f32>
""" + TAIL


@pytest.fixture
def passes(monkeypatch):
    """How many times the engine built graphs and ran the check, per diff."""
    calls = {"graphs": 0, "check": 0}

    def counted(name, key):
        original = getattr(engine, name)

        def wrapper(*a, **k):
            calls[key] += 1
            return original(*a, **k)
        monkeypatch.setattr(engine, name, wrapper)
    counted("graphs_pass", "graphs")
    counted("check_pass", "check")
    return calls


def test_identical_after_rewrites_runs_the_renaming_only_run_through(passes):
    r = tileir_diff.diff(TWO_CONSTANTS.encode(), TWO_CONSTANTS.encode())
    assert r.verdict == "identical" and r.rules_applied == {}
    assert passes == {"graphs": 2, "check": 2}  # both runs whole: the second is the result's
    assert r.functions and r.functions[0].verdict == "same"


def test_other_op_names_end_the_renaming_only_run_before_its_graphs(passes):
    r = tileir_diff.diff(TWO_CONSTANTS.encode(), ONE_CONSTANT.encode())
    assert r.verdict == "equivalent" and r.rules_applied.get("constant-dedup")
    assert passes == {"graphs": 1, "check": 1}


def test_a_classifier_root_ends_the_renaming_only_run_before_its_check(passes):
    r = tileir_diff.diff(TWO_CONSTANTS.encode(), COMMUTED.encode())
    assert r.verdict == "equivalent" and r.rules_applied.get("commutative-operands")
    assert passes == {"graphs": 2, "check": 1}


def test_different_stays_different(passes):
    other = ONE_CONSTANT.replace("<f32: 1.0>", "<f32: 2.0>")
    r = tileir_diff.diff(TWO_CONSTANTS.encode(), other.encode())
    assert r.verdict == "different" and [d.category for d in r.differences] == ["constant"]


def test_certainly_different_compares_op_names_as_a_multiset():
    from tileir_diff.compare.passes import pair_functions
    from tileir_diff.loader import load
    two, one, commuted = (load(t.encode()) for t in (TWO_CONSTANTS, ONE_CONSTANT, COMMUTED))
    for left, right, expected in ((two, one, True), (two, commuted, False), (two, two, False)):
        assert engine._certainly_different(left, right, *pair_functions(left, right)) is expected
