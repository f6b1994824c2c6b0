"""select-min-max: integer min/max written as a compare and a select."""
from __future__ import annotations

from ...ir import EnumValue
from ..rule import Rule, register
from ..util import enum_name, rewrite_ops
from ._constants import INT_WIDTH, element_name, producers, uniform_bits


@register
class SelectMinMax(Rule):
    """Absorbs: integer ``min``/``max`` spelled as ``select(cmpi a < b, a, b)`` (or ``<=``; after
    mirrored-compares every ``>``/``>=`` reads as ``<``/``<=``), as a port without ``mini``/
    ``maxi`` writes it: ``select(a < b, a, b)`` becomes ``mini a, b`` and ``select(a < b, b, a)``
    becomes ``maxi a, b``, with the compare's signedness. An arm may be another constant op of
    the same type and value as the compared one (``if x < 8 { x } else { 8 }``, each 8 its own
    op). The compare is dropped when nothing else uses it.

    Why meaning is kept: for integers, ``a < b ? a : b`` is min(a, b) and ``a < b ? b : a`` is
    max(a, b); on a tie both arms are the same value, so ``<=`` gives the same result.

    Never touches: floats (``select`` on a float compare differs from ``minf``/``maxf`` for NaN
    and signed zeros), a select whose arms are not exactly the two compared values (a constant
    arm of another value: ``x < 8 ? x : 7``), or a compare with any other predicate.
    """
    name = "select-min-max"
    mutant = ("select(a < b, a, c) (a third value), select(x < 8, x, 7) (another constant) and float "
              "select(a < b, a, b) stay differences")
    acts_on = frozenset({"select"})

    def apply(self, module):
        def rewrite_for(f, compares):
            prod = producers(f)

            def fn(op, subst):
                if op.name != "select" or len(op.operands) != 3 or len(op.results) != 1:
                    return None
                cond, x, y = op.operands
                c = prod.get(cond.vid)
                if c is None or c.name != "cmpi" or len(c.operands) != 2 or element_name(op) not in INT_WIDTH:
                    return None
                if enum_name(c.attributes.get("comparison_predicate")) not in ("less_than", "less_than_or_equal"):
                    return None
                if c.operands[0].type != op.results[0].type:
                    return None
                a, b = c.operands

                def same(u, w):  # one value, or two constants of the same type and bits
                    if u.vid == w.vid:
                        return True
                    pu, pw = prod.get(u.vid), prod.get(w.vid)
                    return u.type == w.type and uniform_bits(pu) is not None and uniform_bits(pu) == uniform_bits(pw)

                if same(x, a) and same(y, b):
                    name = "mini"
                elif same(x, b) and same(y, a):
                    name = "maxi"
                else:
                    return None
                sign = c.attributes.get("signedness")
                compares.add(id(c))
                return [op.replace(name=name, operands=(a, b), segments=(1, 1),
                                   attributes={"signedness": sign if sign is not None else EnumValue("Signedness",
                                                                                                     "signed")})]
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=True, only=self.acts_on)
