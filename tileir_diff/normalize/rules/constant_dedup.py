"""constant-dedup: one constant per distinct value and type."""
from __future__ import annotations

from ..canon import attr_key, fmt_type
from ..rule import Rule, register
from ..util import map_functions
from ._scoped import hoist_then_dedup


@register
class ConstantDedup(Rule):
    """Absorbs: several ``constant`` ops with the same value and type (cuTile Python emits one
    ``constant <i32: 1>`` per use site); later ones are replaced by the first one that dominates
    them (same block earlier, or an enclosing block before the region's op); constants written
    inside loop/if bodies are first hoisted before the region's op. A splat and a
    full dense constant holding the same value in every element count as the same value.

    Why meaning is kept: constants are pure and have no operands; two with equal type and bits
    are the same value.

    Never touches: constants that differ in any bit (``1e-05`` vs ``1e-06``, ``0.0`` vs ``-0.0``,
    NaN payloads) or in type (``<i32: 1>`` vs ``<i64: 1>``, ``tile<f32>`` vs ``tile<4xf32>``).
    """
    name = "constant-dedup"
    mutant = "constant <f32: 0.0> used where the other side uses <f32: -0.0>"
    acts_on = frozenset({"constant"})

    def apply(self, module):
        def key(op):
            if op.name != "constant" or len(op.results) != 1:
                return None
            return (attr_key(op.attributes.get("value")), fmt_type(op.results[0].type))
        return map_functions(module, lambda f: hoist_then_dedup(f, lambda op: op.name == "constant", key,
                                                                self.acts_on, _values))


def _values(constants):
    """The value part of the key of each constant that has one (``key`` above): constants with
    distinct values are never merged, and the type's text is not needed to tell them apart."""
    return [attr_key(op.attributes.get("value")) for op in constants if len(op.results) == 1]
