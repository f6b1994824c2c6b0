"""sub-as-add-neg: ``a + (-b)`` is ``a - b``."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import drop_unused, enum_name, map_functions, rewrite_function
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
        def per_function(f):
            prod = producers(f)
            count = 0
            negations = set()

            def fn(op, subst):
                nonlocal count
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
                    count += 1
                    return [op.replace(name=sub_name, operands=(op.operands[1 - k], n.operands[0]))]
                return None

            nf = rewrite_function(f, fn)
            if count:
                nf = drop_unused(nf, lambda op: id(op) in negations)
            return nf, count

        return map_functions(module, per_function)
