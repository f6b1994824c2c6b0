"""The pair summary compares assumptions as sets of facts, not position by position."""
from __future__ import annotations

from tileir_diff.summary import summarize_pair
from tileir_diff.text.parser import parse_text

HEAD = "entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {\n"
TAIL = ("  %tv = make_tensor_view %arg0, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>\n"
        "  return\n}\n")


def _chain(*preds: str):
    lines, prev = [], "%arg1"
    for i, p in enumerate(preds):
        name = "%n" if i == len(preds) - 1 else f"%a{i}"
        lines.append(f"  {name} = assume {p}, {prev} : tile<i32>\n")
        prev = name
    return parse_text(HEAD + "".join(lines) + TAIL, version=(13, 3))


def _section(a, b):
    (fp,) = summarize_pair(a, b)["pair"]["functions"]
    return fp["sections"]["assumptions"]


def test_same_facts_in_another_order_or_repeated_agree():
    section = _section(_chain("div_by<8>", "bounded<0, ?>", "div_by<8>"), _chain("bounded<0, ?>", "div_by<8>"))
    assert section["same"], section
    assert sorted(r["left"] for r in section["rows"]) == ["arg1: bounded<0, ?>", "arg1: div_by<8>"]


def test_a_different_fact_is_flagged_once():
    section = _section(_chain("bounded<0, ?>", "div_by<8>"), _chain("bounded<0, ?>", "div_by<16>"))
    assert not section["same"]
    differing = [(r["left"], r["right"]) for r in section["rows"] if not r["same"]]
    assert differing == [("arg1: div_by<8>", None), (None, "arg1: div_by<16>")]
