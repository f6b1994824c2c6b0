"""Work budgets inside one proof: the lifted queries (checker._lift_levels) and the integer encoding (smt.INTEGER_RLIMIT).

A lifted query that spends its work budget ends the lift on that chain (checker._lift_levels).

The cones above an undecided pair hold its cone, so they cost more and are no more likely
decided: lifting on past one only spent work (three undecided float queries, ~1.5 s of z3, on
the fuzz case below before the cut; one after). Lifting can only discharge a refuted pair, so
stopping early can keep a root, never hide one.
"""
from __future__ import annotations

import random

from tests.fuzz.harness import Corpus, make_case
from tileir_diff.api import diff
from tileir_diff.check import smt
from tileir_diff import load


def test_an_undecided_lifted_query_is_not_lifted_on(monkeypatch):
    corpus = Corpus()
    # a grammar mutant of float_arith (a constant changed, an attribute dropped): one base query
    # refuted, its user pairs lifted, the first of them undecided within the lifted budget
    case = make_case(corpus, random.Random(36031), "grammar")
    assert corpus.paths[case.source].name.startswith("float_arith")
    answers = []
    original = smt.ConeEncoder._solve

    def spy(self, s, rlimit):
        out = original(self, s, rlimit)
        answers.append(str(out))
        return out
    monkeypatch.setattr(smt.ConeEncoder, "_solve", spy)
    # without probes: they refute these float queries before z3 is asked (test_probes.py), and
    # the lift's stop is what is tested here
    monkeypatch.setattr(smt, "PROBES", 0)
    r = diff(corpus.module(case.source), load(case.data, path="mutant.tileirbc"))
    assert r.verdict == "different"
    assert "sat" in answers                 # the base query was refuted: the lift ran
    assert answers.count("unknown") == 1    # and stopped at its first undecided query


def test_the_integer_encoding_gets_at_most_its_own_share(monkeypatch):
    """tps.matmul_static_mnk divides by a computed value: the integer encoding goes first
    (``_attempts``' deferred path) and proves the pair within INTEGER_RLIMIT; before the cap it
    was handed three quarters of the proof's budget, which undecided queries spent in full."""
    from pathlib import Path
    attempts = []
    original = smt.ConeEncoder._attempt

    def spy(self, vl, vr, ints, budget, defer=False):
        out = original(self, vl, vr, ints, budget, defer)
        attempts.append((ints, budget, out.status))
        return out
    monkeypatch.setattr(smt.ConeEncoder, "_attempt", spy)
    root = Path(__file__).resolve().parents[1] / "corpus" / "third_party_style"
    r = diff(str(root / "matmul_static_mnk.left.tir"), str(root / "matmul_static_mnk.right.tir"))
    integer = [a for a in attempts if a[0]]
    assert integer and all(budget <= smt.INTEGER_RLIMIT for _, budget, _ in integer)
    assert ("deferred" in [s for _, _, s in attempts]) and all(s == "equal" for _, _, s in integer)
    assert r.verdict == "specialized"  # as its expect.json says
