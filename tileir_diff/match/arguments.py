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

This module holds the roles and the facts they are made of; the aligners that pair arguments by
them are in ``match/alignment/`` (a list of aligner objects, the first that applies wins), and
the matcher stage that adds their pairs is ``match/stages/arguments.py``.
"""
from __future__ import annotations

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


def value_of_argument(g: FunctionGraph, nid: str) -> Value:
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
    args = [n.nid for n in g.arg_nodes]
    access: Dict[str, List[str]] = {a: [] for a in args}
    tiles: Dict[str, set] = {a: set() for a in args}
    for n in g.ops_named(MEMORY_OPS):
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
        t = fmt_type(value_of_argument(g, a).type)
        if access[a] or any(g.nodes[u].name == "make_tensor_view" and k == 0 for u, k in _through_assumes(g, a)):
            roles[a] = ("array", t, tuple(sorted(set(access[a]))), tuple(sorted(tiles[a])))
        elif a in slot_of:
            kind, base, d = slot_of[a]
            roles[a] = (kind, t, base, d)  # base: resolved to the array's pair when aligning
        else:
            users = sorted({g.nodes[u].name for u, _ in _through_assumes(g, a)})
            roles[a] = ("scalar", t, tuple(users))
    return roles


def static_dims(g: FunctionGraph) -> Dict[Tuple[str, Optional[str], int], int]:
    """(``shape``|``stride``, array argument, dim) -> the value a tensor view's type fixes (keyed
    as looked up: by an array's partner, None when it has none)."""
    out: Dict[Tuple[str, Optional[str], int], int] = {}
    for n in g.ops_named(("make_tensor_view",)):
        if _op(n).results:
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
    for n in g.ops_named(("make_tensor_view",)):
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
    for n in g.ops_named(("load_ptr_tko", "store_ptr_tko")):
        if n.op is None or not n.op.operands:
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


# (NamedTuple's functional form, the types given as objects: the class form reads this module's
# annotations as strings and compiles each (typing.ForwardRef); the first compile() of a process
# builds the AST types, ~9 M instructions of a whole-process diff. tests/test_imports.py)
class Tie(NamedTuple("Tie", [("side", str), ("kept", Optional[str]), ("tied", str), ("via", str),
                             ("slot", Tuple[str, str, int])])):
    """Two entry arguments of one side (``side``) that the other side passes as one scalar
    (``via``): that side computes the same only when the caller passes them equal.
    ``kept`` is paired with ``via``; ``tied`` fills ``slot`` (kind, array, dim) of its side.
    With ``kept`` None, the other side fixes that extent or stride in its view type instead, to
    the value ``via`` (static vs dynamic shape)."""
    __slots__ = ()


def loose(role: tuple) -> tuple:
    """An array role without the tensor view's extents and strides (static on one side, dynamic
    on the other: a specialization, reported as such)."""
    return role[:3] + (tuple(sorted(re.sub(r"tensor_view<[^>]*>", "tensor_view", t) for t in role[3])),)


def idle_pointer(role: tuple) -> bool:
    """A pointer argument nothing but assumes reads (a port that never touches that array)."""
    return role[0] == "scalar" and "ptr<" in role[1] and not role[2]


def used(g: FunctionGraph, nid: str) -> bool:
    """Whether anything reads argument ``nid``."""
    return bool(g.nodes[nid].users)


def direction(role: tuple) -> tuple:
    """An array role's pointer type and whether it is read, written or both (a view load and a
    pointer load of one array read it alike)."""
    return role[1], tuple(sorted({"load" if op.startswith("load") else "write" for op in role[2]}))


#: how far ``data_context`` follows the values an array's memory ops read or store
_CONTEXT_DEPTH = 3
_CONTEXT_CAP = 64


def data_context(g: FunctionGraph, arg: str) -> Counter:
    """The op names around what an array's memory ops move: producers of a store's value and
    indices, users of a load's result, up to ``_CONTEXT_DEPTH`` edges away (tokens and the
    address chain left out). Two arrays of one role tell apart by it (out = 2x, aux = x)."""
    names: Counter = Counter()
    for n in g.ops_named(MEMORY_OPS):
        if address_root(g, n.nid) != arg:
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


class ContextPick:
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


def positional(L: FunctionGraph, R: FunctionGraph, largs: List[str], rargs: List[str]) -> List[Tuple[str, str]]:
    """By position; when the counts differ, aligned on the type sequence (an inserted or removed
    argument does not shift the rest)."""
    if len(largs) == len(rargs):
        return list(zip(largs, rargs))
    import difflib  # only when the counts differ (start-up time)
    lt = [fmt_type(value_of_argument(L, n).type) for n in largs]
    rt = [fmt_type(value_of_argument(R, n).type) for n in rargs]
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
