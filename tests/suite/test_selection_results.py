"""The launchers' variant choice against measurements: docs/results/selection.json (written by
scripts/gpu/bench_selection.py on the GPU; selection_repeat.json is a second pass of the same
grid in the same session, so a pick must hold against run-to-run noise too) times every
applicable variant of an operator over a shape grid; for every case the launcher's pick (`select_variant` or the row's named select
function in reference/<op>/kernel.py; the Rust library chooses the same, tests/rust/
test_selection.py) must be no more than the tolerance (1.10x) slower than the fastest one.

No GPU needed: the measurements are committed, the choice is recomputed here, so a change to a
select function is held to the last measurement and a new variant or a changed grid needs a new
GPU run.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..launchers import bench_selection, launcher

ROOT = Path(__file__).resolve().parents[2]
RUNS = [ROOT / "docs" / "results" / name for name in ("selection.json", "selection_repeat.json")]


@pytest.fixture(scope="module", params=RUNS, ids=lambda path: path.stem)
def results(request):
    if not request.param.is_file():
        pytest.skip(f"no {request.param.name} yet: run scripts/gpu/bench_selection.py on the GPU")
    return json.loads(request.param.read_text())


@pytest.fixture(scope="module")
def launchers():
    return launcher


def test_measurements_say_where_they_come_from(results):
    env = results["environment"]
    for field in ("date", "gpu", "arch", "timing"):
        assert env.get(field), field
    assert results["rows"], "no measured case"
    script = bench_selection()
    assert results["tolerance"] == script.TOLERANCE


def test_every_row_is_consistent(results):
    for row in results["rows"]:
        times = row["times_us"]
        assert len(times) >= 2, f"{row['op']} {row['args']}: fewer than two candidates measured"
        assert all(t > 0 for t in times.values()), row
        assert row["fastest"] == min(times, key=times.get), row


def test_every_grid_op_was_measured(results):
    script = bench_selection()
    measured = {(row["op"], row.get("select") or "select_variant") for row in results["rows"]}
    grids = {(op, grid.select) for op, op_grids in script.GRIDS.items() for grid in op_grids}
    missing = sorted(grids - measured)
    assert not missing, f"grids without a measurement (rerun bench_selection.py on the GPU): {missing}"


def test_launcher_picks_within_tolerance_of_fastest(results, launchers):
    tolerance = results["tolerance"]
    slow, unmeasured = [], []
    for row in results["rows"]:
        select = getattr(launchers(row["op"]), row.get("select") or "select_variant")
        pick = select(*row["args"])
        pick = ",".join(pick) if isinstance(pick, tuple) else pick  # a two-kernel pick (split-K)
        times = row["times_us"]
        case = f"{row['op']} {row['args']}"
        if pick not in times:
            unmeasured.append(f"{case}: picks {pick}, measured {sorted(times)}")
            continue
        ratio = times[pick] / times[row["fastest"]]
        if ratio > tolerance:
            slow.append(f"{case}: picks {pick} ({times[pick]} us), {ratio:.2f}x the fastest "
                        f"{row['fastest']} ({times[row['fastest']]} us)")
    assert not unmeasured, "picks the grid did not measure:\n" + "\n".join(unmeasured)
    assert not slow, f"{len(slow)} of {len(results['rows'])} picks above {tolerance}x:\n" + "\n".join(slow)


def test_selection_worst_script_reports_the_same_picks(capsys):
    """scripts/selection_worst.py (the worst pick per file, printed) agrees with the test above."""
    pytest.importorskip("cuda.tile")
    from ..launchers import load_path
    script = load_path("_selection_worst", ROOT / "scripts" / "selection_worst.py")
    assert script.main(["--op", "layer_norm"]) == 0
    out = capsys.readouterr().out
    assert out.count("layer_norm rows, worst pick") == len([p for p in RUNS if p.is_file()]), out
