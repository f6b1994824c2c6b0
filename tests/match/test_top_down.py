"""The top-down stage alone: from paired users to their operands and region contents."""
from __future__ import annotations

from tileir_diff.match import TopDown

from .kernels import T, Pair, kernel, load, store

LOOP = f"""  %c0 = constant <i32: 0> : tile<i32>
  %c4 = constant <i32: 4> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  %acc = for %iv in (%c0 to %c4, step %c1) : tile<i32> iter_values(%x = %a) -> ({T}) {{
    %y = exp %x : {T}
    continue %y : {T}
  }}
"""


def _chain(op: str, c: str) -> str:
    return kernel(load("a") + f"  %c = constant <f32: {c}> : {T}\n  %m = {op} %a, %c : {T}\n  %e = exp %m : {T}\n"
                  + store("st", "%e"))


def twins(i: int) -> str:
    """addf(absf(load px[i]), absf(load py[i])): a change of i moves every hash below the addf."""
    return kernel(f"  %i = constant <i32: {i}> : tile<i32>\n" + load("a", index="%i")
                  + load("b", view="%py", index="%i")
                  + f"  %p = absf %a : {T}\n  %q = absf %b : {T}\n  %x = addf %p, %q : {T}\n" + store("st", "%x"))


def test_operands_pair_slot_by_slot_from_a_paired_store():
    p = Pair(_chain("mulf", "2.0"), _chain("mulf", "3.0"))
    p.given("%st")
    names = ["%a", "%arg0", "%arg1", "%arg2", "%bx", "%c", "%e", "%m", "%px", "%py", "%tx", "%ty"]
    assert p.run(TopDown()) == [(n, n, "top-down") for n in names]  # the changed constant too: same op


def test_another_op_name_stops_top_down():
    p = Pair(_chain("mulf", "2.0"), _chain("divf", "2.0"))
    p.given("%st")
    added = {l for l, _, _ in p.run(TopDown())}
    assert "%e" in added and not added & {"%m", "%a", "%c"}


def test_region_contents_pair_from_a_paired_region_op():
    p = Pair(kernel(load("a") + LOOP + store("st", "%acc")))
    p.given_all_but("%iv", "%x", "%y", "continue")
    assert p.run(TopDown()) == [("%iv", "%iv", "top-down"), ("%x", "%x", "top-down"), ("%y", "%y", "top-down"),
                                ("continue", "continue", "top-down")]


def test_strict_top_down_leaves_equally_fitting_commutative_operands_waiting():
    p = Pair(twins(0), twins(1))
    p.given("%st", "%x")
    added = {l for l, _, _ in p.run(TopDown(strict=True))}
    assert not added & {"%p", "%q", "%a", "%b"}
    assert p.ctx.deferred == [(p.lid("%x"), p.rid("%x"))]
    # not strict (the tie-breaking pass, on ctx.deferred): both slots pair, in operand order
    added = {l for l, _, _ in p.run(TopDown(), seeds=p.ctx.deferred)}
    assert {"%p", "%q"} <= added
