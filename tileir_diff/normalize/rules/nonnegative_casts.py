"""nonnegative-casts: the signedness of a cast or compare whose operands are provably non-negative."""
from __future__ import annotations

from ...ir import EnumValue
from ..rule import Rule, register
from ..util import enum_name, map_functions, rewrite_function
from ._ranges import Ranges

#: ops whose ``signedness`` only matters for operands with the sign bit set
_OPS = ("itof", "exti", "cmpi")


@register
class NonnegativeCasts(Rule):
    """Absorbs: ``itof``, ``exti`` and ``cmpi`` written ``unsigned`` where every operand is
    provably non-negative, against the same op written ``signed`` (a port that casts an index
    through ``u32``/``usize``, ``(i as u32) as f32``, or compares two lengths unsigned; cuTile
    Python writes ``signed``). Such an op becomes ``signed``. Non-negative is decided by signed
    integer intervals (normalize/rules/_ranges.py): constants, ``iota`` (0 to n-1), block ids,
    grid sizes, loop induction variables, ``assume bounded<lb, ?>`` facts (the program asserts
    them), reshapes and broadcasts of such values and no-wrap arithmetic on them.

    Why meaning is kept: a value whose sign bit is 0 has the same number as a signed and as an
    unsigned integer, so converting it to float, widening it (zero- and sign-extension both
    write zeros) or comparing two such values gives the same result either way.

    Never touches: an operand that may be negative (an entry argument without a ``bounded``
    fact, a difference such as ``n - k``, arithmetic that may wrap), ``divi``/``remi``/``shri``
    (nonnegative-division and the proof step handle divisions), ``trunci``, ``ftoi`` (its
    signedness is the result's), and ``signed`` ops (never made unsigned).
    """
    name = "nonnegative-casts"
    mutant = ("itof %x unsigned vs itof %x signed with %x an entry argument of unknown sign (or iota - 1), "
              "and cmpi unsigned vs signed where one operand may be negative stay differences")
    acts_on = frozenset(_OPS)

    def apply(self, module):
        def per_function(f):
            ranges = None
            count = 0

            def fn(op, subst):
                nonlocal ranges, count
                if op.name not in _OPS or enum_name(op.attributes.get("signedness")) != "unsigned":
                    return None
                if ranges is None:
                    ranges = Ranges(f, use_assumes=True)
                if not op.operands or not all(ranges.nonnegative(v) for v in op.operands):
                    return None
                sign = op.attributes["signedness"]
                attrs = dict(op.attributes)
                attrs["signedness"] = EnumValue(sign.kind, "signed") if isinstance(sign, EnumValue) else "signed"
                count += 1
                return [op.replace(attributes=attrs)]

            return rewrite_function(f, fn), count

        return map_functions(module, per_function)
