"""reference/splitk_matmul/kernel.py's splits_for: the split count a caller of the split-K pair
passes as partial.shape[0] (about one wave of partial blocks), and the bench shape that the
performance table times uses it."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("cuda.tile")

REFERENCE = Path(__file__).resolve().parents[2] / "reference" / "splitk_matmul"
H100_SMS = 132


def _kernel():
    spec = importlib.util.spec_from_file_location("splitk_kernel_under_test", REFERENCE / "kernel.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("m, n", [(64, 4096), (64, 2048), (128, 1024), (32, 8192), (64, 1536)])
def test_one_wave_of_partial_blocks(m, n):
    kernel = _kernel()
    bm, bn, _ = kernel.PARTIAL_TILE
    tiles = -(-m // bm) * -(-n // bn)
    s = kernel.splits_for(m, n, 1 << 16, H100_SMS)
    assert abs(tiles * s - H100_SMS) <= tiles / 2 + 1e-9, (tiles, s)


def test_bounds():
    kernel = _kernel()
    assert kernel.splits_for(4096, 4096, 4096, H100_SMS) == 1  # the output alone fills the GPU
    assert kernel.splits_for(64, 128, 1 << 20, H100_SMS) == 16  # one tile: at most 16 splits
    assert kernel.splits_for(64, 128, 3 * 64 - 5, H100_SMS) == 3  # never more splits than K tiles


def test_the_bench_shape_uses_the_rule():
    kernel = _kernel()
    variants = json.loads((REFERENCE / "analysis.json").read_text())["variants"]
    partial = [v["bench_shape"] for v in variants if v["kernel"] == "splitk_partial"]
    assert partial and all(b["S"] == kernel.splits_for(b["M"], b["N"], b["K"], H100_SMS) for b in partial)
    # the reduce is timed on the slabs the partial writes at that shape
    for v in variants:
        if v["kernel"].startswith("splitk_reduce"):
            assert any(v["bench_shape"] == {k: b[k] for k in ("M", "N", "S")} for b in partial), v["name"]
