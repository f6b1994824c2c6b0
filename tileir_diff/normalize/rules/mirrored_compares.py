"""mirrored-compares: ``a > b`` is ``b < a``."""
from __future__ import annotations

from ...ir import EnumValue
from ..rule import Rule, register
from ..util import enum_name, map_functions, replace_ops

#: predicate -> its mirror (the predicate with the operands swapped)
MIRROR = {"greater_than": "less_than", "greater_than_or_equal": "less_than_or_equal"}


@register
class MirroredCompares(Rule):
    """Absorbs: the direction a comparison is written in. ``cmpi``/``cmpf`` with
    ``greater_than`` or ``greater_than_or_equal`` becomes ``less_than`` / ``less_than_or_equal``
    with the two operands swapped (``a > b`` is written ``b < a``), keeping the signedness
    (``cmpi``) and the ordered/unordered flag (``cmpf``).

    Why meaning is kept: a > b holds exactly when b < a, for signed and unsigned integers and for
    floats under both orderings (an unordered compare is true for NaN either way round).

    Never touches: ``equal``/``not_equal`` (commutative-operands does not sort them either: the
    operand order of a compare is kept as written), a compare whose predicate is turned around
    without swapping the operands (``a > b`` vs ``a < b`` stays a difference), the signedness or
    ordering of a compare.
    """
    name = "mirrored-compares"
    mutant = "cmpi greater_than %a, %b vs cmpi less_than %a, %b (not swapped) stays an attribute difference"
    rewrites_in_place = True  # (operands, attributes or hints of one op at a time)
    acts_on = frozenset({"cmpi", "cmpf"})

    def apply(self, module):
        def per_function(f):
            count = 0

            def fn(op):
                nonlocal count
                if op.name not in ("cmpi", "cmpf") or len(op.operands) != 2:
                    return None
                pred = op.attributes.get("comparison_predicate")
                mirrored = MIRROR.get(enum_name(pred))
                if mirrored is None:
                    return None
                attrs = dict(op.attributes)
                attrs["comparison_predicate"] = (EnumValue(pred.kind, mirrored) if isinstance(pred, EnumValue)
                                                 else mirrored)
                count += 1
                return op.replace(operands=(op.operands[1], op.operands[0]), attributes=attrs)

            return replace_ops(f, fn, self.acts_on), count

        return map_functions(module, per_function)
