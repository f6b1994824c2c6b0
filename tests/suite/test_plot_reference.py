"""scripts/gpu/plot_reference.py on the CPU: the plot's title names the run behind each op's figures;
the goals table judges a two-launch call by its pair."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

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


def _timed(op, variant, kernel_us, baseline_us, family="gemm", **shape):
    return {"op": op, "variant": variant, "family": family, "shape": shape or {"M": 64, "N": 4096},
            "kernel_us": kernel_us, "baseline_us": baseline_us, "speedup_vs_baseline": baseline_us / kernel_us}


def test_a_two_launch_call_is_judged_by_its_pair_against_the_whole_calls_baseline():
    # splitk's partial alone beats cuBLAS; with its reduce the call does not
    bench = [_timed("splitk_matmul", "partial_bf16_64x128x64", 62.0, 64.0, S=16),
             _timed("splitk_matmul", "reduce_bf16_4x256", 18.0, 16.0, S=16)]
    (row,) = plot.goal_rows(bench)
    assert row["variant"] == "partial_bf16_64x128x64 + reduce_bf16_4x256"
    assert row["figure"] == "0.800x cuBLAS (80 vs 64 us)" and row["met"] is False
    # the plot's bar is the pair too
    assert plot.best_speedup(plot.with_steps(bench))["splitk_matmul"]["speedup_vs_baseline"] == 0.8


def test_a_pair_of_stages_is_set_against_the_sum_of_the_stages_baselines():
    bench = [_timed("moe_align_block_size", "count_t256_e128_s64", 8.0, 306.0, family="moe", N=32768),
             _timed("moe_align_block_size", "place_bm64_e128_s64", 29.0, 589.0, family="moe", N=32768)]
    (row,) = plot.goal_rows(bench)
    assert row["figure"] == "24.189x torch (37 vs 895 us)" and row["met"] is True


def test_half_a_pair_gives_no_row_and_pairs_timed_at_different_shapes_are_refused():
    assert plot.goal_rows([_timed("flash_decode", "combine_bf16_d128_o8", 16.0, 16.2, family="attention", B=32)]) == []
    bench = [_timed("flash_decode", "v_bf16_d128_g1_bn64", 1389.0, 1401.0, family="attention", B=32, S=8),
             _timed("flash_decode", "combine_bf16_d128_o8", 16.0, 16.2, family="attention", B=16, S=8)]
    with pytest.raises(ValueError, match=r"different shapes \(\['B'\]\)"):
        plot.goal_rows(bench)


def test_the_pairs_are_what_the_launchers_launch():
    from ..launchers import launcher
    decode, splitk, moe = launcher("flash_decode"), launcher("splitk_matmul"), launcher("moe_align_block_size")
    launched = {
        "flash_decode": {tuple(decode.select_variant(dt, d, g, 8).split(","))
                         for dt, d, g in (("bfloat16", 128, 1), ("bfloat16", 128, 4), ("float16", 64, 8))},
        "splitk_matmul": {splitk.select_variant(dt, True) for dt in ("float16", "bfloat16")},
        "moe_align_block_size": {tuple(moe.select_variant(bm, 64, tiled).split(","))
                                 for bm in (64, 16) for tiled in (False, True)},
    }
    assert {op: set(pairs) for op, (_, pairs) in plot.STEPS.items()} == launched
    # every pair names variants of the catalog (a variant in no pair is one no launcher call runs
    # unforced: its row leaves the table with the op's single-kernel rows)
    for op, (_, pairs) in plot.STEPS.items():
        names = {v["name"] for v in json.loads((ROOT / "reference" / op / "analysis.json").read_text())["variants"]}
        assert {name for pair in pairs for name in pair} <= names
