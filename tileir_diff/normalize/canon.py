"""Canonical text of types and attribute values: exact keys for comparison, readable text for messages.

Keys are plain strings built from the IR values (floats by bit pattern, dict keys sorted, splat
constants in one form), so they are stable across runs, processes and library versions.
"""
from __future__ import annotations

import struct
from functools import lru_cache
from typing import Any

from ..ir import (Bounded, DenseElements, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr, OptimizationHints,
                  SameElements)
from ..ir.attributes import decode_float_bits
from ..ir.type_text import type_text
from ..ir.types import SCALAR_TYPES, Type


#: id(type) -> (type, text). Types come from a module's type table, so the same few objects are
#: formatted over and over; looking them up by identity skips hashing the nested dataclass each
#: time. Entries keep their type alive (types are small and few; the table is bounded).
_TYPE_TEXT_BY_ID: dict = {}


def fmt_type(t: Any) -> str:
    """A type in tileirdisasm's spelling (ir/type_text.py), looked up by identity first."""
    hit = _TYPE_TEXT_BY_ID.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    text = _fmt_type_by_value(t)
    if len(_TYPE_TEXT_BY_ID) > 4096:
        _TYPE_TEXT_BY_ID.clear()
    _TYPE_TEXT_BY_ID[id(t)] = (t, text)
    return text


@lru_cache(maxsize=65536)
def _fmt_type_by_value(t: Any) -> str:
    try:
        return type_text(t)  # the printer's spelling (ir/type_text.py), the one spelling of a type
    except TypeError:
        return str(t)


#: Float types whose bit patterns ``struct`` decodes exactly as ``decode_float_bits`` does (the
#: same value: float64 for f64, the float32 value otherwise): name -> (unsigned format, float
#: format, bits kept, shift). Other types go through numpy, imported only then (importing it
#: costs more than diffing a small kernel).
_STRUCT_FLOATS = {"f64": ("<Q", "<d", (1 << 64) - 1, 0), "f32": ("<I", "<f", 0xFFFFFFFF, 0),
                  "tf32": ("<I", "<f", 0xFFFFFFFF, 0), "f16": ("<H", "<e", 0xFFFF, 0),
                  "bf16": ("<I", "<f", 0xFFFF, 16)}


#: Bytes of the signed integer types whose splat text is read straight from the data.
_SIGNED_WIDTHS = {"i8": 1, "i16": 2, "i32": 4, "i64": 8}


def _float_value(bits: int, name: str) -> float:
    fmt = _STRUCT_FLOATS.get(name)
    if fmt is not None and type(bits) is int and 0 <= bits < 1 << 64:
        unsigned, floating, keep, shift = fmt
        return struct.unpack(floating, struct.pack(unsigned, (bits & keep) << shift))[0]
    import numpy as np
    return float(decode_float_bits(np.array([bits], dtype=np.uint64), name)[0])


def _float_text(bits: int, name: str) -> str:
    v = _float_value(bits, name)
    if name in ("f32", "tf32"):
        return repr(v) if v == v else "nan"
    return repr(v)


#: Bytes per stored element for ``_dense_splat_bits``, per scalar type name.
_SPLAT_SIZES = {name: 1 if name == "i1" else max(1, spec[0] // 8) for name, spec in SCALAR_TYPES.items()}


def _dense_splat_bits(d: DenseElements):
    """The one element's bits when all stored elements are equal (DenseElements.bits() semantics,
    compared as bytes: no numpy array per constant)."""
    elem = d.element
    size = _SPLAT_SIZES.get(elem.name)
    if size is None:  # (not a scalar type: ``width`` raises as it always did)
        size = 1 if elem.name == "i1" else max(1, elem.width // 8)
    data = d.data
    usable = len(data) - len(data) % size
    if not usable:
        return None
    first = data[:size]
    if usable == size or data[:usable] == first * (usable // size):
        return int.from_bytes(first, "little")
    return None


_KEY_CACHE: dict = {}


#: id(value) -> (value, key) in front of _KEY_CACHE: rules pass attribute values on by reference,
#: so the same objects come back; hashing a value (a constant's type and bytes) costs more than
#: this lookup. Entries keep their value alive.
_KEY_BY_ID: dict = {}

#: Both memo tables are bounded in entries and in bytes (the keys' characters plus the constants'
#: data they keep alive): a dense constant's key spells its data, so 200,000 entries of large
#: tables would hold gigabytes in a process that diffs many kernels (a server). Past either
#: bound a table is emptied and refilled. (Approximate under threads: a count another thread
#: updates at the same time may drift until the next emptying, which resets it.)
_MEMO_ENTRIES = 200_000
_MEMO_BYTES = 64 << 20
_memo_bytes = {"by_value": 0, "by_id": 0}


def _memo_put(table: dict, name: str, key, entry, size: int) -> None:
    if len(table) >= _MEMO_ENTRIES or _memo_bytes[name] + size > _MEMO_BYTES:
        table.clear()
        _memo_bytes[name] = 0
    table[key] = entry
    _memo_bytes[name] += size


def attr_key(v: Any) -> str:
    """Exact canonical string of an attribute value (what decides equality). Memoized: attribute
    values are immutable and hashable (a large kernel repeats the same few values)."""
    hit = _KEY_BY_ID.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1]
    if type(v) is DenseElements:  # hashing one (its type record, its bytes) costs more than its key
        k = _dense_key(v)
        size = len(k) + len(v.data)
    else:
        try:
            k = _KEY_CACHE[(type(v), v)]
        except KeyError:
            k = _attr_key(v)
            _memo_put(_KEY_CACHE, "by_value", (type(v), v), k, 2 * len(k))
        except TypeError:  # unhashable (should not happen with the IR model): compute every time
            return _attr_key(v)
        size = len(k)
    _memo_put(_KEY_BY_ID, "by_id", id(v), (v, k), size)
    return k


def _dense_key(v: DenseElements) -> str:
    t, data = v.type, v.data
    if len(data) == _SPLAT_SIZES.get(t.element.name, -1):  # type: ignore[attr-defined]  # (a dense constant's type is a tile)
        # one element stored (most constants): what _dense_splat_bits finds, without its slicing
        return f"dense<{fmt_type(t)}|splat:0x{int.from_bytes(data, 'little'):x}>"
    splat = _dense_splat_bits(v)
    body = f"splat:0x{splat:x}" if splat is not None else v.data.hex()
    return f"dense<{fmt_type(v.type)}|{body}>"


def _sequence_key(v) -> str:
    return "[" + ",".join(attr_key(x) for x in v) + "]"


#: The exact key of each attribute class (by exact class; what is not here falls to ``_attr_key``).
#: Dictionaries are unordered, so their keys sort the entries.
_KEY_OF = {
    EnumValue: lambda v: v.name,
    bool: lambda v: "true" if v else "false",
    int: repr,
    str: repr,
    FloatAttr: lambda v: f"{v.type.name}:0x{v.bits:x}",
    IntegerAttr: lambda v: f"{v.value}:{fmt_type(v.type)}",
    DenseElements: _dense_key,
    DictAttr: lambda v: "{" + ",".join(f"{k}={attr_key(x)}" for k, x in sorted(v.items, key=lambda kv: kv[0])) + "}",
    OptimizationHints: lambda v: "hints<" + ",".join(f"{k}={attr_key(d)}"
                                                     for k, d in sorted(v.by_arch, key=lambda kv: kv[0])) + ">",
    DivBy: lambda v: f"div_by<{v.divisor},{v.every},{v.along}>",
    Bounded: lambda v: f"bounded<{v.lb},{v.ub}>",
    SameElements: lambda v: "same_elements<" + ",".join(attr_key(x) for x in v.values) + ">",
    tuple: _sequence_key,
    list: _sequence_key,
}


def _attr_key(v: Any) -> str:
    key_of = _KEY_OF.get(type(v))
    if key_of is not None:
        return key_of(v)
    if isinstance(v, (tuple, list)):  # a named tuple
        return _sequence_key(v)
    if isinstance(v, Type):
        return fmt_type(v)
    if v is None:
        return "none"
    return repr(v)  # int and str subclasses included, as their exact classes


def attr_text(v: Any) -> str:
    """Readable text of an attribute value for messages ("<f32: 1e-05>", "div_by<16>")."""
    if isinstance(v, EnumValue):
        return v.name
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, FloatAttr):
        return f"{_float_text(v.bits, v.type.name)} : {v.type.name}"
    if isinstance(v, IntegerAttr):
        return f"{v.value} : {fmt_type(v.type)}"
    if isinstance(v, DenseElements):
        el = v.element
        splat = _dense_splat_bits(v)
        if splat is not None:
            width = _SIGNED_WIDTHS.get(el.name)
            if el.is_float:
                val = _float_text(splat, el.name)
            elif el.name == "i1":
                val = "true" if splat else "false"
            elif width is not None:  # numpy's text of its first element, without numpy
                val = str(int.from_bytes(v.data[:width], "little", signed=True))
            else:
                val = str(v.to_numpy().reshape(-1)[0])
            return f"<{el.name}: {val}>" + (f" : {fmt_type(v.type)}" if v.type.shape else "")
        arr = v.to_numpy().reshape(-1)
        head = ", ".join(str(x) for x in arr[:6]) + (", ..." if len(arr) > 6 else "")
        return f"dense<[{head}]> : {fmt_type(v.type)}"
    if isinstance(v, DictAttr):
        return "{" + ", ".join(f"{k} = {attr_text(x)}" for k, x in v.items) + "}"
    if isinstance(v, OptimizationHints):
        return "<" + ", ".join(f"{k} = {attr_text(d)}" for k, d in v.by_arch) + ">"
    if isinstance(v, DivBy):
        extra = (f", every {v.every} along {v.along}" if v.every is not None else "")
        return f"div_by<{v.divisor}{extra}>"
    if isinstance(v, Bounded):
        return f"bounded<{'?' if v.lb is None else v.lb}, {'?' if v.ub is None else v.ub}>"
    if isinstance(v, SameElements):
        return "same_elements<[" + ", ".join(attr_text(x) for x in v.values) + "]>"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(attr_text(x) for x in v) + "]"
    if isinstance(v, Type):
        return fmt_type(v)
    if v is None:
        return "(absent)"
    return str(v)
