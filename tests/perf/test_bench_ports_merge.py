"""scripts/gpu/bench_ports.py's CPU side: merging the runs of several device calls into one document."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu" / "bench_ports.py"


def _bench():
    spec = importlib.util.spec_from_file_location("_bench_ports", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rec(op, variant, n, ratio):
    side = {"cupti_median_us": 1.0, "cupti_best_us": 1.0, "events_median_us": 1.0, "events_best_us": 1.0}
    return {"op": op, "variant": variant, "shape_key": f'{{"N": {n}}}', "ratio": ratio, "ratio_best": ratio,
            "ratio_events": ratio, "control_ratio": 1.0, "placement_ratio": 1.0, "bitwise_equal": True,
            "python": side, "rust": side}


def test_merge_keeps_every_configuration_once_and_recomputes_the_summary():
    bench = _bench()
    first = {"environment": {"date": "d1", "gpu": "H200"}, "results": [_rec("gelu", "a", 1, 1.0), _rec("gelu", "a", 2, 1.2)],
             "errors": [{"op": "rope", "variant": "r", "shape": {}, "error": "time budget spent"}]}
    second = {"environment": {"date": "d2", "gpu": "H200"}, "results": [_rec("gelu", "a", 2, 0.8), _rec("rope", "r", 1, 1.0)],
              "errors": [{"op": "cumsum", "variant": "c", "shape": {}, "error": "boom"}]}
    doc = bench.merge_runs([first, second])
    assert doc["environment"]["runs"] == ["d1", "d2"] and doc["environment"]["gpu"] == "H200"
    assert sorted((r["variant"], r["shape_key"], r["ratio"]) for r in doc["results"]) == [
        ("a", '{"N": 1}', 1.0), ("a", '{"N": 2}', 0.8), ("r", '{"N": 1}', 1.0)]
    # rope was measured by the second run: its budget error from the first is gone; cumsum's stays
    assert [e["op"] for e in doc["errors"]] == ["cumsum"]
    assert doc["summary"]["overall"]["configs"] == 3 and doc["summary"]["ops"]["gelu"]["configs"] == 2


def test_merge_header_is_the_card_most_rows_come_from_and_other_rows_name_theirs():
    """A later run on another card that replaces most rows makes the header its own; the rows left
    from the earlier card say which card they came from, and a run whose rows were all replaced
    leaves the header's run list."""
    bench = _bench()
    h200 = {"environment": {"date": "d1", "gpu": "H200"}, "results": [_rec("gelu", "a", n, 1.0) for n in (1, 2, 3)]}
    h100 = {"environment": {"date": "d2", "gpu": "H100"}, "results": [_rec("gelu", "a", n, 0.9) for n in (2, 3)]}
    doc = bench.merge_runs([h200, h100])
    assert doc["environment"]["gpu"] == "H100" and doc["environment"]["runs"] == ["d1", "d2"]
    cards = {r["shape_key"]: r.get("gpu") for r in doc["results"]}
    assert cards == {'{"N": 1}': "H200", '{"N": 2}': None, '{"N": 3}': None}
    assert {r["shape_key"]: r["run"] for r in doc["results"]} == {'{"N": 1}': "d1", '{"N": 2}': "d2", '{"N": 3}': "d2"}
    # merged again with a run on the H200 that replaces the rest: the tags follow the new header,
    # and d2, whose rows inside the merged document were all replaced, is no longer listed
    again = bench.merge_runs([doc, {"environment": {"date": "d3", "gpu": "H200"},
                                    "results": [_rec("gelu", "a", n, 1.1) for n in (2, 3)]}])
    assert again["environment"]["gpu"] == "H200" and again["environment"]["runs"] == ["d1", "d3"]
    assert all("gpu" not in r for r in again["results"])  # N 1 (the first H200 run's) too
    assert {r["shape_key"]: r["run"] for r in again["results"]} == {'{"N": 1}': "d1", '{"N": 2}': "d3",
                                                                   '{"N": 3}': "d3"}
    # a document merged before rows carried their run: its untagged rows keep its whole run list
    legacy = {"environment": {"date": "d2", "gpu": "H200", "runs": ["d0", "d2"]},
              "results": [_rec("gelu", "a", 1, 1.0)]}
    assert bench.merge_runs([legacy, h200])["environment"]["runs"] == ["d1"]
    assert bench.merge_runs([h200, legacy])["environment"]["runs"] == ["d1", "d0", "d2"]
    # a run whose rows were all replaced is not listed
    assert bench.merge_runs([h100, h200])["environment"]["runs"] == ["d1"]


def test_second_pass_takes_configurations_outside_the_band_on_either_side():
    """The second pass re-measures a port that looks slower and one that looks faster alike, and a
    configuration whose A-vs-A control says the measurement was noisy; nothing inside the band."""
    bench = _bench()
    inside, slower, faster = _rec("gelu", "a", 1, 1.04), _rec("gelu", "a", 2, 1.06), _rec("gelu", "a", 3, 0.94)
    noisy = {**_rec("gelu", "a", 4, 1.0), "control_ratio": 0.9}
    assert [bench._outside(r, 0.05) for r in (inside, slower, faster, noisy)] == [False, True, True, True]
    assert not bench._outside(slower, 0.0)  # band 0: no second pass
    summary = bench.summarize([{**slower, "rechecked": True}, inside])
    assert summary["overall"]["rechecked"] == 1


def test_above_limit_is_explained_only_by_a_bit_equal_module_check_within_the_limit():
    bench = _bench()
    ok = _rec("rope", "a", 1, 1.08)
    ok["module_check"] = {"instances": 4, "ratio": 1.01, "bitwise_equal": True, "reference_us": [9.0] * 4,
                          "port_us": [9.1] * 4}
    still_slow = _rec("rope", "b", 1, 1.08)
    still_slow["module_check"] = {"instances": 4, "ratio": 1.06, "bitwise_equal": True}
    bits_differ = _rec("rope", "c", 1, 1.08)
    bits_differ["module_check"] = {"instances": 4, "ratio": 1.0, "bitwise_equal": False}
    unchecked = _rec("rope", "d", 1, 1.08)
    failed = _rec("rope", "e", 1, 1.08)
    failed["module_check"] = {"error": "LaunchError: parameter layout"}
    at_limit = _rec("rope", "f", 1, bench.PORT_LIMIT)
    rows = bench.above_limit([ok, still_slow, bits_differ, unchecked, failed, at_limit])
    assert [(r["config"].split()[0], r["explained"]) for r in rows] == [
        ("rope/a", True), ("rope/b", False), ("rope/c", False), ("rope/d", False), ("rope/e", False)]
    assert rows[0]["module_ratio"] == 1.01 and rows[3]["module_ratio"] is None
    doc = {"results": [ok, unchecked, at_limit]}
    section = "\n".join(bench.above_limit_section(doc))
    assert "2, 1 of them within 1.05" in section and "| 9.00, 9.00, 9.00, 9.00 |" in section
    assert "None." in bench.above_limit_section({"results": [at_limit]})
    assert bench.summarize([ok, unchecked])["above_limit"] == rows[:1] + rows[3:4]
