"""sub-as-add-neg: ``a + (-b)`` is ``a - b``."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import enum_name, rewrite_ops
from ._constants import producers

_PAIRS = {"addf": ("negf", "subf"), "addi": ("negi", "subi")}


@register
class SubAsAddNeg(Rule):
    """Absorbs: a subtraction written as the addition of a negation: ``addf a, (negf b)`` becomes
    ``subf a, b`` (with the addition's rounding and flush-to-zero), and integer ``addi a, (negi
    b)`` becomes ``subi a, b`` when neither op has an overflow flag. Either operand of the
    addition may be the negation. The negation is dropped when nothing else uses it.

    Why meaning is kept: IEEE 754 defines x - y as x + (-y) (one rounding, the same signed zeros),
    and negation is exact; two's-complement a + (-b) and a - b agree modulo 2^n.

    Never touches: an integer addition or negation with an overflow flag (nsw/nuw make the
    overflow cases undefined differently), ``negf`` of a sum (``-(a + b)``), or ``subf`` written
    the other way round (``b - a``).
    """
    name = "sub-as-add-neg"
    mutant = "addf (negf a), b vs subf a, b (the other operand negated) stays a difference"
    acts_on = frozenset({"negf", "negi"})

    def apply(self, module):
        def rewrite_for(f, negations):
            prod = producers(f)

            def fn(op, subst):
                pair = _PAIRS.get(op.name)
                if pair is None or len(op.operands) != 2:
                    return None
                neg_name, sub_name = pair
                if op.name == "addi" and enum_name(op.attributes.get("overflow")) not in (None, "none"):
                    return None
                for k in (1, 0):
                    n = prod.get(op.operands[k].vid)
                    if n is None or n.name != neg_name or len(n.operands) != 1:
                        continue
                    if neg_name == "negi" and enum_name(n.attributes.get("overflow")) not in (None, "none"):
                        continue
                    negations.add(id(n))
                    return [op.replace(name=sub_name, operands=(op.operands[1 - k], n.operands[0]))]
                return None
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=True, only=_PAIRS.keys())
