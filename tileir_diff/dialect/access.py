"""What each memory op accesses, derived from its op-table row (the ``memory``/``reads``/``writes``
traits and the operand groups' type constraints): through a view or a pointer tile, which operand
group holds it, and whether the op returns the tile it read. Stages read this instead of keeping
their own tables of memory ops."""
from __future__ import annotations

from typing import Dict, Optional

from .ops import OPS_BY_NAME
from .traits import MEMORY, READS, WRITES
from ..record import record

_SUFFIXES = ("_view_tko", "_ptr_tko", "_tko")


@record
class MemoryAccess:
    op: str
    through: str          # "view" (a partition/strided/gather view) or "pointer" (a tile of pointers)
    address: str          # the operand group holding the view or the pointer tile
    address_index: int    # that group's position among the op's operand groups
    kind: str             # load, store, atomic_rmw, multimem_store, ...: the op name less its suffix
    reads: bool
    writes: bool
    returns_tile: bool    # its first result is the tile it read (loads, atomics), not only a token


def _access(name: str) -> Optional[MemoryAccess]:
    d = OPS_BY_NAME[name]
    if MEMORY not in d.traits:
        return None
    for i, o in enumerate(d.operands):
        if o.type == "view" or o.type == "tile<ptr>":
            kind = next((name[:-len(s)] for s in _SUFFIXES if name.endswith(s)), name)
            return MemoryAccess(name, "view" if o.type == "view" else "pointer", o.name, i, kind,
                                READS in d.traits, WRITES in d.traits,
                                bool(d.results) and d.results[0].type != "token")
    raise ValueError(f"op table: memory op {name} has no view or pointer operand")


#: op name -> its access, for every op with the ``memory`` trait
MEMORY_ACCESS: Dict[str, MemoryAccess] = {n: a for n in OPS_BY_NAME for a in (_access(n),) if a is not None}
VIEW_ACCESS = {n: a for n, a in MEMORY_ACCESS.items() if a.through == "view"}
POINTER_ACCESS = {n: a for n, a in MEMORY_ACCESS.items() if a.through == "pointer"}
