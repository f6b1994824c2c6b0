"""The roots of the entry arguments' ties and pins (compare/pins.py, match/arguments.py
``match.alignment.align``): a function with the tied arguments read as what they are tied to, and one
``specialization`` root per tie or pin (the side with the fact assumes more)."""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Tuple

from ..graph import FunctionGraph
from ..ir import DenseElements, TileType, Value
from ..ir.types import TensorViewType
from ..normalize.canon import attr_text
from . import wording
from .pair_findings import value_of
from .roots import Root
from .view import PairView


def tie_arguments(f, g: FunctionGraph, ties, side: str):
    """``f`` with each argument tied on ``side`` read as the argument it is tied to (Tie), and
    each extent or stride the other side fixes in its view type (a static tie) read as that
    static value in this side's view type too."""
    from ..normalize.util import rewrite_block
    subst = {value_of(g.nodes[t.tied]).vid: value_of(g.nodes[t.kept]) for t in ties if t.side == side and t.kept}
    if subst:
        body = rewrite_block(f.body, lambda op, s: None, subst)
        f = f if body is f.body else replace(f, body=body)
    static = [t for t in ties if t.side == side and t.kept is None]
    return _read_static(f, g, static) if static else f


def _read_static(f, g: FunctionGraph, ties):
    """``f`` with the tied arguments' dims of its ``make_tensor_view``s static (Tie with
    ``kept`` None: the other side's view type fixes that extent or stride to ``via``). The view
    types that hold the tensor view change with it; assumes left reading only a tied argument
    are dropped (under the tie the argument is that constant, which the tie's root states)."""
    from ..ir import Block
    from ..normalize.util import rewrite_block
    tied = {value_of(g.nodes[t.tied]).vid: (t.slot[0], int(t.via)) for t in ties}
    through = dict(tied)  # assume results on a tied argument stand for it
    for op in f.body.operations:
        if op.name == "assume" and op.operands and op.operands[0].vid in through and op.results:
            through[op.results[0].vid] = through[op.operands[0].vid]
    assumes = {op.results[0].vid for op in f.body.operations if op.name == "assume" and op.results
               and op.operands and op.operands[0].vid in through}
    views: Dict[int, Value] = {}

    fn = _static_views(through, views)
    body = rewrite_block(f.body, fn, {})
    if not views:
        return f
    # every other use of a tied argument (a loop bound, cdiv(M, 128) by hand) reads that constant
    # too: under the tie it is one (the port folded it)
    consts, subst = _tied_constants(f, g, ties, tied, through, assumes)
    if subst:
        body = rewrite_block(body, lambda op, s: None, subst)
    used = {v.vid for op in _walk_ops(body) for v in op.operands}
    ops = tuple(op for op in body.operations if not (op.name == "assume" and op.results[0].vid in assumes
                                                      and op.results[0].vid not in used))
    used = {v.vid for op in ops for o in _walk_ops(Block((), (op,))) for v in o.operands}
    consts = [c for c in consts if c.results[0].vid in used]
    return replace(f, body=replace(body, operations=tuple(consts) + ops))


def _tied_constants(f, g: FunctionGraph, ties, tied, through, assumes):
    """(constants, value substitution): one constant per statically tied scalar argument, and
    the argument (or an assume on it) read as that constant."""
    from ..ir import Operation
    from ..normalize.util import max_vid as max_vid_of
    consts, subst = [], {}
    arg_of = {value_of(g.nodes[t.tied]).vid: t for t in ties}
    top = max_vid_of(f)
    for vid, (_, value) in tied.items():
        t = arg_of[vid]
        typ = value_of(g.nodes[t.tied]).type
        el = getattr(typ, "element", None)
        width = getattr(el, "width", 0)
        if not isinstance(typ, TileType) or typ.shape or width not in (8, 16, 32, 64):
            continue
        top += 1
        v = Value(top, typ)
        data = int(value).to_bytes(width // 8, "little", signed=True)
        consts.append(Operation("constant", (), (), (v,), {"value": DenseElements(typ, data)}, (), f.location,
                                f"{t.tied}~static"))
        for x, hit in through.items():
            if hit is tied[vid] and (x == vid or x in assumes):
                subst[x] = v
    return consts, subst


def _static_views(through: Dict[int, Tuple[str, int]], views: Dict[int, Value]):
    """The rewrite (normalize.util.rewrite_block) that makes the tied dims of each
    ``make_tensor_view`` static (``through``: value id -> (shape|stride, static value)) and the
    partition and strided views over it follow (their new results are recorded in ``views``)."""
    from ..ir.types import PartitionViewType, StridedViewType

    def fn(op, subst):
        if op.name == "make_tensor_view" and op.results and isinstance(op.results[0].type, TensorViewType):
            t = op.results[0].type
            segs = list(op.segments)
            if len(segs) != 3:
                return None
            shape, strides = list(t.shape), list(t.strides)
            shape_ops = list(op.operands[1:1 + segs[1]])
            stride_ops = list(op.operands[1 + segs[1]:1 + segs[1] + segs[2]])
            changed = False
            for kind, dims, ops_ in (("shape", shape, shape_ops), ("stride", strides, stride_ops)):
                dyn = [d for d, x in enumerate(dims) if x is None]
                keep = []
                for d, v in zip(dyn, ops_):
                    hit = through.get(v.vid)
                    if hit is not None and hit[0] == kind:
                        dims[d] = hit[1]
                        changed = True
                    else:
                        keep.append(v)
                ops_[:] = keep
            if not changed:
                return None
            nt = replace(t, shape=tuple(shape), strides=tuple(strides))
            res = Value(op.results[0].vid, nt)
            views[res.vid] = res
            subst[res.vid] = res
            return [op.replace(operands=(op.operands[0],) + tuple(shape_ops) + tuple(stride_ops),
                               segments=(1, len(shape_ops), len(stride_ops)), results=(res,))]
        if op.name in ("make_partition_view", "make_strided_view") and op.operands and op.results \
                and op.operands[0].vid in views and isinstance(op.results[0].type, (PartitionViewType, StridedViewType)):
            res = Value(op.results[0].vid, replace(op.results[0].type, tensor_view=views[op.operands[0].vid].type))
            subst[res.vid] = res
            return [op.replace(results=(res,))]
        return None

    return fn


def _walk_ops(block):
    for op in block.operations:
        yield op
        for r in op.regions:
            for b in r.blocks:
                yield from _walk_ops(b)


def pin_roots(cl: PairView, pins) -> List[Root]:
    """One ``specialization`` root per pinned argument (compare/pins.py): the side with the
    constant assumes the caller passes it."""
    from .pins import pin_message
    out = []
    for p in pins:
        g, text = (cl.L, cl.lt) if p.side == "left" else (cl.R, cl.rt)
        nid = next((n.nid for n in g.node_list if n.kind == "arg" and n.arg_index == p.argument), None)
        if nid is None:
            continue
        name = ("L" if p.side == "left" else "R") + text.names.get(value_of(g.nodes[nid]).vid, nid)
        out.append(_one_sided_specialization(p.side, nid, pin_message(p, name), "pin",
                                             {"side": p.side, "argument": p.argument, "value": attr_text(p.value)}))
    return out


def _one_sided_specialization(side: str, nid: str, msg: str, key: str, fact: dict) -> Root:
    """A ``specialization`` root at a node of ``side`` only: the other side assumes more
    (``fact`` under ``key`` says what)."""
    l, r = (nid, None) if side == "left" else (None, nid)
    return Root(l, r, "specialization", msg, kind="only_right" if side == "left" else "only_left",
                 extra={key: fact, "assumes_more": "right" if side == "left" else "left"})


def tie_roots(cl: PairView, ties) -> List[Root]:
    """One ``specialization`` root per tie: the side passing one scalar assumes the other
    side's two arguments equal (or the other side's view type fixes the value)."""
    out = []
    for t in ties:
        g, text, other, otext = (cl.L, cl.lt, cl.R, cl.rt) if t.side == "left" else (cl.R, cl.rt, cl.L, cl.lt)
        kind, base, d = t.slot
        mine, theirs = ("L", "R") if t.side == "left" else ("R", "L")
        more = "right" if t.side == "left" else "left"
        tied = g.nodes[t.tied]
        tied_name = mine + text.names.get(value_of(tied).vid, t.tied)
        if t.kept is None:  # static vs dynamic: the other side's view type fixes the value
            msg = wording.static_tie(kind, d, more, t.side, g.nodes[base].arg_index, t.via, tied_name,
                                     tied.arg_index)
            out.append(_one_sided_specialization(t.side, t.tied, msg, "tie", {
                "side": t.side, "argument": tied.arg_index, "static": int(t.via), "slot": kind, "dim": d}))
            continue
        kept, via = g.nodes[t.kept], other.nodes[t.via]
        msg = wording.equal_tie(kind, d, more, t.side, g.nodes[base].arg_index,
                                theirs + otext.names.get(value_of(via).vid, t.via), via.arg_index, tied_name,
                                mine + text.names.get(value_of(kept).vid, t.kept), kept.arg_index)
        out.append(_one_sided_specialization(t.side, t.tied, msg, "tie", {
            "side": t.side, "argument": tied.arg_index, "equals": kept.arg_index, "slot": kind, "dim": d}))
    return out
