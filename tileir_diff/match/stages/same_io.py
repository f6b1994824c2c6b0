"""same-io: leftovers that sit in the same place pair whatever their op name: identical paired
inputs (in the same region of paired parents), or the same operand slot of a paired user (same
op name). This is how a changed op kind (``mulf`` -> ``divf``) becomes one changed pair."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List

from ..mapping import MatchContext
from ..operands import operand_pairs
from ..stage import Stage


class SameIO(Stage):
    name = "same-io"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        L, R, m = ctx.left, ctx.right, ctx.mapping
        tag = self.name
        added = 0
        # same inputs
        rsig: Dict[tuple, List[str]] = defaultdict(list)
        for nid in ctx.rfree:
            n = R.nodes[nid]
            if n.kind == "op" and n.operands:
                rsig[(n.parent, n.region, tuple((s, res) for s, res, _ in n.operands))].append(nid)
        for i, nid in enumerate(list(ctx.lfree)):
            if i % 1024 == 1023:
                ctx.charge(1024, "same-io matching")
            n = L.nodes[nid]
            if n.kind != "op" or nid in m.l2r or not n.operands:
                continue
            if any(s is None or s not in m.l2r for s, _, _ in n.operands):
                continue
            parent = m.l2r.get(n.parent) if n.parent is not None else None
            if n.parent is not None and parent is None:
                continue
            key = (parent, n.region, tuple((m.l2r[s], res) for s, res, _ in n.operands if s is not None))
            # every node of a group starts unpaired and only this loop pairs them, one group of
            # one at a time: a group of several stays so, and is passed over without listing its
            # unpaired nodes (listing them for each of n left nodes made n identical ops quadratic)
            group = rsig.get(key, ())
            if len(group) == 1 and group[0] not in m.r2l and ctx.add(nid, group[0], tag):
                added += 1
        # same user slot
        for i, nid in enumerate(list(ctx.lfree)):
            if i % 1024 == 1023:
                ctx.charge(1024, "same-io matching")
            n = L.nodes[nid]
            if n.kind != "op" or nid in m.l2r:
                continue
            found = set()
            for u, k, res in n.users:
                ru = m.l2r.get(u)
                if ru is None:
                    continue
                rn = R.nodes[ru]
                un = L.nodes[u]
                for i, j in operand_pairs(un, rn):
                    if i == k:
                        src, rres, _ = rn.operands[j]
                        if (src is not None and src not in m.r2l and rres == res and R.nodes[src].kind == "op"
                                and R.nodes[src].name == n.name):
                            found.add(src)
            if len(found) == 1 and ctx.add(nid, found.pop(), tag):
                added += 1
        return added
