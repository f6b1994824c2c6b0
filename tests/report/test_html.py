"""Standalone HTML report: escaping, linked ops, highlighted differences, no external assets."""
from __future__ import annotations

import re
from html.parser import HTMLParser

from tests.report.builders import EVIL
from tileir_diff.report import render


class Collector(HTMLParser):
    """Tags with attributes, the text inside <script>, and every id."""

    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self.ids, self._in_script = [], [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if "id" in attrs:
            self.ids.append(attrs["id"])
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def parse(html_text):
    c = Collector()
    c.feed(html_text)
    return c


def test_every_input_string_is_escaped(evil_result):
    page = render(evil_result, "html")
    assert EVIL not in page and "<script>alert" not in page
    parsed = parse(page)
    assert [t for t, _ in parsed.tags].count("script") == 1  # only our own script
    assert "alert" not in "".join(parsed.scripts)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "r&amp;b.tileirbc" in page
    # No attribute value picked up markup from the input either.
    for tag, attrs in parsed.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert "<" not in (value or ""), (tag, name, value)


def test_no_external_assets(different_result):
    page = render(different_result, "html")
    parsed = parse(page)
    for tag, attrs in parsed.tags:
        assert tag not in ("link", "img", "iframe", "object", "embed")
        if tag == "script":
            assert "src" not in attrs
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "@import" not in page and "url(" not in page


def test_matched_ops_are_linked_both_ways(different_result):
    page = render(different_result, "html")
    parsed = parse(page)
    lines = {a["id"]: a for t, a in parsed.tags if t == "div" and a.get("data-op")}
    for left_id, right_id, _ in different_result.mapping:
        left = lines[f"L:{left_id}"]
        right = lines[f"R:{right_id}"]
        assert left["data-partner"] == right_id and right["data-partner"] == left_id
    assert len(parsed.ids) == len(set(parsed.ids))  # anchors are unique


def test_differences_listed_at_top_and_highlighted(different_result):
    page = render(different_result, "html")
    assert page.index('id="differences"') < page.index('id="code"') < page.index('id="summary"')
    parsed = parse(page)
    classes = {a["id"]: a.get("class", "") for t, a in parsed.tags if t == "div" and a.get("data-op")}
    d0, d1 = different_result.differences
    assert "diff" in classes[f"L:{d0.left.op_id}"].split() and "diff" in classes[f"R:{d0.right.op_id}"].split()
    assert "affected" in classes["L:f0/o26"].split()
    assert "diff" in classes[f"L:{d1.left.op_id}"].split()  # a root difference outranks "affected"
    links = [a["data-target"] for t, a in parsed.tags if t == "a" and "data-target" in a]
    assert f"L:{d0.left.op_id}" in links and f"R:{d0.right.op_id}" in links
    assert all(target in classes for target in links)  # every link lands on a line


def test_summary_tables_flag_differing_rows(different_result):
    page = render(different_result, "html")
    assert '<details class="sec neq" open><summary>MMA' in page
    assert '<details class="sec"><summary>Control flow' in page  # equal sections start folded
    assert "bf16·bf16" in page and "<td class=\"flag\">≠</td>" in page


def test_identical_result_without_lines_still_renders():
    from tileir_diff.compare.result import DiffResult, MatchStats
    page = render(DiffResult("identical", [], {}, None, "a", "b", (), [], MatchStats()), "html")
    assert "IDENTICAL" in page and "carries no printed modules" in page
    assert page.rstrip().endswith("</html>")


def test_region_bodies_pair_under_their_matched_op():
    from tileir_diff.compare.result import DiffResult, MatchStats
    lines = [("f0", "entry @k() {"), ("f0/o0", "%t = make_token"), ("f0/o1", "%r = reduce ..."),
             ("f0/o1/r0/o0", "%s = addf %a, %b"), ("f0/o1/r0/o1", "yield %s"), (None, "}")]
    result = DiffResult("identical", [], {}, None, "a", "b", (), [("f0/o1", "f0/o1", "exact")], MatchStats(),
                        left_lines=lines, right_lines=lines)
    parsed = parse(render(result, "html"))
    lines_by_id = {a["id"]: a for t, a in parsed.tags if t == "div" and a.get("data-op")}
    assert lines_by_id["L:f0/o1/r0/o0"]["data-partner"] == "f0/o1/r0/o0"
    assert "unmatched" not in lines_by_id["L:f0/o1/r0/o1"]["class"]
    # A top-level op the mapping leaves out stays unmatched: the function is no evidence.
    assert "data-partner" not in lines_by_id["L:f0/o0"] and "unmatched" in lines_by_id["L:f0/o0"]["class"]


def _line_titles(page):
    """op id -> the hover text of its line, per side ("L"/"R")."""
    out = {}
    for tag, attrs in parse(page).tags:
        if tag == "div" and attrs.get("data-op"):
            out[(attrs["data-side"], attrs["data-op"])] = (attrs.get("title", ""), attrs.get("data-rule"))
    return out


def test_a_line_without_partner_names_the_rule_that_absorbed_it():
    """The right side adds a dead multiply (dead-code absorbs it) and the left side an op the
    other side does not have (an extra addf that reaches the store): hovering the first names
    dead-code, the second says it is only on its side."""
    from tests.normalize.kernels import kernel, load, store
    from tileir_diff.compare import compute_diff
    left = kernel(load("a") + "  %s = addf %a, %a : tile<128xf32>\n" + store("%s"))
    right = kernel(load("a") + "  %dead = mulf %a, %a : tile<128xf32>\n" + store("%a"))
    result = compute_diff(left, right)
    assert result.verdict == "different"
    dead = [op for op, rule in result.absorbed_by["right"].items() if rule == "dead-code"]
    assert dead, result.absorbed_by
    titles = _line_titles(render(result, "html"))
    title, rule = titles[("R", dead[0])]
    assert rule == "dead-code" and "absorbed by rule dead-code" in title
    unpartnered = [(side, op, t) for (side, op), (t, r) in titles.items() if "no partner" in t]
    for side, op, t in unpartnered:  # each says the rule that absorbed it, or that no rule did
        rule = result.absorbed_by["left" if side == "L" else "right"].get(op)
        assert (f"absorbed by rule {rule}" in t) if rule else ("only on this side" in t and "absorbed" not in t)
    # the JSON carries the same attribution, and reads back
    from tileir_diff.compare.result import DiffResult
    assert DiffResult.from_dict(result.to_dict()).absorbed_by == result.absorbed_by
