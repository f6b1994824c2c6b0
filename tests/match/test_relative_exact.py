"""The exact-relative stage alone: keys in which paired nodes stand for their pairs."""
from __future__ import annotations

from tileir_diff.match import RelativeExact

from .kernels import T, Pair, kernel, load, store


def _scaled(c: str, stores: str = store("st", "%e")) -> str:
    return kernel(load("a") + f"  %c = constant <f32: {c}> : {T}\n  %m = mulf %a, %c : {T}\n  %e = exp %m : {T}\n"
                  + stores)


def test_nodes_below_a_paired_change_pair_again():
    p = Pair(_scaled("2.0"), _scaled("3.0"))
    p.given_all_but("%m", "%e", "%st")  # the changed constants are paired (as same-io or top-down would)
    assert p.run(RelativeExact()) == [("%e", "%e", "exact-relative"), ("%m", "%m", "exact-relative"),
                                      ("%st", "%st", "exact-relative")]


def test_an_unpaired_change_keeps_its_users_apart():
    p = Pair(_scaled("2.0"), _scaled("3.0"))
    p.given_all_but("%c", "%m", "%e", "%st")
    assert p.run(RelativeExact()) == []


def test_two_candidates_on_each_side_wait():
    two = store("s1", "%e") + store("s2", "%e")
    p = Pair(_scaled("2.0", two), _scaled("3.0", two))
    p.given_all_but("%m", "%e", "%s1", "%s2")
    assert p.run(RelativeExact()) == [("%e", "%e", "exact-relative"), ("%m", "%m", "exact-relative")]
