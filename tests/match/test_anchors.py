"""The anchors stages: entry arguments (Arguments), then memory ops by address root and the entry's
return (Anchors, which reads the argument pairs)."""
from __future__ import annotations

from tileir_diff.dialect.ops import OPS_BY_NAME
from tileir_diff.match import Anchors, Arguments
from tileir_diff.match.opsets import MEMORY_OPS

from .kernels import ARGS, P, T, Pair, kernel, load, store

ARG_PAIRS = [("%arg0", "%arg0", "anchors"), ("%arg1", "%arg1", "anchors"), ("%arg2", "%arg2", "anchors")]


def anchored(p: Pair):
    """The pairs the two anchors stages add, in the order of the matcher's list."""
    return sorted(p.run(Arguments()) + p.run(Anchors()))


def test_arguments_memory_ops_and_return_are_anchored():
    p = Pair(kernel(load("a") + load("b", view="%py") + f"  %s = addf %a, %b : {T}\n" + store("st", "%s")))
    assert anchored(p) == sorted(ARG_PAIRS + [("%a", "%a", "anchors"), ("%b", "%b", "anchors"),
                                              ("%st", "%st", "anchors"), ("return", "return", "anchors")])


def test_an_inserted_argument_does_not_shift_the_others():
    body = load("a") + store("st", "%a")
    p = Pair(kernel(body), kernel(body, args="%argX: tile<f32>, " + ARGS))
    added = anchored(p)
    assert [x for x in added if x[0].startswith("%arg")] == ARG_PAIRS  # right %arg0 is its argument 1
    assert p.rid("%arg0") == "f0/a1" and p.pairs()["%arg0"] == "%arg0"
    assert "%argX" not in p.pairs().values()


def test_memory_ops_of_one_argument_and_kind_are_anchored_only_when_unique():
    # two loads through %arg0 (ambiguous: left to later stages), one store through %arg1
    p = Pair(kernel(load("a") + load("b", index="%by") + f"  %s = addf %a, %b : {T}\n" + store("st", "%s")))
    added = anchored(p)
    assert ("%st", "%st", "anchors") in added
    assert not {"%a", "%b"} & {x[0] for x in added}


def test_multimem_ops_are_memory_ops_from_the_op_table():
    """The memory-op set is the op table's ``memory`` trait: the 13.5 multimem ops are anchored."""
    assert MEMORY_OPS == {n for n, d in OPS_BY_NAME.items() if "memory" in d.traits}
    assert {"multimem_load_reduce_view_tko", "multimem_reduce_view_tko", "multimem_store_view_tko"} <= MEMORY_OPS
    body = (f"  %r, %r_tok = multimem_load_reduce_view_tko weak %px[%bx] : {P}, tile<i32> -> {T}, token\n"
            f"  %e = exp %r : {T}\n"
            f"  %m = multimem_store_view_tko weak %py, %e[%bx] token = %0 : {P}, {T}, tile<i32>, token -> token\n")
    p = Pair(kernel(body), version=(13, 5))
    assert anchored(p) == sorted(ARG_PAIRS + [("%m", "%m", "anchors"), ("%r", "%r", "anchors"),
                                              ("return", "return", "anchors")])


def test_nothing_is_anchored_twice():
    p = Pair(kernel(load("a") + store("st", "%a")))
    assert anchored(p)
    assert anchored(p) == []


def test_memory_ops_are_anchored_through_paired_arguments_only():
    """Anchors keys a right memory op by the left partner of its address root: before the
    arguments are paired, only the return is anchored."""
    p = Pair(kernel(load("a") + store("st", "%a")))
    assert p.run(Anchors()) == [("return", "return", "anchors")]
    assert p.run(Arguments()) == ARG_PAIRS
    assert p.run(Anchors()) == [("%a", "%a", "anchors"), ("%st", "%st", "anchors")]
