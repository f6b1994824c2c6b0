"""What a rule needs to know about constants: the bit pattern of every element, and splats."""
from __future__ import annotations

from typing import Dict, Optional

from ...ir import SCALAR_TYPES, DenseElements, Operation, ScalarType
from ..util import op_lists, producers_of

#: Bit patterns of 1.0 and -0.0 per float type (bf16 and tf32 have no NumPy dtype).
FLOAT_ONE = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000, "tf32": 0x3F800000, "f64": 0x3FF0000000000000}
FLOAT_NEG_ZERO = {"f16": 0x8000, "bf16": 0x8000, "f32": 0x80000000, "tf32": 0x80000000, "f64": 1 << 63}
INT_WIDTH = {"i1": 1, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64}


#: Bytes a dense constant stores per element, per scalar type (``ir.attributes._elem_bytes``).
_ELEMENT_BYTES = {name: 1 if name == "i1" else max(1, width // 8) for name, (width, _) in SCALAR_TYPES.items()}


def stored_element_bytes(value) -> Optional[int]:
    """What ``DenseElements`` methods compute as the bytes per stored element of ``value``, read
    off a table when ``value`` is a DenseElements of a scalar element type; else None (the
    caller takes the methods' path)."""
    if type(value) is not DenseElements:
        return None
    element = getattr(value.type, "element", None)
    return _ELEMENT_BYTES.get(element.name) if type(element) is ScalarType else None


def uniform_bits(op: Optional[Operation]) -> Optional[int]:
    """The one bit pattern every element of a ``constant`` has, or None (not a constant, or
    elements that differ)."""
    if op is None or op.name != "constant":
        return None
    value = op.attributes.get("value")
    if not isinstance(value, DenseElements):
        return None
    try:
        size = stored_element_bytes(value)
        if size is not None and size in (1, 2, 4, 8):  # stores_one_element() and first_bits(), without their calls
            if len(value.data) == size:
                return int.from_bytes(value.data, "little")
        elif value.stores_one_element():
            return value.first_bits()  # most constants are splats: no numpy array
        bits = value.bits()
    except Exception:  # an element type without a fixed width: not for these rules
        return None
    if len(bits) == 0:
        return None
    first = int(bits[0])
    return first if all(int(b) == first for b in bits[:4096]) and (len(bits) <= 4096 or
                                                                   bool((bits == bits[0]).all())) else None


def element_name(op: Operation) -> Optional[str]:
    t = op.results[0].type if op.results else None
    el = getattr(t, "element", None)
    return getattr(el, "name", None)


def producers(function) -> Dict[int, Operation]:
    """value id -> the op defining it (``util.producers_of``)."""
    return producers_of(function)


def constants(function) -> Dict[int, Operation]:
    """value id -> the ``constant`` op defining it: ``producers`` for rules that only look for
    constants (value ids are unique in a function: readers number values, the text parser
    refuses a redefinition, rules take new ids above the largest)."""
    out: Dict[int, Operation] = {}
    for ops in op_lists(function.body):
        out.update({r.vid: op for op in ops if op.name == "constant" for r in op.results})
    return out
