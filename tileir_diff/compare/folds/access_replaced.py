"""access-replaced: one array's read (or write) done another way on each side is one root."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ...match.address import address_root
from ...match.opsets import MEMORY_OPS, ops_with
from ...normalize.util import group_span
from ..roots import Root
from ..pair_findings import describe_node, value_of
from .base import Fold, FoldContext, own_site

_READS = ops_with("reads")
_WRITES = ops_with("writes")


def _direction(name: str) -> Optional[str]:
    if name in _WRITES:
        return "write"  # (an atomic reads and writes: a write)
    if name in _READS:
        return "read"
    return None


def _masked(op, version) -> str:
    """How an access is bounded: a view access is checked against the view's extents; a pointer
    access only by its mask operand, if it has one."""
    if "view" in op.name:
        return "a view access, bounds-checked"
    span = group_span(op, "mask", version)
    return "a pointer access with a mask" if span and span[1] else "a pointer access without a mask"


class AccessReplaced(Fold):
    """One cause, one root: when the only access of one direction (read, or write) to an array
    that one side makes is on that side only, and the other side's only access of that direction
    to the paired array is on the other side only (a view load against a raw-pointer gather, a
    store through another layout), the two are one root: that array's access done another way,
    at both ops (each stays an op the root stands on), saying how each is bounded.

    Mutants it must not absorb: the two accesses write different arrays; one side accesses the
    array twice that way (which of them replaces the other is not proven)."""
    name = "access-replaced"
    stage = "groups"
    order = 20

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        L, R, m = cl.L, cl.R, cl.m
        found: Dict[Tuple[str, str, str], List[Root]] = defaultdict(list)
        for root in roots:
            if root.kind not in ("only_left", "only_right"):
                continue
            side_l = root.kind == "only_left"
            g = L if side_l else R
            n = g.nodes[own_site(root, side_l)]
            d = _direction(n.name) if n.kind == "op" and n.name in MEMORY_OPS else None
            array = address_root(g, n.nid) if d else None
            if d is None or array is None or g.nodes[array].kind != "arg":
                continue
            left_array = array if side_l else m.r2l.get(array)
            if left_array is None:
                continue
            found[(left_array, d, "l" if side_l else "r")].append(root)
        merged = set()
        added: List[Root] = []
        for (array, d, side), left_roots in list(found.items()):
            if side != "l":
                continue
            right_roots = found.get((array, d, "r"), [])
            if len(left_roots) != 1 or len(right_roots) != 1:
                continue
            if self.accesses(L, array, d) != 1 or self.accesses(R, m.l2r[array], d) != 1:
                continue  # another access of that direction stays paired: which one was replaced is open
            a, b = left_roots[0], right_roots[0]
            if b.right is None:
                continue
            self.merge(ctx, a, b.right, array, d)
            a.affected_right |= b.affected_right
            merged.add(id(b))
            added.extend(self.reads_within(ctx, a))
        return [r for r in roots if id(r) not in merged] + added

    def merge(self, ctx: FoldContext, a: Root, right: str, array: str, d: str) -> None:
        """Make ``a`` (at the left access) the root of both accesses, ``right`` the right one."""
        cl = ctx.cl
        L, R = cl.L, cl.R
        la, rb = L.nodes[own_site(a, True)], R.nodes[right]
        name = cl.lt.names.get(value_of(L.nodes[array]).vid, array)
        verb = "write to" if d == "write" else "read of"
        a.message = (f"{verb} {name} done another way: {describe_node(cl, L, cl.lt, la.nid)} "
                     f"({_masked(la.op, cl.vl)}) -> {describe_node(cl, R, cl.rt, rb.nid)} ({_masked(rb.op, cl.vr)})")
        a.right, a.kind, a.category = rb.nid, "access", "memory"
        a.extra["access"] = {"array": L.nodes[array].arg_index, "direction": d, "left": la.name, "right": rb.name}

    def reads_within(self, ctx: FoldContext, host: Root) -> List[Root]:
        """The reads the merged write's two components make of one array each way (a gather
        feeding a scatter), each pair taken out as a root of its own: another cause."""
        cl = ctx.cl
        L, R, m = cl.L, cl.R, cl.m
        by_array: Dict[Tuple[str, str], List[str]] = defaultdict(list)
        for side_l, nodes in ((True, host.affected_left), (False, host.affected_right)):
            g = L if side_l else R
            for nid in nodes:
                n = g.nodes[nid]
                if n.kind != "op" or _direction(n.name) != "read" or nid in (m.l2r if side_l else m.r2l):
                    continue
                array = address_root(g, nid)
                if array is None:
                    continue
                left_array = array if side_l else m.r2l.get(array)
                if left_array is not None and g.nodes[array].kind == "arg":
                    by_array[(left_array, "l" if side_l else "r")].append(nid)
        out = []
        for (array, side), lefts in sorted(by_array.items()):
            rights = by_array.get((array, "r"), [])
            if side != "l" or len(lefts) != 1 or len(rights) != 1:
                continue
            root = Root(lefts[0], None, "memory", "", kind="only_left")
            self.merge(ctx, root, rights[0], array, "read")
            host.affected_left.discard(lefts[0])
            host.affected_right.discard(rights[0])
            out.append(root)
        return out

    @staticmethod
    def accesses(g, array: str, d: str) -> int:
        return sum(1 for n in g.node_list if n.kind == "op" and n.name in MEMORY_OPS
                   and _direction(n.name) == d and address_root(g, n.nid) == array)
