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


def test_invocations_of_one_gpu_and_day_are_one_run_label():
    doc = {"environment": {"gpu": "H100", "date": "2026-12-06T10:22"}, "ops_run": ["bmm"],
           "merged_from": [{"gpu": "H100", "date": "2026-12-06T10:21", "ops": ["argmax"]}]}
    assert plot.runs_label(doc) == "H100, 2026-12-06 (2 invocations)"


def test_a_merged_file_names_the_ops_of_each_later_run_and_groups_runs_of_one_day():
    doc = {"environment": {"gpu": "H100", "date": "2026-12-05T18:13"}, "ops_run": ["swiglu"],
           "merged_from": [{"gpu": "H100", "date": "2026-12-05T18:09", "ops": ["silu_and_mul"]},
                           {"gpu": "H200", "date": "2026-12-01T20:14", "ops": ["argmax", "bmm", "rope", "softmax"]}]}
    assert plot.runs_label(doc) == "swiglu, silu_and_mul: H100, 2026-12-05; the others: H200, 2026-12-01"
    # An entry from before `ops` were recorded: the rest.
    doc["merged_from"][1].pop("ops")
    assert plot.runs_label(doc).endswith("; the others: H200, 2026-12-01")


def _row(**extra):
    row = {"op": "rms_norm", "variant": "fwd_f16_a8_m1_n8192", "family": "normalization", "kernel_us": 40.0,
           "baseline_us": 57.0, "speedup_vs_baseline": 1.425, "pct_copy_bw": 79.0}
    row.update(extra)
    return row


def test_the_same_size_copy_is_shown_beside_the_goal_figure_and_does_not_decide_it():
    (with_copy,) = plot.goal_rows([_row(pct_same_size_copy=91.0)])
    assert with_copy["figure"] == "79.0 % copy BW, 1.425x torch (91.0 % of a same-size copy)"
    assert with_copy["met"] is False  # 79 % of the copy bandwidth stays under the 85 % goal
    (without,) = plot.goal_rows([_row()])
    assert without["figure"] == "79.0 % copy BW, 1.425x torch"


def test_a_gemm_row_gets_no_copy_figure():
    (row,) = plot.goal_rows([_row(op="matmul", variant="f16_nn_128x128x64", family="gemm", pct_copy_bw=3.0,
                                  pct_same_size_copy=5.0, speedup_vs_baseline=0.96)])
    assert "copy" not in row["figure"] and row["met"] is True
