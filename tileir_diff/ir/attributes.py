"""Attribute values: immutable, hashable, compared structurally (floats bit-exactly)."""
from __future__ import annotations

import struct
from .record import record
from typing import Any, Optional, Tuple

from typing import TYPE_CHECKING

from .types import ScalarType, TileType, Type

if TYPE_CHECKING:  # numpy is imported lazily: the CLI's start-up time matters
    import numpy as np


@record
class EnumValue:
    """An enum attribute by name, e.g. EnumValue("MemoryOrderingSemantics", "weak")."""
    kind: str
    name: str

    def __str__(self) -> str:
        return self.name


@record
class IntegerAttr:
    """An integer of ``type`` (the value as written: signed, or unsigned where the op says so).
    Its text is the printer's (``5 : i32``) or the messages' (normalize/canon.attr_text), as for
    FloatAttr, it keeps no spelling of its own."""
    value: int
    type: Type


@record
class FloatAttr:
    """A float by its bit pattern in ``type`` (so NaN payloads and -0.0 compare exactly)."""
    bits: int
    type: ScalarType

    @property
    def value(self) -> float:
        name = self.type.name
        if name in ("f32", "tf32"):
            return struct.unpack("<f", struct.pack("<I", self.bits))[0]
        if name == "f64":
            return struct.unpack("<d", struct.pack("<Q", self.bits))[0]
        if name == "f16":
            return struct.unpack("<e", struct.pack("<H", self.bits))[0]
        if name == "bf16":
            return struct.unpack("<f", struct.pack("<I", self.bits << 16))[0]
        return _minifloat(self.bits, *_MINIFLOATS[name])


@record
class DictAttr:
    """Ordered dictionary attribute: ((key, value), ...)."""
    items: Tuple[Tuple[str, Any], ...]

    def get(self, key: str, default=None):
        for k, v in self.items:
            if k == key:
                return v
        return default

    def __len__(self) -> int:
        return len(self.items)


@record
class OptimizationHints:
    """Per-architecture hint dictionaries: (("sm_90", DictAttr(...)), ("default", ...))."""
    by_arch: Tuple[Tuple[str, DictAttr], ...]


@record
class DivBy:
    divisor: int
    every: Optional[int] = None
    along: Optional[int] = None


@record
class Bounded:
    lb: Optional[int]
    ub: Optional[int]


@record
class SameElements:
    values: Tuple[Any, ...]


AssumePredicate = (DivBy, Bounded, SameElements)

#: Bytes per element as constants store them (i1 one byte; 4-bit types are packed, not listed).
_ELEM_SIZES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "tf32": 4, "f64": 8,
               "f8E4M3FN": 1, "f8E5M2": 1, "f8E8M0FNU": 1, "f8E5M3FNU": 1}


@record
class DenseElements:
    """A dense constant: raw little-endian element data typed by ``type`` (a tile type).

    A splat stores one element. ``to_numpy()`` gives the full array with the right shape.
    """
    type: TileType
    data: bytes

    @property
    def element(self) -> ScalarType:
        return self.type.element  # type: ignore[return-value]

    @property
    def is_splat(self) -> bool:
        return self.type.num_elements != 1 and len(self.data) == _elem_bytes(self.element)

    def bits(self) -> np.ndarray:
        import numpy as np  # noqa: F401
        """Element bit patterns as unsigned integers (flat, as stored)."""
        return _raw_bits(self.data, self.element)

    def first_bits(self) -> int:
        """``int(self.bits()[0])`` without numpy (rules and messages read a splat's one element;
        importing numpy costs more than diffing a small kernel). IndexError when no element is
        stored, as ``bits()[0]`` raises."""
        nb = _elem_bytes(self.element)
        if nb not in (1, 2, 4, 8):
            return int(self.bits()[0])  # the same error bits() raises
        if len(self.data) < nb:
            raise IndexError("no element stored")
        return int.from_bytes(self.data[:nb], "little")

    def stores_one_element(self) -> bool:
        """Whether ``bits()`` has exactly one element (a splat, or a one-element constant)."""
        nb = _elem_bytes(self.element)
        return nb in (1, 2, 4, 8) and len(self.data) == nb

    def to_numpy(self) -> np.ndarray:
        """The full array. A splat gives a read-only broadcast view of its one element: nothing
        proportional to the declared shape is allocated (``.copy()`` for a writable array)."""
        import numpy as np  # noqa: F401
        flat = decode_elements(self.data, self.element)
        shape = self.type.shape
        if self.is_splat or (len(flat) == 1 and self.type.num_elements == 1):
            return np.broadcast_to(flat[:1].reshape(()), shape)
        return flat.reshape(shape)


def canonical_dense(ty: TileType, data: bytes) -> DenseElements:
    """``DenseElements(ty, data)`` in the one form both readers produce, as MLIR stores it: data
    whose elements are all equal becomes a splat (one element), and i1 elements are 0x00 or 0xFF
    (any other byte is true). 4-bit types, packed two to a byte, are kept as they are."""
    elem = ty.element
    name = getattr(elem, "name", None)
    if name in ("i4", "f4E2M1FN") or name not in _ELEM_SIZES:
        return DenseElements(ty, data)
    if name == "i1" and data.strip(b"\x00\xff"):
        data = bytes(0xFF if b else 0 for b in data)
    size = _ELEM_SIZES[name]
    if len(data) > size and len(data) % size == 0 and data == data[:size] * (len(data) // size):
        data = data[:size]
    return DenseElements(ty, data)


def _elem_bytes(t: ScalarType) -> int:
    w = t.width
    if t.name == "i1":
        return 1
    return max(1, w // 8)


def _raw_bits(data: bytes, t: ScalarType) -> "np.ndarray":
    import numpy as np
    nb = _elem_bytes(t)
    if t.name == "f4E2M1FN" or t.name == "i4":
        raw = np.frombuffer(data, dtype=np.uint8)
        return raw.astype(np.uint64)
    udt = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[nb]
    usable = len(data) - len(data) % nb
    return np.frombuffer(data[:usable], dtype=udt).astype(np.uint64)


def decode_elements(data: bytes, t: ScalarType) -> "np.ndarray":
    import numpy as np
    """Decode raw element bytes into a numpy array (float types without a numpy dtype -> float32)."""
    name = t.name
    if name == "i1":
        return np.frombuffer(data, dtype=np.uint8) != 0
    if name in ("i8", "i16", "i32", "i64"):
        return np.frombuffer(data[: len(data) - len(data) % (t.width // 8)], dtype=f"<i{t.width // 8}").copy()
    if name in ("f16", "f32", "f64"):
        return np.frombuffer(data[: len(data) - len(data) % (t.width // 8)], dtype=f"<f{t.width // 8}").copy()
    if name == "i4":
        raw = np.frombuffer(data, dtype=np.uint8)
        v = raw & 0xF
        return np.where(v >= 8, v.astype(np.int8) - 16, v.astype(np.int8)).astype(np.int8)
    return decode_float_bits(_raw_bits(data, t), name)


def decode_float_bits(bits, name: str) -> "np.ndarray":
    import numpy as np
    """Bit patterns of a float type -> values (float64 for f64, else float32)."""
    bits = np.asarray(bits, dtype=np.uint64)
    if name == "f64":
        return bits.astype(np.uint64).view(np.float64)
    if name in ("f32", "tf32"):
        return bits.astype(np.uint32).view(np.float32)
    if name == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float32)
    if name == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    fmt = _MINIFLOATS.get(name)
    if fmt is None:
        raise ValueError(f"no float decoding for {name}")
    return np.array([_minifloat(int(b), *fmt) for b in bits], dtype=np.float32)


# (exponent bits, mantissa bits, bias, has_sign, nan/inf convention)
_MINIFLOATS = {
    "f8E4M3FN": (4, 3, 7, True, "fn"),
    "f8E5M2": (5, 2, 15, True, "ieee"),
    "f8E5M3FNU": (5, 3, 15, False, "fnu"),
    "f8E8M0FNU": (8, 0, 127, False, "e8m0"),
    "f4E2M1FN": (2, 1, 1, True, "finite"),
}


def _minifloat(b: int, ebits: int, mbits: int, bias: int, signed: bool, conv: str) -> float:
    total = ebits + mbits + (1 if signed else 0)
    b &= (1 << total) - 1
    sign = -1.0 if signed and (b >> (ebits + mbits)) & 1 else 1.0
    e = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    emax = (1 << ebits) - 1
    if conv == "e8m0":
        return float("nan") if e == 0xFF else 2.0 ** (e - bias)
    if conv == "ieee" and e == emax:
        return sign * float("inf") if m == 0 else float("nan")
    if conv == "fn" and e == emax and m == (1 << mbits) - 1:
        return float("nan")
    if conv == "fnu" and e == emax and m == (1 << mbits) - 1:
        return float("nan")
    if e == 0:
        return sign * (m / (1 << mbits)) * 2.0 ** (1 - bias)
    return sign * (1 + m / (1 << mbits)) * 2.0 ** (e - bias)


def float_bits(value: float, name: str) -> int:
    """Python float -> bit pattern for f16/f32/f64/bf16/tf32 (round to nearest even)."""
    if name == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if name in ("f32", "tf32"):
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if name == "f16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    if name == "bf16":
        b = struct.unpack("<I", struct.pack("<f", value))[0]
        if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
            return (b >> 16) | 0x40
        return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
    # minifloats: exhaustive nearest search (tiny tables)
    fmt = _MINIFLOATS[name]
    total = fmt[0] + fmt[1] + (1 if fmt[3] else 0)
    best, best_err = 0, float("inf")
    for b in range(1 << total):
        v = _minifloat(b, *fmt)
        if v != v:
            if value != value:
                return b
            continue
        err = abs(v - value)
        if err < best_err:
            best, best_err = b, err
    return best
