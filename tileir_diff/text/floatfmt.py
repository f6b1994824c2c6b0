"""Float spelling exactly as MLIR prints it (AsmPrinter ``printFloatValue`` over LLVM ``APFloat``).

MLIR first tries ``APFloat::toString(6 digits, no padding, keep zeros)`` ("1.000000e+00"); if
parsing that back does not give the same bits it uses the shortest-ish default
``APFloat::toString()`` ("9.99999968E+37") when it contains a '.', and otherwise the bit pattern
in hex ("0x7FC00000"), which is also how inf and NaN print. We replicate the APFloat digit
algorithm (including its truncation quirks) with Python integers, and parse back with exact
rational rounding, so no double rounding through Python floats.
"""
from __future__ import annotations

import re

import struct
from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Tuple

if TYPE_CHECKING:
    from fractions import Fraction

# name -> (exponent bits, mantissa bits, has sign bit, special-value convention)
# conventions: ieee (inf + NaN at max exponent), fn (no inf; NaN = all ones), fnu (unsigned fn),
# e8m0 (powers of two only, 0xFF NaN), finite (no inf/NaN).
FORMATS = {
    "f64": (11, 52, True, "ieee"), "f32": (8, 23, True, "ieee"), "tf32": (8, 10, True, "ieee"),
    "f16": (5, 10, True, "ieee"), "bf16": (8, 7, True, "ieee"),
    "f8E4M3FN": (4, 3, True, "fn"), "f8E5M2": (5, 2, True, "ieee"),
    "f8E5M3FNU": (5, 3, False, "fnu"), "f8E8M0FNU": (8, 0, False, "e8m0"), "f4E2M1FN": (2, 1, True, "finite"),
}


def _fmt(name: str):
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"not a float type: {name}") from None


def _bias(ebits: int) -> int:
    return (1 << (ebits - 1)) - 1


def bit_width(name: str) -> int:
    e, m, signed, _ = _fmt(name)
    return e + m + (1 if signed else 0)


#: Per float format, what ``classify`` reads off it: (exponent bits, mantissa bits, has sign
#: bit, convention, mask of the format's bits, all-ones exponent field, mantissa mask, bias).
_CLASSIFY = {name: (e, m, signed, conv, (1 << (e + m + (1 if signed else 0))) - 1, (1 << e) - 1, (1 << m) - 1,
                    _bias(e))
             for name, (e, m, signed, conv) in FORMATS.items()}


def classify(bits: int, name: str) -> Tuple[str, bool, int, int]:
    """-> (category, negative, significand, exponent) with value = significand * 2**exponent.
    category: zero, normal, inf, nan."""
    try:
        ebits, mbits, signed, conv, width_mask, emax_field, mmask, bias = _CLASSIFY[name]
    except KeyError:
        raise ValueError(f"not a float type: {name}") from None
    bits &= width_mask
    neg = bool(signed and bits >> (ebits + mbits) & 1)
    e = bits >> mbits & emax_field
    m = bits & mmask
    if conv == "e8m0":
        if e == 0xFF:
            return "nan", False, 0, 0
        return "normal", False, 1, e - 127
    if conv == "ieee" and e == emax_field:
        return ("inf" if m == 0 else "nan"), neg, 0, 0
    if conv in ("fn", "fnu") and e == emax_field and m == mmask:
        return "nan", neg, 0, 0
    if e == 0:
        if m == 0:
            return "zero", neg, 0, 0
        return "normal", neg, m, 1 - bias - mbits
    return "normal", neg, (1 << mbits) | m, e - bias - mbits


def _precision(name: str) -> int:
    return _fmt(name)[1] + 1


def _adjust_int(sig: int, exp: int, prec: int) -> Tuple[int, int]:
    bits = sig.bit_length()
    required = (prec * 196 + 58) // 59
    if bits <= required:
        return sig, exp
    removable = (bits - required) * 59 // 196
    if not removable:
        return sig, exp
    return sig // (10 ** removable), exp + removable


def _adjust_digits(buf: list, exp: int, prec: int) -> int:
    """buf holds digits least significant first (as APFloat's buffer); rounds half up in place."""
    n = len(buf)
    if n <= prec:
        return exp
    first = n - prec
    if buf[first - 1] < "5":
        while first < n and buf[first] == "0":
            first += 1
        del buf[:first]
        return exp + first
    for i in range(first, n):
        if buf[i] == "9":
            first += 1
        else:
            buf[i] = chr(ord(buf[i]) + 1)
            break
    if first == n:
        buf[:] = ["1"]
        return exp + first
    del buf[:first]
    return exp + first


def apfloat_to_string(bits: int, name: str, precision: int = 0, max_padding: int = 3,
                      truncate_zero: bool = True) -> str:
    """``APFloat::toString(Str, FormatPrecision, FormatMaxPadding, TruncateZero)``."""
    cat, neg, sig, exp = classify(bits, name)
    if cat == "inf":
        return "-Inf" if neg else "+Inf"
    if cat == "nan":
        return "NaN"
    out = "-" if neg else ""
    if cat == "zero":
        if max_padding:
            return out + "0"
        if truncate_zero:
            return out + "0.0E+0"
        return out + "0.0" + "0" * max(precision - 1, 0) + "e+00"
    sem_prec = _precision(name)
    if not precision:
        precision = 2 + sem_prec * 59 // 196
    tz = (sig & -sig).bit_length() - 1
    exp += tz
    sig >>= tz
    if exp > 0:
        sig <<= exp
        exp = 0
    elif exp < 0:
        sig *= 5 ** (-exp)
    sig, exp = _adjust_int(sig, exp, precision)
    buf = []
    in_trail = True
    while sig:
        sig, d = divmod(sig, 10)
        if in_trail and not d:
            exp += 1
        else:
            buf.append(chr(48 + d))
            in_trail = False
    exp = _adjust_digits(buf, exp, precision)
    nd = len(buf)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or nd + exp > precision
    else:
        msd = exp + nd - 1
        scientific = False if msd >= 0 else -msd > max_padding
    if scientific:
        exp += nd - 1
        s = buf[nd - 1] + "."
        if nd == 1 and truncate_zero:
            s += "0"
        else:
            s += "".join(buf[nd - 1 - i] for i in range(1, nd))
        if not truncate_zero and precision > nd - 1:
            s += "0" * (precision - nd + 1)
        s += "E" if truncate_zero else "e"
        s += "+" if exp >= 0 else "-"
        digits = str(abs(exp))
        if not truncate_zero and len(digits) < 2:
            digits = "0" + digits
        return out + s + digits
    if exp >= 0:
        return out + "".join(reversed(buf)) + "0" * exp
    whole = exp + nd
    if whole > 0:
        s = "".join(buf[nd - 1 - i] for i in range(whole)) + "."
        s += "".join(buf[nd - 1 - i] for i in range(whole, nd))
    else:
        s = "0." + "0" * (-whole) + "".join(reversed(buf))
    return out + s


def round_to_bits(value: Fraction, name: str, negative: Optional[bool] = None) -> int:
    """Correctly rounded (nearest, ties to even) conversion of an exact rational to ``name``'s bits.
    Overflow gives inf (NaN where the format has no inf; max finite where it has neither)."""
    from fractions import Fraction  # here, not at import: printing rarely needs exact rationals
    ebits, mbits, signed, conv = _fmt(name)
    neg = value < 0 if negative is None else negative
    a = abs(value)
    sign_bit = (1 << (ebits + mbits)) if (signed and neg) else 0
    if conv == "e8m0":
        if a == 0:
            return 0
        best = min(range(0xFF), key=lambda e: (abs(Fraction(2) ** (e - 127) - a), e))
        return best
    if a == 0:
        return sign_bit
    bias = _bias(ebits)
    emin = 1 - bias
    # exponent of the leading bit
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    scaled = a / (Fraction(2) ** (e - mbits))
    m = scaled.numerator // scaled.denominator
    rem = scaled - m
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and m & 1):
        m += 1
    if m >> (mbits + 1):
        m >>= 1
        e += 1
    if m >> mbits == 0:  # subnormal
        field_e = 0
    else:
        field_e = e + bias
    emax_field = (1 << ebits) - 1
    max_field = emax_field - 1 if conv == "ieee" else emax_field
    mant = m & ((1 << mbits) - 1)
    too_big = field_e > max_field or (conv in ("fn", "fnu") and field_e == emax_field
                                      and mant == (1 << mbits) - 1)
    if too_big:
        if conv == "ieee":
            return sign_bit | (emax_field << mbits)
        if conv in ("fn", "fnu"):
            return sign_bit | (emax_field << mbits) | ((1 << mbits) - 1)
        return sign_bit | (emax_field << mbits) | ((1 << mbits) - 1)  # finite: saturate
    return sign_bit | (field_e << mbits) | mant


_DOUBLE = struct.Struct("<d")
_U64 = struct.Struct("<Q")


def _decimal_to_bits_fast(text: str, name: str) -> Optional[int]:
    """``round_to_bits(Fraction(text), name)`` without rationals, or None when unsure.

    ``float(text)`` is the correctly rounded double. Rounding that double again to a narrower
    IEEE format gives the same bits as rounding the exact decimal, except when the double sits
    exactly on a midpoint of the narrower format (then the exact value may lie on either side):
    those, subnormal results and overflow go back to the exact path (None). Zero is exact."""
    ebits, mbits, signed, conv = FORMATS[name]
    if conv != "ieee":
        return None
    d = float(text)
    dbits = _U64.unpack(_DOUBLE.pack(d))[0]
    sign = dbits >> 63
    mag = dbits & 0x7FFF_FFFF_FFFF_FFFF
    if mag == 0:  # zero stays zero (a decimal too small for a double is too small for these)
        return sign << (ebits + mbits)
    exp = (mag >> 52) - 1023
    bias = (1 << (ebits - 1)) - 1
    if exp < 1 - bias or exp > bias:  # subnormal or past the normal range
        return None
    shift = 52 - mbits
    if shift:
        half = 1 << (shift - 1)
        rest = mag & ((1 << shift) - 1)
        if rest == half:
            return None
        mag = (mag >> shift) + (rest > half)
    # mag now holds (double exponent field, rounded mantissa); a carry bumps the exponent.
    field = (mag >> mbits) - 1023 + bias
    if field >= (1 << ebits) - 1:
        return None
    return (sign << (ebits + mbits)) | (field << mbits) | (mag & ((1 << mbits) - 1))


@lru_cache(maxsize=1 << 16)
def format_float(bits: int, name: str) -> Tuple[str, bool]:
    """MLIR's printFloatValue. Returns (text, printed_as_hex). Cached: constants repeat across
    the two sides of a diff and within kernels."""
    cat = classify(bits, name)[0]
    if cat not in ("inf", "nan"):
        s = apfloat_to_string(bits, name, 6, 0, False)
        back = _decimal_to_bits_fast(s, name)
        if back is None:
            from fractions import Fraction
            back = round_to_bits(Fraction(s), name, negative=s.startswith("-"))
        if back == bits & ((1 << bit_width(name)) - 1):
            return s, False
        s = apfloat_to_string(bits, name)
        if "." in s:
            return s, False
    return "0x%X" % (bits & ((1 << bit_width(name)) - 1)), True


_DECIMAL = re.compile(r"-?([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
#: Beyond 10^±400 every format's result is the same (overflow, or zero), so an exact rational of a
#: literal like ``1e999999`` (a million digits) is never built.
_EXTREME = 400


def float_from_text(text: str, name: str) -> int:
    """Bits of a decimal literal (as MLIR parses it: nearest, ties to even) or a hex bit pattern."""
    if text.lstrip("-").startswith("0x"):
        v = int(text, 16)
        if v < 0 or v >> bit_width(name):
            raise ValueError(f"hex float 0x{v:X} does not fit {name}")
        return v
    fast = _decimal_to_bits_fast(text, name) if len(text) < 64 else None
    if fast is not None:
        return fast
    from fractions import Fraction
    neg = text.startswith("-")
    m = _DECIMAL.fullmatch(text)
    if m is None:
        raise ValueError(f"invalid float literal {text[:40]!r}")
    whole, frac, exp = m.group(1), m.group(2) or "", m.group(3)
    digits = (whole + frac).lstrip("0")
    if not digits:
        return round_to_bits(Fraction(0), name, negative=neg)
    # The literal's value lies in [10^(mag-1), 10^mag).
    int_digits = whole.lstrip("0")
    mag = (len(int_digits) if int_digits else -(len(frac) - len(frac.lstrip("0")))) + (int(exp) if exp else 0)
    if mag > _EXTREME:
        value = Fraction(10 ** _EXTREME)
    elif mag < -_EXTREME:
        value = Fraction(1, 10 ** _EXTREME)
    else:
        value = Fraction(text)
    return round_to_bits(value, name, negative=neg)
