"""anchors: memory ops by the entry argument their address derives from (when that argument and op
kind are unique on both sides; the arguments are paired before, by ``Arguments``), the entry's
``return``."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ...graph import FunctionGraph
from ..address import address_root
from ..mapping import MatchContext
from ..opsets import MEMORY_OPS
from ..stage import Stage


class Anchors(Stage):
    name = "anchors"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        L, R = ctx.left, ctx.right
        tag = self.name
        added = 0
        lmem, lterm = _anchor_candidates(L)
        rmem, rterm = _anchor_candidates(R)
        lroots = _by_root(L, lmem, lambda x: x)
        rroots = _by_root(R, rmem, lambda x: ctx.mapping.r2l.get(x, "?"))
        for key, lops in lroots.items():
            rops = rroots.get(key, [])
            if len(lops) == 1 and len(rops) == 1:
                added += ctx.add(lops[0], rops[0], tag)
        # the entry's terminator
        if lterm is not None and rterm is not None and L.nodes[lterm].name == R.nodes[rterm].name == "return":
            added += ctx.add(lterm, rterm, tag)
        return added


def _by_root(g: FunctionGraph, memory_ops: List[str], to_left) -> Dict[Tuple[str, str], List[str]]:
    """Memory ops by (entry argument of their address, as a left id; op name)."""
    out: Dict[Tuple[str, str], List[str]] = defaultdict(list)
    for nid in memory_ops:
        root = address_root(g, nid)
        if root is not None:
            out[(to_left(root), g.nodes[nid].name)].append(nid)
    return out


def _anchor_candidates(g: FunctionGraph) -> Tuple[List[str], Optional[str]]:
    """Memory ops (program order) and the last top-level op (the entry's terminator when the
    function is well formed): the last op node without a parent, found from the end of the
    pre-order (only the body of the last region op lies after it)."""
    memory = [n.nid for n in g.ops_named(MEMORY_OPS)]
    for n in reversed(g.node_list):
        if n.parent is None and n.kind == "op":
            return memory, n.nid
    return memory, None
