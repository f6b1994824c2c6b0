"""commutative-operands: operands of commutative ops in one structural order."""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, Set

from ...ir import Block, Operation, Region
from ..keys import ORDER_FREE_OPS, KeyBuilder, commutative_positions
from ..rule import Rule, register
from ..util import map_functions, ops_of, with_fields


@register
class CommutativeOperands(Rule):
    """Absorbs: the order of the two operands of ``addf mulf maxf minf addi muli andi ori xori
    maxi mini mulhii``, of the two multiplicands of ``fma`` and of ``cmpi``/``cmpf`` for
    ``equal``/``not_equal``, everywhere, including inside
    ``reduce``/``scan`` combiner regions (a combiner that is a single commutative op on its two
    block arguments, ``addf %rhs, %lhs`` vs ``addf %lhs, %rhs``, becomes one form). Operands are
    ordered by their structural key (keys.py: a Merkle hash of the computation behind each
    operand, never value ids or positions in the text), so both files sort the same way.

    Why meaning is kept: these ops are commutative in Tile IR (IEEE add/mul/min/max are
    commutative bit for bit, including NaN and signed-zero results; fma(a,b,c) = fma(b,a,c);
    a == b is b == a, ordered or unordered).

    Never touches: non-commutative ops (``subf``, ``divf``, ``remf``, ordering compares such as
    ``cmpf less_than`` (mirrored-compares turns ``>`` around instead), ``shli``, ``select``,
    ``atan2``, ``fpowf``, ``mmaf``), the accumulator operand of ``fma``, or a combiner that is not
    commutative (``subf %lhs, %rhs`` vs ``subf %rhs, %lhs`` stays different).
    """
    name = "commutative-operands"
    mutant = "subf %a, %b vs subf %b, %a; fma %a, %b, %c vs fma %a, %c, %b"
    rewrites_in_place = True  # (operands, attributes or hints of one op at a time)

    def apply(self, module):
        def per_function(f):
            if not any(op.name in ORDER_FREE_OPS for op in ops_of(f.body)):
                return f, 0  # nothing to sort: no keys to compute
            # The keys' own walk finds the ops to swap: a commutative op's key takes its two
            # operands in key order, so the ops it had to swap are this rule's rewrites (every
            # operand is keyed before its users: SSA dominance, which the verifier checks and
            # the rules keep). Only the blocks that hold one are rebuilt.
            keys = KeyBuilder(arg_positions=True, record_swaps=True).function(f)
            if not keys.swapped:
                return f, 0
            swapped = {}
            for op in keys.swapped:
                i, j = commutative_positions(op)  # (recorded: it has them)
                operands = list(op.operands)
                operands[i], operands[j] = operands[j], operands[i]
                swapped[id(op)] = with_fields(op, operands=tuple(operands))
            body = _rebuilt(f.body, swapped, keys.swapped_blocks)
            return replace(f, body=body), len(swapped)
        return map_functions(module, per_function)


def _rebuilt(block: Block, swapped: Dict[int, Operation], dirty: Set[int]) -> Block:
    """``block`` with the ops of ``swapped`` (by id) replaced, in the blocks of ``dirty`` (by id:
    the blocks that hold one, directly or in a nested region) and the ops that hold those."""
    ops = []
    for op in block.operations:
        new = swapped.get(id(op), op)
        if op.regions and any(id(b) in dirty for r in op.regions for b in r.blocks):
            new = with_fields(new, regions=tuple(Region(tuple(_rebuilt(b, swapped, dirty) if id(b) in dirty else b
                                                               for b in r.blocks)) for r in op.regions))
        ops.append(new)
    return Block(block.arguments, tuple(ops))
