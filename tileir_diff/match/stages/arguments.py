"""anchors (arguments): the entry arguments as the aligners pair them (``match.alignment``: by
position when the roles agree, else by role, with ties, else by position). Its pairs carry the
``anchors`` tag, like the memory ops and the return the next stage anchors on them.

The engine aligns the arguments once, when it builds the graphs (it needs the ties before it
matches), and hands the alignment to the matcher (``match_functions(alignment=...)``); this stage
then adds those pairs instead of aligning again. Alone (tests, other callers), it aligns."""
from __future__ import annotations

from ..alignment import align
from ..mapping import MatchContext
from ..stage import Stage


class Arguments(Stage):
    name = "anchors"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        alignment = ctx.alignment
        if alignment is None or not alignment.is_for(ctx.left, ctx.right):
            alignment = align(ctx.left, ctx.right)
        added = 0
        for a, b in alignment.pairs:
            added += ctx.add(a, b, self.name)
        return added
