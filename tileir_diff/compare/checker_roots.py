"""Roots the trusted checker asks for: its violations that no root of the classifier covers
(the checker, not the classifier, decides what must be reported; these functions only word it),
and the calling-convention root of the entry arguments paired out of position."""
from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..graph import FunctionGraph, Node
from . import wording
from .describe import FunctionText
from .pair_findings import describe_node, family, pair_findings, placement_finding, value_of, wiring_finding
from .roots import Finding, Root
from .view import PairView
from ..record import record

_CHECK_CATEGORY = {"signature": "signature", "placement": "control_flow", "order": "control_flow",
                   "memory-order": "memory"}


def checker_roots(cl: PairView, violations, roots: List[Root]) -> List[Root]:
    """Roots for the checker's violations that no root of the classifier covers. An op made a
    root here leaves the ``affected`` list of the root that had swallowed it."""
    out: List[Root] = []
    seen: Set[Tuple[Optional[str], Optional[str]]] = set()
    L, R = cl.L, cl.R
    signature = [v for v in violations if v.kind == "signature"]
    if signature:
        out.append(calling_convention_root(cl, signature))
        violations = [v for v in violations if v.kind != "signature"]
    for v in violations:
        l = v.left if v.left in L.nodes else None
        r = v.right if v.right in R.nodes else None
        if (l, r) in seen or (l is None and r is None):
            continue
        seen.add((l, r))
        finding = _violation_finding(cl, v, l, r)
        kind = "changed" if l is not None and r is not None else ("only_left" if l is not None else "only_right")
        out.append(Root(l, r, finding.category, finding.message, kind=kind))
        for root in roots:
            root.affected_left.discard(l)
            root.affected_right.discard(r)
    return out


def _violation_finding(cl: PairView, v, l: Optional[str], r: Optional[str]) -> Finding:
    """What a violation at (l, r) is, in the classifier's words where it has them."""
    L, R = cl.L, cl.R
    if l is not None and r is not None and L.nodes[l].kind == R.nodes[r].kind == "op":
        if v.kind == "operand":
            return wiring_finding(cl, l, r, list(v.slots))
        if v.kind == "label":
            fs = pair_findings(cl, l, r)
            if fs:
                return Finding(fs[0].category, wording.joined(f.message for f in fs), kind=fs[0].kind, op=fs[0].op)
        elif v.kind == "placement":
            return placement_finding(cl, L.nodes[l], R.nodes[r])
    if v.kind == "unmapped":
        g, nid, text = (L, l, cl.lt) if l is not None else (R, r, cl.rt)
        assert nid is not None
        n = g.nodes[nid]
        return Finding(family(n.name) if n.kind == "op" else "signature",
                       wording.only_on(describe_node(cl, g, text, nid), l is not None), kind="unmapped")
    g, nid = (L, l) if l is not None else (R, r)
    assert nid is not None  # (a violation stands on at least one side)
    return Finding(_CHECK_CATEGORY.get(v.kind, family(g.nodes[nid].name)), v.message, kind="checker")


@record(frozen=False)
class _Arguments:
    """The entry arguments of both sides as the calling-convention root reads them: the pairs
    out of position, those nothing reads, arrays only one side takes; the words so far and the
    first argument of each side the root stands at."""
    largs: List[Node]
    rargs: List[Node]
    moved: List[Dict[str, Any]] = field(default_factory=list)
    parts: List[str] = field(default_factory=list)
    first_l: Optional[str] = None
    first_r: Optional[str] = None
    unused_l: List[Node] = field(default_factory=list)
    unused_r: List[Node] = field(default_factory=list)
    extra_l: List[Node] = field(default_factory=list)
    extra_r: List[Node] = field(default_factory=list)

    def stand_at(self, side: str, nid: str) -> None:
        self.first_l = self.first_l or (nid if side == "left" else None)
        self.first_r = self.first_r or (nid if side == "right" else None)


def calling_convention_root(cl: PairView, violations) -> Root:
    """Arguments paired out of position (by role): one ``signature`` root showing the mapping."""
    args = _moved_arguments(cl)
    L, R = cl.L, cl.R
    # arguments nothing reads (strides a view folds to 1, arguments tied to another) pair with
    # nothing: the calling convention differs in them, the computation does not
    args.unused_l = [a for a in args.largs if not a.users and a.nid not in cl.m.l2r]
    args.unused_r = [b for b in args.rargs if not b.users and b.nid not in cl.m.r2l]
    # an array only one side takes (an extra output), with the extents and strides only it reads:
    # named in this root, and not a reordering (its memory ops are roots of their own)
    args.extra_l = _one_sided_arrays(L, args.largs, cl.m.l2r)
    args.extra_r = _one_sided_arrays(R, args.rargs, cl.m.r2l)
    pure = _only_reordered(cl, args)
    _name_one_sided(cl, args)
    if not args.parts:
        return _arity_root(cl, violations)
    said = wording.joined(args.parts)
    if not pure:  # not only a reordering: a plain signature difference
        return Root(args.first_l, args.first_r, "signature", wording.arguments_out_of_position(said))
    if args.extra_l or args.extra_r:  # a reordering, and arrays one side lacks: not a calling convention alone
        return Root(args.first_l, args.first_r, "signature", wording.arguments_reordered_and_one_sided(bool(args.moved), said),
                    extra={"reordered": args.moved, "only_left": [a.arg_index for a in args.extra_l],
                           "only_right": [b.arg_index for b in args.extra_r]})
    return Root(args.first_l, args.first_r, "signature", wording.calling_convention(bool(args.moved), said),
                extra={"calling_convention": args.moved, "unused_left": [a.arg_index for a in args.unused_l],
                       "unused_right": [b.arg_index for b in args.unused_r]})


def _moved_arguments(cl: PairView) -> _Arguments:
    """The argument pairs whose positions differ, in left argument order."""
    from ..match.arguments import argument_roles, describe_role
    L, R = cl.L, cl.R
    roles = argument_roles(L)
    args = _Arguments([n for n in L.node_list if n.kind == "arg"], [n for n in R.node_list if n.kind == "arg"])
    for l, r in sorted(cl.m.l2r.items(), key=lambda p: L.nodes[p[0]].arg_index if L.nodes[p[0]].kind == "arg" else -1):
        a, b = L.nodes[l], R.nodes.get(r)
        if a.kind != "arg" or b is None or b.kind != "arg" or a.arg_index == b.arg_index:
            continue
        args.first_l, args.first_r = args.first_l or l, args.first_r or r
        role = describe_role(L, l, roles)
        args.moved.append({"left": a.arg_index, "right": b.arg_index, "role": role})
        args.parts.append(wording.argument_pair(cl.lt.names.get(value_of(a).vid, l),
                                                cl.rt.names.get(value_of(b).vid, r), role))
    return args


def _only_reordered(cl: PairView, args: _Arguments) -> bool:
    """Whether every pair of arguments, read or not, has one type (another type is another ABI)
    and every argument read on either side is paired."""
    L, R, m = cl.L, cl.R, cl.m

    def paired_same_type(a: Node) -> bool:
        b = R.nodes.get(m.l2r.get(a.nid))
        return b is not None and b.kind == "arg" and value_of(b).type == value_of(a).type

    return all(paired_same_type(a) for a in args.largs if a not in args.unused_l and a not in args.extra_l) and \
        all(b.nid in m.r2l for b in args.rargs if b not in args.unused_r and b not in args.extra_r) and \
        all(value_of(L.nodes[l]).type == value_of(R.nodes[r]).type for l, r in m.l2r.items()
            if L.nodes[l].kind == "arg" and r in R.nodes and R.nodes[r].kind == "arg") and \
        all(value_of(a).type == value_of(b).type for a in args.unused_l for b in args.unused_r
            if a.arg_index == b.arg_index and ("left", a.arg_index) not in cl.pinned
            and ("right", b.arg_index) not in cl.pinned)


def _name_one_sided(cl: PairView, args: _Arguments) -> None:
    """The unused arguments and the one-sided arrays of each side, in words."""
    from ..match.arguments import describe_role
    sides: Sequence[Tuple[str, List[Node], FunctionText]] = (("left", args.unused_l, cl.lt),
                                                            ("right", args.unused_r, cl.rt))
    for side, unused, text in sides:
        if unused:
            args.parts.append(wording.unused_arguments(side, [text.names.get(value_of(a).vid, a.nid) for a in unused]))
            args.stand_at(side, unused[0].nid)
    extras: Sequence[Tuple[str, List[Node], FunctionGraph, FunctionText]] = (
        ("left", args.extra_l, cl.L, cl.lt), ("right", args.extra_r, cl.R, cl.rt))
    for side, extra, g, text in extras:
        if extra:
            args.parts.append(wording.one_sided_arguments(side, [text.names.get(value_of(a).vid, a.nid) for a in extra],
                                                          [describe_role(g, a.nid) for a in extra]))
            args.stand_at(side, extra[0].nid)


def _arity_root(cl: PairView, violations) -> Root:
    """The checker's own words for a signature change nothing above names (an arity change:
    anchored at an argument paired with nothing)."""
    L, R = cl.L, cl.R
    v = violations[0]
    l, r = (v.left if v.left in L.nodes else None), (v.right if v.right in R.nodes else None)
    if l is None and r is None:
        r = next((b.nid for b in R.node_list if b.kind == "arg" and b.nid not in cl.m.r2l), None)
        l = None if r else next((a.nid for a in L.node_list if a.kind == "arg"), None)
    return Root(l, r, "signature", v.message)


def _one_sided_arrays(g: FunctionGraph, args: List[Node], paired) -> List[Node]:
    """The used entry arguments of one side that are arrays paired with nothing, and the
    extents and strides (paired with nothing) that only such arrays read."""
    from ..match.arguments import argument_roles, argument_slots
    roles, slots = argument_roles(g), argument_slots(g)
    arrays = {a.nid for a in args if a.users and a.nid not in paired and roles[a.nid][0] == "array"}
    return [a for a in args if a.nid in arrays or (
        a.users and a.nid not in paired and slots.get(a.nid) and all(base in arrays for _, base, _ in slots[a.nid]))]
