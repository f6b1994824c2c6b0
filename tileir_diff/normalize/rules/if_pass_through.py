"""if-pass-through: an ``if`` result that every arm yields as the same outside value is that value."""
from __future__ import annotations

from typing import List, Optional, Set

from ...ir import Block, Operation, Region
from ..rule import Rule, register
from ..util import rewrite_ops, with_fields


def _yields(op: Operation) -> Optional[List[Operation]]:
    """The ``yield`` ending each arm of ``op``, or None when an arm is missing, has several
    blocks, or ends otherwise (an early exit: the arm produces no result)."""
    if len(op.regions) != 2:
        return None
    out = []
    for region in op.regions:
        if len(region.blocks) != 1 or not region.blocks[0].operations:
            return None
        last = region.blocks[0].operations[-1]
        if last.name != "yield" or len(last.operands) != len(op.results):
            return None
        out.append(last)
    return out


def _without(y: Operation, drop: Set[int]) -> Operation:
    operands = tuple(v for i, v in enumerate(y.operands) if i not in drop)
    return with_fields(y, operands=operands, segments=(len(operands),) if y.segments else ())


@register
class IfPassThrough(Rule):
    """Absorbs: an ``if`` that yields, in both arms, the very value it was given, and the uses
    of that result. cuTile Rust 0.5.0 makes an ``if`` inside a loop yield every loop-carried
    variable, the ones it does not assign too (``yield ..., %iterArg3`` / ``yield %iterArg0, ...,
    %iterArg3``), and later code reads that result; cuTile Python yields only what the ``if``
    assigns and reads the loop variable. Such a result is dropped from the ``if`` and its yields,
    and its uses read the value itself.

    Why meaning is kept: both arms end in a ``yield`` of the same SSA value (defined before the
    ``if``: an arm's own values are not visible in the other), so whichever arm runs, the result
    is that value.

    Never touches: a result whose arms yield different values (even equal constants each arm
    makes: constant-dedup is a later rule, and their equality is its claim to make), an arm that
    ends in an early exit instead of a ``yield``, loop results (a loop that passes a value
    through unchanged is another claim).
    """
    name = "if-pass-through"
    mutant = "an if whose arms yield two different loop-carried values keeps the result"
    acts_on = frozenset({"if"})

    def apply(self, module):
        def rewrite_for(function, bypassed):
            def fn(op, subst):
                if op.name != "if" or not op.results:
                    return None
                ys = _yields(op)
                if ys is None:
                    return None
                same = {i for i in range(len(op.results))
                        if ys[0].operands[i].vid == ys[1].operands[i].vid}
                if not same:
                    return None
                for i in same:
                    subst[op.results[i].vid] = ys[0].operands[i]
                regions = tuple(Region((Block(r.blocks[0].arguments,
                                              r.blocks[0].operations[:-1] + (_without(y, same),)),))
                                for r, y in zip(op.regions, ys))
                return [op.replace(results=tuple(v for i, v in enumerate(op.results) if i not in same),
                                   regions=regions)]
            return fn

        return rewrite_ops(module, rewrite_for)
