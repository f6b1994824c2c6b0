"""exact: nodes with equal Merkle hashes, largest subgraph first (GumTree / XLA hlo_diff).
Within a hash group every left/right pair is scored and pairs are taken best first; a pair is
accepted only if pairing the two operand cones in lock step contradicts no existing pair."""
from __future__ import annotations

from bisect import bisect_left
from typing import Dict, List, Optional, Tuple

from ..mapping import MatchContext
from ..scoring import neighbour_agreement
from ..stage import Stage


class Exact(Stage):
    name = "exact"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        """Equal Merkle hashes, largest subgraphs first. Within a hash group every left/right
        pair is scored (paired neighbours, then nearness of relative position) and pairs are
        taken best first, so that when one side has fewer copies the best-placed copy gets the
        match."""
        L, R = ctx.left, ctx.right
        l2r, r2l = ctx.mapping.l2r, ctx.mapping.r2l
        before = len(l2r)
        lnodes = L.nodes
        by_hash_r = R.by_hash
        # groups in order: largest subgraph first, then tallest, then first in program order (the
        # group lists ride in the sort keys: the position makes every key unique, so the lists are
        # never compared, and the loop below needs no lookups by hash). Paired nodes are skipped
        # where the lists are used.
        groups: List[tuple] = []
        for h, lg in L.by_hash.items():
            rg = by_hash_r.get(h)
            if rg is not None:
                n = lnodes[lg[0]]
                groups.append((-n.size, -n.height, n.seq, lg, rg))
        groups.sort()
        cap = ctx.limits.max_candidates
        budget = ctx.limits.consistency_budget
        tag = self.name
        for step, (_, _, _, lg, rg) in enumerate(groups):
            if step % 128 == 0:
                ctx.charge(128, "exact matching")  # groups
            if len(lg) == 1 and len(rg) == 1:  # one copy on each side (the common case): no scoring
                l, r = lg[0], rg[0]
                if l in l2r or r in r2l:
                    continue
                cone = _cone(ctx, l, r, budget)
                if cone is not None:
                    _pair_cone(ctx, cone, tag)
                continue
            lefts = [x for x in lg if x not in l2r]
            rights = [x for x in rg if x not in r2l]
            if not lefts or not rights:
                continue
            # (relative positions: made on first use, most diffs have no group of several copies)
            lorder, rorder = ctx.positions()
            if len(lefts) * len(rights) > cap * cap:  # huge groups: the cap nearest positions only
                pairs = _nearest_pairs(lefts, rights, lorder, rorder, cap)
            else:
                pairs = [(l, r) for l in lefts for r in rights]
            # best first: most paired neighbours, then nearest relative position, then ids
            scored = sorted((-neighbour_agreement(ctx, l, r), abs(lorder[l] - rorder[r]), l, r) for l, r in pairs)
            for i, (_, _, l, r) in enumerate(scored):
                if i % 4096 == 4095:
                    ctx.charge(4096, "exact matching")  # scored candidate pairs
                if l in l2r or r in r2l:
                    continue
                cone = _cone(ctx, l, r, budget)
                if cone is not None:
                    _pair_cone(ctx, cone, tag)
        return len(l2r) - before


def _pair_cone(ctx: MatchContext, cone: List[tuple], tag: str) -> None:
    """Add the pairs of a consistent cone (``_cone``) in program order of the left side."""
    td_open = ctx.td_open
    cone.sort()
    for _, _, a, b, na in cone:
        if ctx.add(a, b, tag):
            if not na.children:
                # every operand is in the cone (or was paired before): top-down has nothing to add
                del td_open[a]
                continue
            # block arguments of equal region ops pair by position
            nb = ctx.right.nodes[b]
            la = [c for c in na.children if ctx.left.nodes[c].kind == "barg"]
            ra = [c for c in nb.children if ctx.right.nodes[c].kind == "barg"]
            if len(la) == len(ra):
                for x, y in zip(la, ra):
                    ctx.add(x, y, tag)


def _nearest_pairs(lefts: List[str], rights: List[str], lorder, rorder, cap: int) -> List[Tuple[str, str]]:
    """Each left node with the ``cap`` right nodes nearest to it in relative position (ties: the
    earlier one), in O((n + m) log m + n * cap): a window grown both ways from where the left
    node's position falls among the sorted right positions (sorting every right node by its
    distance, once per left node, took minutes for groups of 16k identical ops)."""
    rs = sorted(rights, key=lambda r: (rorder[r], r))
    rpos = [rorder[r] for r in rs]
    pairs: List[Tuple[str, str]] = []
    for l in lefts:
        p = lorder[l]
        hi = bisect_left(rpos, p)
        lo = hi - 1
        for _ in range(min(cap, len(rs))):
            if hi >= len(rs) or (lo >= 0 and p - rpos[lo] <= rpos[hi] - p):
                pairs.append((l, rs[lo]))
                lo -= 1
            else:
                pairs.append((l, rs[hi]))
                hi += 1
    return pairs


def _cone(ctx: MatchContext, l: str, r: str, budget: int) -> Optional[List[tuple]]:
    """The new pairs of pairing l<->r and their operand cones in lock step, as (left position,
    right position (program order), left id, right id, left node); None when that contradicts an
    existing pair or visits more than ``budget`` pairs (pairs already made count as visited, not
    as new). Sorted, the left node's first pair is the one with the earlier right node (where
    a set of visited pairs left that to the process's string hashes)."""
    l2r, r2l = ctx.mapping.l2r, ctx.mapping.r2l
    lnodes, rnodes = ctx.left.nodes, ctx.right.nodes
    stack = [(l, r)]
    # pairs visited: the right node of each left one, and a set for a left node the cone reaches
    # again with another right node (two equal operands one side computes once, the other twice)
    partner: Dict[str, str] = {}
    others: set = set()
    new: List[tuple] = []
    while stack:
        pair = stack.pop()
        a, b = pair
        known = partner.get(a)
        if known is None:
            partner[a] = b
        elif known == b or pair in others:
            continue
        else:
            others.add(pair)
        budget -= 1
        if budget < 0:
            return None
        if a in l2r or b in r2l:  # consistent only when paired with each other
            if l2r.get(a) != b or r2l.get(b) != a:
                return None
            continue
        na, nb = lnodes[a], rnodes[b]
        aops, bops = na.operands, nb.operands
        if na.kind != nb.kind or na.merkle_key != nb.merkle_key or len(aops) != len(bops):
            return None
        new.append((na.seq, nb.seq, a, b, na))
        for (sa, ra, _), (sb, rb, _) in zip(aops, bops):
            if (sa is None) != (sb is None) or ra != rb:
                return None
            if sa is not None:
                stack.append((sa, sb))  # type: ignore[arg-type]  # sb is not None: checked above
    return new
