"""Short, stable text for types and attribute values as summaries show them.

Kept separate from the text printer on purpose: summaries need one-line, JSON-ready strings
(and work while the printer evolves); the spellings follow tileirdisasm where it has one.
"""
from __future__ import annotations

import struct
from typing import Any

from ..ir import attributes as A
from ..ir import types as T
from ..ir.type_text import type_text as _type_text
from ..normalize.canon import attr_text as _attribute_text


def dims_text(dims) -> str:
    return "x".join("?" if d is None else str(d) for d in dims)


def shape_text(tile: T.TileType) -> str:
    """``128x64xf16`` for a tile, ``f32`` for a rank-0 tile."""
    elem = type_text(tile.element)
    return f"{dims_text(tile.shape)}x{elem}" if tile.shape else elem


def type_text(t: Any) -> str:
    """A type as the printer spells it (ir/type_text.py: one spelling everywhere)."""
    try:
        return _type_text(t)
    except TypeError:
        return str(t)


def float_text(value: float) -> str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e15:
        return f"{value:.1f}" if value or str(value)[0] != "-" else "-0.0"
    return repr(value)


def attr_text(v: Any) -> str:
    """One-line text for any attribute value the IR model holds: the spelling the differences'
    messages use (normalize/canon.attr_text, one place for it), except that a dense value shows
    its first elements as a short list without its type (``dense_text``), as summaries list
    constants and globals."""
    if isinstance(v, A.DenseElements):
        return dense_text(v)
    return _attribute_text(v)


def attr_json(v: Any) -> Any:
    """A JSON-ready value for an attribute (dicts stay dicts so agents can read keys)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else float_text(v)
    if isinstance(v, A.DictAttr):
        return {k: attr_json(x) for k, x in v.items}
    if isinstance(v, A.OptimizationHints):
        return {k: attr_json(d) for k, d in v.by_arch}
    if isinstance(v, A.IntegerAttr):
        return v.value
    if isinstance(v, (tuple, list)):
        return [attr_json(x) for x in v]
    return attr_text(v)


#: struct formats of the element types whose one stored element is read without numpy (a
#: splat's value, the common case; importing numpy costs more than summarizing a small kernel).
_STRUCT_ELEMENTS = {"i1": "<B", "i8": "<b", "i16": "<h", "i32": "<i", "i64": "<q", "f16": "<e", "f32": "<f", "f64": "<d"}


def dense_text(v: A.DenseElements, max_elements: int = 4) -> str:
    elem = type_text(v.element)
    code = _STRUCT_ELEMENTS.get(elem) if elem == getattr(v.element, "name", None) else None
    if code is not None and v.stores_one_element():
        return f"<{elem}: {scalar_text(struct.unpack(code, v.data)[0], elem)}>"
    try:
        values = v.to_numpy().reshape(-1)
    except Exception:  # an element type without a decoding: show the bytes' size instead
        return f"<{elem}: {len(v.data)} bytes>"
    if v.is_splat or len(values) == 1:
        return f"<{elem}: {scalar_text(values[0], elem)}>"
    shown = ", ".join(scalar_text(x, elem) for x in values[:max_elements])
    more = ", …" if len(values) > max_elements else ""
    return f"<{elem}: [{shown}{more}]>"


def scalar_text(x, elem: str) -> str:
    if elem == "i1":
        return "true" if bool(x) else "false"
    if elem.startswith("i"):
        return str(int(x))
    return float_text(float(x))


def hints_json(hints: Any):
    """Optimization hints as {arch: {key: value}}; None when absent."""
    if hints is None:
        return None
    if isinstance(hints, (A.OptimizationHints, A.DictAttr)):
        return attr_json(hints)
    return attr_text(hints)
