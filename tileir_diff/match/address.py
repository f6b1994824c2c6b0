"""Where a memory op's address comes from: the entry argument behind its view or pointer."""
from __future__ import annotations

from typing import Dict, Optional

from ..dialect.ops import OPS_BY_NAME
from ..graph import FunctionGraph
from .opsets import ADDRESS_PRESERVING_OPS, MEMORY_OPS


def _address_operand(name: str) -> int:
    """The flat operand index of a memory op's address: its ``view`` operand when it has one
    (``store_view_tko`` takes the tile first), else operand 0 (the pointers)."""
    defs = OPS_BY_NAME[name].operands
    for i, o in enumerate(defs):
        if o.name == "view":
            # every operand before the view is a single one, so the group index is the flat index
            assert all(d.arity == "single" for d in defs[:i]), name
            return i
    return 0


_ADDRESS_OPERAND: Dict[str, int] = {n: _address_operand(n) for n in MEMORY_OPS}


def address_root(g: FunctionGraph, nid: str) -> Optional[str]:
    """The entry-argument node a memory op's address (view or pointer operand) derives from,
    through address-preserving ops (the op table's ``derives_address`` trait)."""
    n = g.nodes[nid]
    if not n.operands:
        return None
    k = _ADDRESS_OPERAND.get(n.name, 0)
    return argument_behind(g, n.operands[k][0] if k < len(n.operands) else None)


def argument_behind(g: FunctionGraph, src: Optional[str]) -> Optional[str]:
    """The entry-argument node a value (node id) derives from through address-preserving ops."""
    for _ in range(64):
        if src is None:
            return None
        s = g.nodes[src]
        if s.kind == "arg":
            return src
        if s.kind != "op" or s.name not in ADDRESS_PRESERVING_OPS or not s.operands:
            return None
        src = s.operands[0][0]
    return None
