"""``@record``: ``@dataclass(frozen=True)`` for the IR's small value classes, cheaper to define.

CPython 3.11 (3.10 and 3.12 alike) compiles every method a dataclass writes with an ``exec`` of
its own: about 3.2 M instructions per frozen class of three fields (six methods), and a
whole-process diff defines some sixty dataclasses: ~200 M instructions, ~30 % of a small
pair's whole-process diff (docs/performance.md). ``record`` lets ``dataclass`` write only the
methods a frozen instance needs compiled (``__init__``, ``__setattr__``, ``__delattr__``) and
gives ``__eq__``, ``__hash__`` and ``__repr__`` as closures over the field names (about a third
of the cost saved), with dataclass's behaviour: equal when the classes are the same and the
tuples of compared fields are equal (else ``NotImplemented``); the hash of the tuple of hashed
fields (so sets and dicts of records hold and order them as before); ``Qualname(field=repr,
...)``, ``...`` for a record inside its own repr. A method the class body defines is kept. The
class is a dataclass as before (``fields``, ``replace``, ``asdict``, pickling); only
``__dataclass_params__`` says ``eq=False, repr=False``. tests/ir/test_record.py compares twin
classes (the same body under ``dataclass`` and ``record``) and checks every IR record over
decoded corpus kernels.
"""
from __future__ import annotations

import reprlib
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Callable, Tuple

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_options):
        return lambda decorated: decorated


def _methods(cls) -> dict:
    compared = tuple(f.name for f in fields(cls) if f.compare)
    hashed = tuple(f.name for f in fields(cls) if (f.compare if f.hash is None else f.hash))
    shown = tuple(f.name for f in fields(cls) if f.repr)
    methods = {"__eq__": _eq(compared), "__hash__": _hash(hashed)}

    @reprlib.recursive_repr()
    def __repr__(self):
        return self.__class__.__qualname__ + "(" + ", ".join([f"{n}={getattr(self, n)!r}" for n in shown]) + ")"
    methods["__repr__"] = __repr__
    return methods


# One closure per field count, the attributes read by operator.attrgetter (C): the tuples
# compared and hashed are the ones dataclass's generated methods build.
def _eq(names: Tuple[str, ...]) -> Callable:
    if len(names) == 1:
        one = attrgetter(names[0])

        def eq_one(self, other):
            if other.__class__ is self.__class__:
                return (one(self),) == (one(other),)
            return NotImplemented
        return eq_one
    several = attrgetter(*names) if names else (lambda obj: ())

    def eq_several(self, other):
        if other.__class__ is self.__class__:
            return several(self) == several(other)
        return NotImplemented
    return eq_several


def _hash(names: Tuple[str, ...]) -> Callable:
    if len(names) == 1:
        one = attrgetter(names[0])

        def hash_one(self):
            return hash((one(self),))
        return hash_one
    several = attrgetter(*names) if names else (lambda obj: ())

    def hash_several(self):
        return hash(several(self))
    return hash_several


@dataclass_transform(frozen_default=True)
def record(cls=None, /, *, slots: bool = False):
    """``@dataclass(frozen=True)`` (``slots`` as dataclass's) with ``__eq__``, ``__hash__`` and
    ``__repr__`` built without compiling source (see the module docstring)."""
    def wrap(cls):
        own = {name for name in ("__eq__", "__hash__", "__repr__") if name in cls.__dict__}
        out = dataclass(cls, frozen=True, eq=False, repr=False, slots=slots)
        for name, method in _methods(out).items():
            if name not in own:
                method.__name__, method.__qualname__ = name, f"{out.__qualname__}.{name}"
                setattr(out, name, method)
        return out
    return wrap if cls is None else wrap(cls)
