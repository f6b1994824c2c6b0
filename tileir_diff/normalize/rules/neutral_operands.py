"""neutral-operands: an operation with its neutral element is its other operand."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import enum_name, map_functions, op_lists, rewrite_function
from ._constants import (FLOAT_NEG_ZERO, FLOAT_ONE, INT_WIDTH, element_name, stored_element_bytes,
                         uniform_bits)


def _all_ones(width: int) -> int:
    return (1 << width) - 1


def _plain_float(op) -> bool:
    """Default rounding and no flush-to-zero: x * 1.0 and x + (-0.0) are then x, bit for bit."""
    rounding = enum_name(op.attributes.get("rounding_mode"))
    return rounding in (None, "nearest_even") and not op.attributes.get("flush_to_zero")


def _neutral_positions(name: str, el: str, plain: bool):
    """{operand position: bit pattern that makes the op return its other operand}, or None."""
    if el in INT_WIDTH:
        w = INT_WIDTH[el]
        if name in ("addi", "ori", "xori"):
            return {0: 0, 1: 0}
        if name == "subi":
            return {1: 0}
        if name == "muli":
            return {0: 1, 1: 1}
        if name == "andi":
            return {0: _all_ones(w), 1: _all_ones(w)}
        if name in ("shli", "shri"):
            return {1: 0}
        if name == "divi":
            return {1: 1}
        return None
    if el in FLOAT_ONE and plain:
        if name == "mulf":
            return {0: FLOAT_ONE[el], 1: FLOAT_ONE[el]}
        if name == "divf":
            return {1: FLOAT_ONE[el]}
        if name == "addf":
            return {0: FLOAT_NEG_ZERO[el], 1: FLOAT_NEG_ZERO[el]}
        if name == "subf":
            return {1: 0}
    return None


def _neutral(op, el: str):
    """{operand position: bit pattern that makes the op return its other operand} (a table's
    entry, read only)."""
    if el in INT_WIDTH:
        return _NEUTRAL.get((op.name, el, False))
    if el in FLOAT_ONE and _plain_float(op):
        return _NEUTRAL.get((op.name, el, True))
    return None


def _may_be_neutral(constant) -> bool:
    """False when ``constant`` stores one element and its bits are no op's neutral element;
    else True (a constant storing several elements is left to ``uniform_bits`` where an op reads
    it: its bits cost a pass over the data)."""
    value = constant.attributes.get("value")
    size = stored_element_bytes(value)
    if size is not None and size == len(value.data) and size in (1, 2, 4, 8):
        return int.from_bytes(value.data, "little") in _NEUTRAL_BITS  # (uniform_bits, for one element)
    return True


@register
class NeutralOperands(Rule):
    """Absorbs: binary ops whose one operand is the op's neutral element everywhere: integer
    ``x + 0``, ``x - 0``, ``x * 1``, ``x | 0``, ``x ^ 0``, ``x & ~0``, ``x << 0``, ``x >> 0``,
    ``x / 1``; float ``x * 1.0``, ``x / 1.0``, ``x + (-0.0)``, ``x - (+0.0)`` (default rounding,
    no flush-to-zero). The op's result becomes the other operand. (A port written with a
    runtime-neutral scale or offset, or ``x * 1`` left by a template, then reads as plain ``x``.)

    Why meaning is kept: each identity holds for every value of ``x`` at the op's width, bit for
    bit: for floats, x * 1 = x and x + (-0) = x (including -0 and NaN), under round to nearest.

    Never touches: float ``x + 0.0`` (``-0.0 + 0.0`` is ``+0.0``), ``x - (-0.0)``, float ops with
    flush-to-zero or another rounding mode (``x * 1.0`` then flushes subnormals), an operand that
    is not a constant of the neutral value in every element, ``0 - x``, ``1 / x``, ``0 << x``.
    """
    name = "neutral-operands"
    mutant = "float x + 0.0 (wrong for -0.0) and x * 1.0 with flush_to_zero stay differences"
    acts_on = frozenset({"addi", "subi", "muli", "ori", "xori", "andi", "shli", "shri", "divi",
                         "mulf", "divf", "addf", "subf"})

    def apply(self, module):
        def per_function(f):
            # A neutral operand is a constant whose elements all hold one of the neutral bit
            # patterns: the others are not looked up (and without any, nothing is rewritten).
            prod = {r.vid: c for ops in op_lists(f.body) for c in ops if c.name == "constant" and _may_be_neutral(c)
                    for r in c.results}  # (``constants(f)``, filtered)
            if not prod:
                return f, 0
            count = 0

            def fn(op, subst):
                nonlocal count
                operands = op.operands
                if len(operands) != 2 or operands[0].vid not in prod and operands[1].vid not in prod \
                        or len(op.results) != 1:  # (only acts_on ops come here)
                    return None
                el = element_name(op)
                neutral = _neutral(op, el) if el else None
                if not neutral:
                    return None
                result_type = op.results[0].type
                for pos, bits in neutral.items():
                    other = op.operands[1 - pos]
                    if other.type is not result_type and other.type != result_type:
                        continue
                    neutral_op = prod.get(op.operands[pos].vid)
                    if neutral_op is None:
                        continue  # (uniform_bits is None: no constant)
                    if uniform_bits(neutral_op) == bits:
                        subst[op.results[0].vid] = other
                        count += 1
                        return []
                return None

            return rewrite_function(f, fn, only=self.acts_on), count

        return map_functions(module, per_function)


#: _neutral_positions of every op this rule acts on, per element type (for floats: with default
#: rounding and no flush-to-zero; otherwise no float op has a neutral operand).
_NEUTRAL = {(name, el, plain): found for name in NeutralOperands.acts_on
            for el, plain in [(el, False) for el in INT_WIDTH] + [(el, True) for el in FLOAT_ONE]
            for found in [_neutral_positions(name, el, plain)] if found}

#: Every bit pattern that is a neutral operand of some op and element type.
_NEUTRAL_BITS = frozenset(bits for found in _NEUTRAL.values() for bits in found.values())
