"""dropped-operand: what only fed an operand the other side does not pass is that operand's root."""
from __future__ import annotations

from typing import List, Optional

from ..roots import Root
from .base import Fold, FoldContext


class DroppedOperand(Fold):
    """One cause, one root: a one-sided op (with the one-sided ops it stands for) whose every
    reader is one paired op that passes more operands on its side than its counterpart (a store's
    mask dropped on the other side: the ``cmpi`` that computed it has nothing to pair with), is
    the consequence of that op's own root (the operand group that changed); the root lists it
    (``affected``) and says so.

    Mutants it must not absorb: a one-sided op that also feeds another op (it is then computed for
    something else too), or one whose reader passes as many operands on both sides (a rewiring,
    its own root kind)."""
    name = "dropped-operand"
    stage = "roots"
    order = 30

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        at = {(r.left, r.right): r for r in roots if r.kind == "changed" and r.left and r.right}
        out = []
        for root in roots:
            host = self.host(cl, root, at) if root.kind in ("only_left", "only_right") else None
            if host is None:
                out.append(root)
                continue
            side_l = root.kind == "only_left"
            nid = root.left if side_l else root.right
            assert nid is not None  # (host() found it)
            into = host.affected_left if side_l else host.affected_right
            into.add(nid)
            into.update(root.affected_left if side_l else root.affected_right)
            g = cl.L if side_l else cl.R
            host.message += f"; the {g.nodes[nid].name} that computed it is then only on the {'left' if side_l else 'right'}"
        return out

    @staticmethod
    def host(cl, root: Root, at) -> Optional[Root]:
        side_l = root.kind == "only_left"
        g, og, m = (cl.L, cl.R, cl.m.l2r) if side_l else (cl.R, cl.L, cl.m.r2l)
        nid = root.left if side_l else root.right
        node = g.nodes.get(nid) if nid else None
        if node is None or node.kind != "op" or not node.users:
            return None
        readers = {u for u, _, _ in node.users}
        if len(readers) != 1:
            return None
        (reader,) = readers
        other = m.get(reader)
        if other is None or other not in og.nodes:
            return None
        if len(g.nodes[reader].operands) <= len(og.nodes[other].operands):
            return None
        return at.get((reader, other) if side_l else (other, reader))
