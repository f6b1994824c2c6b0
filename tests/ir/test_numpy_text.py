"""ir/numpy_text gives the text numpy gives for a constant's one element (the message of a
changed constant reads it without importing numpy): compared with numpy itself."""
import random
import struct

import pytest

from tileir_diff.compare.wording import constant_change
from tileir_diff.ir import DenseElements
from tileir_diff.ir.attributes import decode_elements
from tileir_diff.ir.numpy_text import one_element_text
from tileir_diff.ir.types import ScalarType, TileType


def numpy_text(name: str, data: bytes) -> str:
    """What the message spelled before: str() of the decoded numpy scalar (repr for a float)."""
    x = decode_elements(data, ScalarType(name))[0]
    if name == "i1":
        return "true" if x else "false"
    return str(x) if not isinstance(x, float) else repr(x)


def _f32_patterns(count: int):
    rnd = random.Random(28)
    out = [rnd.getrandbits(32) for _ in range(count)]
    # every exponent with mantissas at and next to a power of two (asymmetric rounding intervals),
    # the thresholds of positional notation, subnormals, NaN and infinity, both signs
    edges = [e << 23 | m for e in range(256) for m in (0, 1, 2, (1 << 23) - 1, (1 << 22), (1 << 22) + 1)]
    for v in (1e-4, 1e6, 1e3, 1e16, 123456.0, 999999.9, 1e-5, 3.4028235e38, 1.0, 0.1):
        b = struct.unpack("<I", struct.pack("<f", v))[0]
        edges += [b - 1, b, b + 1]
    return out + edges + [p | 1 << 31 for p in edges]


@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_every_16_bit_pattern(name):
    wrong = [b for b in range(1 << 16)
             if one_element_text(name, struct.pack("<H", b)) != numpy_text(name, struct.pack("<H", b))]
    assert wrong == []


def test_f32_patterns():
    wrong = [hex(b) for b in _f32_patterns(40_000)
             if one_element_text("f32", struct.pack("<I", b)) != numpy_text("f32", struct.pack("<I", b))]
    assert wrong == []


@pytest.mark.parametrize("name,code,values", [
    ("i8", "<b", [-128, -1, 0, 7, 127]),
    ("i16", "<h", [-32768, -3, 0, 32767]),
    ("i32", "<i", [-2**31, -5, 0, 8, 2**31 - 1]),
    ("i64", "<q", [-2**63, -1, 0, 2**63 - 1]),
    ("i1", "<B", [0, 1, 0xFF]),
])
def test_integers(name, code, values):
    for v in values:
        data = struct.pack(code, v)
        assert one_element_text(name, data) == numpy_text(name, data)


def test_uncovered_cases_answer_none():
    assert one_element_text("f64", struct.pack("<d", 1.5)) is None  # numpy's own repr varies by version
    assert one_element_text("f8E4M3FN", b"\x38") is None
    assert one_element_text("f32", b"\x00\x00\x80\x3f" * 2) is None  # not one element
    assert one_element_text("i32", b"\x01\x00") is None


def test_constant_change_message_as_before():
    ty = TileType((4, 256), ScalarType("f32"))
    a = DenseElements(ty, struct.pack("<f", 1.841))
    b = DenseElements(ty, struct.pack("<f", 1.84125))
    assert constant_change(a, b) == "constant 1.841 -> 1.84125 (f32)"
    big = DenseElements(ty, struct.pack("<f", 16777216.0))
    assert constant_change(a, big) == "constant 1.841 -> 1.6777216e+07 (f32)"
    # an empty tile has no element to show: the attribute's text, as numpy's empty array gave
    empty = TileType((0,), ScalarType("f32"))
    assert "->" in constant_change(DenseElements(empty, struct.pack("<f", 1.0)), DenseElements(empty, struct.pack("<f", 2.0)))
