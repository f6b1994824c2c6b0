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


def test_twin_classes_make_the_ir_classes_themselves():
    """The fast constructors fill a twin (ValueFields, OperationFields: the same slots, no frozen
    __setattr__) and make it a Value/Operation: the object is an ordinary instance of the IR class,
    frozen, weak-referenceable, with a label slot, equal, hashable, picklable and copyable like one
    the dataclass __init__ built."""
    import copy
    import dataclasses
    import pickle
    import weakref

    from tileir_diff.ir import Operation, Value
    from tileir_diff.ir import core
    from tileir_diff.ir.core import OperationFields, ValueFields, copy_label, make_operation, make_value

    assert core.TWINS  # CPython lets a twin become its class; the setters are the fallback elsewhere
    assert set(ValueFields.__slots__) == set(Value.__slots__)
    assert set(OperationFields.__slots__) == set(Operation.__slots__)
    assert OperationFields.__bases__ == Operation.__bases__
    t = TileType((4,), ScalarType("f32"))
    v = make_value(7, t)
    assert type(v) is Value and v == Value(7, t) and hash(v) == hash(Value(7, t)) and repr(v) == repr(Value(7, t))
    assert pickle.loads(pickle.dumps(v)) == v and copy.copy(v) == v and dataclasses.replace(v, vid=8) == Value(8, t)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.vid = 8
    fields = dict(name="addf", operands=(v, v), segments=(1, 1), results=(Value(8, t),),
                  attributes={"flush_to_zero": True}, regions=(), location=None, origin="f0/o3")
    op, slow = make_operation(**fields), Operation(**fields)
    assert type(op) is Operation and isinstance(op, core._OperationBase) and not isinstance(op, OperationFields)
    assert {f.name: getattr(op, f.name) for f in dataclasses.fields(Operation)} == fields
    assert op != slow and op == op  # identity equality (eq=False), as for any Operation
    assert weakref.ref(op)() is op
    assert getattr(op, "_label", None) is None
    core._set_label(slow, ("label",))
    copy_label(slow, op)
    assert op._label == ("label",)
    again = pickle.loads(pickle.dumps(op))
    assert type(again) is Operation and again.name == "addf" and again.results == op.results
    with pytest.raises(dataclasses.FrozenInstanceError):
        op.name = "subf"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del op.operands
