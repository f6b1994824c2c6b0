"""The port table's renderings (PORTS.md, build/report/index.html, status.json), numerics tied to
the cubin they tested, and `tileir-diff diff --accept` (the same accepted-differences logic)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.report import json_schema
from tileir_diff.suite.port_table import (COLUMNS, Links, PortRow, cubin_digest, load_numerics, numerics_state,
                                     render_index_html, render_markdown, render_text, status_document)

ROOT = Path(__file__).resolve().parents[2]
MMA = ROOT / "tests" / "corpus" / "data" / "mma_f16_f32acc.v13_4.tileirbc"


def _rows(tmp_path):
    report = tmp_path / "build" / "report" / "gelu" / "erf_f16.html"
    return [PortRow("argmax", "f16_m4_n1024", "missing", "missing"),
            PortRow("gelu", "erf_f16", "different", "pass", report=str(report),
                    accepted_differences=[{"category": "arith", "message": "m", "accepted_as": "erf as tanh"}],
                    unsafe_blocks={"kernel": 2, "ffi": 1}, numerics={"result": "pass", "state": "current"}),
            PortRow("gelu", "erf_bf16", "different", "fail",
                    unexplained_differences=[{"category": "arith", "message": "a <script> | b"}]),
            PortRow("argmax", "bf16_m4_n1024", "missing", "missing")]


def test_markdown_ported_rows_first_with_links(tmp_path):
    md = render_markdown(_rows(tmp_path), links=Links(ROOT, ROOT / "docs"))
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert table[0] == "| " + " | ".join(c.header for c in COLUMNS) + " |"
    assert len(table) == 3 and [line.split(" | ")[1].split("](")[0] for line in table[1:]] == ["[erf_f16", "erf_bf16"]
    assert table[1].startswith("| [gelu](../reference/gelu/analysis.json) | [erf_f16](")
    assert "[2+1](../rust_kernels/src/ops/gelu/kernel.rs)" in table[1]
    assert "a <script> \\| b" in table[2]  # a pipe from a message cannot break the table
    assert "argmax" not in "\n".join(table)  # not ported: listed below, one line per op
    assert "## Not ported yet (2 variants)" in md
    assert "- [argmax](../reference/argmax/analysis.json): f16_m4_n1024, bf16_m4_n1024" in md
    # the one passing row passes through a hand-accepted difference: the count says so
    assert "2 of 4 variants ported; 1 pass the IR comparison, 1 of them through hand-accepted differences." in md


def test_index_html_lists_every_variant_escaped_and_linked(tmp_path):
    at = tmp_path / "build" / "report"
    page = render_index_html(_rows(tmp_path), Links(ROOT, at))
    assert page.startswith("<!DOCTYPE html>")
    for variant in ("f16_m4_n1024", "erf_f16", "erf_bf16", "bf16_m4_n1024"):
        assert f">{variant}<" in page
    assert '<a href="gelu/erf_f16.html">erf_f16</a>' in page
    assert "<script>" not in page and "a &lt;script&gt; | b" in page
    assert page.index("erf_bf16") < page.index("f16_m4_n1024")  # ported first
    for header in ("numerics", "device time vs reference", "status"):
        assert f"<th>{header}</th>" in page


def test_text_table_counts_the_whole_table_when_filtered(tmp_path):
    rows = _rows(tmp_path)
    text = render_text([r for r in rows if r.verdict != "missing"], all_rows=rows)
    assert text.splitlines()[-1] == ("2 of 4 variants ported; 1 pass the IR comparison, "
                                     "1 of them through hand-accepted differences")
    assert len(text.splitlines()) == 4


def test_status_document_is_versioned_with_relative_report_paths(tmp_path):
    rows = _rows(tmp_path)
    doc = status_document(rows, tmp_path)
    assert doc["format"] == "tileir_diff.port_table" and doc["version"] == 2
    assert doc["counts"] == {"variants": 4, "ported": 2, "pass": 1, "fail": 1}
    by_variant = {r["variant"]: r for r in doc["rows"]}
    assert by_variant["erf_f16"]["report"] == "build/report/gelu/erf_f16.html"
    assert by_variant["f16_m4_n1024"]["report"] is None
    assert doc["columns"] == [c.header for c in COLUMNS]


def test_numerics_are_tied_to_the_cubin_they_tested(tmp_path):
    cubin = tmp_path / "k.sm_90.cubin"
    cubin.write_bytes(b"\x7fELF build 1")
    first = cubin_digest(cubin)
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "ports_results.json").write_text(json.dumps({
        "date": "2026-12-01T10:00:00+00:00", "gpu": "H200", "cases": [
            {"op": "gelu", "variant": "erf_f16", "result": "pass", "cubin_sha256": first},
            {"op": "gelu", "variant": "erf_f16", "result": "pass", "cubin_sha256": first},
            {"op": "gelu", "variant": "erf_bf16", "result": "pass"}]}))
    numerics = load_numerics(tmp_path)
    tied, untied = numerics[("gelu", "erf_f16")], numerics[("gelu", "erf_bf16")]
    assert tied["cases"] == 2 and tied["cubin_sha256"] == [first]
    assert numerics_state(tied, first) == "current"
    cubin.write_bytes(b"\x7fELF build 2")  # the port was rebuilt: the old result says nothing about it
    assert numerics_state(tied, cubin_digest(cubin)) == "stale"
    assert numerics_state(tied, None) == "stale"
    assert numerics_state(untied, first) == "untied"
    assert numerics_state({"result": "not_run"}, first) == "not_run"
    row = PortRow("gelu", "erf_f16", "equivalent", "pass", numerics={**tied, "state": "stale"})
    assert "stale: pass on another build (2026-12-01, H200)" in render_markdown([row], links=Links(ROOT, ROOT))


def test_a_merged_case_keeps_the_run_it_came_from(tmp_path):
    """Cases merged in from a later run of some ops (another day, another GPU) carry their own
    date/gpu/driver; the file's are the earlier run's and hold for the other cases only."""
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "ports_results.json").write_text(json.dumps({
        "date": "2026-12-01T10:00:00+00:00", "gpu": "H200", "driver": "580", "cases": [
            {"op": "softmax", "variant": "f16_m4_n1024", "result": "pass"},
            {"op": "gelu", "variant": "erf_f16", "result": "pass", "date": "2026-12-05T15:00:00+00:00",
             "gpu": "H100", "driver": "581"}]}))
    numerics = load_numerics(tmp_path)
    merged, earlier = numerics[("gelu", "erf_f16")], numerics[("softmax", "f16_m4_n1024")]
    assert (merged["date"], merged["gpu"], merged["driver"]) == ("2026-12-05T15:00:00+00:00", "H100", "581")
    assert (earlier["date"], earlier["gpu"], earlier["driver"]) == ("2026-12-01T10:00:00+00:00", "H200", "580")


def _accept_file(tmp_path, **entry):
    path = tmp_path / "analysis.json"
    path.write_text(json.dumps({"op": "mma", "variants": [{"name": "swapped"}, {"name": "other"}],
                                "accepted_differences": [{"category": "memory", "what": "the swap",
                                                          "why": "test", **entry}]}))
    return path


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "tileir_diff.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


@pytest.fixture
def swapped(tmp_path):
    text = tileir_diff.print_module(tileir_diff.load(MMA))
    path = tmp_path / "swapped.tileir"
    path.write_text(text.replace("[%blockId_x, %blockId_y_14] token", "[%blockId_y_14, %blockId_x] token"))
    return path


def test_diff_accept_applies_the_accepted_differences(tmp_path, swapped):
    accept = _accept_file(tmp_path, match={"swapped": ["index[0]", "index[1]"]})
    r = _cli("diff", MMA, swapped)
    assert r.returncode == 1
    r = _cli("diff", MMA, swapped, "--accept", accept)
    assert r.returncode == 0, r.stdout + r.stderr  # the variant from the file name: swapped
    assert f"(1 root difference, 1 of 1 accepted by {accept})" in r.stdout.splitlines()[0]
    assert "[1] memory: store_view_tko operands index[0] and index[1] swapped" in r.stdout
    assert f"accepted by {accept}: the swap" in r.stdout
    doc = json.loads(_cli("diff", MMA, swapped, "--accept", accept, "-f", "json").stdout)
    assert doc["verdict"] == "different"  # accepted is not the same: the verdict stays
    assert doc["accepted_from"] == str(accept)
    assert doc["differences"][0]["accepted"] == {"what": "the swap", "why": "test", "file": str(accept)}
    assert json_schema.validate(doc) == []


def test_diff_accept_counts_only_what_it_covers(tmp_path, swapped):
    # an entry for another variant, or one whose match does not fit, accepts nothing: exit 1
    for entry in ({"variants": ["other"]}, {"match": {"swapped": ["index[0]", "index[2]"]}}):
        accept = _accept_file(tmp_path, **entry)
        r = _cli("diff", MMA, swapped, "--accept", accept)
        assert r.returncode == 1 and "(accepted)" not in r.stdout
    accept = _accept_file(tmp_path, variants=["other"], what="operands index[0] and index[1] swapped")
    assert _cli("diff", MMA, swapped, "--accept", accept, "--variant", "other").returncode == 0
    r = _cli("diff", MMA, swapped, "--accept", accept, "--variant", "nope")
    assert r.returncode == 2 and "--variant 'nope' is not a variant of" in r.stderr


def test_diff_accept_bad_file_is_a_usage_error(tmp_path, swapped):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"accepted_differences": [{"category": "memory"}]}))
    r = _cli("diff", MMA, swapped, "--accept", bad)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{bad}: accepted_differences[0]: expected an object with category, what, why" in r.stderr
    r = _cli("diff", MMA, swapped, "--accept", tmp_path / "missing.json")
    assert r.returncode == 2 and "missing.json: cannot read" in r.stderr


def test_every_report_format_says_what_is_accepted(swapped):
    from tileir_diff.suite.accept import apply_accepted
    result = tileir_diff.diff(MMA, swapped)
    entry = {"category": "memory", "what": "swap <b>", "why": "rows <i>", "match": {"swapped": ["index[0]", "index[1]"]}}
    result, count = apply_accepted(result, [entry], None, "ref/analysis.json")
    assert count == 1
    assert result.exit_code == 0 and result.verdict == "different" and result.all_accepted
    page = result.to_html()
    assert '<span class="acc">accepted</span> by <code>ref/analysis.json</code>: swap &lt;b&gt;' in page
    assert "rows &lt;i&gt;" in page and "swap <b>" not in page and "rows <i>" not in page and 'class="is-accepted"' in page
    assert "   _accepted_ by `ref/analysis.json`: swap &lt;b&gt;" in result.to_markdown()
    assert "accepted by ref/analysis.json: swap <b>" in result.to_text()
    # an entry that covers nothing leaves the exit status to the verdict
    other = tileir_diff.diff(MMA, swapped)
    other, count = apply_accepted(other, [{**entry, "match": {"swapped": ["index[1]", "index[2]"]}}], None, "x")
    assert count == 0
    assert other.exit_code == 1 and not other.all_accepted
    assert "0 of 1 accepted by x)" in other.to_text() and "(accepted)" not in other.to_text()


def test_the_port_table_says_which_assumptions_of_a_specialized_port_its_abi_checks():
    # the reference orders its stores across loop iterations, the port does not: specialized,
    # the port assuming the tiles do not overlap (tests/normalize/test_disjoint_loop_stores.py)
    from tests.normalize.test_disjoint_loop_stores import _loop
    from tests.normalize.kernels import kernel, verdict
    from tileir_diff.suite.accept import abi_checked, port_passes, precondition_problem
    result = verdict(kernel(_loop(True)), kernel(_loop(False)))
    assert result.verdict == "specialized"
    entry = {"what": "stores do not overlap", "match": {"unordered_stores": {}}, "checked_by": "abi.rs", "why": "t"}
    assert precondition_problem(entry) is None and precondition_problem({"what": "x"}) is not None
    checked, rest = abi_checked(result, [entry], "v")
    assert port_passes(result) and [e["what"] for _, e in checked] == ["stores do not overlap"] and not rest
    assert abi_checked(result, [], "v")[0] == []
    assert abi_checked(result, [{**entry, "match": {"tie": {}}}], "v")[0] == []
    assert abi_checked(result, [{**entry, "variants": ["other"]}], "v")[0] == []
    # the reference assumes more (the sides swapped): not an assumption of the port, not covered
    back = verdict(kernel(_loop(False)), kernel(_loop(True)))
    assert back.verdict == "specialized" and abi_checked(back, [entry], "v")[0] == []
    row = PortRow("rms_norm", "bwd", "specialized", "pass",
                  abi_checked=[{"category": "specialization", "message": "m", "checked_as": "stores do not overlap",
                                "checked_by": "abi.rs"}])
    assert "stores do not overlap" in render_markdown([row], links=Links(ROOT, ROOT))
    assert render_text([row]).splitlines()[0].split()[6] == "abi"


def test_a_specialized_port_passes_and_lists_what_it_assumes(tmp_path):
    """``specialized`` (the checker proved the same computation without the assumptions) passes
    with no accepted difference; its assumptions are listed, not counted as unexplained. A port
    that differs otherwise does not pass."""
    from tileir_diff.suite.accept import assumed, port_passes

    from ..check import kernels as K
    from ..check.test_specialized import _with_assume
    base = K.exp2_sub()
    special = tileir_diff.diff(base, _with_assume(base, "div_by<16>"))
    assert special.verdict == "specialized" and port_passes(special)
    listed = assumed(special)
    assert [(d["category"], d["assumes_more"]) for d in listed] == [("specialization", "right")]
    different = tileir_diff.diff(base, _with_assume(K.exp2_sub(True), "div_by<16>"))
    assert different.verdict == "different" and not port_passes(different) and assumed(different) == []
    row = PortRow("gelu", "erf_f16", "specialized", "pass", assumed=listed)
    md = render_markdown([row], links=Links(ROOT, ROOT / "docs"))
    line = next(x for x in md.splitlines() if x.startswith("| [gelu]"))
    assert "assume div_by<16>" in line and "the right assumes more" in line
    assert render_text([row]).splitlines()[1].split()[4:6] == ["0", "1"]  # acc 0, asm 1
