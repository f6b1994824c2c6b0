"""floatfmt.classify (its per-format constants read off a table) against the definition written
out, on every 8- and 16-bit pattern and on f32/tf32/f64 edge and random patterns."""
from __future__ import annotations

import random

import pytest

from tileir_diff.text.floatfmt import FORMATS, classify


def _by_definition(bits: int, name: str):
    ebits, mbits, signed, conv = FORMATS[name]
    width = ebits + mbits + (1 if signed else 0)
    bits &= (1 << width) - 1
    neg = bool(signed and bits >> (ebits + mbits) & 1)
    e = bits >> mbits & ((1 << ebits) - 1)
    m = bits & ((1 << mbits) - 1)
    emax_field = (1 << ebits) - 1
    bias = (1 << (ebits - 1)) - 1
    if conv == "e8m0":
        return ("nan", False, 0, 0) if e == 0xFF else ("normal", False, 1, e - 127)
    if conv == "ieee" and e == emax_field:
        return ("inf" if m == 0 else "nan"), neg, 0, 0
    if conv in ("fn", "fnu") and e == emax_field and m == (1 << mbits) - 1:
        return "nan", neg, 0, 0
    if e == 0:
        return ("zero", neg, 0, 0) if m == 0 else ("normal", neg, m, 1 - bias - mbits)
    return "normal", neg, (1 << mbits) | m, e - bias - mbits


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_classify_is_the_definition(name):
    ebits, mbits, signed, _ = FORMATS[name]
    width = ebits + mbits + (1 if signed else 0)
    if width <= 16:
        patterns = range(1 << width)
    else:
        rng = random.Random(name)
        edges = [0, 1, (1 << mbits) - 1, 1 << mbits, ((1 << ebits) - 1) << mbits, (1 << width) - 1]
        patterns = edges + [e | 1 << (width - 1) for e in edges] + [rng.getrandbits(width) for _ in range(20000)]
    for bits in patterns:
        assert classify(bits, name) == _by_definition(bits, name)
    assert classify((1 << width) | 5, name) == _by_definition((1 << width) | 5, name)  # bits above the format's


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="not a float type"):
        classify(0, "i32")
