"""if-select: a scalar ``if`` whose arms only yield values computed before it is a ``select``."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import map_functions, rewrite_function


def _yielded(region):
    """(the one value a region yields, the constant op that makes it or None) when its block
    holds nothing but that ``yield``, or a ``constant`` and the ``yield`` of it; else None."""
    if len(region.blocks) != 1 or region.blocks[0].arguments:
        return None
    ops = region.blocks[0].operations
    if not ops or ops[-1].name != "yield" or len(ops[-1].operands) != 1:
        return None
    value = ops[-1].operands[0]
    if len(ops) == 1:
        return value, None
    if len(ops) == 2 and ops[0].name == "constant" and len(ops[0].results) == 1 and ops[0].results[0].vid == value.vid:
        return value, ops[0]
    return None


@register
class IfSelect(Rule):
    """Absorbs: a choice between two values written as control flow. cuTile Rust compiles
    ``if a < b { a } else { b }`` to an ``if`` whose two arms do nothing but ``yield`` one of
    two values computed before the ``if`` (or a constant the arm makes: ``else { 8 }``); cuTile
    Python writes ``min(a, b)`` as ``mini`` (or a
    ``select``). Such an ``if`` with one 0-d result becomes ``select cond, then, else``, which
    select-min-max (next in the pipeline) reads as ``mini``/``maxi`` when the condition compares
    exactly those two values.

    Why meaning is kept: the arms compute nothing but a constant and have no effect (a
    constant made before the ``if`` is the same value); the ``if`` yields the
    then-value when the condition holds and the else-value otherwise, which is what ``select``
    of a 0-d condition returns.

    Never touches: an ``if`` whose arms hold any other op than one yielded constant (their
    effects or cost are part of the program), an arm that yields a value it computes otherwise,
    several results, or a tile result
    (a scalar condition would have to be broadcast).
    """
    name = "if-select"
    mutant = "an if whose then-arm computes addi before yielding stays a control-flow difference"
    acts_on = frozenset({"if"})

    def apply(self, module):
        def per_function(f):
            count = 0

            def fn(op, subst):
                nonlocal count
                if op.name != "if" or len(op.regions) != 2 or len(op.results) != 1 or len(op.operands) != 1:
                    return None
                result = op.results[0]
                if getattr(result.type, "shape", None) != () or getattr(op.operands[0].type, "shape", None) != ():
                    return None
                then_y, else_y = _yielded(op.regions[0]), _yielded(op.regions[1])
                if then_y is None or else_y is None:
                    return None
                count += 1
                # a constant an arm makes is made before the select (constants are pure)
                hoisted = [c for c in (then_y[1], else_y[1]) if c is not None]
                return hoisted + [op.replace(name="select", operands=(op.operands[0], then_y[0], else_y[0]),
                                             segments=(1, 1, 1), attributes={}, regions=())]

            return rewrite_function(f, fn), count

        return map_functions(module, per_function)
