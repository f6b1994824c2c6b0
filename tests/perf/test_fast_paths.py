"""The performance shortcuts give exactly what the slow paths they replace give."""
from __future__ import annotations

import copy
import gc
import pickle
import random
import struct
from fractions import Fraction

import numpy as np
import pytest

from tileir_diff.gc_pause import gc_paused
from tileir_diff.compare.result import DeferredLines, DiffResult, MatchStats
from tileir_diff.ir import DenseElements
from tileir_diff.ir.types import SCALAR_TYPES, ScalarType, TileType
from tileir_diff.normalize.canon import _dense_splat_bits
from tileir_diff.text.floatfmt import (_decimal_to_bits_fast, apfloat_to_string, bit_width, classify,
                                       round_to_bits)


def _exact(text: str, name: str) -> int:
    return round_to_bits(Fraction(text), name, negative=text.startswith("-"))


@pytest.mark.parametrize("name", ["f16", "bf16", "f8E5M2"])
def test_float_round_trip_fast_path_every_pattern(name):
    """Both spellings format_float tries, for every bit pattern of the narrow formats."""
    used = 0
    for bits in range(1 << bit_width(name)):
        if classify(bits, name)[0] in ("inf", "nan"):
            continue
        for text in (apfloat_to_string(bits, name, 6, 0, False), apfloat_to_string(bits, name)):
            fast = _decimal_to_bits_fast(text, name)
            if fast is not None:
                used += 1
                assert fast == _exact(text, name), (name, bits, text)
    assert used > (1 << bit_width(name))  # the fast path is the common case, not the fallback


@pytest.mark.parametrize("name", ["f32", "tf32", "f64"])
def test_float_round_trip_fast_path_random(name):
    rng = random.Random(1)
    for _ in range(20000):
        bits = rng.getrandbits(bit_width(name))
        if classify(bits, name)[0] in ("inf", "nan"):
            continue
        text = apfloat_to_string(bits, name, 6, 0, False)
        fast = _decimal_to_bits_fast(text, name)
        assert fast is None or fast == _exact(text, name), (name, bits, text)


def test_float_round_trip_fast_path_refuses_f32_midpoints():
    """A decimal exactly between two f32 values is where double rounding could go wrong."""
    rng = random.Random(2)
    for _ in range(2000):
        bits = rng.getrandbits(30) | 0x00800000
        lo = struct.unpack("<f", struct.pack("<I", bits))[0]
        hi = struct.unpack("<f", struct.pack("<I", bits + 1))[0]
        mid = (Fraction(lo) + Fraction(hi)) / 2
        k = 0
        den = mid.denominator
        while den > 1:
            den //= 2
            k += 1
        text = f"{mid.numerator * 5 ** k}e-{k}"  # the exact midpoint as a decimal
        assert _decimal_to_bits_fast(text, "f32") is None
        for nudge in ("1", "-1"):
            near = f"{mid.numerator * 5 ** k * 10 ** 30 + int(nudge)}e-{k + 30}"
            fast = _decimal_to_bits_fast(near, "f32")
            assert fast is None or fast == _exact(near, "f32")


def _splat_bits_numpy(d: DenseElements):
    bits = d.bits()
    if len(bits) and bool(np.all(bits == bits[0])):
        return int(bits[0])
    return None


def test_splat_bits_without_numpy_match_dense_bits():
    rng = random.Random(3)
    for name in SCALAR_TYPES:
        for _ in range(200):
            size = rng.choice([0, 1, 2, 3, 4, 5, 8, 9, 16, 17])
            byte = rng.getrandbits(8)
            data = bytes([byte]) * size if rng.random() < 0.5 else bytes(rng.getrandbits(8) for _ in range(size))
            d = DenseElements(TileType((4,), ScalarType(name)), data)
            assert _dense_splat_bits(d) == _splat_bits_numpy(d), (name, data)


def _result(lines):
    return DiffResult("identical", [], {}, None, "a", "b", (), [], MatchStats(), left_lines=lines, right_lines=[])


def test_deferred_lines_print_once_on_first_access():
    calls = []

    def make():
        calls.append(1)
        return [("f0/o0", "%0 = constant ...")]
    r = _result(DeferredLines(make))
    assert calls == []
    assert r.left_lines == [("f0/o0", "%0 = constant ...")]
    assert r.left_lines is r.left_lines and calls == [1]
    assert r.to_dict()["left_lines"] == [["f0/o0", "%0 = constant ..."]]


def test_deferred_lines_survive_pickle_and_copy():
    r = _result(DeferredLines(lambda: [("f0/o0", "return")]))
    for other in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
        assert other.left_lines == [("f0/o0", "return")]
        assert other == r


def test_gc_paused_restores_the_collector_state():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block switches it back on, not the inner one
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with gc_paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_gc_paused_promotes_a_large_build_to_the_oldest_generation():
    """Objects built in a large block skip the young generations (no traversal of them all on
    the next allocation); a program's own frozen objects stay frozen."""
    gc.collect()
    with gc_paused():
        built = [[i] for i in range(50_000)]  # tracked containers, alive after the block
    assert gc.get_count()[0] < 1_000  # counts reset: no young collection is due
    assert gc.is_tracked(built[0])
    small = None
    with gc_paused():
        small = [[i] for i in range(10)]
    assert gc.get_count()[0] >= 10  # a small block is left to the normal schedule
    keep = [[1]]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            more = [[i] for i in range(50_000)]
        assert gc.get_freeze_count() == frozen  # nothing thawed
    finally:
        gc.unfreeze()
    del built, small, keep, more
