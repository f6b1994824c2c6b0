"""A store order across loop iterations that one side has and the other does not, as a
``specialization`` root.

The rule disjoint-loop-stores (normalize/rules/disjoint_loop_stores.py) drops a token carried
through a ``for`` loop only to order one store to tiles that differ in every iteration, and
marks that store. Where the paired store of the other side carries no such order, the two
kernels agree only when those tiles are distinct memory (the view's strides do not make them
overlap): the side without the order assumes more. The trusted checker compares the private
mark like any attribute, so a one-sided mark this module does not report stays a violation of
its own (never a silent same verdict).
"""
from __future__ import annotations

from typing import List, Optional, Set

from ..normalize.rules.disjoint_loop_stores import MARK
from ..normalize.util import group_span
from .pair_findings import operand_text, opref
from .roots import Root

#: What the side without the order assumes, in words (the root's message and detail).
PRECONDITION = "the view's strides do not make its tiles overlap (no stride 0, no interleaved strides)"


def order_roots(cl) -> List[Root]:
    """One ``specialization`` root per paired store that is marked on one side only and that
    is otherwise the same op as its partner (same attributes apart from the mark, same operand
    groups, operands from paired producers, paired enclosing ops): the mark is then the only
    thing the checker could find at that pair, so the root covers nothing else."""
    out: List[Root] = []
    L, R, l2r = cl.L, cl.R, cl.m.l2r
    # Only a pair with a marked node on some side can give a root: find the marked nodes first
    # (one test per node), not every pair in sorted order (most kernels have no mark at all).
    marked_l, marked_r = _marked(L), _marked(R)
    if not marked_l and not marked_r:
        return out
    candidates = {l for l in marked_l if l in l2r}
    if marked_r:
        candidates.update(l for l, r in l2r.items() if r in marked_r)
    for l in sorted(candidates):  # (the pairs' order, as when every pair was looked at)
        r = l2r[l]
        a, b = L.nodes[l], R.nodes[r]
        if a.kind != "op" or b.kind != "op" or a.name != b.name:
            continue
        ml, mr = MARK in a.op.attributes, MARK in b.op.attributes
        if ml == mr or not _same_apart_from_mark(cl, l, r):
            continue
        ordered = "left" if ml else "right"  # the marked side had the order
        out.append(_root(cl, l, r, ordered))
    return out


def _marked(g) -> Set[str]:
    """The ids of ``g``'s op nodes whose op carries the mark."""
    return {n.nid for n in g.node_list if n.kind == "op" and MARK in n.op.attributes}


def _same_apart_from_mark(cl, l: str, r: str) -> bool:
    a, b = cl.L.nodes[l], cl.R.nodes[r]
    attrs_a = {k: v for k, v in a.op.attributes.items() if k != MARK}
    attrs_b = {k: v for k, v in b.op.attributes.items() if k != MARK}
    if attrs_a != attrs_b or tuple(a.op.segments) != tuple(b.op.segments) or \
            len(a.op.operands) != len(b.op.operands) or [v.type for v in a.op.results] != \
            [v.type for v in b.op.results]:
        return False
    if (a.parent is None) != (b.parent is None) or a.region != b.region or \
            (a.parent is not None and cl.m.l2r.get(a.parent) != b.parent):
        return False
    for (pa, ra, _), (pb, rb, _) in zip(a.operands, b.operands):
        if pa is None or pb is None or ra != rb or cl.m.l2r.get(pa) != pb:
            return False
    return True


def _root(cl, l: str, r: str, ordered: str) -> Root:
    """The root at the store pair (``ordered``: the side whose stores were ordered)."""
    more = "right" if ordered == "left" else "left"
    g, text, nid = (cl.L, cl.lt, l) if ordered == "left" else (cl.R, cl.rt, r)
    node = g.nodes[nid]
    view = _view_text(cl, g, text, nid)
    loop = _loop_text(cl, ordered, node.parent)
    msg = (f"{node.name} to {view} in {loop}: the {ordered} orders the stores of distinct iterations by a "
           f"loop-carried token, the {more} does not; the {more} assumes that stores in distinct iterations "
           f"do not overlap: each iteration writes another tile of the view, which is other memory when "
           f"{PRECONDITION}")
    return Root(l, r, "specialization", msg, kind="changed",
                extra={"unordered_stores": {"ordered": ordered, "precondition": PRECONDITION},
                       "assumes_more": more})


def _view_text(cl, g, text, nid: str) -> str:
    node = g.nodes[nid]
    span = group_span(node.op, "view", cl.vl if g is cl.L else cl.vr)
    if span is None:
        return "its view"
    return operand_text(cl, g, text, nid, span[0])


def _loop_text(cl, side: str, parent: Optional[str]) -> str:
    if parent is None:
        return "a loop"
    ref = opref(cl, side, parent)
    return f"the loop at {ref.op_id}" if ref is not None else "a loop"
