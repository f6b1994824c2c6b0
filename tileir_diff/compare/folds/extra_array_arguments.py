"""extra-array-arguments: the arguments of an extra output are that output's root."""
from __future__ import annotations

from typing import List, Mapping, Optional, Set, Tuple

from ...graph import FunctionGraph
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
    order = 20

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

    def host(self, ctx: FoldContext, r: Root, roots: List[Root]) -> Optional[Root]:
        """The first one-sided root that accesses one of the extra arrays, when signature root
        ``r`` says only that one side takes arrays the other lacks and those come after the
        arguments both take; else None."""
        side = self.extra_side(r)
        if side is None:
            return None
        side_l, extra = side
        cl = ctx.cl
        g = cl.L if side_l else cl.R
        if not self.appended(g, cl.m.l2r if side_l else cl.m.r2l):
            return None
        if self.has_unused_unpaired(cl.R if side_l else cl.L, cl.m.r2l if side_l else cl.m.l2r):
            return None
        args = [n for n in g.node_list if n.kind == "arg"]
        readers = reach(g, *[a.nid for a in args if a.arg_index in extra])
        kind = "only_left" if side_l else "only_right"
        for h in roots:
            own = h.left if side_l else h.right
            if h is not r and h.kind == kind and own in readers:
                return h
        return None

    @staticmethod
    def extra_side(r: Root) -> Optional[Tuple[bool, Set[object]]]:
        """(whether the left is the side with extra arguments, their indexes) when the root says
        that only one side takes arguments the other lacks and none moved; else None (a calling
        convention of its own)."""
        if r.extra.get("reordered") != []:
            return None
        ol, orr = r.extra.get("only_left") or [], r.extra.get("only_right") or []
        if not isinstance(ol, list) or not isinstance(orr, list) or bool(ol) == bool(orr):
            return None
        return bool(ol), set(ol or orr)

    @staticmethod
    def appended(g: FunctionGraph, paired: Mapping[str, str]) -> bool:
        """Whether every argument of ``g`` the other side lacks comes after those both take."""
        args = [n for n in g.node_list if n.kind == "arg"]
        last_paired = max((a.arg_index for a in args if a.nid in paired), default=-1)
        return not any(a.nid not in paired and a.arg_index < last_paired for a in args)

    @staticmethod
    def has_unused_unpaired(other: FunctionGraph, paired: Mapping[str, str]) -> bool:
        """Whether the other side has an argument of its own that nothing reads (then the two
        signatures differ in more than the extra arrays)."""
        return any(not n.users and n.nid not in paired for n in other.node_list if n.kind == "arg")
