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


class Pin(NamedTuple):
    """Entry argument ``argument`` of function ``function`` on ``side`` equals ``value``."""
    side: str
    function: int
    argument: int
    value: DenseElements


def _uses(g, nid: str) -> List[Tuple[str, int]]:
    """(user, operand index) of a value, looking through reshape/broadcast chains."""
    return g.uses_through(nid, _THROUGH, max_seen=64)


def _constant_behind(g, nid: Optional[str]) -> Optional[Operation]:
    while nid is not None and g.nodes[nid].kind == "op" and g.nodes[nid].name in _THROUGH:
        nid = g.nodes[nid].operands[0][0] if g.nodes[nid].operands else None
    if nid is None or g.nodes[nid].kind != "op" or g.nodes[nid].name != "constant":
        return None
    return g.nodes[nid].op


def find_pins(L, R, mapping, function: int) -> List[Pin]:
    """Arguments of either side, paired with nothing, whose every use at a paired op meets the
    same constant (at least one such use; uses at unpaired ops are differences of their own).
    Only a plain scalar that the other side lacks (another arity, or another type at that
    position) is a candidate."""
    from ..match.arguments import argument_roles
    out = []
    for side, g, other, m in (("left", L, R, mapping.l2r), ("right", R, L, mapping.r2l)):
        roles = argument_roles(g)
        mine = [x for x in g.node_list if x.kind == "arg"]
        theirs = [x for x in other.node_list if x.kind == "arg"]
        for n in g.node_list:
            if n.kind == "arg" and len(mine) == len(theirs) and theirs[n.arg_index].value.type == n.value.type:
                continue  # the other side has this argument too: reading it as a constant is no port's choice
            if n.kind == "arg" and roles.get(n.nid, ("",))[0] != "scalar":
                continue  # an array, extent or stride has a meaning of its own: never a constant
            # paired with nothing, or only with an argument nothing reads
            if n.kind != "arg" or not n.users or (n.nid in m and other.nodes[m[n.nid]].users):
                continue
            el = getattr(n.value.type, "element", None)
            if el is None or getattr(n.value.type, "shape", None) not in ((), None):
                continue
            values: Optional[set] = set()
            for u, k in _uses(g, n.nid):
                peer = m.get(u) if u in m else None
                if peer is None:
                    continue  # a use paired with nothing differs anyway, and is reported so
                pn = other.nodes.get(peer)
                if pn is None or pn.kind != "op" or k >= len(pn.operands):
                    values = None
                    break
                # the operand in the same slot; of a commutative op, whichever is the constant
                slots = [k] + ([j for j in range(len(pn.operands)) if j != k] if has_trait(pn.op, "commutative") else [])
                c = next((x for x in (_constant_behind(other, pn.operands[j][0]) for j in slots) if x is not None), None)
                bits = uniform_bits(c)
                if c is None or bits is None or c.attributes["value"].type.element != el:
                    values = None
                    break
                assert values is not None  # (set to None only just before a break)
                values.add(bits)
            if values and len(values) == 1 and c is not None:
                data = _element_bytes(c.attributes["value"])
                if data is not None:
                    out.append(Pin(side, function, n.arg_index, DenseElements(n.value.type, data)))
    return out


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
