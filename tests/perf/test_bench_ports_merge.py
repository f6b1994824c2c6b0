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
    second = {"environment": {"date": "d2"}, "results": [_rec("gelu", "a", 2, 0.8), _rec("rope", "r", 1, 1.0)],
              "errors": [{"op": "cumsum", "variant": "c", "shape": {}, "error": "boom"}]}
    doc = bench.merge_runs([first, second])
    assert doc["environment"]["runs"] == ["d1", "d2"] and doc["environment"]["gpu"] == "H200"
    assert sorted((r["variant"], r["shape_key"], r["ratio"]) for r in doc["results"]) == [
        ("a", '{"N": 1}', 1.0), ("a", '{"N": 2}', 0.8), ("r", '{"N": 1}', 1.0)]
    # rope was measured by the second run: its budget error from the first is gone; cumsum's stays
    assert [e["op"] for e in doc["errors"]] == ["cumsum"]
    assert doc["summary"]["overall"]["configs"] == 3 and doc["summary"]["ops"]["gelu"]["configs"] == 2
