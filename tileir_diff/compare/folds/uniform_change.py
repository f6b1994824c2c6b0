"""uniform-change: the same change at several paired ops is one root."""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Set, Tuple

from ..pair_findings import wiring
from ..roots import Root
from .base import Fold, FoldContext, absorb

#: an op id in a message, "(f0/o17)" or "(f0/o3/r0/o2)": where, not what
_OP_ID = re.compile(r" ?\(f\d+(?:/[or]\d+)*\)")


class UniformChange(Fold):
    """One cause, one root: paired ops that each differ in exactly the same way (the same
    category and the same words once the op's own name and id are left out: every partition
    view's tile ``(1024) -> (512)``, both loads' views losing their padding value, the block-id
    axes swapped at both loads and the store) are one edit; the first is the root, the others
    stay ops it stands on (``also``, so the checker sees each covered) and are named.

    Mutants it must not absorb: two sites changed in different ways (tiles ``(1024) -> (512)``
    at one view and ``-> (256)`` at another), a rewiring to different values at each site, or
    one at some uses of a value only (a load reads bid.y, the store still bid.x); those stay a
    root each."""
    name = "uniform-change"
    stage = "final"
    order = 20

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        groups: Dict[Tuple[str, str, frozenset], List[Root]] = {}
        for root in roots:
            key = self.key(cl, root)
            if key is not None:
                groups.setdefault(key, []).append(root)
        folded: Set[int] = set()
        for (_, _, rewired), members in groups.items():
            if len(members) < 2 or not self.every_use(cl, rewired, members):
                continue
            host, names = members[0], absorb(cl, members, folded)
            host.message += f"; the same change at {len(members)} ops: also {', '.join(names)}"
            host.extra["uniform_change_sites"] = len(members)
        return [r for r in roots if id(r) not in folded]

    @staticmethod
    def every_use(cl, rewired: frozenset, members: List[Root]) -> bool:
        """Whether the sites are every matched use of each value they rewire (a substitution at
        some uses only is a root per use: consistent-substitution's mutant)."""
        sites = {r.left for r in members}
        for (pl, rl), _ in rewired:
            if pl is None:
                return False
            for u, _, res in cl.L.nodes[pl].users:
                if res == rl and u in cl.m.l2r and u not in sites:
                    return False
        return True

    @staticmethod
    def key(cl, root: Root) -> Optional[Tuple[str, str, frozenset]]:
        """(category, the message without its leading op name and op ids, the values its rewired
        operands take on both sides) for a pair that differs; None for one-sided roots and roots
        that already stand for several sites. Rewired operands must be the same values at every
        site (the grid axes swapped), not each site's own (cdiv written by hand for M, N and K:
        three formulas)."""
        if root.kind != "changed" or root.left is None or root.right is None or root.also:
            return None
        a, b = cl.L.nodes[root.left], cl.R.nodes[root.right]
        if a.kind != "op" or b.kind != "op":
            return None
        rewired = frozenset((a.operands[i][:2], b.operands[j][:2]) for i, j in wiring(cl, root.left, root.right))
        words = _OP_ID.sub("", root.message)
        head, _, rest = words.partition(" ")
        if not rest or not head.replace("_", "").isalnum():
            return None
        return root.category, rest, rewired
