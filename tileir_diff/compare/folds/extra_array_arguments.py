"""extra-array-arguments: the arguments of an extra output are that output's root."""
from __future__ import annotations

from typing import List, Optional

from ..roots import Root
from .base import Fold, FoldContext, reach


class ExtraArrayArguments(Fold):
    """One cause, one root: a signature root that says only that one side takes arrays the other
    lacks (an extra output with its pointer, extents and an unused stride, appended after the
    arguments both take, none moved) is the consequence of the one-sided accesses of those
    arrays, which are roots of their own (``store_view_tko of %arg10 only on the right``); the
    first such access's root stands on the signature root's argument (``also``) and names them.

    Mutants it must not absorb: arguments also reordered (a calling convention of its own), an
    unused argument before an argument both sides take, or an extra array no one-sided root
    accesses."""
    name = "extra-array-arguments"
    stage = "checked"

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        out = []
        for r in roots:
            host = self.host(ctx, r, roots) if r.category == "signature" else None
            if host is None:
                out.append(r)
                continue
            host.also.add((r.left, r.right))
            host.message += "; " + r.message.split(": ", 1)[-1]
        return out

    @staticmethod
    def host(ctx: FoldContext, r: Root, roots: List[Root]) -> Optional[Root]:
        if r.extra.get("reordered") != []:
            return None
        ol, orr = r.extra.get("only_left") or [], r.extra.get("only_right") or []
        if not isinstance(ol, list) or not isinstance(orr, list) or bool(ol) == bool(orr):
            return None
        side_l = bool(ol)
        cl = ctx.cl
        g, paired = (cl.L, cl.m.l2r) if side_l else (cl.R, cl.m.r2l)
        args = [n for n in g.node_list if n.kind == "arg"]
        extra = set(ol if side_l else orr)
        last_paired = max((a.arg_index for a in args if a.nid in paired), default=-1)
        for a in args:  # every argument the other side lacks comes after those both take
            if a.nid not in paired and a.arg_index < last_paired:
                return None
        other = cl.R if side_l else cl.L
        other_args = [n for n in other.node_list if n.kind == "arg"]
        if any(not n.users and n.nid not in (cl.m.r2l if side_l else cl.m.l2r) for n in other_args):
            return None
        readers = reach(g, *[a.nid for a in args if a.arg_index in extra])
        kind = "only_left" if side_l else "only_right"
        for h in roots:
            own = h.left if side_l else h.right
            if h is not r and h.kind == kind and own in readers:
                return h
        return None
