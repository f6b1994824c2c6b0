"""Probes (smt._CounterexampleSearch.probe): a float query is evaluated at a few fixed inputs before
z3 searches for one. z3 bit-blasts every float op first (0.12 s for one fma whose constant changed,
a fifth of the 3,015-op bench pair's diff); a probe is one substitution and z3's simplifier. A probe
can only show a difference, at inputs where every fact holds, so it never proves anything."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tileir_diff.check import smt
from tileir_diff.compare import compute_diff

from ..normalize.kernels import kernel, load, store

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

F = "tile<128xf32>"


def _scaled(factor: str) -> object:
    return kernel(load("a") + f"  %c = constant <f32: {factor}> : {F}\n  %s = mulf %a, %c : {F}\n" + store("%s"))


def test_a_float_difference_is_shown_by_a_probe_without_a_search(monkeypatch):
    solved = []
    original = smt.ConeEncoder._solve

    def spy(self, s, rlimit):
        solved.append(self._probing)  # a float proof's query
        return original(self, s, rlimit)
    monkeypatch.setattr(smt.ConeEncoder, "_solve", spy)
    r = compute_diff(_scaled("2.000000e+00"), _scaled("3.000000e+00"), with_summary=False, with_lines=False)
    assert r.verdict == "different"
    refuted = [p for p in r.proofs if p["status"] == "different"]
    assert refuted, r.proofs
    # both sides read the same memory value at the probe: 3x / 2x
    cex = [d.detail["counterexample"] for d in r.differences if "counterexample" in d.detail]
    assert cex and cex[0]["right"] == 1.5 * cex[0]["left"] != 0, cex
    # no float query reached z3's search (the constants' own query, and the lifted one at the
    # mulf pair: both decided by a probe)
    assert True not in solved, solved


def _search():
    ctx = smt.new_context()
    enc = SimpleNamespace(ctx=ctx, _facts=[])
    return smt._CounterexampleSearch(enc), ctx


def test_two_reads_of_one_address_see_one_value():
    """p + 4 and 4 + p are one address once p is set: a probe fills memory per address, so the
    two reads agree and the probe finds no difference (one value per read would have)."""
    z3 = smt.z3
    search, ctx = _search()
    fs = z3.FPSort(8, 24, ctx)
    mem = z3.Function("mem:a0:f32", z3.BitVecSort(64, ctx), fs)
    p = z3.BitVec("arg0", 64, ctx)
    a, b = mem(p + 4), mem(4 + p)
    t = z3.BoolVal(True, ctx)
    query = z3.Not(z3.fpEQ(a, b, ctx))
    assert search.probe(query, a, b, t, t) is None
    # the mutant (another address) is shown different, at an input that says so
    b2 = mem(p + 8)
    cex = search.probe(z3.Not(z3.fpEQ(a, b2, ctx)), a, b2, t, t)
    assert cex is not None and cex["left"] != cex["right"] and "arg0" in cex


def test_a_probe_that_breaks_a_fact_is_no_counterexample():
    z3 = smt.z3
    search, ctx = _search()
    x = z3.BitVec("arg2", 32, ctx)
    y = x * 2
    t = z3.BoolVal(True, ctx)
    query = y != x + x + 1  # true at every input
    assert search.probe(query, y, x + x + 1, t, t) is not None
    search.enc._facts.append(("arg2 > 100 (an assume)", z3.UGT(x, 100)))  # no probe value is above 100
    assert search.probe(query, y, x + x + 1, t, t) is None


def test_an_undefined_side_is_reported_as_undefined():
    z3 = smt.z3
    search, ctx = _search()
    x = z3.BitVec("arg2", 32, ctx)
    dl, dr = z3.BoolVal(True, ctx), x != 1  # the right side is undefined at x = 1 (the first probe)
    query = z3.Or(z3.And(dl, dr, x != x), dl != dr)
    cex = search.probe(query, x, x, dl, dr)
    assert cex == {"arg2": 1, "left": 1, "right": "undefined"}
