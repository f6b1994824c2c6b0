"""top-down (users -> operands): a paired op pairs its operand producers slot by slot when they
have the same op name, and its region contents (block arguments by position, terminators in
order). Commutative operands pair crossed when that fits better; ``strict`` leaves equally
fitting commutative slots waiting (``ctx.deferred``) for bottom-up to decide."""
from __future__ import annotations

from ...normalize.keys import commutative_positions
from ..mapping import MatchContext
from ..operands import operand_pairs
from ..opsets import TERMINATOR_OPS
from ..stage import TieAwareStage


class TopDown(TieAwareStage):
    name = "top-down"
    strict_by_default = False

    def run(self, ctx: MatchContext, seeds=None) -> int:
        """From paired users (``seeds``, else every pair that may still extend) to their
        operands and region contents. Returns pairs added."""
        L, R, m = ctx.left, ctx.right, ctx.mapping
        strict, tag = self.strict, self.name
        work = list(seeds if seeds is not None else ctx.td_open.items())
        added = 0
        l2r, r2l = m.l2r, m.r2l
        lnodes, rnodes = L.nodes, R.nodes
        td_open = ctx.td_open
        while work:
            l, r = work.pop()
            a, b = lnodes[l], rnodes[r]
            aops, bops = a.operands, b.operands
            # (once exact matching ran, every operand is usually paired already: nothing to do)
            if not aops or all(s_ is None or s_ in l2r for s_, _, _ in aops):
                done = True
            else:
                done = False
                for i, j in td_pairs(ctx, a, b, strict):
                    sa, ra, _ = aops[i]
                    if sa is None or sa in l2r:  # (the usual case once exact matching ran)
                        continue
                    sb, rb, _ = bops[j]
                    if sb is None or ra != rb:
                        continue
                    if sb not in r2l and ctx.compatible(sa, sb):
                        if ctx.add(sa, sb, tag):
                            added += 1
                            work.append((sa, sb))
            if a.children and b.children and a.name == b.name:
                la = [c for c in a.children if L.nodes[c].kind == "barg"]
                ra_ = [c for c in b.children if R.nodes[c].kind == "barg"]
                for x, y in zip(la, ra_):
                    if ctx.add(x, y, tag):
                        added += 1
                        work.append((x, y))
                lterm = [c for c in a.children if L.nodes[c].kind == "op" and L.nodes[c].op.name in TERMINATOR_OPS]
                rterm = [c for c in b.children if R.nodes[c].kind == "op" and R.nodes[c].op.name in TERMINATOR_OPS]
                if len(lterm) == len(rterm):
                    for x, y in zip(lterm, rterm):
                        if ctx.compatible(x, y) and ctx.add(x, y, tag):
                            added += 1
                            work.append((x, y))
            if done:  # (region contents were just handled; doing it again adds nothing)
                td_open.pop(l, None)
        return added


def td_pairs(ctx: MatchContext, a, b, strict: bool = False):
    """Operand slots to pair top-down; for commutative ops the crossed order when it fits better
    (the two sides may have sorted their operands differently after an upstream change).
    ``strict``: when both orders fit equally well and either could pair (e.g. ``xori(cmpf(x),
    cmpf(y))`` where both cmpf moved with an upstream change), leave the commutative slots out
    and record the pair in ``ctx.deferred``: bottom-up matching from their operands decides, or
    a later non-strict pass."""
    pairs = operand_pairs(a, b)
    if a.op is None or b.op is None or a.name != b.name:
        return pairs
    pos = commutative_positions(a.op)
    if pos is None or len(a.operands) <= pos[1] or len(b.operands) <= pos[1]:
        return pairs
    i, j = pos
    m = ctx.mapping

    def fit(x, y):
        sa, ra, _ = a.operands[x]
        sb, rb, _ = b.operands[y]
        if sa is None or sb is None or ra != rb:
            return 0
        if m.l2r.get(sa) == sb:
            return 3
        if sa in m.l2r or sb in m.r2l:
            return -3
        na, nb = ctx.left.nodes[sa], ctx.right.nodes[sb]
        if na.merkle_key == nb.merkle_key:
            return 3
        if na.compare_key != nb.compare_key:
            return 0
        # same op, moved hashes: how many of their own operands are already paired together
        agree = sum(1 for (p, rp, _), (q, rq, _) in zip(na.operands, nb.operands)
                    if p is not None and rp == rq and m.l2r.get(p) == q)
        return 1 + 0.5 * agree / max(1, len(na.operands))
    straight, crossed = fit(i, i) + fit(j, j), fit(i, j) + fit(j, i)
    if crossed > straight:
        return [(x, y) for x, y in pairs if x not in pos] + [(i, j), (j, i)]
    if strict and crossed == straight and crossed > 0 and a.operands[i][:2] != a.operands[j][:2] \
            and b.operands[i][:2] != b.operands[j][:2]:
        ctx.deferred.append((a.nid, b.nid))
        return [(x, y) for x, y in pairs if x not in pos]
    return pairs
