"""@record (ir/record.py) behaves as @dataclass(frozen=True): equality, hashes, reprs, frozen
fields, replace(), pickling; checked against dataclass's own methods on twin classes and, on the
IR's record classes, against what dataclass's methods compute, over decoded corpus kernels."""
import dataclasses
import pickle
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Optional

import pytest

import tileir_diff
from tileir_diff.bytecode import container
from tileir_diff.ir import attributes, core, types
from tileir_diff.ir.record import record
from tileir_diff.match import mapping
from tileir_diff.text import template

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"


def _pairs(make):
    """Twins: the same class body under @dataclass(frozen=True) and under @record."""
    return make(dataclass(frozen=True)), make(record)


def _bodies():
    def empty(deco):
        @deco
        class Empty:
            pass
        return Empty

    def one(deco):
        @deco
        class One:
            name: str
        return One

    def several(deco):
        @deco
        class Several:
            a: int
            b: Optional[str] = None
            c: tuple = ()
            hidden: int = field(default=0, compare=False, repr=False)
            unhashed: int = field(default=0, hash=False)
        return Several
    return [empty, one, several]


@pytest.mark.parametrize("make", _bodies(), ids=lambda m: m.__name__)
def test_twins_agree(make):
    dc, rec = _pairs(make)
    names = [f.name for f in fields(dc)]
    values = {"name": ["x", "y"], "a": [1, 2], "b": [None, "s"], "c": [(), (1, "2")], "hidden": [0, 5],
              "unhashed": [0, 7]}
    combos = [{}]
    for n in names:
        combos = [dict(c, **{n: v}) for c in combos for v in values[n]]
    for left in combos:
        for right in combos:
            assert (dc(**left) == dc(**right)) == (rec(**left) == rec(**right))
        d, r = dc(**left), rec(**left)
        assert hash(d) == hash(r)
        assert repr(d).replace("Several", "X").replace("One", "X").replace("Empty", "X") == \
            repr(r).replace("Several", "X").replace("One", "X").replace("Empty", "X")
        assert (r == 5) is False and r.__eq__(5) is NotImplemented
        for n in names:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(r, n, None)
        assert dataclasses.replace(r, **left) == r
        assert pickle.loads(pickle.dumps(r)) == r if r.__class__.__qualname__.count("<locals>") == 0 else True


RECORD_FILE = record.__code__.co_filename


def _record_classes():
    out = []
    for module in (types, attributes, core, template, container, mapping):
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == module.__name__ and dataclasses.is_dataclass(obj) \
                    and getattr(getattr(obj.__eq__, "__code__", None), "co_filename", None) == RECORD_FILE:
                out.append(obj)
    return out


def test_the_ir_uses_records():
    names = {c.__name__ for c in _record_classes()}
    assert {"ScalarType", "TileType", "DenseElements", "EnumValue", "Value", "Block", "Function"} <= names
    assert "Operation" not in names  # equality by identity, as before


def _instances():
    """Every record instance reachable from a few decoded corpus kernels (types, attributes,
    values, blocks, regions, functions, locations)."""
    seen, out = set(), []
    classes = tuple(_record_classes())

    def visit(x):
        if id(x) in seen:
            return
        seen.add(id(x))
        if isinstance(x, classes):
            out.append(x)
        if isinstance(x, (tuple, list)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in fields(x):
                visit(getattr(x, f.name))
    for path in sorted(CORPUS.glob("*.v13_3.tileirbc"))[::6]:
        visit(tileir_diff.load(str(path)))
    return out


def test_ir_records_behave_as_dataclass_methods_would():
    found = _instances()
    assert len({type(x) for x in found}) >= 10
    for x in found:
        fs = fields(x)
        assert hash(x) == hash(tuple(getattr(x, f.name) for f in fs if (f.compare if f.hash is None else f.hash)))
        if type(x).__repr__ is not core.Value.__repr__:
            assert repr(x) == type(x).__qualname__ + "(" + ", ".join(
                f"{f.name}={getattr(x, f.name)!r}" for f in fs if f.repr) + ")"
        twin = dataclasses.replace(x)
        assert twin == x and twin is not x and hash(twin) == hash(x)
    kinds = {}
    for x in found:
        kinds.setdefault(type(x), []).append(x)
    for xs in kinds.values():
        for a, b in zip(xs, xs[1:]):
            same = tuple(getattr(a, f.name) for f in fields(a) if f.compare) == \
                tuple(getattr(b, f.name) for f in fields(b) if f.compare)
            assert (a == b) is same and (a != b) is not same
