"""Element types as the interpreter holds them: storage bits in memory, values in NumPy.

Every Tile IR element type has a *storage* dtype (its bytes in memory) and a *compute* dtype (how
a tile of it lives in NumPy while the kernel runs):

* integers: the signed NumPy type of the width (signedness is an attribute of the op, so unsigned
  ops view the bits as the unsigned type); ``i1`` is ``bool`` (stored as one byte 0/1).
* ``f16``/``f32``/``f64``: the NumPy type itself.
* ``bf16``, ``tf32`` and the 8-bit floats have no NumPy type: they compute as ``float32`` holding
  only values the type can represent (every result is rounded into the type, by bit manipulation
  for bf16/tf32 and by a table for the 8-bit formats), and store as their own bit patterns.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Dict

import numpy as np

from tileir_diff.ir.attributes import _MINIFLOATS, _minifloat
from tileir_diff.ir.types import ScalarType

from .errors import InterpreterError

INT_DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
UINT_OF = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16, np.dtype(np.int32): np.uint32,
           np.dtype(np.int64): np.uint64, np.dtype(np.bool_): np.bool_}

STORAGE: Dict[str, type] = {
    "i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16, "tf32": np.float32,
    "f8E4M3FN": np.uint8, "f8E5M2": np.uint8, "f8E8M0FNU": np.uint8, "f8E5M3FNU": np.uint8,
}
COMPUTE: Dict[str, type] = {
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.float32, "tf32": np.float32,
    "f8E4M3FN": np.float32, "f8E5M2": np.float32, "f8E8M0FNU": np.float32, "f8E5M3FNU": np.float32,
}
#: Host (torch-style) dtype names <-> Tile IR element names.
HOST_TO_ELEMENT = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
}


def name_of(t) -> str:
    name = t.name if isinstance(t, ScalarType) else str(t)
    if name not in STORAGE:
        raise InterpreterError(f"element type {name} is not supported by the interpreter")
    return name


def compute_dtype(name: str):
    return COMPUTE[name]


def storage_dtype(name: str):
    return STORAGE[name]


def itemsize(name: str) -> int:
    return np.dtype(STORAGE[name]).itemsize


def is_float(name: str) -> bool:
    return name[0] in "fbt"


# --- rounding into the types without a NumPy dtype -----------------------------------------------

def round_bf16(x) -> np.ndarray:
    """float32 values rounded to the nearest bf16 (ties to even), as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    nan = (bits & 0x7F800000) == 0x7F800000
    nan &= (bits & 0x007FFFFF) != 0
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    rounded = np.where(nan, bits | np.uint32(0x00400000), rounded).astype(np.uint32)
    return (rounded & np.uint32(0xFFFF0000)).view(np.float32)


def round_tf32(x) -> np.ndarray:
    """float32 values rounded to 10 mantissa bits (ties to even), as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    nan = ((bits & 0x7F800000) == 0x7F800000) & ((bits & 0x007FFFFF) != 0)
    rounded = (bits + np.uint32(0xFFF) + ((bits >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    return np.where(nan, bits, rounded).astype(np.uint32).view(np.float32)


@lru_cache(maxsize=None)
def minifloat_table(name: str) -> np.ndarray:
    """Value of every bit pattern of an 8-bit float type (float64, NaN where NaN)."""
    fmt = _MINIFLOATS[name]
    total = fmt[0] + fmt[1] + (1 if fmt[3] else 0)
    return np.array([_minifloat(b, *fmt) for b in range(1 << total)], dtype=np.float64)


@lru_cache(maxsize=None)
def _minifloat_encoder(name: str):
    """(sorted finite values, their codes, max finite, code of NaN, code of +inf or None)."""
    table = minifloat_table(name)
    codes = np.arange(len(table))
    finite = np.isfinite(table)
    vals, idx = np.unique(table[finite], return_index=True)
    cand = codes[finite][idx]
    # prefer +0 over -0 for the value 0 (np.unique keeps the first occurrence: code 0 is +0)
    nan_code = int(codes[np.isnan(table)][0]) if np.isnan(table).any() else None
    inf = codes[np.isposinf(table)]
    return vals, cand, float(vals.max()), nan_code, (int(inf[0]) if len(inf) else None)


def encode_minifloat(x, name: str) -> np.ndarray:
    """Values -> bit patterns of an 8-bit float, round to nearest (ties to the even code).

    Out of range: to infinity for types with one (f8E5M2), else to NaN (the FN types have no
    infinity; a saturating conversion is not what Tile IR's ftof states). NaN -> the NaN code.
    """
    x = np.asarray(x, dtype=np.float64)
    vals, codes, vmax, nan_code, inf_code = _minifloat_encoder(name)
    signed = _MINIFLOATS[name][3]
    mag = np.abs(x) if signed else x
    pos = np.clip(np.searchsorted(vals, mag), 1, len(vals) - 1)
    lo, hi = vals[pos - 1], vals[pos]
    pick_hi = (mag - lo > hi - mag) | ((mag - lo == hi - mag) & (codes[pos] % 2 == 0))
    out = np.where(pick_hi, codes[pos], codes[pos - 1]).astype(np.int64)
    # beyond the largest finite value by at least half an ulp: overflow
    ulp_top = vals[-1] - vals[-2]
    # a tie at the top goes to the even neighbour: the largest finite when its code is even
    halfway = vmax + ulp_top / 2
    over = (mag > halfway) | ((mag == halfway) & (codes[-1] % 2 == 1))
    if inf_code is not None:
        out = np.where(over, inf_code, out)
    elif nan_code is not None:
        out = np.where(over, nan_code, out)
    out = np.where(mag < vals[0], codes[0], out)
    if signed:
        sign_bit = 1 << (_MINIFLOATS[name][0] + _MINIFLOATS[name][1])
        out = np.where(np.signbit(x), out | sign_bit, out)
    if nan_code is not None:
        out = np.where(np.isnan(x), nan_code, out)
    return out.astype(np.uint8)


def decode_minifloat(bits, name: str) -> np.ndarray:
    return minifloat_table(name)[np.asarray(bits, dtype=np.int64)].astype(np.float32)


def round_to(x, name: str) -> np.ndarray:
    """Float values (any float dtype) rounded to the nearest value of float type ``name``, in the
    compute dtype of ``name``."""
    if name == "f32":
        return np.asarray(x, dtype=np.float32)
    if name == "f16":
        return np.asarray(x).astype(np.float16)
    if name == "f64":
        return np.asarray(x, dtype=np.float64)
    if name == "bf16":
        return round_bf16(_to_f32_for_narrowing(x))
    if name == "tf32":
        return round_tf32(_to_f32_for_narrowing(x))
    if name.startswith("f8"):
        return decode_minifloat(encode_minifloat(x, name), name)
    raise InterpreterError(f"cannot round to {name}")


def _to_f32_for_narrowing(x) -> np.ndarray:
    # float64 -> float32 -> bf16 rounds twice; tolerable (documented) and only hit by f64 sources
    return np.asarray(x, dtype=np.float32)


# --- storage <-> compute -------------------------------------------------------------------------

def decode(stored: np.ndarray, name: str) -> np.ndarray:
    """Storage-dtype array -> compute representation."""
    if name == "i1":
        return stored != 0
    if name == "bf16":
        return (stored.astype(np.uint32) << np.uint32(16)).view(np.float32)
    if name.startswith("f8"):
        return decode_minifloat(stored, name)
    return stored


def encode(values: np.ndarray, name: str) -> np.ndarray:
    """Compute representation -> storage-dtype array (values are already of the type)."""
    if name == "i1":
        return np.asarray(values).astype(np.uint8)
    if name == "bf16":
        return (round_bf16(values).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    if name == "tf32":
        return round_tf32(values)
    if name.startswith("f8"):
        return encode_minifloat(values, name)
    return np.asarray(values).astype(STORAGE[name], copy=False)


def to_bits(values: np.ndarray, name: str) -> np.ndarray:
    """The bit patterns of values as an unsigned integer array of the type's width."""
    stored = np.array(encode(values, name), copy=True)  # own, contiguous, and keeps 0-d as 0-d
    width = stored.dtype.itemsize
    return stored.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width])


def from_bits(bits: np.ndarray, name: str) -> np.ndarray:
    """Unsigned bit patterns -> compute representation of type ``name``."""
    stored = np.array(bits, copy=True).view(STORAGE[name]) if name != "i1" else np.asarray(bits)
    return decode(stored, name)


def from_python(value, name: str) -> np.ndarray:
    """A Python number as a 0-d value of element type ``name`` (ints wrap like two's complement)."""
    if name == "i1":
        return np.asarray(bool(value))
    if name in INT_DTYPES:
        width = np.dtype(INT_DTYPES[name]).itemsize * 8
        v = int(value) & ((1 << width) - 1)
        if v >= 1 << (width - 1):
            v -= 1 << width
        return np.asarray(v, dtype=INT_DTYPES[name])
    return round_to(np.float64(value), name)


def flush_denormals(x: np.ndarray) -> np.ndarray:
    """flush_to_zero: f32 subnormals become zero of the same sign."""
    x = np.asarray(x)
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros((), x.dtype), x), x).astype(x.dtype)
