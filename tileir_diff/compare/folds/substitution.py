"""consistent-substitution: one value read as another at every use is one root."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Set, Tuple

from ..roots import Root
from ..pair_findings import pair_findings, wiring
from .base import Fold, FoldContext, absorb

_Key = Tuple[str, int, str, int]


class ConsistentSubstitution(Fold):
    """One cause, one root: when every matched user of a left value ``v`` takes, at that operand,
    one right value ``w`` that is not ``v``'s counterpart, and each such user differs in nothing
    else (a grid-axis swap: ``bid.x`` read as ``bid.y`` at the ``divi``, the ``remi`` and the
    load), the rewirings are one root, at the first user; the others stay ops it stands on (the
    checker sees each covered) and the message names them.

    Mutants it must not absorb: the substitution at only some of ``v``'s uses (each is its own
    root); a user that also changes otherwise; two users rewired to different values."""
    name = "consistent-substitution"
    stage = "roots"
    order = 20

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        groups: Dict[_Key, List[Root]] = defaultdict(list)
        for root in roots:
            key = self.key(ctx, root)
            if key is not None:
                groups[key].append(root)
        out: List[Root] = []
        folded: Set[int] = set()
        for key, members in groups.items():
            if len(members) < 2 or not self.every_use(ctx, key, members):
                continue
            # (a member's `also` is empty: key() takes only single-site roots)
            host, names = members[0], absorb(cl, members, folded)
            host.message += f"; the same substitution at every use: also {', '.join(names)}"
            host.extra["substitution_sites"] = len(members)
        for root in roots:
            if id(root) not in folded:
                out.append(root)
        return out

    @staticmethod
    def key(ctx: FoldContext, root: Root) -> Optional[_Key]:
        """(left value, result, right value, result) when ``root`` is a pair whose only
        difference is one operand taken from another paired, clean value; else None."""
        cl = ctx.cl
        if root.kind != "changed" or root.left is None or root.right is None or root.also:
            return None
        a, b = cl.L.nodes[root.left], cl.R.nodes[root.right]
        if a.kind != "op" or b.kind != "op" or pair_findings(cl, root.left, root.right):
            return None
        slots = wiring(cl, root.left, root.right)
        if len(slots) != 1:
            return None
        i, j = slots[0]
        (pl, rl, _), (pr, rr, _) = a.operands[i], b.operands[j]
        if pl is None or pr is None or pl not in cl.m.l2r or pr not in cl.m.r2l:
            return None
        if pl in ctx.dirty_l or pr in ctx.dirty_r:
            return None
        return (pl, rl, pr, rr)

    @staticmethod
    def every_use(ctx: FoldContext, key: _Key, members: List[Root]) -> bool:
        """Whether ``members`` are all the matched users of the left value (no use keeps it)."""
        cl = ctx.cl
        pl, rl, _, _ = key
        sites = {r.left for r in members}
        for u, _, res in cl.L.nodes[pl].users:
            if res == rl and u in cl.m.l2r and u not in sites:
                return False
        return True
