"""The selection benchmark's grids (scripts/gpu/bench_selection.py) against the launchers, on the CPU.

Every select function in reference/<op>/kernel.py is measured by a grid or excluded with a
reason; in every case the launcher's own pick is one of the variants the grid times (else the
benchmark could never judge it), and most cases leave a choice between two or more variants.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tileir_diff.suite.catalog import load_catalog

from ..launchers import bench_selection, launcher

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "reference"


bench = bench_selection()


def _select_functions() -> set[tuple[str, str]]:
    """(op, name) of every top-level `select*` function in reference/*/kernel.py."""
    found = set()
    for kernel in sorted(REFERENCE.glob("*/kernel.py")):
        tree = ast.parse(kernel.read_text())
        found |= {(kernel.parent.name, node.name) for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("select")}
    return found


_launcher = launcher


def _grid_cases():
    for op in load_catalog(REFERENCE, ops=sorted(bench.GRIDS)):
        for grid in bench.GRIDS[op.op]:
            yield op, grid, list(grid.cases())


GRID_CASES = list(_grid_cases())


def test_every_select_function_has_a_grid_or_a_reason():
    gridded = {(op, grid.select) for op, grids in bench.GRIDS.items() for grid in grids}
    functions = _select_functions()
    assert len(functions) >= 15, functions  # the scan found the launchers
    uncovered = functions - gridded - set(bench.EXCLUDED)
    assert not uncovered, f"select functions with neither a grid nor an exclusion: {sorted(uncovered)}"
    assert not gridded & set(bench.EXCLUDED)
    assert gridded | set(bench.EXCLUDED) <= functions, "a grid or exclusion names a function kernel.py lacks"


@pytest.mark.parametrize("op_select", sorted(bench.EXCLUDED), ids=lambda k: ".".join(k))
def test_an_excluded_select_function_has_one_variant_per_key(op_select):
    """The exclusion's reason holds: no two variants share what the select function chooses on."""
    reason, key = bench.EXCLUDED[op_select]
    assert reason
    (op,) = load_catalog(REFERENCE, ops=[op_select[0]])
    keys = [key(v) for v in op.variants]
    assert len(op.variants) >= 2 and len(set(keys)) == len(keys), keys


@pytest.mark.parametrize("op,grid,cases", GRID_CASES, ids=[f"{o.op}.{g.select}" for o, g, _ in GRID_CASES])
def test_the_launchers_pick_is_among_the_applicable_candidates(op, grid, cases):
    launcher = _launcher(op.op)
    select = getattr(launcher, grid.select)
    assert cases
    choices = 0
    for case in cases:
        pick = select(*case["args"])
        pick = ",".join(pick) if isinstance(pick, tuple) else pick
        names = bench.candidates(grid, op, case)
        assert pick is not None, f"{op.op}.{grid.select}{tuple(case['args'])}: no pick (leave the case out)"
        assert pick in names, f"{op.op}.{grid.select}{tuple(case['args'])}: picks {pick}, not in {sorted(names)}"
        choices += len(names) >= 2
    # most cases leave a choice (f32 softmax, rms_norm and layer_norm rows beyond one tile have one variant)
    assert choices * 3 >= len(cases) * 2, f"{op.op}.{grid.select}: {choices} of {len(cases)} cases have a choice"


def test_cases_hold_a_choice():
    """Every case measures at least two variants, but the row-wise forward grids' long f32 rows
    (one f32 variant beyond one tile: listed for the 16-bit dtypes' sake, skipped by the run)."""
    for op, grid, cases in GRID_CASES:
        if (op.op, grid.select) in {("softmax", "select_variant"), ("rms_norm", "select_variant"),
                                    ("layer_norm", "select_variant")}:
            cases = [case for case in cases if case["dtype"] != "float32"]
        single = [case["args"] for case in cases if len(bench.candidates(grid, op, case)) < 2]
        assert not single, f"{op.op}.{grid.select}: cases with one candidate: {single}"


@pytest.mark.parametrize("op,grid,cases", GRID_CASES, ids=[f"{o.op}.{g.select}" for o, g, _ in GRID_CASES])
def test_case_shapes_are_make_inputs_shapes_within_the_memory_bound(op, grid, cases):
    """A case's shape has the symbols of the op's analysis.json test shapes (what make_inputs
    reads), and no candidate moves more than ~512 MiB (analysis.json's bytes formula)."""
    variants = [v for v in op.variants if v.test_shapes]
    for case in cases:
        for combo in bench.candidates(grid, op, case).values():
            # a launcher of several kernels hands them one shape (splitk's reduce ignores K)
            known = set.union(*(set(s) | set(v.bench_shape) for v in combo for s in v.test_shapes))
            for v in combo:
                required = set.intersection(*(set(s) - {"noncontiguous"} for s in v.test_shapes))
                assert required <= set(case["shape"]) <= known, (v.name, case["shape"], required)
                assert v.bytes_for(case["shape"]) <= 600 << 20, (v.name, case["shape"])
    assert variants


def test_estimated_grid_time_is_well_under_eight_minutes():
    """The whole grid's estimate (bench.estimate_seconds: bytes at 3 TB/s, flops at 400 TFLOP/s,
    20 ms of input creation per candidate and case) leaves the 8-minute budget ample room."""
    total = sum(bench.estimate_seconds(combo, case["shape"], 5, 21)
                for op, grid, cases in GRID_CASES for case in cases
                for combos in [bench.candidates(grid, op, case)] if len(combos) >= 2 for combo in combos.values())
    assert 1.0 < total < 240, total


def test_list_needs_neither_a_gpu_nor_torch(tmp_path):
    """--list in a fresh interpreter where `import torch` fails: cases, candidates, missing cubins."""
    build = tmp_path / "reference"
    (build / "rope").mkdir(parents=True)
    for name in ("bf16_neox_d128", "bf16_neox_d128_split"):
        (build / "rope" / f"{name}.sm_90.cubin").write_bytes(b"\0")
    script = REPO / "scripts" / "gpu" / "bench_selection.py"
    code = ("import runpy, sys; sys.modules['torch'] = None; "
            f"sys.argv = [{str(script)!r}, '--list', '--op', 'rope', '--build-root', {str(build)!r}]; "
            f"runpy.run_path({str(script)!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # ten of the twelve rope cubins are missing
    out = done.stdout
    assert 'rope.select_variant ["bfloat16", 128, true] {"T": 16384, "Hq": 32, "Hkv": 8, "P": 32768}: ' \
           "bf16_neox_d128 bf16_neox_d128_split bf16_neox_d128_split_bt4_o8 bf16_neox_d128_split_bt2_th8_o8" in out
    missing = out.split("missing cubins")[1]
    assert "rope/f16_neox_d64_split.sm_90.cubin" in missing and "rope/bf16_neox_d128_split.sm_90" not in missing
    assert "rope/bf16_neox_d128_split_bt4_o8.sm_90.cubin" in missing
    assert "rope                       9       936" in out


def test_cubins_of_every_candidate_are_built():
    import os
    build = Path(os.environ.get("TILEIR_REFERENCE_BUILD", REPO / "build" / "reference"))
    if not build.is_dir():
        pytest.skip("no reference build (TILEIR_REFERENCE_BUILD)")
    missing = sorted({f"{op.op}/{v.name}.sm_90.cubin" for op, grid, cases in GRID_CASES for case in cases
                      for combo in bench.candidates(grid, op, case).values() for v in combo
                      if not (build / op.op / f"{v.name}.sm_90.cubin").is_file()})
    assert not missing, json.dumps(missing)


class _FakeEvent:
    clock = 0.0

    def record(self):
        self.at = _FakeEvent.clock

    def elapsed_time(self, end):
        return end.at - self.at


class _FakeTorch:
    """What run_grid uses of torch: events that count the launches between them, no device."""

    class cuda:
        Event = staticmethod(lambda enable_timing: _FakeEvent())
        synchronize = staticmethod(lambda: None)
        empty_cache = staticmethod(lambda: None)


def test_run_grid_launches_each_candidates_kernels_in_order(monkeypatch, tmp_path):
    """A splitk candidate is its partial then its reduce, one make_inputs per kernel, timed as
    one; the rows name the select function and the pair as the launcher names its pick."""
    import tileir_diff.launch as launch

    launched = []

    def prepare_launch(variant, cubin, inputs):
        assert cubin == tmp_path / "splitk_matmul" / f"{variant.name}.sm_90.cubin"
        assert inputs["kernel"] == variant.kernel
        def run():
            _FakeEvent.clock += 1.0  # each launch takes 1 ms
            launched.append(variant.name)
        return run

    monkeypatch.setattr(launch, "prepare_launch", prepare_launch)

    class Ref:
        @staticmethod
        def make_inputs(raw, shape, *, seed, device):
            assert set(shape) == {"M", "N", "K", "S"} and device == "cuda"
            return {"kernel": raw["kernel"]}

    class Flush:
        @staticmethod
        def zero_():
            launched.append("flush")

    (op,) = load_catalog(REFERENCE, ops=["splitk_matmul"])
    (grid,) = bench.GRIDS["splitk_matmul"]
    rows = bench.run_grid(_FakeTorch, op, grid, Ref, tmp_path, "sm_90", 1, 3, Flush)
    assert len(rows) == len(list(grid.cases()))
    first = rows[0]
    assert first["select"] == "select_variant" and first["args"] == ["float16", True]
    assert set(first["times_us"]) == {"partial_f16_64x128x64,reduce_f16_4x256",
                                      "partial_f16_64x128x64,reduce_f16_64x128"}
    # the events around a candidate enclose both its launches (1 ms each), nothing else
    assert set(first["times_us"].values()) == {2000.0}
    timed = launched[2 * 2:2 * 2 + 6]  # after one warmup round of two candidates x two kernels
    assert timed == ["flush", "partial_f16_64x128x64", "reduce_f16_4x256",
                     "flush", "partial_f16_64x128x64", "reduce_f16_64x128"]
