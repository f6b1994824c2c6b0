"""Op-name sets the matcher needs, derived from the op table's traits (dialect/ops.py), never
kept here by hand."""
from __future__ import annotations

from ..dialect.ops import OPS_BY_NAME


def ops_with(trait: str) -> frozenset:
    """The names of the ops whose row in the op table has ``trait``."""
    return frozenset(n for n, d in OPS_BY_NAME.items() if trait in d.traits)


#: loads, stores, atomics, multimem accesses (the table's ``memory`` trait)
MEMORY_OPS = ops_with("memory")
#: ops whose result addresses memory derived from operand 0's (views, casts, reshapes, offsets)
ADDRESS_PRESERVING_OPS = ops_with("derives_address")
#: block terminators (yield, continue, break, return)
TERMINATOR_OPS = ops_with("terminator")
