"""scripts/gpu/profile_misses.py without a GPU: which rows it profiles, how it reads ncu's raw
CSV (units line, interleaved program output) and the bound it names."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("profile_misses", ROOT / "scripts" / "gpu" / "profile_misses.py")
pm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pm)

CSV = """launched rope/a
"ID","Kernel Name","gpu__time_duration.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed","sm__throughput.avg.pct_of_peak_sustained_elapsed","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","launch__waves_per_multiprocessor"
"","","usecond","%","%","","",""
launched gemm/b
"0","rope_kernel","1,482.5","45.0","23.0","3.0","1.0","3.88"
"1","gemm_kernel","244.2","18.0","82.0","1.0","1.5","0.5"
"""


def test_targets_are_the_rows_without_a_sass_bound():
    evidence = {"rows": [{"op": "a", "variant": "x", "bounds": []}, {"op": "a", "variant": "y", "bounds": ["spills"]},
                         {"op": "b", "variant": "z", "bounds": [], "error": "no cubin"}]}
    assert pm.targets(evidence) == [("a", "x")]
    assert pm.targets(evidence, all_rows=True) == [("a", "x"), ("a", "y")]
    assert pm.targets(evidence, ops=["b"]) == []
    # the committed profiles are those of the committed evidence's unexplained rows (a stale
    # profile file, or evidence that changed since, fails here); a row not profiled yet must be
    # named in `not_profiled` with its reason, never left out silently
    committed = json.loads((ROOT / "docs" / "results" / "sass_evidence.json").read_text())
    profiled = json.loads((ROOT / "docs" / "results" / "profile_misses.json").read_text())
    wanted = [f"{op}/{v}" for op, v in pm.targets(committed)]
    pending = {n["variant"]: n["reason"] for n in profiled.get("not_profiled", [])}
    assert set(pending) <= set(wanted) and all(reason.strip() for reason in pending.values())
    assert [p["variant"] for p in profiled["profiles"]] == [v for v in wanted if v not in pending]


def test_raw_csv_rows_units_and_bounds():
    rows, units = pm.parse_csv(CSV)
    assert [r["Kernel Name"] for r in rows] == ["rope_kernel", "gemm_kernel"]
    assert units["gpu__time_duration.sum"] == "usecond"
    profiles = pm.attach(rows, units, ["rope/a", "gemm/b"])
    rope, gemm = profiles
    assert rope["us"] == 1482.5 and rope["dram_pct"] == 45.0
    assert rope["bound"].startswith("latency: DRAM 45 %") and "long_scoreboard 75%" in rope["bound"]
    assert gemm["bound"].startswith("SM pipes at 82 %") and "0.50 waves (tail)" in gemm["bound"]
    # nanoseconds are converted
    rows_ns, units_ns = pm.parse_csv(CSV.replace("usecond", "nsecond"))
    assert pm.attach(rows_ns, units_ns, ["rope/a", "gemm/b"])[0]["us"] == 1.4825
    # fewer profiled kernels than launches is said, not zipped silently
    assert pm.attach(rows[:1], units, ["rope/a", "gemm/b"])[-1]["variant"] == "(mismatch)"
    assert "| rope/a | 1482.5 |" in pm.render({"date": "d", "arch": "sm_90", "profiles": profiles})
