"""scripts/gpu/merge_results.py's profile merge without a GPU: the committed profiles follow the
committed evidence (its unexplained rows, in its order) after every merge, one that brings no
profiles included (a reference merge moves and changes the evidence's rows)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("merge_results", ROOT / "scripts" / "gpu" / "merge_results.py")
mr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mr)


def _results(tmp_path: Path, rows: list, profiles: list) -> Path:
    res = tmp_path / "results"
    res.mkdir()
    (res / "sass_evidence.json").write_text(json.dumps({"rows": rows}))
    (res / "profile_misses.json").write_text(json.dumps({"profiles": [{"variant": v, "us": 1.0} for v in profiles]}))
    return res


def test_a_merge_without_profiles_reorders_and_drops(tmp_path):
    # the evidence now lists b/y before a/x, and a/z has a SASS bound (no longer a target)
    rows = [{"op": "b", "variant": "y", "bounds": []}, {"op": "a", "variant": "x", "bounds": []},
            {"op": "a", "variant": "z", "bounds": ["spills"]}]
    res = _results(tmp_path, rows, ["a/x", "a/z", "b/y"])
    run = tmp_path / "run"
    run.mkdir()
    said = mr.merge_profiles(run, res, {"a"})
    doc = json.loads((res / "profile_misses.json").read_text())
    assert [p["variant"] for p in doc["profiles"]] == ["b/y", "a/x"]
    assert "no output in this run" in said and "a/z" in said
    assert "merged" not in doc  # no run is recorded as merged


def test_a_merge_with_profiles_replaces_the_ops_rows(tmp_path):
    rows = [{"op": "a", "variant": "x", "bounds": []}, {"op": "b", "variant": "y", "bounds": []}]
    res = _results(tmp_path, rows, ["a/x", "b/y"])
    (tmp_path / "run" / "prof").mkdir(parents=True)
    (tmp_path / "run" / "prof" / "profile_misses.json").write_text(json.dumps(
        {"date": "2026-12-07", "gpu": "H", "profiles": [{"variant": "a/x", "us": 2.0}, {"variant": "b/y", "us": 9.0}]}))
    mr.merge_profiles(tmp_path / "run", res, {"a"})
    doc = json.loads((res / "profile_misses.json").read_text())
    # only the merged op's profile is taken from the run
    assert [(p["variant"], p["us"]) for p in doc["profiles"]] == [("a/x", 2.0), ("b/y", 1.0)]
    assert [m["ops"] for m in doc["merged"]] == [["a"]]
    mr.merge_profiles(tmp_path / "run", res, {"a"})  # the same run merged again: the same file
    assert json.loads((res / "profile_misses.json").read_text()) == doc
