"""Difference.detail: what a root difference is about, as data, and the accepted-differences
patterns that match on it (tileir_diff.suite.port_table)."""
from __future__ import annotations

from tileir_diff.suite.port_table import accepted_by, detail_matches

from ..normalize.kernels import kernel, load, store, verdict


def only(result):
    assert result.verdict == "different" and len(result.differences) == 1, result.brief()
    return result.differences[0]


def test_changed_attribute_is_named():
    a = kernel(load("x") + "  %e = exp %x : tile<128xf32>\n" + store("%e"))
    b = kernel(load("x") + "  %e = exp %x rounding<approx> : tile<128xf32>\n" + store("%e"))
    d = only(verdict(a, b))
    assert d.detail == {"kind": "changed", "left_op": "exp", "right_op": "exp", "attributes": ["rounding_mode"]}


def test_rewired_operand_names_the_producers():
    a = kernel(load("x") + load("y", index="%by") + "  %s = subf %x, %y : tile<128xf32>\n" + store("%s"))
    b = kernel(load("x") + load("y", index="%by") + "  %s = subf %x, %x : tile<128xf32>\n" + store("%s"))
    d = only(verdict(a, b))
    assert d.detail["kind"] == "changed" and d.detail["left_op"] == d.detail["right_op"] == "subf"
    assert d.detail["operands"] == [{"role": "rhs", "left": "load_view_tko", "right": "load_view_tko"}]


def test_one_sided_op():
    a = kernel(load("x") + store("%x"))
    b = kernel(load("x") + store("%x") + store("%x", name="st2", index="%by"))
    d = only(verdict(a, b))
    assert d.detail["kind"] == "only_right" and d.detail["right_op"] == "store_view_tko"
    assert d.detail["left_op"] is None


def test_patterns():
    detail = {"kind": "rewired", "left_op": "addi", "right_op": "addi",
              "operands": [{"role": "rhs", "left": "select", "right": "remi"}]}
    assert detail_matches({"kind": "rewired", "operands": [{"left": "select", "right": "remi"}]}, detail)
    assert detail_matches({}, detail)
    assert not detail_matches({"operands": [{"left": "remi"}]}, detail)
    assert not detail_matches({"kind": "changed"}, detail)
    assert not detail_matches({"attributes": ["rounding"]}, detail)  # key absent
    assert not detail_matches({"operands": {"left": "select"}}, detail)  # a list is not a dict


def test_accepted_by_prefers_match_over_message():
    diff = {"category": "arith", "message": "addi rhs (operand 1): %15 -> %10",
            "detail": {"kind": "rewired", "left_op": "addi", "right_op": "addi",
                       "operands": [{"role": "rhs", "left": "select", "right": "remi"}]}}
    by_match = {"category": "arith", "what": "addi input select -> remi", "why": "-",
                "match": {"left_op": "addi", "operands": [{"left": "select", "right": "remi"}]}}
    by_text = {"category": "arith", "what": "addi rhs (operand 1)", "why": "-"}
    wrong_match = {"category": "arith", "what": "addi rhs", "why": "-", "match": {"left_op": "subi"}}
    assert accepted_by(diff, [by_match], "v") is by_match
    assert accepted_by(diff, [by_text], "v") is by_text
    assert accepted_by(diff, [wrong_match], "v") is None  # with a match, the message is not consulted
    assert accepted_by(diff, [{**by_match, "category": "memory"}], "v") is None
    assert accepted_by(diff, [{**by_match, "variants": ["other"]}], "v") is None


def test_replaced_input_names_the_slot():
    a = kernel(load("x") + "  %k = constant <f32: 2.0> : tile<128xf32>\n  %s = subf %x, %k : tile<128xf32>\n"
               + store("%s"))
    b = kernel(load("x") + "  %e = exp %x : tile<128xf32>\n  %s = subf %x, %e : tile<128xf32>\n" + store("%s"))
    d = only(verdict(a, b))
    # the proof step's model of the subf pair rides along (exp is a leaf: any value differs)
    detail = {k: v for k, v in d.detail.items() if k != "counterexample"}
    assert detail == {"kind": "replaced", "left_op": "constant", "right_op": "exp",
                      "slot": {"user": "subf", "role": "rhs"}}
    assert set(d.detail.get("counterexample", {"left": 0, "right": 1})) >= {"left", "right"}
