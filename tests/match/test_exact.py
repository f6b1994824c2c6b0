"""The exact stage alone: equal Merkle hashes, operand cones paired in lock step."""
from __future__ import annotations

from tileir_diff.match import Exact

from .kernels import T, Pair, kernel, load, store

LOOP = f"""  %c0 = constant <i32: 0> : tile<i32>
  %c4 = constant <i32: 4> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  %acc = for %iv in (%c0 to %c4, step %c1) : tile<i32> iter_values(%x = %a) -> ({T}) {{
    %y = exp %x : {T}
    continue %y : {T}
  }}
"""


def _scaled(c: str) -> str:
    return kernel(load("a") + f"  %c = constant <f32: {c}> : {T}\n  %m = mulf %a, %c : {T}\n  %e = exp %m : {T}\n"
                  + store("st", "%e"))


def test_equal_subgraphs_pair_and_a_changed_constant_cuts_its_cone():
    p = Pair(_scaled("2.0"), _scaled("3.0"))
    added = p.run(Exact())
    assert {t for _, _, t in added} == {"exact"}
    assert {l for l, r, _ in added if l == r} == {"%arg0", "%arg1", "%arg2", "%tx", "%ty", "%bx", "%px", "%py", "%a",
                                                 "return"}
    assert len(added) == 10  # not the constant, nor anything downstream of it (mulf, exp, the store)


def test_region_ops_pair_with_their_bodies_and_block_arguments():
    p = Pair(kernel(load("a") + LOOP + store("st", "%acc")))
    added = p.run(Exact())
    assert ("%acc", "%acc", "exact") in added and ("%iv", "%iv", "exact") in added and ("%x", "%x", "exact") in added
    assert ("%y", "%y", "exact") in added and ("continue", "continue", "exact") in added
    assert len(added) == len(p.L) == len(p.R)


def test_a_cone_that_contradicts_an_existing_pair_is_refused():
    body = (load("a") + load("b", index="%by") + f"  %e = exp %a : {T}\n  %f = negf %b : {T}\n"
            f"  %s = addf %e, %f : {T}\n" + store("st", "%s"))
    p = Pair(kernel(body))
    p.given(("%a", "%b"))  # a wrong earlier pair: the two loads crossed
    added = {l for l, _, _ in p.run(Exact())}
    assert not added & {"%a", "%b", "%e", "%f", "%s", "%st"}  # every cone through a or b is refused
    assert {"%px", "%bx", "%arg0"} <= added


def test_a_value_one_side_computes_once_and_the_other_twice_pairs_the_earlier_copy():
    # the cone of the store reaches the left load twice, once with each right load: it pairs
    # with the first in program order, in every process (not as string hashes order a set)
    left = kernel(load("a") + f"  %s = addf %a, %a : {T}\n" + store("st", "%s"))
    right = kernel(load("a") + load("b") + f"  %s = addf %a, %b : {T}\n" + store("st", "%s"))
    added = Pair(left, right).run(Exact())
    assert ("%a", "%a", "exact") in added and ("%s", "%s", "exact") in added
    assert not any(r == "%b" for _, r, _ in added)
