"""Real kernels written two ways in cuTile Python, exported at bytecode 13.3 and diffed."""
from __future__ import annotations

import pytest

pytest.importorskip("cuda.tile")

import tileir_diff  # noqa: E402
from tileir_diff.compare import compute_diff  # noqa: E402

from .pairs.kernels import PAIRS, export  # noqa: E402


@pytest.mark.parametrize("name,ka,kb,pa,pb,verdicts,categories", PAIRS, ids=[p[0] for p in PAIRS])
def test_pair(name, ka, kb, pa, pb, verdicts, categories):
    a = tileir_diff.load(export(ka, pa))
    b = tileir_diff.load(export(kb, pb))
    r = compute_diff(a, b)
    assert r.verdict in verdicts, r.brief()
    assert [d.category for d in r.differences] == categories, r.brief()
    for d in r.differences:  # root differences point at ops with source locations from the .py file
        ref = d.left or d.right
        assert ref.location and "kernels.py" in ref.location, d
    assert r.summary is not None and r.summary.left and r.left_lines


def test_messages_are_specific():
    from .pairs.kernels import ROW2, VEC2, copy_bid0, copy_bid1, rms_eps5, rms_eps6
    r = compute_diff(tileir_diff.load(export(rms_eps5, ROW2)), tileir_diff.load(export(rms_eps6, ROW2)))
    m = r.differences[0].message
    assert m.startswith("constant 1e-05 -> 1e-06 (f32)"), m
    r = compute_diff(tileir_diff.load(export(copy_bid0, VEC2)), tileir_diff.load(export(copy_bid1, VEC2)))
    msg = r.differences[0].message
    assert "load_view_tko index[0] (operand 1): %blockId_x" in msg and "%blockId_y" in msg, msg
