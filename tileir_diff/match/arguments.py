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
of equal arrays, by what the kernel does with the values read or stored (``data_context``: a
port's ``out`` and an extra output of the same type pair by the computation that feeds them,
not by position); for whatever is left, by position. An array one side has and the other lacks
(an extra output such as rstd) stays unpaired with its extents and strides, when every array of
the other side found its counterpart. The result is a proposal like any other
stage's: the checker accepts only argument k with argument k for a ``same`` verdict and reports
a reordering as one ``signature`` difference (the calling convention).
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from typing import Dict, List, NamedTuple, Optional, Tuple

from ..graph import FunctionGraph, Node
from ..ir import Operation, Value
from ..normalize.canon import fmt_type
from .address import address_root, argument_behind
from .opsets import MEMORY_OPS
from ..dialect import OPS_BY_NAME
from ..normalize.util import enum_name


def _op(n: Node) -> Operation:
    """The op of an op node (asked only of nodes whose kind is ``op``)."""
    assert n.op is not None, n.nid
    return n.op


def _value(g: FunctionGraph, nid: str) -> Value:
    """The value of an argument node."""
    v = g.nodes[nid].value
    assert v is not None, nid
    return v


def _through_assumes(g: FunctionGraph, nid: str) -> List[Tuple[str, int]]:
    """(user, operand index) of a value, looking through ``assume`` chains."""
    return g.uses_through(nid, ("assume",), max_seen=128)


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
                src = n.operands[k][0] if k < len(n.operands) else None
                if src is not None:
                    tiles[root].add(fmt_type(_op(g.nodes[src]).results[0].type) if g.nodes[src].kind == "op" else "")
    roles: Dict[str, tuple] = {}
    slot_of = {a: slots[0] for a, slots in argument_slots(g).items()}  # the first slot names the role
    for a in args:
        t = fmt_type(_value(g, a).type)
        if access[a] or any(g.nodes[u].name == "make_tensor_view" and k == 0 for u, k in _through_assumes(g, a)):
            roles[a] = ("array", t, tuple(sorted(set(access[a]))), tuple(sorted(tiles[a])))
        elif a in slot_of:
            kind, base, d = slot_of[a]
            roles[a] = (kind, t, base, d)  # base: resolved to the array's pair when aligning
        else:
            users = sorted({g.nodes[u].name for u, _ in _through_assumes(g, a)})
            roles[a] = ("scalar", t, tuple(users))
    return roles


def _static_dims(g: FunctionGraph) -> Dict[Tuple[str, Optional[str], int], int]:
    """(``shape``|``stride``, array argument, dim) -> the value a tensor view's type fixes (keyed
    as looked up: by an array's partner, None when it has none)."""
    out: Dict[Tuple[str, Optional[str], int], int] = {}
    for n in g.node_list:
        if n.kind == "op" and n.name == "make_tensor_view" and _op(n).results:
            base = _view_base(g, n.nid)
            vt = _op(n).results[0].type
            for kind, dims in (("shape", getattr(vt, "shape", ())), ("stride", getattr(vt, "strides", ()))):
                for d, x in enumerate(dims or ()):
                    if x is not None and base is not None:
                        out.setdefault((kind, base, d), x)
    return out


def _dynamic_dims(dims, count: int) -> List[int]:
    """The dimensions the ``count`` dynamic operands of a shape or strides group stand for."""
    unknown = [d for d, x in enumerate(dims or ()) if x is None]
    return unknown if len(unknown) == count else list(range(count))


def argument_slots(g: FunctionGraph) -> Dict[str, List[Tuple[str, str, int]]]:
    """Every (``shape``|``stride``, array argument, dim) an entry argument feeds, through assumes,
    in program order: a port that passes one extent for several arrays fills several slots."""
    slot_of: Dict[str, List[Tuple[str, str, int]]] = {}
    for n in g.node_list:
        if n.kind != "op" or n.name != "make_tensor_view":
            continue
        base = _view_base(g, n.nid)
        if base is None:
            continue
        segs = _op(n).segments
        shapes = range(1, 1 + (segs[1] if len(segs) > 1 else 0))
        strides = range(shapes.stop, shapes.stop + (segs[2] if len(segs) > 2 else 0))
        # the dynamic operands fill the view type's unknown dims, in order: operand i of a group
        # is the i-th '?' of shape/strides (a port may fix a dim statically: tensor_view<?x2x?>)
        vt = _op(n).results[0].type if _op(n).results else None
        shape_dims = _dynamic_dims(getattr(vt, "shape", None), len(shapes))
        stride_dims = _dynamic_dims(getattr(vt, "strides", None), len(strides))
        for k, (src, _, _) in enumerate(n.operands):
            if src is None:
                continue
            a: Optional[str] = src
            while a is not None and g.nodes[a].kind == "op" and g.nodes[a].name == "assume" and g.nodes[a].operands:
                a = g.nodes[a].operands[0][0]
            if a is None or g.nodes[a].kind != "arg":
                continue
            slot = None
            if k in shapes:
                slot = ("shape", base, shape_dims[k - shapes.start])
            elif k in strides:
                slot = ("stride", base, stride_dims[k - strides.start])
            if slot is not None and slot not in slot_of.setdefault(a, []):
                slot_of[a].append(slot)
    for a, slot in _mask_bound_slots(g):
        if slot not in slot_of.setdefault(a, []):
            slot_of[a].append(slot)
    return slot_of


#: ops a mask's bound passes through on its way from the argument (value-preserving for a
#: non-negative extent: widened, reshaped, broadcast, assumed)
_BOUND_THROUGH = frozenset({"assume", "exti", "reshape", "broadcast"})


def _mask_bound_slots(g: FunctionGraph) -> List[Tuple[str, Tuple[str, str, int]]]:
    """(argument, (``shape``, array argument, 0)) for a raw-pointer port's extent: an argument
    that bounds the index (``cmpi less_than %index, %n``, the whole mask) of a 1-D pointer load or
    store of that array. Like a view's shape operand, it
    names which array the extent belongs to (a proposal: the checker decides what follows)."""
    out: List[Tuple[str, Tuple[str, str, int]]] = []
    for n in g.node_list:
        if n.kind != "op" or n.op is None or n.name not in ("load_ptr_tko", "store_ptr_tko") or not n.op.operands:
            continue
        names = [o.name for o in OPS_BY_NAME[n.name].operands]
        segs = n.op.segments
        if len(segs) != len(names) or segs[names.index("mask")] != 1:
            continue
        pointers = getattr(n.op.operands[0].type, "shape", ())
        array = address_root(g, n.nid)
        if array is None or len(pointers) != 1:
            continue
        k = sum(segs[:names.index("mask")])
        for bound in _mask_bounds(g, n.operands[k][0]):
            out.append((bound, ("shape", array, 0)))
    return out


def _mask_bounds(g: FunctionGraph, mask: Optional[str]) -> List[str]:
    """The entry argument that bounds a mask from above when the mask is that one comparison
    (``cmpi less_than x, n``); none for a mask of several conditions (which bound is the extent
    is then a guess, and guessing on one side only makes ties the kernels do not have)."""
    node = g.nodes[mask] if mask is not None else None
    if node is None or node.kind != "op" or node.op is None or node.name != "cmpi" or len(node.operands) != 2 or \
            enum_name(node.op.attributes.get("comparison_predicate")) != "less_than":
        return []
    a = node.operands[1][0]
    while a is not None and g.nodes[a].kind == "op" and g.nodes[a].name in _BOUND_THROUGH and g.nodes[a].operands:
        a = g.nodes[a].operands[0][0]
    return [a] if a is not None and g.nodes[a].kind == "arg" else []


def _align_strict(L, R, largs, rargs, lr, rr) -> Optional[List[Tuple[str, str]]]:
    """By position when the roles agree position by position; else by role (arrays first, then
    their shapes and strides, then the rest; ties by position) when that pairs every argument on
    both sides (a reordering); else None."""

    def plain(role):  # a role without the array it refers to
        return role[:2] + role[3:] if role[0] in ("shape", "stride") else role

    if len(largs) == len(rargs) and all(plain(lr[a]) == plain(rr[b]) for a, b in zip(largs, rargs)) and \
            all(lr[a][0] not in ("shape", "stride") or largs.index(lr[a][2]) == rargs.index(rr[b][2])
                for a, b in zip(largs, rargs)):
        return list(zip(largs, rargs))
    pairs: Dict[str, str] = {}
    used = set()

    def take(keyl, keyr, left_ids, right_ids, pick=lambda a, cands: cands[0]):
        groups: Dict[tuple, List[str]] = {}
        for b in right_ids:
            if b not in used:
                groups.setdefault(keyr(b), []).append(b)
        for a in left_ids:
            if a in pairs:
                continue
            cands = groups.get(keyl(a))
            if cands:
                b = pick(a, cands)
                cands.remove(b)
                pairs[a] = b
                used.add(b)

    arrays_l = [a for a in largs if lr[a][0] == "array"]
    arrays_r = [b for b in rargs if rr[b][0] == "array"]
    take(lambda a: lr[a], lambda b: rr[b], arrays_l, arrays_r, lambda a, cands: _ContextPick(L, R).best(0, a, cands))
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
    return None


class Tie(NamedTuple):
    """Two entry arguments of one side (``side``) that the other side passes as one scalar
    (``via``): that side computes the same only when the caller passes them equal.
    ``kept`` is paired with ``via``; ``tied`` fills ``slot`` (kind, array, dim) of its side.
    With ``kept`` None, the other side fixes that extent or stride in its view type instead, to
    the value ``via`` (static vs dynamic shape)."""
    side: str
    kept: Optional[str]
    tied: str
    via: str
    slot: Tuple[str, str, int]


def align_arguments(L: FunctionGraph, R: FunctionGraph) -> List[Tuple[str, str]]:
    """Pairs of entry-argument node ids (see ``align_with_ties``)."""
    return align_with_ties(L, R)[0]


def align_with_ties(L: FunctionGraph, R: FunctionGraph) -> Tuple[List[Tuple[str, str]], List[Tie]]:
    """Pairs of entry-argument node ids, and the ties (``Tie``) the pairing needs.

    By position when the roles agree position by position; else by role when that pairs every
    argument on both sides (a reordering); else by role when every *used* argument of both
    sides finds its role on the other side, an extent or stride the other side passes once for
    several arrays counted as a tie (a port with raw pointers and one ``len`` for three
    arrays; unused arguments, like strides the view folds to 1, pair with nothing); else by
    position."""
    largs = [n.nid for n in L.node_list if n.kind == "arg"]
    rargs = [n.nid for n in R.node_list if n.kind == "arg"]
    lr, rr = argument_roles(L), argument_roles(R)
    strict = _align_strict(L, R, largs, rargs, lr, rr)
    if strict is not None:
        return strict, []
    covered = _align_covering(L, R, largs, rargs, lr, rr)
    # (position is credited only for arguments something reads: two unused ones agree by default)
    read_in_place = [(a, b) for a, b in zip(largs, rargs) if _used(L, a) or _used(R, b)]
    if covered is not None and (len(largs) != len(rargs) or
                                _agreeing(covered[0], largs, rargs, lr, rr) + len(covered[1]) >
                                _agreeing(read_in_place, largs, rargs, lr, rr)):
        # with as many arguments on both sides, role pairing must explain more than position
        # does (one argument changed in place is a difference at that argument, not a reordering)
        return covered
    return positional(L, R, largs, rargs), []


def _agreeing(pairs, largs, rargs, lr, rr) -> int:
    """How many of ``pairs`` agree in role (arrays up to fixed extents; an extent or stride also
    in the position of its array)."""
    pair_of = dict(pairs)
    n = 0
    for a, b in pairs:
        x, y = lr[a], rr[b]
        if x[0] != y[0]:
            continue
        if x[0] == "array":  # (a view and a pointer access in one direction agree)
            n += _loose(x) == _loose(y) or _direction(x) == _direction(y)
        elif x[0] in ("shape", "stride"):
            n += x[1] == y[1] and x[3] == y[3] and pair_of.get(x[2]) == y[2]
        else:
            n += x == y
    return n


def _loose(role: tuple) -> tuple:
    """An array role without the tensor view's extents and strides (static on one side, dynamic
    on the other: a specialization, reported as such)."""
    return role[:3] + (tuple(sorted(re.sub(r"tensor_view<[^>]*>", "tensor_view", t) for t in role[3])),)


def _idle_pointer(role: tuple) -> bool:
    """A pointer argument nothing but assumes reads (a port that never touches that array)."""
    return role[0] == "scalar" and "ptr<" in role[1] and not role[2]


def _used(g: FunctionGraph, nid: str) -> bool:
    return bool(g.nodes[nid].users)


def _align_covering(L, R, largs, rargs, lr, rr) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
    """Role pairing with ties, or None when some used argument finds no role on the other side."""
    pairs: Dict[str, Optional[str]] = {}  # None: tied, not paired
    back: Dict[str, Optional[str]] = {}

    def pair(a: str, b: str) -> None:
        pairs[a] = b
        back[b] = a

    # arrays: equal roles up to the extents the view types fix, ties by position; but only when
    # that agrees on more roles than pairing the arrays in order does (a changed role, such as
    # another padding on one array, must not swap two arrays)
    l_arrays = [a for a in largs if lr[a][0] == "array" and _used(L, a)]
    r_arrays = [b for b in rargs if rr[b][0] == "array" and _used(R, b)]
    by_role = _pair_by_loose_role(L, R, l_arrays, r_arrays, lr, rr)
    in_order = sum(_loose(lr[a]) == _loose(rr[b]) for a, b in zip(l_arrays, r_arrays))
    for la, rb in (by_role if len(by_role) > in_order else _pair_by_direction(l_arrays, r_arrays, lr, rr)):
        pair(la, rb)
    # arrays read or written differently (a store one side lacks), or not at all on the right (an
    # argument nothing reads): same pointer type, by position
    rest = [b for b in rargs if b not in back and ((rr[b][0] == "array" and _used(R, b)) or _idle_pointer(rr[b]))]
    for a in largs:
        if lr[a][0] == "array" and _used(L, a) and a not in pairs:
            b = _closest_array(lr[a], [b for b in rest if rr[b][1] == lr[a][1]], rr)
            if b is not None:
                rest.remove(b)
                pair(a, b)
    # an array only one side has (an extra output), with the extents and strides only it reads:
    # unpaired, when every array of the other side is paired (a root of its own downstream)
    extra_l = {a for a in l_arrays if a not in pairs}
    extra_r = {b for b in r_arrays if b not in back}
    if extra_l and extra_r:
        return None
    # extents and strides: the other side's argument in the same slot of the paired array
    lslots, rslots = argument_slots(L), argument_slots(R)
    # (keyed as looked up: by the other side's partner of an array, None when it has none)
    r_at: Dict[Tuple[str, Optional[str], int], str] = {
        (kind, base, d): b for b, slots in rslots.items() for kind, base, d in slots}
    l_at: Dict[Tuple[str, Optional[str], int], str] = {
        (kind, base, d): a for a, slots in lslots.items() for kind, base, d in slots}
    ties: List[Tie] = []
    lstatic, rstatic = _static_dims(L), _static_dims(R)
    for a in largs:
        if a not in pairs and lslots.get(a):
            kind, base, d = lslots[a][0]
            fixed = rstatic.get((kind, pairs.get(base), d))
            if fixed is not None and (kind, pairs.get(base), d) not in r_at:
                ties.append(Tie("left", None, a, str(fixed), (kind, base, d)))  # the right fixes it
                pairs[a] = None
                continue
        for kind, base, d in lslots.get(a, ()):
            rbase = pairs.get(base)
            if rbase is None:  # (the array has no partner: no right argument fills that slot)
                continue
            b = r_at.get((kind, rbase, d))
            if b is None or fmt_type(_value(L, a).type) != fmt_type(_value(R, b).type):
                continue
            if a in pairs:
                if pairs[a] != b and b not in back:  # the left passes once what the right passes twice
                    ties.append(Tie("right", pairs[a], b, a, (kind, rbase, d)))
                continue
            if b in back:  # the right passes once what the left passes twice
                ties.append(Tie("left", back[b], a, b, (kind, base, d)))
                pairs[a] = None  # tied, not paired
                break
            pair(a, b)
            break
    for b in rargs:  # right extents that only tie to an already paired left argument
        if b in back or not _used(R, b):
            continue
        for kind, base, d in rslots.get(b, ()):
            lbase = next((x for x, y in pairs.items() if y == base), None)
            a = l_at.get((kind, lbase, d))
            if a is not None and pairs.get(a) not in (None, b):
                ties.append(Tie("right", pairs[a], b, a, (kind, base, d)))
                back[b] = None
                break
    for b in rargs:  # right extents the left fixes in its view type
        if b not in back and rslots.get(b):
            kind, base, d = rslots[b][0]
            lbase = next((x for x, y in pairs.items() if y == base), None)
            fixed = lstatic.get((kind, lbase, d))
            if fixed is not None and (kind, lbase, d) not in l_at:
                ties.append(Tie("right", None, b, str(fixed), (kind, base, d)))
                back[b] = None
    # other scalars: equal roles, ties by position
    groups: Dict[tuple, List[str]] = {}
    for b in rargs:
        if rr[b][0] == "scalar" and _used(R, b) and b not in back:
            groups.setdefault(rr[b], []).append(b)
    for a in largs:
        if lr[a][0] == "scalar" and _used(L, a) and a not in pairs and groups.get(lr[a]):
            pair(a, groups[lr[a]].pop(0))
    # a used argument left over must be a plain scalar (one the other side may have as a constant:
    # compare/pins.py); an array, extent or stride without a counterpart means no role pairing
    idle = {a for a, b in pairs.items() if b is not None and _idle_pointer(rr[b])}  # arrays the right ignores
    if any(_used(L, a) and a not in pairs and lr[a][0] != "scalar" and a not in extra_l and
           not (lr[a][0] in ("shape", "stride") and lr[a][2] in idle) and not _only_of(lslots, a, extra_l)
           for a in largs) or \
            any(_used(R, b) and b not in back and rr[b][0] != "scalar" and b not in extra_r and
                not _only_of(rslots, b, extra_r) for b in rargs):
        return None
    if len(largs) == len(rargs) and any(_rewired(L, R, largs, rargs, lr, rr, t) for t in ties):
        return None  # a use moved to another argument of one signature: a difference, not a tie
    real = [(a, b) for a, b in pairs.items() if b is not None]
    if not ties and all(largs.index(a) == rargs.index(b) for a, b in real):
        return None  # the roles agree with the positions: position pairs the unused ones too
    return sorted(real, key=lambda p: largs.index(p[0])), ties


def _direction(role: tuple) -> tuple:
    """An array role's pointer type and whether it is read, written or both (a view load and a
    pointer load of one array read it alike)."""
    return role[1], tuple(sorted({"load" if op.startswith("load") else "write" for op in role[2]}))


def _pair_by_direction(l_arrays, r_arrays, lr, rr) -> List[Tuple[str, str]]:
    """Arrays in order, but an array one side only reads never with one the other side writes
    while one of the same direction is still to pair (a port that takes its output first and
    accesses every array through pointers instead of views)."""
    pairs = []
    rest = list(r_arrays)
    for a in l_arrays:
        same = [b for b in rest if _direction(rr[b]) == _direction(lr[a])]
        if same:
            rest.remove(same[0])
            pairs.append((a, same[0]))
    return pairs


def _only_of(slots, nid: str, arrays) -> bool:
    """Whether every extent or stride slot argument ``nid`` fills is one of ``arrays``."""
    return bool(slots.get(nid)) and all(base in arrays for _, base, _ in slots[nid])


def _closest_array(role: tuple, cands: List[str], roles) -> Optional[str]:
    """Of arrays of one pointer type, the one whose role is closest to ``role``: the same memory
    ops (stored vs loaded), then the same tiles; ties by position."""
    if not cands:
        return None
    def closeness(b):
        other = roles[b]
        return (other[0] == "array" and other[2] == role[2], other[0] == "array" and _loose(other) == _loose(role),
                -cands.index(b))
    return max(cands, key=closeness)


#: how far ``data_context`` follows the values an array's memory ops read or store
_CONTEXT_DEPTH = 3
_CONTEXT_CAP = 64


def data_context(g: FunctionGraph, arg: str) -> Counter:
    """The op names around what an array's memory ops move: producers of a store's value and
    indices, users of a load's result, up to ``_CONTEXT_DEPTH`` edges away (tokens and the
    address chain left out). Two arrays of one role tell apart by it (out = 2x, aux = x)."""
    names: Counter = Counter()
    for n in g.node_list:
        if n.kind != "op" or n.name not in MEMORY_OPS or address_root(g, n.nid) != arg:
            continue
        names[n.name] += 1
        users_ward = n.name in _LOADS
        frontier, seen = [n.nid], {n.nid}
        for _ in range(_CONTEXT_DEPTH):
            step = []
            for x in frontier:
                node = g.nodes[x]
                if users_ward:
                    near = [u for u, k, _ in node.users if g.nodes[u].operands[k][2] == "data"]
                else:  # not the address chain (views, pointers) nor tokens
                    near = [src for src, _, kind in node.operands
                            if src is not None and kind == "data" and argument_behind(g, src) is None]
                for y in near:
                    if y not in seen and len(seen) < _CONTEXT_CAP:
                        seen.add(y)
                        step.append(y)
                        names[g.nodes[y].name] += 1
            frontier = step
    return names


#: memory ops whose result is the value read (their users are the context, not their operands)
_LOADS = frozenset(n for n in MEMORY_OPS if n.startswith("load"))


def _pair_by_loose_role(L, R, l_arrays, r_arrays, lr, rr) -> List[Tuple[str, str]]:
    """Arrays of equal roles up to fixed extents; within a group, each array of the side with
    fewer picks its closest ``data_context`` on the other (an extra output of one role with the
    port's ``out`` stays over, wherever it stands in the signature)."""
    groups: Dict[tuple, Tuple[List[str], List[str]]] = {}
    for a in l_arrays:
        groups.setdefault(_loose(lr[a]), ([], []))[0].append(a)
    for b in r_arrays:
        groups.setdefault(_loose(rr[b]), ([], []))[1].append(b)
    pick = _ContextPick(L, R)
    pairs = []
    for mine, theirs in groups.values():
        if len(mine) <= len(theirs):
            for a in mine:
                b = pick.best(0, a, theirs)
                theirs.remove(b)
                pairs.append((a, b))
        else:
            for b in theirs:
                a = pick.best(1, b, mine)
                mine.remove(a)
                pairs.append((a, b))
    return sorted(pairs, key=lambda p: l_arrays.index(p[0]))


class _ContextPick:
    """Chooses, among arrays of one role on the right, the one whose ``data_context`` shares the
    most op names with a left array's (ties by position); contexts computed on first need."""

    def __init__(self, L: FunctionGraph, R: FunctionGraph):
        self.graphs = (L, R)
        self.cache: Dict[Tuple[int, str], Counter] = {}

    def context(self, side: int, nid: str) -> Counter:
        key = (side, nid)
        if key not in self.cache:
            self.cache[key] = data_context(self.graphs[side], nid)
        return self.cache[key]

    def best(self, side: int, a: str, cands: List[str]) -> str:
        """The one of ``cands`` (of the other side) closest to ``a`` (of ``side``)."""
        if len(cands) == 1:
            return cands[0]
        mine = self.context(side, a)
        return max(cands, key=lambda b: (sum((mine & self.context(1 - side, b)).values()), -cands.index(b)))


def _rewired(L: FunctionGraph, R: FunctionGraph, largs: List[str], rargs: List[str], lr, rr, tie: Tie) -> bool:
    """Whether a tie between two signatures of one length is a rewired use instead: the side
    that passes one scalar has, in the tied argument's position, an argument of its type that
    nothing but assumes reads. A port written for square inputs drops the second argument; a kernel that
    reads the wrong one of two arguments it takes is wrong (the mutation engine's rewire of a
    shape operand), and must not read as a specialization."""
    if tie.kept is None:  # the other side fixes the extent in its view type: not a rewire
        return False
    if tie.side == "left":  # the right passes one scalar; the left's `tied` argument has no partner
        mine, theirs, g_mine, g_theirs, roles = largs, rargs, L, R, rr
    else:
        mine, theirs, g_mine, g_theirs, roles = rargs, largs, R, L, lr
    other = theirs[mine.index(tie.tied)]
    idle = roles[other][0] == "scalar" and not roles[other][2]
    return idle and fmt_type(_value(g_theirs, other).type) == fmt_type(_value(g_mine, tie.tied).type)


def positional(L: FunctionGraph, R: FunctionGraph, largs: List[str], rargs: List[str]) -> List[Tuple[str, str]]:
    """By position; when the counts differ, aligned on the type sequence (an inserted or removed
    argument does not shift the rest)."""
    if len(largs) == len(rargs):
        return list(zip(largs, rargs))
    lt = [fmt_type(_value(L, n).type) for n in largs]
    rt = [fmt_type(_value(R, n).type) for n in rargs]
    pairs: List[Tuple[str, str]] = []
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
