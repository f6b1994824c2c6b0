"""moved-effect: an effect moved into a one-sided region op is that region's difference."""
from __future__ import annotations

from typing import List, Optional

from ...graph import FunctionGraph
from ...match.address import address_root
from ...match.opsets import MEMORY_OPS, ops_with
from ...normalize.util import has_trait
from ..roots import Root
from ..pair_findings import describe_node, op_of
from .base import Fold, FoldContext, own_site

# control flow and the terminators that end its regions
_CONTROL_OPS = ops_with("control_flow") | (ops_with("terminator") - {"return"})
_ONE_SIDED = ("only_left", "only_right")


def inside(g: FunctionGraph, nid: str, region: str) -> bool:
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
    order = 10

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        regions = self.one_sided_regions(ctx, roots)
        if not regions:
            return roots
        out = []
        for root in roots:
            if root.kind not in _ONE_SIDED or root in regions:
                out.append(root)
                continue
            host = self.holding_region(ctx, root, regions)
            if host is None:
                out.append(root)
                continue
            self.list_under(ctx, host, root)
        return out

    @staticmethod
    def one_sided_regions(ctx: FoldContext, roots: List[Root]) -> List[Root]:
        """The roots of region ops (control flow) found on one side only: the only hosts."""
        cl = ctx.cl
        return [r for r in roots if r.kind in _ONE_SIDED
                and (cl.L if r.kind == "only_left" else cl.R).nodes[own_site(r, r.kind == "only_left")].name
                in _CONTROL_OPS]

    @staticmethod
    def holding_region(ctx: FoldContext, root: Root, regions: List[Root]) -> Optional[Root]:
        """The first of the other side's one-sided ``regions`` that holds an op of the same name on
        the paired array, when one-sided ``root`` stands on an effect (not pure) outside any region
        accessing an array both sides take; else None (the effect stays a root)."""
        cl = ctx.cl
        side_l = root.kind == "only_left"
        g, og = (cl.L, cl.R) if side_l else (cl.R, cl.L)
        sink = g.nodes[own_site(root, side_l)]
        array = address_root(g, sink.nid) if sink.kind == "op" and sink.name in MEMORY_OPS else None
        other_array = (cl.m.l2r if side_l else cl.m.r2l).get(array) if array is not None else None
        if sink.parent is not None or other_array is None or has_trait(op_of(sink), "pure"):
            return None
        for region in regions:
            if (region.kind == "only_left") == side_l:
                continue  # a region of the effect's own side is another change
            rid = region.right if side_l else region.left
            if rid is None:
                continue
            if any(n.kind == "op" and n.name == sink.name and inside(og, n.nid, rid)
                   and address_root(og, n.nid) == other_array for n in og.node_list):
                return region
        return None

    @staticmethod
    def list_under(ctx: FoldContext, host: Root, root: Root) -> None:
        """The region's root lists the moved effect and what it affects, and says where it was."""
        cl = ctx.cl
        side_l = root.kind == "only_left"
        g = cl.L if side_l else cl.R
        sink = own_site(root, side_l)
        (host.affected_left if side_l else host.affected_right).update({sink} | (
            root.affected_left if side_l else root.affected_right))
        host.message += (f"; it holds the {describe_node(cl, g, cl.lt if side_l else cl.rt, sink)}"
                         f" that the {'left' if side_l else 'right'} does outside any region")
