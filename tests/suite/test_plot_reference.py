"""scripts/gpu/plot_reference.py on the CPU: the plot's title names the run behind each op's figures."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("plot_reference", ROOT / "scripts" / "gpu" / "plot_reference.py")
plot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot)


def test_a_single_run_is_named_by_its_gpu_and_day():
    assert plot.runs_label({"environment": {"gpu": "H200", "date": "2026-12-01T20:14:04"}}) == "H200, 2026-12-01"


def test_a_merged_file_names_the_ops_of_each_later_run_and_groups_runs_of_one_day():
    doc = {"environment": {"gpu": "H100", "date": "2026-12-05T18:13"}, "ops_run": ["swiglu"],
           "merged_from": [{"gpu": "H100", "date": "2026-12-05T18:09", "ops": ["silu_and_mul"]},
                           {"gpu": "H200", "date": "2026-12-01T20:14", "ops": ["argmax", "bmm", "rope", "softmax"]}]}
    assert plot.runs_label(doc) == "swiglu, silu_and_mul: H100, 2026-12-05; the others: H200, 2026-12-01"
    # An entry from before `ops` were recorded: the rest.
    doc["merged_from"][1].pop("ops")
    assert plot.runs_label(doc).endswith("; the others: H200, 2026-12-01")
