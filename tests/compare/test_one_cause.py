"""One cause, one root (issue 11 class 4): differences that follow from another are listed under it."""
from __future__ import annotations

from tileir_diff.compare import compute_diff

from ..normalize.kernels import kernel, load, store


def _diff(a, b):
    return compute_diff(a, b, with_summary=False, with_lines=False)


def _persistent(view: str) -> str:
    """A grid-stride loop over the tiles: load x, store into ``view`` at each tile index."""
    return ("  %one = constant <i32: 1> : tile<i32>\n  %gx, %gy, %gz = get_num_tile_blocks : tile<i32>\n"
            "  for %iv in (%bx to %arg2, step %gx) : tile<i32> {\n"
            + load("a", index="%iv").replace("  %", "    %", 1)
            + store("%a", view=view, index="%iv").replace("  %", "    %", 1)
            + "    continue\n  }\n")


def test_a_store_moved_into_a_persistent_loop_is_the_loop_root():
    one_tile = kernel(load("a") + store("%a"))
    r = _diff(one_tile, kernel(_persistent("%py")))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.category == "control_flow" and "for" in d.message and "only on the right" in d.message
    assert "store_view_tko" in d.message and "outside any region" in d.message


def test_mutant_the_loop_stores_into_another_array_stays_two_roots():
    # the loop's store writes x (%px), not y: the left's store to y is a deletion of its own
    one_tile = kernel(load("a") + store("%a"))
    r = _diff(one_tile, kernel(_persistent("%px")))
    assert r.verdict == "different"
    msgs = [d.message for d in r.differences]
    assert any("store_view_tko" in m and "only on the left" in m for m in msgs), msgs
    assert not any("outside any region" in m for m in msgs), msgs
