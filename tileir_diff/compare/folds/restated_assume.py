"""restated-assume: one root per one-sided assumption restated by several ``assume`` ops."""
from __future__ import annotations

from typing import Dict, List

from ...normalize.canon import attr_key
from ..pair_findings import op_of
from ..roots import Root
from .base import Fold, FoldContext


class RestatedAssume(Fold):
    """One root per one-sided assumption: the same predicate on the same value, stated by several
    ``assume`` ops of one side (one per array whose extent a tie made the same argument), is one
    cause; the restatements are listed under the first.

    Mutant it must not absorb: another predicate, or the same predicate on another value."""
    name = "restated-assume"
    stage = "final"
    order = 10

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        cl = ctx.cl
        first: Dict[tuple, Root] = {}
        out: List[Root] = []
        for r in roots:
            if r.category == "specialization" and r.kind in ("only_left", "only_right"):
                g, nid = (cl.L, r.left) if r.kind == "only_left" else (cl.R, r.right)
                n = g.nodes.get(nid) if nid else None
                if nid is not None and n is not None and n.kind == "op" and n.name == "assume" and n.operands:
                    key = (r.kind, n.operands[0][0], attr_key(op_of(n).attributes.get("predicate")))
                    if key in first:
                        into = first[key].affected_left if r.kind == "only_left" else first[key].affected_right
                        into.add(nid)
                        into.update(r.affected_left if r.kind == "only_left" else r.affected_right)
                        continue
                    first[key] = r
            out.append(r)
        return out
