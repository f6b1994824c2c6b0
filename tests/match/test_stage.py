"""The stage protocol and the composites (Repeat, UntilStable) with stand-in stages."""
from __future__ import annotations

from tileir_diff.match import Repeat, Stage, UntilStable, leaf_stages


class Scripted(Stage):
    """Returns the given counts in turn (then 0) and logs its calls."""

    def __init__(self, name, counts, log):
        self.name, self.counts, self.log = name, list(counts), log

    def run(self, ctx, seeds=None) -> int:
        self.log.append(self.name)
        return self.counts.pop(0) if self.counts else 0


def test_repeat_runs_until_nothing_is_added():
    log = []
    r = Repeat(Scripted("a", [2, 1], log))
    assert r.run(None) == 3 and log == ["a", "a", "a"]
    assert r.name == "repeat(a)" and [s.name for s in r.leaves()] == ["a"]


def test_until_stable_stops_a_round_at_the_first_stage_that_adds():
    """As ``while relative_exact(ctx) or same_io(ctx): propagate(ctx)``."""
    log = []
    u = UntilStable([Scripted("x", [1, 0, 0], log), Scripted("y", [2], log)], then=Scripted("t", [5, 0], log))
    assert u.run(None) == 1 + 5 + 2 + 0
    assert log == ["x", "t", "x", "y", "t", "x", "y"]
    assert [s.name for s in u.leaves()] == ["x", "y", "t"]


def test_leaf_stages_flatten_composites_in_order():
    log = []
    a, b, c = (Scripted(n, [], log) for n in "abc")
    assert [s.name for s in leaf_stages([a, Repeat(b), UntilStable([b], then=c)])] == ["a", "b", "b", "c"]
