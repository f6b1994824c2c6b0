"""Progress lines of verify and analyze carry the elapsed time and an ETA (tileir_diff.progress.Eta)."""
from __future__ import annotations

from tileir_diff.progress import Eta


def test_eta_extrapolates_from_the_items_done():
    now = [100.0]
    eta = Eta(clock=lambda: now[0])
    assert eta.line(1, 4) == " [0s]"  # nothing finished yet: no estimate
    now[0] = 110.0  # item 1 took 10 s; item 2 starts, 3 items remain
    assert eta.line(2, 4) == " [10s, ~30s left]"
    now[0] = 130.0
    assert eta.line(4, 4) == " [30s, ~10s left]"
    assert eta.line(3, 0) == " [30s]"
