"""The port table's device-time column (tileir_diff/suite/timing.py) from the benchmark's results."""
from __future__ import annotations

import json
import math

from tileir_diff.suite.port_table import Links, PortRow, render_index_html, render_markdown
from tileir_diff.suite.timing import load_timing, timing_cell, timing_state

PAIR = ("a" * 64, "b" * 64)


def _bench(tmp_path, results):
    (tmp_path / "docs" / "results").mkdir(parents=True, exist_ok=True)
    (tmp_path / "docs" / "results" / "ports_bench.json").write_text(json.dumps(
        {"schema_version": 1, "environment": {"date": "2026-12-01T13:47:34+00:00"}, "results": results}))


def _rec(variant, ratio, pair=PAIR):
    return {"op": "gelu", "variant": variant, "ratio": ratio,
            "reference_cubin_sha256": pair[0], "cubin_sha256": pair[1]}


def test_geomean_count_and_range_per_variant(tmp_path):
    _bench(tmp_path, [_rec("erf_f16", 0.9), _rec("erf_f16", 1.1), _rec("erf_f16", 1.0), _rec("erf_bf16", 1.2)])
    timing = load_timing(tmp_path)
    t = timing[("gelu", "erf_f16")]
    assert math.isclose(t["ratio"], (0.9 * 1.1 * 1.0) ** (1 / 3)) and t["configs"] == 3
    assert (t["min"], t["max"]) == (0.9, 1.1) and t["date"].startswith("2026-12-01")
    assert timing[("gelu", "erf_bf16")]["configs"] == 1


def test_records_that_cannot_be_read_are_left_out(tmp_path):
    _bench(tmp_path, [{"op": "gelu", "variant": "erf_f16"}, _rec("erf_f16", "x"), _rec("erf_f16", -1.0),
                      _rec("erf_f16", float("inf")), _rec("erf_f16", 1.05)])
    assert load_timing(tmp_path)[("gelu", "erf_f16")]["configs"] == 1
    (tmp_path / "docs" / "results" / "ports_bench.json").write_text("[1, 2]")
    assert load_timing(tmp_path) == {}
    (tmp_path / "docs" / "results" / "ports_bench.json").write_text("{not json")
    assert load_timing(tmp_path) == {}


def test_timing_is_tied_to_the_cubins_it_measured(tmp_path):
    _bench(tmp_path, [_rec("erf_f16", 1.0), _rec("erf_bf16", 1.0, (None, None)),
                      _rec("erf_f32", 1.0), _rec("erf_f32", 1.0, ("a" * 64, "c" * 64))])
    timing = load_timing(tmp_path)
    assert timing_state(timing[("gelu", "erf_f16")], PAIR) == "current"
    assert timing_state(timing[("gelu", "erf_f16")], ("a" * 64, "d" * 64)) == "stale"  # the port was rebuilt
    assert timing_state(timing[("gelu", "erf_f16")], None) == "stale"
    assert timing_state(timing[("gelu", "erf_bf16")], PAIR) == "untied"
    assert timing_state(timing[("gelu", "erf_f32")], PAIR) == "stale"  # one config timed another build
    assert timing_state(None, PAIR) == "not_run"


def test_cell_says_ratio_count_range_and_state():
    t = {"ratio": 0.99812, "configs": 6, "min": 0.9801, "max": 1.0123}
    assert timing_cell({**t, "state": "current"}) == "0.998x (6 configs, 0.980-1.012)"
    assert timing_cell({**t, "state": "stale"}).endswith(" stale")
    assert timing_cell(None) == "–"


def test_rendered_tables_show_the_timing_and_mark_stale(tmp_path):
    fresh = PortRow("gelu", "erf_f16", "equivalent", "pass",
                    timing={"ratio": 1.02, "configs": 4, "min": 1.0, "max": 1.04, "state": "current"})
    old = PortRow("gelu", "erf_bf16", "equivalent", "pass",
                  timing={"ratio": 0.97, "configs": 4, "min": 0.95, "max": 0.99, "state": "stale"})
    md = render_markdown([fresh, old], links=Links(tmp_path, tmp_path))
    assert "| 1.020x (4 configs, 1.000-1.040) |" in md and "0.970x (4 configs, 0.950-0.990) stale" in md
    page = render_index_html([fresh, old], Links(tmp_path, tmp_path))
    assert '<td class="stale">0.970x (4 configs, 0.950-0.990) stale</td>' in page
    assert "<td>1.020x (4 configs, 1.000-1.040)</td>" in page
