"""Entry arguments paired by role, inferred from use, not by position.

A port may take its arguments in another order (output first, scalars last). Pairing them by
position then mispairs everything downstream. Each argument gets a role from what the kernel
does with it:

* ``array``: a pointer that becomes the base of a tensor view (through assumes and other
  address-preserving ops): its element type, rank, which memory ops read or write it, and the
  tile shapes of the views it is read or written through;
* ``shape``/``stride``: a scalar that feeds dimension ``d`` of the shape or strides of the tensor
  view of an array argument (through assumes): the role of that array and ``d``;
* ``scalar``: anything else, by type and the names of the ops that use it.

Arguments pair by equal roles (a shape pairs with a shape of the paired array); within a group
of equal roles, and for whatever is left, by position. The result is a proposal like any other
stage's: the checker accepts only argument k with argument k for a ``same`` verdict and reports
a reordering as one ``signature`` difference (the calling convention).
"""
from __future__ import annotations

import difflib
from typing import Dict, List, Optional, Tuple

from ..graph import FunctionGraph
from ..normalize.canon import fmt_type
from .address import address_root, argument_behind
from .opsets import MEMORY_OPS


def _through_assumes(g: FunctionGraph, nid: str, limit: int = 16) -> List[Tuple[str, int]]:
    """(user, operand index) of a value, looking through ``assume`` chains."""
    out, stack, seen = [], [nid], set()
    while stack and len(seen) < limit * 8:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        for u, k, _ in g.nodes[x].users:
            un = g.nodes[u]
            if un.kind == "op" and un.name == "assume" and k == 0:
                stack.append(u)
            else:
                out.append((u, k))
    return out


def _view_base(g: FunctionGraph, view: str) -> Optional[str]:
    """The entry argument a make_tensor_view's base pointer derives from."""
    return argument_behind(g, g.nodes[view].operands[0][0] if g.nodes[view].operands else None)


def argument_roles(g: FunctionGraph) -> Dict[str, tuple]:
    """Role key per entry-argument node id (see the module docstring)."""
    args = [n.nid for n in g.node_list if n.kind == "arg"]
    access: Dict[str, List[str]] = {a: [] for a in args}
    tiles: Dict[str, set] = {a: set() for a in args}
    for n in g.node_list:
        if n.kind == "op" and n.name in MEMORY_OPS:
            root = address_root(g, n.nid)
            if root in access:
                access[root].append(n.name)
                k = 0 if n.name != "store_view_tko" else 1
                if k < len(n.operands) and n.operands[k][0] is not None:
                    tiles[root].add(fmt_type(g.nodes[n.operands[k][0]].op.results[0].type)
                                    if g.nodes[n.operands[k][0]].kind == "op" else "")
    roles: Dict[str, tuple] = {}
    slot_of: Dict[str, Tuple[str, str, int]] = {}  # scalar arg -> (shape|stride, array arg, dim)
    for n in g.node_list:
        if n.kind != "op" or n.name != "make_tensor_view":
            continue
        base = _view_base(g, n.nid)
        if base is None:
            continue
        segs = n.op.segments
        shapes = range(1, 1 + (segs[1] if len(segs) > 1 else 0))
        strides = range(shapes.stop, shapes.stop + (segs[2] if len(segs) > 2 else 0))
        for k, (src, _, _) in enumerate(n.operands):
            if src is None:
                continue
            a = src
            while g.nodes[a].kind == "op" and g.nodes[a].name == "assume" and g.nodes[a].operands:
                a = g.nodes[a].operands[0][0]
                if a is None:
                    break
            if a is None or g.nodes[a].kind != "arg":
                continue
            if k in shapes:
                slot_of.setdefault(a, ("shape", base, k - shapes.start))
            elif k in strides:
                slot_of.setdefault(a, ("stride", base, k - strides.start))
    for a in args:
        n = g.nodes[a]
        t = fmt_type(n.value.type)
        if access[a] or any(g.nodes[u].name == "make_tensor_view" and k == 0 for u, k in _through_assumes(g, a)):
            roles[a] = ("array", t, tuple(sorted(set(access[a]))), tuple(sorted(tiles[a])))
        elif a in slot_of:
            kind, base, d = slot_of[a]
            roles[a] = (kind, t, base, d)  # base: resolved to the array's pair when aligning
        else:
            users = sorted({g.nodes[u].name for u, _ in _through_assumes(g, a)})
            roles[a] = ("scalar", t, tuple(users))
    return roles


def align_arguments(L: FunctionGraph, R: FunctionGraph) -> List[Tuple[str, str]]:
    """Pairs of entry-argument node ids: by position when the roles agree position by position;
    else by role (arrays first, then their shapes and strides, then the rest; ties by position)
    when that pairs every argument on both sides (a reordering); else by position."""
    largs = [n.nid for n in L.node_list if n.kind == "arg"]
    rargs = [n.nid for n in R.node_list if n.kind == "arg"]
    lr, rr = argument_roles(L), argument_roles(R)

    def plain(role):  # a role without the array it refers to
        return role[:2] + role[3:] if role[0] in ("shape", "stride") else role

    if len(largs) == len(rargs) and all(plain(lr[a]) == plain(rr[b]) for a, b in zip(largs, rargs)) and \
            all(lr[a][0] not in ("shape", "stride") or largs.index(lr[a][2]) == rargs.index(rr[b][2])
                for a, b in zip(largs, rargs)):
        return list(zip(largs, rargs))
    pairs: Dict[str, str] = {}
    used = set()

    def take(keyl, keyr, left_ids, right_ids):
        groups: Dict[tuple, List[str]] = {}
        for b in right_ids:
            if b not in used:
                groups.setdefault(keyr(b), []).append(b)
        for a in left_ids:
            if a in pairs:
                continue
            cands = groups.get(keyl(a))
            if cands:
                b = cands.pop(0)
                pairs[a] = b
                used.add(b)

    arrays_l = [a for a in largs if lr[a][0] == "array"]
    arrays_r = [b for b in rargs if rr[b][0] == "array"]
    take(lambda a: lr[a], lambda b: rr[b], arrays_l, arrays_r)
    # shapes and strides: of the paired array, same dimension
    slots_l = [a for a in largs if lr[a][0] in ("shape", "stride")]
    slots_r = [b for b in rargs if rr[b][0] in ("shape", "stride")]
    take(lambda a: (lr[a][0], lr[a][1], pairs.get(lr[a][2]), lr[a][3]),
         lambda b: (rr[b][0], rr[b][1], rr[b][2], rr[b][3]), slots_l, slots_r)
    take(lambda a: lr[a], lambda b: rr[b], [a for a in largs if lr[a][0] == "scalar"],
         [b for b in rargs if rr[b][0] == "scalar"])
    if len(pairs) == len(largs) == len(rargs):
        # every argument found its role on the other side: the same arguments, reordered
        return sorted(pairs.items(), key=lambda p: largs.index(p[0]))
    return positional(L, R, largs, rargs)


def positional(L: FunctionGraph, R: FunctionGraph, largs: List[str], rargs: List[str]) -> List[Tuple[str, str]]:
    """By position; when the counts differ, aligned on the type sequence (an inserted or removed
    argument does not shift the rest)."""
    if len(largs) == len(rargs):
        return list(zip(largs, rargs))
    lt = [fmt_type(L.nodes[n].value.type) for n in largs]
    rt = [fmt_type(R.nodes[n].value.type) for n in rargs]
    pairs = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, lt, rt, autojunk=False).get_opcodes():
        if op in ("equal", "replace"):
            pairs.extend(zip(largs[i1:i2], rargs[j1:j2]))
    return pairs


def describe_role(g: FunctionGraph, nid: str, roles: Optional[Dict[str, tuple]] = None) -> str:
    """A short phrase for messages: ``array f16 (loaded)``, ``shape[1] of %arg0``, ..."""
    roles = roles or argument_roles(g)
    role = roles.get(nid)
    if role is None:
        return "argument"
    if role[0] == "array":
        what = "stored" if any("store" in x or "atomic" in x for x in role[2]) else ("loaded" if role[2] else "view")
        return f"array {role[1]} ({what})"
    if role[0] in ("shape", "stride"):
        return f"{role[0]}[{role[3]}] of argument {g.nodes[role[2]].arg_index}"
    return f"scalar {role[1]}"
