"""Standalone HTML report: escaping, linked ops, highlighted differences, no external assets."""
from __future__ import annotations

import re
from html.parser import HTMLParser

from tests.report.builders import EVIL, build_different_result
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


# --- issue 29: absorbed overview, the switch, same-text pairing, cross-row marks, wide gutters -------

def _equivalent_with_absorbed_ops(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import tileir_diff
    root = Path(__file__).resolve().parents[2]
    kernel = root / "tests" / "corpus" / "data" / "float_arith.v13_4.tileirbc"
    lines = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "dump", str(kernel)], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "= addf" in line)
    lines.insert(at, "  %deadx = addf %tile, %tile_8  : tile<128xf32>")
    port = tmp_path / "port.tileir"
    port.write_text("\n".join(lines) + "\n")
    return tileir_diff.diff(kernel, port)


def test_the_absorbed_ops_are_grouped_by_rule_and_opcode(tmp_path):
    import re
    result = _equivalent_with_absorbed_ops(tmp_path)
    assert result.verdict == "equivalent"
    page = render(result, "html")
    section = page[page.index('<section id="absorbed">'):page.index('<section id="code">')]
    rows = re.findall(r"<tr><td><code>([^<]+)</code></td><td><code>([^<]+)</code></td>"
                      r"<td class=\"n\">(\d+)</td><td class=\"n\">(\d+)</td></tr>", section)
    counted = {side: sum(int(r[2 + k]) for r in rows) for k, side in enumerate(("left", "right"))}
    assert counted == {side: len(result.absorbed_by[side]) for side in ("left", "right")}
    assert ("cse-pure-ops", "addf", "0", "1") in rows  # the duplicated addf, merged on the right only
    assert {r[0] for r in rows} == set(result.absorbed_by["left"].values()) | set(result.absorbed_by["right"].values())


def test_the_switch_hides_only_rows_of_absorbed_ops(tmp_path):
    import re
    page = render(_equivalent_with_absorbed_ops(tmp_path), "html")
    assert 'id="hide-absorbed"' in page and ".sbs.hide-absorbed .row.absorbed{display:none}" in page
    rows = re.findall(r'<div class="row( absorbed)?">(.*?)</div></div>', page)
    hidden = [body for flag, body in rows if flag]
    assert hidden
    for body in hidden:
        cells = re.findall(r'<div class="ln [^"]*"[^>]*>', body)
        assert all("data-rule=" in c or " gap " in c for c in cells), body
    assert not render(build_different_result(), "html").count('id="hide-absorbed"')  # nothing absorbed: no switch


def test_unpartnered_lines_with_the_same_text_share_a_row():
    from tileir_diff.report.html import align_lines
    left = [("f0/o1", "%1 = addf %a, %b"), ("f0/o2", "%c = constant <f32: 1.0>"), (None, "}")]
    right = [("f0/o1", "%1 = mulf %a, %b"), ("f0/o7", "%x = negf %a"), ("f0/o2", "%c = constant <f32: 1.0>"),
             (None, "}")]
    rows = align_lines(left, right, {}, {})
    assert (1, 2) in rows and (2, 3) in rows  # the same constant line, and the closing brace
    assert (0, None) in rows and (None, 0) in rows and (None, 1) in rows  # different texts stay apart
    # a line whose partner is elsewhere is never paired by text
    assert (1, 2) not in align_lines(left, right, {"f0/o2": "f0/o9"}, {"f0/o9": "f0/o2"})


def test_five_digit_line_numbers_get_a_gutter_that_fits():
    result = build_different_result()
    long = result.replaced(left_lines=list(result.left_lines) + [(None, "// filler")] * 12000)
    page = render(long, "html")
    assert 'style="--gutter:5"' in page
    assert "width:calc(var(--gutter,3) * 1ch + 12px)" in page and "white-space:nowrap" in page.split(".ln .no{")[1]
    assert 'style="--gutter:3"' in render(result, "html")


def test_a_root_pair_on_two_rows_still_marks_its_tokens():
    from tileir_diff.report import html as html_report
    result = build_different_result()
    d = result.differences[0]
    # force the pair onto two rows: the aligner gives each line a row of its own
    original = html_report.align_lines

    def apart(left_lines, right_lines, partner_l, partner_r):
        rows = original(left_lines, right_lines, partner_l, partner_r)
        out = []
        for i, j in rows:
            if i is not None and j is not None and left_lines[i][0] == d.left.op_id:
                out += [(i, None), (None, j)]
            else:
                out.append((i, j))
        return out
    html_report.align_lines = apart
    try:
        page = render(result, "html")
    finally:
        html_report.align_lines = original
    line = page[page.index(f'id="L:{d.left.op_id}"'):]
    assert "<mark>" in line[:line.index("</div>")]


def test_only_a_long_message_is_cut_with_a_button_and_kept_whole():
    from dataclasses import replace

    from tileir_diff.report.html import LONG_MESSAGE
    result = build_different_result()
    short = result.differences[0]
    long_text = "calling convention: " + "; ".join(f"left %arg{i} <-> right %arg{i + 1}" for i in range(40))
    assert len(short.message) <= LONG_MESSAGE < len(long_text)
    result = replace(result, differences=[replace(short, message=long_text)] + list(result.differences[1:]))
    page = render(result, "html")
    heads = re.findall(r'<div class="dhead( long)?">', page)
    assert heads[0] == " long" and all(h == "" for h in heads[1:])
    assert page.count('class="more-msg"') == 1 and f"({len(long_text):,} characters)" in page
    assert long_text.replace("<", "&lt;").replace(">", "&gt;") in page  # the whole message is in the page
