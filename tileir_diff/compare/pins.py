"""Pinned arguments: a constant on one side that the other side takes as an entry argument.

A port may turn a constant of its reference into a runtime scalar (``log2e: f32`` for
``LOG2E``, ``group_m: i32`` for ``GROUP_M = 8``). Every use of such an argument at a paired op, followed
through ``reshape`` and ``broadcast``, meets a use of one and the same constant on the other
side, at the same operand of a paired op. The two kernels then compute the same only when the
caller passes that value: the side with the constant assumes more. The engine reads the argument
as that constant (``apply_pins``), proves the rest as usual, and reports the pin as one
``specialization`` root naming the value (``pin_roots``).
"""
from __future__ import annotations

from dataclasses import replace
from typing import List, NamedTuple, Optional, Tuple

from ..ir import DenseElements, Module, Operation, Value
from ..normalize.rules._constants import uniform_bits
from ..normalize.util import has_trait, max_vid, rewrite_block

_THROUGH = ("reshape", "broadcast")


# (NamedTuple's functional form, the types as objects: no compile() of string annotations, see
# match/arguments.py's Tie)
class Pin(NamedTuple("Pin", [("side", str), ("function", int), ("argument", int), ("value", DenseElements)])):
    """Entry argument ``argument`` of function ``function`` on ``side`` equals ``value``."""
    __slots__ = ()


def _uses(g, nid: str) -> List[Tuple[str, int]]:
    """(user, operand index) of a value, looking through reshape/broadcast chains."""
    return g.uses_through(nid, _THROUGH, max_seen=64)


def _constant_behind(g, nid: Optional[str]) -> Optional[Operation]:
    while nid is not None and g.nodes[nid].kind == "op" and g.nodes[nid].name in _THROUGH:
        nid = g.nodes[nid].operands[0][0] if g.nodes[nid].operands else None
    if nid is None or g.nodes[nid].kind != "op" or g.nodes[nid].name != "constant":
        return None
    return g.nodes[nid].op


def find_pins(L, R, mapping, function: int, roles: Optional[Tuple[dict, dict]] = None) -> List[Pin]:
    """Arguments of either side, paired with nothing, whose every use at a paired op meets the
    same constant (at least one such use; uses at unpaired ops are differences of their own).
    Only a plain scalar that the other side lacks (another arity, or another type at that
    position) is a candidate. ``roles``: both sides' ``argument_roles`` when already known."""
    from ..match.arguments import argument_roles
    out = []
    for k, (side, g, other, m) in enumerate((("left", L, R, mapping.l2r), ("right", R, L, mapping.r2l))):
        side_roles = roles[k] if roles is not None else argument_roles(g)
        mine = [x for x in g.node_list if x.kind == "arg"]
        theirs = [x for x in other.node_list if x.kind == "arg"]
        for n in g.node_list:
            if not _candidate(n, side_roles, mine, theirs, other, m):
                continue
            c = _constant_at_every_use(g, other, m, n.nid, n.value.type.element)
            data = _element_bytes(c.attributes["value"]) if c is not None else None
            if data is not None:
                out.append(Pin(side, function, n.arg_index, DenseElements(n.value.type, data)))
    return out


def _candidate(n, roles, mine, theirs, other, m) -> bool:
    """Whether node ``n`` may be a pinned argument: an argument of a plain scalar type that the
    other side lacks, read by something, paired with nothing or with an argument nothing reads."""
    if n.kind != "arg":
        return False
    if len(mine) == len(theirs) and theirs[n.arg_index].value.type == n.value.type:
        return False  # the other side has this argument too: reading it as a constant is no port's choice
    if roles.get(n.nid, ("",))[0] != "scalar":
        return False  # an array, extent or stride has a meaning of its own: never a constant
    if not n.users or (n.nid in m and other.nodes[m[n.nid]].users):
        return False
    return getattr(n.value.type, "element", None) is not None and \
        getattr(n.value.type, "shape", None) in ((), None)


def _constant_at_every_use(g, other, m, nid: str, element) -> Optional[Operation]:
    """The constant (of element type ``element``) that every use of ``nid`` at a paired op meets
    on the other side, all of one bit pattern (the last one met); None when some use meets
    none, they differ, or no use is paired."""
    values = set()
    c = None
    for u, k in _uses(g, nid):
        peer = m.get(u) if u in m else None
        if peer is None:
            continue  # a use paired with nothing differs anyway, and is reported so
        c = _constant_opposite(other, peer, k)
        bits = uniform_bits(c)
        if c is None or bits is None or c.attributes["value"].type.element != element:
            return None
        values.add(bits)
    return c if len(values) == 1 else None


def _constant_opposite(other, peer: str, k: int) -> Optional[Operation]:
    """The constant behind operand ``k`` of op ``peer`` of the other side; of a commutative op,
    behind whichever operand is one."""
    pn = other.nodes.get(peer)
    if pn is None or pn.kind != "op" or k >= len(pn.operands):
        return None
    slots = [k] + ([j for j in range(len(pn.operands)) if j != k] if has_trait(pn.op, "commutative") else [])
    return next((x for x in (_constant_behind(other, pn.operands[j][0]) for j in slots) if x is not None), None)


def _element_bytes(value: DenseElements) -> Optional[bytes]:
    count = value.type.num_elements
    if value.is_splat or count == 1:
        return value.data
    width = len(value.data) // count if count else 0
    return value.data[:width] if width else None


def apply_pins(left: Module, right: Module, pins: List[Pin]) -> Tuple[Module, Module]:
    """Both modules with each pinned argument read as a constant of its value (inserted first
    in the entry's body)."""
    def apply(module: Module, side: str) -> Module:
        mine = [p for p in pins if p.side == side]
        if not mine:
            return module
        funcs = list(module.functions)
        for p in mine:
            f = funcs[p.function]
            arg = f.arguments[p.argument]
            new = Value(max_vid(f) + 1, arg.type)
            const = Operation("constant", (), (), (new,), {"value": p.value}, (), f.location,
                              f"f{p.function}/a{p.argument}~pin")
            body = rewrite_block(f.body, lambda op, s: None, {arg.vid: new})
            funcs[p.function] = replace(f, body=replace(body, operations=(const,) + body.operations))
        return replace(module, functions=tuple(funcs))
    return apply(left, "left"), apply(right, "right")


def pin_message(pin: Pin, name: str) -> str:
    from ..normalize.canon import attr_text
    other = "left" if pin.side == "right" else "right"
    return (f"{other} has the constant {attr_text(pin.value)} where the {pin.side} takes entry argument "
            f"{pin.argument} ({name}); the {other} assumes the caller passes that value")


__all__ = ["Pin", "find_pins", "apply_pins", "pin_message"]
