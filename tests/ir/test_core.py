"""The IR core (tileir_diff/ir/core.py): its fast constructors build what the dataclasses build."""
from __future__ import annotations

import pytest

from tileir_diff.ir.types import ScalarType, TileType


def test_fast_ir_constructors_match_the_dataclass_ones():
    """make_value/make_operation/Operation.replace skip the frozen-dataclass __init__; they are
    valid only while Value and Operation stay plain frozen dataclasses."""
    import dataclasses

    from tileir_diff.ir import Operation, Value
    from tileir_diff.ir.core import make_operation, make_value

    for cls in (Value, Operation):
        assert dataclasses.is_dataclass(cls) and "__slots__" in cls.__dict__
        assert not hasattr(cls, "__post_init__")
    t = TileType((4,), ScalarType("f32"))
    assert make_value(3, t) == Value(3, t) and hash(make_value(3, t)) == hash(Value(3, t))
    a, b = Value(0, t), Value(1, t)
    fields = dict(name="addf", operands=(a, b), segments=(1, 1), results=(Value(2, t),),
                  attributes={"rounding_mode": "x"}, regions=(), location=None)
    fast, slow = make_operation(**fields), Operation(**fields)
    assert {f.name: getattr(fast, f.name) for f in dataclasses.fields(Operation)} == \
           {f.name: getattr(slow, f.name) for f in dataclasses.fields(Operation)}
    moved = slow.replace(operands=(b, a))
    assert moved.operands == (b, a) and moved.name == "addf" and slow.operands == (a, b)
    via_dataclasses = dataclasses.replace(slow, operands=(b, a))
    assert all(getattr(via_dataclasses, f.name) == getattr(moved, f.name) for f in dataclasses.fields(Operation))
    with pytest.raises(TypeError):
        slow.replace(nope=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.name = "subf"
