"""moved-effect: an effect moved into a one-sided region op is that region's difference."""
from __future__ import annotations

from typing import List

from ...match.address import address_root
from ...match.opsets import MEMORY_OPS, ops_with
from ...normalize.util import has_trait
from ..roots import Root
from ..pair_findings import describe_node
from .base import Fold, FoldContext

# control flow and the terminators that end its regions
_CONTROL_OPS = ops_with("control_flow") | (ops_with("terminator") - {"return"})


def inside(g, nid: str, region: str) -> bool:
    """Whether ``nid`` lies (at any depth) inside the region op ``region``."""
    p = g.nodes[nid].parent
    while p is not None:
        if p == region:
            return True
        p = g.nodes[p].parent
    return False


class MovedEffect(Fold):
    """One cause, one root: an effect op (a store) one side does outside any region, when the
    other side's one-sided region op (a persistent ``loop``) holds the same op on the same array,
    is that region's difference (the effect moved into it), not a second root. The region's root
    lists the effect (its ``affected``) and says so.

    Mutant it must not absorb: the loop's op writes another array (tests/compare/test_one_cause.py)."""
    name = "moved-effect"
    stage = "groups"

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        L, R, m = cl.L, cl.R, cl.m
        regions = [r for r in roots if r.kind in ("only_left", "only_right")
                   and (L if r.kind == "only_left" else R).nodes[r.left or r.right].name in _CONTROL_OPS]
        if not regions:
            return roots
        out = []
        for root in roots:
            if root.kind not in ("only_left", "only_right") or root in regions:
                out.append(root)
                continue
            side_l = root.kind == "only_left"
            g, og = (L, R) if side_l else (R, L)
            sink = g.nodes[root.left if side_l else root.right]
            array = address_root(g, sink.nid) if sink.kind == "op" and sink.name in MEMORY_OPS else None
            other_array = (m.l2r if side_l else m.r2l).get(array) if array is not None else None
            host = None
            if sink.parent is None and other_array is not None and not has_trait(sink.op, "pure"):
                for region in regions:
                    if (region.kind == "only_left") == side_l:
                        continue
                    rid = region.right if side_l else region.left
                    if rid is None:
                        continue
                    held = [n for n in og.node_list if n.kind == "op" and n.name == sink.name
                            and inside(og, n.nid, rid) and address_root(og, n.nid) == other_array]
                    if held:
                        host = region
                        break
            if host is None:
                out.append(root)
                continue
            (host.affected_left if side_l else host.affected_right).update({sink.nid} | (
                root.affected_left if side_l else root.affected_right))
            host.message += (f"; it holds the {describe_node(cl, g, cl.lt if side_l else cl.rt, sink.nid)}"
                             f" that the {'left' if side_l else 'right'} does outside any region")
        return out
