"""if-select: a scalar ``if`` whose arms only yield values computed before it is a ``select``."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import map_functions, rewrite_function


def _yielded(region):
    """The one value a region yields when its block holds nothing but that ``yield``."""
    if len(region.blocks) != 1 or region.blocks[0].arguments:
        return None
    ops = region.blocks[0].operations
    if len(ops) != 1 or ops[0].name != "yield" or len(ops[0].operands) != 1:
        return None
    return ops[0].operands[0]


@register
class IfSelect(Rule):
    """Absorbs: a choice between two values written as control flow. cuTile Rust compiles
    ``if a < b { a } else { b }`` to an ``if`` whose two arms do nothing but ``yield`` one of
    two values computed before the ``if``; cuTile Python writes ``min(a, b)`` as ``mini`` (or a
    ``select``). Such an ``if`` with one 0-d result becomes ``select cond, then, else``, which
    select-min-max (next in the pipeline) reads as ``mini``/``maxi`` when the condition compares
    exactly those two values.

    Why meaning is kept: the arms compute nothing and have no effect; the ``if`` yields the
    then-value when the condition holds and the else-value otherwise, which is what ``select``
    of a 0-d condition returns.

    Never touches: an ``if`` whose arms hold any other op (their effects or cost are part of the
    program), an arm that yields a value it computes itself, several results, or a tile result
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
                then_v, else_v = _yielded(op.regions[0]), _yielded(op.regions[1])
                if then_v is None or else_v is None:
                    return None
                count += 1
                return [op.replace(name="select", operands=(op.operands[0], then_v, else_v), segments=(1, 1, 1),
                                   attributes={}, regions=())]

            return rewrite_function(f, fn), count

        return map_functions(module, per_function)
