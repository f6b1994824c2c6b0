"""A lifted query that spends its work budget ends the lift on that chain (checker._lift_levels).

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
    r = diff(corpus.module(case.source), load(case.data, path="mutant.tileirbc"))
    assert r.verdict == "different"
    assert "sat" in answers                 # the base query was refuted: the lift ran
    assert answers.count("unknown") == 1    # and stopped at its first undecided query
