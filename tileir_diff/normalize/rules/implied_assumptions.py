"""implied-assumptions: an ``assume`` that the value's own definition already guarantees."""
from __future__ import annotations

from typing import List, Optional

from ...ir import Bounded, DivBy
from ..rule import Rule, register
from ..util import forward_operand, rewrite_ops
from ._ranges import Ranges


def implied(ranges: Optional[Ranges], op) -> bool:
    """True when ``op`` (an assume) states nothing its operand's definition does not already give
    (``ranges``: the function's intervals, needed for a ``bounded`` fact only)."""
    p = op.attributes.get("predicate")
    if isinstance(p, DivBy):
        return p.divisor == 1 and p.every is None and p.along is None
    if isinstance(p, Bounded) and ranges is not None:
        r = ranges.of(op.operands[0])
        if r is None:
            return False
        return (p.lb is None or p.lb <= r[0]) and (p.ub is None or r[1] <= p.ub)
    return False


@register
class ImpliedAssumptions(Rule):
    """Absorbs: ``assume`` ops whose predicate follows from how the value is defined, such as
    ``assume bounded<0, ?>`` on a ``get_tile_block_id`` result (block ids count from 0) or on the
    induction variable of a ``for`` whose lower bound is known ≥ 0 and whose step is known ≥ 1
    (cuTile Rust writes both; cuTile Python does not), and ``assume div_by<1>``. The assume's
    result is replaced by its operand. What a definition guarantees comes from signed integer
    intervals (normalize/rules/_ranges.py): constants, block ids (≥ 0), grid sizes (≥ 1), the
    induction variable of a signed-compare ``for`` (from lb, below ub, when step ≥ 1), and
    ``addi subi muli mini maxi divi remi select exti`` when no wrap is possible; other
    assumptions are not used as premises, so this rule never turns one assumption into a
    reason to drop another (assume-chains handles repeated facts).

    Why meaning is kept: ``assume`` returns its operand unchanged; an assumption that can never
    be false gives the compiler no new fact.

    Never touches: a predicate stronger than what the definition gives (``bounded<1, ?>`` or
    ``bounded<0, 7>`` on a block id, ``div_by<2>`` on anything), a ``bounded`` on an entry
    argument or a loaded value, the induction variable of a loop with a lower bound of unknown
    sign, an unknown or non-positive step, or unsigned comparison (``unsignedCmp``), and
    ``same_elements``.
    """
    name = "implied-assumptions"
    mutant = "assume bounded<1, ?> (or div_by<2>) on a block id stays a specialization difference"
    acts_on = frozenset({"assume"})

    def apply(self, module):
        def rewrite_for(f, _):
            ranges: List[Ranges] = []  # the function's intervals, computed for the first ``bounded`` fact

            def fn(op, subst):
                if len(op.operands) != 1 or len(op.results) != 1:
                    return None
                if not ranges and isinstance(op.attributes.get("predicate"), Bounded):
                    ranges.append(Ranges(f, use_assumes=False))
                # an operand substituted by an earlier drop has the same interval: assumes are
                # not premises here, so the range of an assume's result is its operand's
                return forward_operand(op, subst) if implied(ranges[0] if ranges else None, op) else None
            return fn
        return rewrite_ops(module, rewrite_for, only=self.acts_on)
