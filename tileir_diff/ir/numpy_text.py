"""``str()`` of the numpy scalar a one-element constant decodes to, without importing numpy.

A changed constant's message shows its value as ``str(v.to_numpy().reshape(-1)[0])`` spells it;
importing numpy for that costs more than diffing a small kernel (a whole-process diff of a
3,000-op pair spent about a tenth of its time there). This module gives the same text for the
element types a message meets most (i1, i8-i64, f16, bf16, f32) from the stored bytes; every
other case answers None and the caller asks numpy. tests/ir/test_numpy_text.py compares it with
numpy on every f16 and bf16 pattern and on millions of f32 patterns.

numpy's rules, as observed on numpy 2 and checked by that test: the digits are the shortest that
read back as the same value of the scalar's own type (float16 for f16, float32 for f32 and bf16),
the closest such string when several are that short; positional (``123456.0``, ``0.000100000005``)
when the magnitude is 0 or in [1e-4, 1e3) for float16 and [1e-4, 1e6) for float32, scientific
otherwise with at least two exponent digits (``1e-05``, ``1.6777216e+07``); ``nan``, ``inf``,
``-inf``, ``-0.0``.
"""
from __future__ import annotations

import math
import struct
from typing import Optional, Tuple

#: element type -> (struct format of the stored element, how to read it as a float of the
#: numpy scalar's type: (struct float format, shift of the stored bits), digits at most, upper
#: bound of positional notation).
_FLOATS = {
    "f16": ("<H", "<e", "<H", 0, 5, 1e3),
    "bf16": ("<H", "<f", "<I", 16, 9, 1e6),
    "f32": ("<I", "<f", "<I", 0, 9, 1e6),
}
_INTS = {"i8": "<b", "i16": "<h", "i32": "<i", "i64": "<q"}


def one_element_text(element: str, data: bytes) -> Optional[str]:
    """numpy's ``str()`` of the one element ``data`` stores (i1 as ``true``/``false``, the way
    messages spell it), or None for an element type this module does not cover or data that is
    not exactly one element."""
    if element == "i1":
        return None if len(data) != 1 else ("true" if data[0] else "false")
    code = _INTS.get(element)
    if code is not None:
        return str(struct.unpack(code, data)[0]) if len(data) == struct.calcsize(code) else None
    spec = _FLOATS.get(element)
    if spec is None or len(data) != struct.calcsize(spec[0]):
        return None
    stored, floating, unsigned, shift, digits, upper = spec
    bits = struct.unpack(stored, data)[0] << shift
    value = struct.unpack(floating, struct.pack(unsigned, bits))[0]
    return float_scalar_text(value, floating, digits, upper)


def float_scalar_text(value: float, floating: str, max_digits: int, upper: float) -> str:
    """numpy's ``str()`` of ``value``, a value of the float type packed by struct format
    ``floating`` (``<e``, ``<f``)."""
    if value != value:
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    digits, exponent = _shortest(magnitude, floating, max_digits)
    if 1e-4 <= magnitude < upper:
        return sign + _positional(digits, exponent)
    head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{head}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"


def _positional(digits: str, exponent: int) -> str:
    """``digits`` (the first one at 10**exponent) in positional notation, at least one digit
    after the point."""
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    whole = digits[:exponent + 1].ljust(exponent + 1, "0")
    return f"{whole}.{digits[exponent + 1:] or '0'}"


def _shortest(magnitude: float, floating: str, max_digits: int) -> Tuple[str, int]:
    """The fewest significant digits that read back as ``magnitude`` in its type (the closest
    of them when several are that short): (digits without trailing zeros, decimal exponent of
    the first)."""
    for count in range(1, max_digits + 1):
        mantissa, exponent = f"{magnitude:.{count - 1}e}".split("e")
        scale = int(exponent) - (count - 1)
        nearest = int(mantissa.replace(".", ""))
        fits = [m for m in (nearest, nearest - 1, nearest + 1)
                if m > 0 and _reads_back(m, scale, magnitude, floating)]
        if fits:
            text = str(fits[0] if len(fits) == 1 else _closest(fits, scale, magnitude))
            return text.rstrip("0") or "0", scale + len(text) - 1
    text = repr(magnitude)  # unreachable for the covered types (max_digits always suffice)
    raise ValueError(f"no {max_digits}-digit form of {text}")


def _closest(mantissas, scale: int, magnitude: float) -> int:
    from fractions import Fraction  # rare: two candidates of the same length read back
    exact = Fraction(magnitude)
    return min(mantissas, key=lambda m: (abs(Fraction(m) * Fraction(10) ** scale - exact), m % 2))


def _reads_back(mantissa: int, scale: int, magnitude: float, floating: str) -> bool:
    try:
        return struct.unpack(floating, struct.pack(floating, float(f"{mantissa}e{scale}")))[0] == magnitude
    except OverflowError:
        return False
