"""Propagate: top-down and bottom-up to a fixed point, ties broken only when nothing else moves."""
from __future__ import annotations

from ..mapping import MatchContext
from ..stage import Composite
from .bottom_up import BottomUp
from .top_down import TopDown


class Propagate(Composite):
    """Alternate strict top-down and strict bottom-up until neither adds a pair (ambiguous
    choices wait for their neighbours to be paired); then let ties be broken (bottom-up best
    first, then top-down in operand order on the pairs strict top-down left waiting) and
    continue. Ends when the tie-breaking passes add nothing either."""
    name = "propagate"

    def __init__(self):
        self.strict_top_down = TopDown(strict=True)
        self.strict_bottom_up = BottomUp(strict=True)
        self.tie_bottom_up = BottomUp(strict=False)
        self.tie_top_down = TopDown(strict=False)
        self.parts = (self.strict_top_down, self.strict_bottom_up, self.tie_bottom_up, self.tie_top_down)

    def __repr__(self) -> str:
        return "Propagate()"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        start = len(ctx.mapping)
        while True:
            ctx.charge(1 + len(ctx.td_open), "propagation")  # top-down walks the open pairs
            before = len(ctx.mapping)
            self.strict_top_down.run(ctx)
            self.strict_bottom_up.run(ctx)
            if len(ctx.mapping) == before:
                if self.tie_bottom_up.run(ctx):
                    continue
                deferred, ctx.deferred = ctx.deferred, []
                if not self.tie_top_down.run(ctx, seeds=deferred):
                    return len(ctx.mapping) - start
