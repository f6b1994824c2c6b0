"""The same-io stage alone: leftovers in the same place pair, whatever their op name."""
from __future__ import annotations

from tileir_diff.match import SameIO

from .kernels import T, Pair, kernel, load, store


def _chain(op: str) -> str:
    return kernel(load("a") + f"  %m = {op} %a, %a : {T}\n  %e = exp %m : {T}\n" + store("st", "%e"))


def _slot(src: str) -> str:
    return kernel(load("a") + load("b", index="%by") + f"  %u = {src} : {T}\n  %n = negf %u : {T}\n"
                  f"  %s = mulf %n, %a : {T}\n" + store("st", "%s"))


def test_identical_paired_inputs_pair_another_op_kind():
    p = Pair(_chain("mulf"), _chain("divf"))
    p.given_all_but("%m")
    assert p.run(SameIO()) == [("%m", "%m", "same-io")]


def test_the_same_slot_of_a_paired_user_pairs_the_same_op_name_only():
    p = Pair(_slot("exp %a"), _slot("absf %b"))
    p.given_all_but("%u", "%n")
    assert p.run(SameIO()) == [("%n", "%n", "same-io")]
    assert p.run(SameIO()) == []  # exp(a) vs absf(b): other inputs and another name
