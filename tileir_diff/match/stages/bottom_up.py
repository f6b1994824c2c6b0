"""bottom-up (operands -> users): the unpaired users of a paired node at the same operand slot
(commutative positions folded into one) and with the same op name, scored by similarity.
``strict``: a pair is added only when each is the other's unique best; otherwise ties are
broken best first, equal scores by the nearest relative position in program order."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List

from ...normalize.keys import commutative_positions
from ..mapping import MatchContext
from ..operands import operand_pairs, use_slot
from ..stage import TieAwareStage


class BottomUp(TieAwareStage):
    name = "bottom-up"
    strict_by_default = True

    def run(self, ctx: MatchContext, seeds=None) -> int:
        """From paired operands (``seeds``, else the pairs with an unpaired user) to their users
        at the same slot (same op name). Returns pairs added."""
        L, R, m = ctx.left, ctx.right, ctx.mapping
        strict, tag = self.strict, self.name
        work = list(seeds) if seeds is not None else ctx.bottom_up_candidates()
        added = 0
        steps = 0
        while work:
            steps += 1
            if steps % 512 == 0:
                ctx.charge(512, "bottom-up matching")
            l, r = work.pop()
            lu: Dict[tuple, List[str]] = defaultdict(list)
            for u, k, res in L.nodes[l].users:
                if u not in m.l2r:
                    lu[(use_slot(L, u, k), res)].append(u)
            if not lu:
                continue
            ru: Dict[tuple, List[str]] = defaultdict(list)
            for u, k, res in R.nodes[r].users:
                if u not in m.r2l:
                    ru[(use_slot(R, u, k), res)].append(u)
            for key, lcands in lu.items():
                rcands = ru.get(key)
                if not rcands:
                    continue
                scored = []
                for x in lcands[: ctx.limits.max_candidates]:
                    for y in rcands[: ctx.limits.max_candidates]:
                        if ctx.compatible(x, y):
                            scored.append((similarity(ctx, x, y), x, y))
                if len(scored) > 1:  # (the relative positions are made on first use)
                    lpos, rpos = ctx.positions()
                    # best first; among equal scores the nearest relative position in program order
                    scored.sort(key=lambda t: (-t[0], abs(lpos[t[1]] - rpos[t[2]])))
                best_l: Dict[str, List[float]] = defaultdict(list)
                best_r: Dict[str, List[float]] = defaultdict(list)
                for sc, x, y in scored:
                    best_l[x].append(sc)
                    best_r[y].append(sc)
                for sc, x, y in scored:
                    if sc < 0.5 or x in m.l2r or y in m.r2l:
                        continue
                    if strict and not (_unique_best(best_l[x], sc) and _unique_best(best_r[y], sc)):
                        continue  # not each other's unique best: wait for more evidence
                    if ctx.add(x, y, tag):
                        added += 1
                        work.append((x, y))
        return added


def similarity(ctx: MatchContext, l: str, r: str) -> float:
    """Operands paired with each other (commutative pairs in either order), paired users at the
    same slot, equal label, equal hash, same region parent."""
    a, b = ctx.left.nodes[l], ctx.right.nodes[r]
    m = ctx.mapping
    agree = 0
    lsrc = [(m.l2r.get(s_), res) for s_, res, _ in a.operands]
    rsrc = [(s_, res) for s_, res, _ in b.operands]
    pos = commutative_positions(a.op) if a.op is not None and a.name == b.name else None
    for i, j in operand_pairs(a, b):
        if lsrc[i][0] is not None and lsrc[i] == rsrc[j]:
            agree += 1
        elif pos is not None and i in pos and j in pos:
            other = pos[1] if j == pos[0] else pos[0]
            if other < len(rsrc) and lsrc[i][0] is not None and lsrc[i] == rsrc[other]:
                agree += 1
    n = max(len(a.operands), len(b.operands), 1)
    ru = {(u, use_slot(ctx.right, u, k), res) for u, k, res in b.users}
    uagree = sum(1 for u, k, res in a.users
                 if m.l2r.get(u) is not None and (m.l2r[u], use_slot(ctx.left, u, k), res) in ru)
    score = agree / n + (uagree / max(len(a.users), len(b.users)) if a.users or b.users else 0.0)
    score += (1.0 if a.compare_key == b.compare_key else 0.0) + (0.5 if a.merkle_key == b.merkle_key else 0.0)
    lp, rp = a.parent, b.parent
    if (lp is None and rp is None) or (lp is not None and m.l2r.get(lp) == rp):
        score += 0.25
    return score


def _unique_best(scores: List[float], score: float) -> bool:
    """Whether ``score`` is the highest of ``scores`` (sorted, highest first) and no other ties it."""
    return scores[0] == score and (len(scores) == 1 or scores[1] < score)
