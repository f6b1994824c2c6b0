"""Which operand slots of two ops correspond: by index, group by group, commutative positions
crossed when that fits the pairs made so far. Shared by the stages and the classifier."""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..graph import FunctionGraph
from ..normalize.keys import commutative_positions

_SAME_SLOTS: List[Tuple[Tuple[int, int], ...]] = []


def _same_slots(n: int) -> Tuple[Tuple[int, int], ...]:
    """((0, 0), (1, 1), ...) of length n, shared (asked for once per node pair, every stage)."""
    while len(_SAME_SLOTS) <= n:
        k = len(_SAME_SLOTS)
        _SAME_SLOTS.append(tuple((i, i) for i in range(k)))
    return _SAME_SLOTS[n]


def operand_pairs(a, b):
    """Operand positions to pair between two ops: by index when the operand groups agree, else
    group by group (an optional token present on one side only does not shift the rest)."""
    if len(a.operands) == len(b.operands) and (a.op is None or a.op.segments == b.op.segments):
        return _same_slots(len(a.operands))
    if a.op is None or b.op is None or len(a.op.segments) != len(b.op.segments):
        return _same_slots(min(len(a.operands), len(b.operands)))
    out, sa, sb = [], 0, 0
    for na, nb in zip(a.op.segments, b.op.segments):
        out.extend((sa + i, sb + i) for i in range(min(na, nb)))
        sa, sb = sa + na, sb + nb
    return out


def aligned_operand_pairs(a, b, l2r: Dict[str, str], commutative: bool = True):
    """Operand positions to compare between a left op ``a`` and a right op ``b`` given the pairs
    made so far: ``operand_pairs``, with the two commutative positions crossed when more of them
    agree crossed (same paired producer and result). Canonical operand order follows the
    operands' keys, so one changed operand can flip it: ``mulf(x, c)`` vs ``mulf(c', x)`` must
    compare ``x`` with ``x`` and ``c`` with ``c'``, not ``x`` with ``c'``."""
    pairs = operand_pairs(a, b)
    if not commutative or a.op is None or b.op is None or a.name != b.name:
        return pairs
    pos = commutative_positions(a.op)
    if pos is None or len(a.operands) <= pos[1] or len(b.operands) <= pos[1]:
        return pairs
    i, j = pos

    def agree(x: int, y: int) -> int:
        sa, ra, _ = a.operands[x]
        sb, rb, _ = b.operands[y]
        return int(sa is not None and sb is not None and ra == rb and l2r.get(sa) == sb)
    if agree(i, j) + agree(j, i) > agree(i, i) + agree(j, j):
        return sorted([(x, y) for x, y in pairs if x not in pos] + [(i, j), (j, i)])
    return pairs


def use_slot(g: FunctionGraph, user: str, k: int):
    """The operand slot of a use, with both commutative positions folded into one."""
    u = g.nodes[user]
    if u.op is not None:
        pos = commutative_positions(u.op)
        if pos is not None and k in pos:
            return "c"
    return k
