"""Scores the exact stages use to choose among equal-keyed candidates."""
from __future__ import annotations

from .mapping import MatchContext


def neighbour_agreement(ctx: MatchContext, l: str, r: str) -> int:
    """Paired users (same slot) and paired region parents the two nodes share."""
    L, R, m = ctx.left, ctx.right, ctx.mapping
    score = 0
    ru = {(u, k, res) for u, k, res in R.nodes[r].users}
    for u, k, res in L.nodes[l].users:
        mu = m.l2r.get(u)
        if mu is not None and (mu, k, res) in ru:
            score += 2
    lp, rp = L.nodes[l].parent, R.nodes[r].parent
    if (lp is None and rp is None) or (lp is not None and m.l2r.get(lp) == rp):
        score += 1
    return score
