"""``@record``: ``@dataclass(frozen=True)`` for the package's small value classes, without compiling.

CPython (3.10-3.12) compiles every method a dataclass writes with an ``exec`` of its own: about
3.2 M instructions per frozen class of three fields (six methods), and a whole-process diff defines
some sixty dataclasses (docs/performance.md, session 12). ``record`` asks ``dataclass`` for the
fields only (``init``, ``repr``, ``eq`` off and not frozen: it then compiles nothing; for the
common class, every annotation a plain string, ``_plain_dataclass`` does that part itself, see
there) and gives the methods without compiling source:

- ``__init__``: a code object compiled once per shape (per field: a parameter or not, with a
  default or a ``default_factory``; whether the class has ``__post_init__``; frozen or not),
  then given the class's field names with ``CodeType.replace``; the same bytecode as dataclass's
  (positional or keyword arguments, defaults, ``default_factory`` called per instance, fields
  with ``init=False`` set from their default, ``__post_init__`` last);
- ``__setattr__`` and ``__delattr__`` of a frozen record: closures raising
  ``dataclasses.FrozenInstanceError`` with dataclass's messages;
- ``__eq__``, ``__hash__`` and ``__repr__``: closures over the field names, with dataclass's
  behaviour: equal when the classes are the same and the tuples of compared fields are equal
  (else ``NotImplemented``); the hash of the tuple of hashed fields (so sets and dicts of records
  hold and order them as before); ``Qualname(field=repr, ...)``, ``...`` for a record inside its
  own repr. ``record(frozen=False)`` is ``@dataclass`` (not frozen): no ``__setattr__``,
  ``__hash__`` is None, as dataclass sets it; ``record(eq=False)`` keeps ``object``'s equality
  and hash (identity), as ``dataclass(eq=False)`` does.

A method the class body defines is kept. The class is a dataclass as before (``fields``,
``replace``, ``asdict``, pickling, slots); ``__dataclass_params__`` says ``init=True``,
``frozen`` as asked, ``eq=False, repr=False``. A class this does not handle (an ``InitVar``, a
``kw_only`` field, a dataclass base, a field named like the ``__init__``'s
own names, a body defining ``__init__``) is refused with a TypeError at its definition.
tests/ir/test_record.py compares twin classes (the same body under ``dataclass`` and ``record``)
and checks every IR record over decoded corpus kernels.

This module sits at the bottom of the layering (tests/test_layering.py): dialect/ uses it too.
"""
from __future__ import annotations

import abc
import builtins
import reprlib
import sys
from operator import attrgetter
from types import CodeType, FunctionType, MemberDescriptorType, ModuleType
from typing import TYPE_CHECKING, Any, Callable, Dict, Tuple

from .record_inits import PRECOMPILED


class _InspectOnDemand(ModuleType):
    """What ``dataclasses`` holds as its ``inspect`` until that is first read: the module then.

    ``dataclasses`` imports ``inspect`` at its top, which imports ``ast``, ``dis``, ``tokenize``
    and ``linecache`` (about 25 M instructions, the largest part of the standard library a diff
    imports), but reads it only in ``dataclass()`` on a class without a docstring
    (``inspect.signature``), which the diff never runs. Any attribute read imports ``inspect``
    and binds it in ``dataclasses`` in place of this object: the same module from then on."""

    def __getattr__(self, name: str):
        if name[:2] == "__":  # (the import system's questions: not inspect's attributes)
            raise AttributeError(name)
        import inspect
        dataclasses_module = sys.modules.get("dataclasses")
        if dataclasses_module is not None and dataclasses_module.__dict__.get("inspect") is self:
            dataclasses_module.inspect = inspect  # type: ignore[attr-defined]
        return getattr(inspect, name)


def _import_dataclasses():
    """``import dataclasses``; when neither it nor ``inspect`` is imported yet, with
    ``_InspectOnDemand`` standing in for ``inspect`` during that import only (nothing but
    ``dataclasses`` can see it: it is out of ``sys.modules`` again before this returns)."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        import dataclasses
        return dataclasses
    stand_in = _InspectOnDemand("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
    return dataclasses


dataclasses = _import_dataclasses()
from dataclasses import Field, FrozenInstanceError, dataclass, fields  # noqa: E402

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_options):
        return lambda decorated: decorated


def _methods(cls, fs: Tuple[Field, ...], mutable: bool, eq: bool) -> dict:
    compared = tuple([f.name for f in fs if f.compare])  # (lists: cheaper than generators, some seventy classes)
    hashed = tuple([f.name for f in fs if (f.compare if f.hash is None else f.hash)])
    shown = tuple([f.name for f in fs if f.repr])
    methods = {"__eq__": _eq(compared), "__hash__": None if mutable else _hash(hashed)} if eq else {}

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


def _frozen_methods(cls, names: Tuple[str, ...]) -> dict:
    """dataclass's frozen ``__setattr__``/``__delattr__``: a field, or any name on the class
    itself, raises; a subclass's own attributes go through."""
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return {"__setattr__": __setattr__, "__delattr__": __delattr__}


# __init__ templates, one per shape: a letter per field, in field order (as dataclass assigns them):
# "p" a parameter, "P" a parameter with a default_factory, "d" init=False with a default, "f"
# init=False with a default_factory, "-" init=False with neither (__init__ leaves it unset).
# Parameters a<i> and attribute names n<i> are renamed to the field names; _SET, _FACTORY, _d<i>
# and _f<i> are read from the function's globals (one dict per class).
#
# Compiling a template costs ~0.8 M instructions (an ``exec``: parser and compiler), some thirty
# shapes at a diff's start-up. The shapes the package's records use are compiled ahead, in
# ``record_inits.py`` (written by ``python3 scripts/record_inits.py`` from template_source; its
# bytecode comes from the import cache like any module's); any other shape is compiled here.
# tests/ir/test_record.py checks that the file is current and that its code is what exec makes.
_SHAPES: Dict[Tuple[str, bool, bool], CodeType] = {}
_OWN_NAMES = frozenset({"self", "_SET", "_FACTORY", "__builtins__"})


def template_source(shape: str, post_init: bool, mutable: bool) -> str:
    """The source of the ``__init__`` template of one shape (see above)."""
    lines = [f"def __init__(self{''.join(f', a{i}' for i, kind in enumerate(shape) if kind in 'pP')}):"]
    values = {"p": "a{i}", "P": "_f{i}() if a{i} is _FACTORY else a{i}", "d": "_d{i}", "f": "_f{i}()"}
    for i, kind in enumerate(shape):
        if kind in values:
            value = values[kind].format(i=i)
            lines.append(f"    self.n{i} = {value}" if mutable else f"    _SET(self, 'n{i}', {value})")
    lines.append("    self.__post_init__()" if post_init else "    pass")
    return "\n".join(lines)


def _template(shape: str, post_init: bool, mutable: bool) -> CodeType:
    key = (shape, post_init, mutable)
    code = _SHAPES.get(key)
    if code is None:
        code = PRECOMPILED.get(key)
        if code is None:
            code = compile_template(shape, post_init, mutable)
        _SHAPES[key] = code  # (a racing thread stores the same code)
    return code


def compile_template(shape: str, post_init: bool, mutable: bool) -> CodeType:
    """The template of one shape, compiled now (what record_inits.py holds compiled ahead)."""
    scope: dict = {}
    exec(template_source(shape, post_init, mutable), {}, scope)  # noqa: S102 - fixed source, no input in it
    return scope["__init__"].__code__


def _init(cls, fs: Tuple[Field, ...], mutable: bool):
    shape, defaults, scope = _signature(fs)
    names = [f.name for f in fs]
    template = _template(shape, hasattr(cls, "__post_init__"), mutable)
    placeholders = {f"n{i}": name for i, name in enumerate(names)}
    renamed = {f"a{i}": name for i, name in enumerate(names)}
    changes: Dict[str, Any] = {
        "co_varnames": tuple([renamed.get(v, v) for v in template.co_varnames]),
        "co_consts": tuple([placeholders.get(c, c) if isinstance(c, str) else c for c in template.co_consts]),
        "co_names": tuple([placeholders.get(n, n) for n in template.co_names]),
    }
    if hasattr(template, "co_qualname"):
        changes["co_qualname"] = f"{cls.__qualname__}.__init__"
    scope.update({"__builtins__": builtins, "_SET": object.__setattr__, "_FACTORY": _HAS_DEFAULT_FACTORY})
    init = FunctionType(template.replace(**changes), scope, "__init__", defaults or None)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    annotations = {f.name: f.type for f in fs if f.init}
    annotations["return"] = None
    init.__annotations__ = annotations
    return init


class _FactorySentinel:
    def __repr__(self):
        return "<factory>"


# dataclass's own sentinel where it has one (inspect.signature shows it as <factory>)
_HAS_DEFAULT_FACTORY = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", _FactorySentinel())


def _plain_fields(cls) -> bool:
    """Whether ``record`` writes this class's ``__init__``: every pseudo-field a plain field or a
    ClassVar, none keyword-only, no name clash."""
    plain = getattr(dataclasses, "_FIELD", None)
    classvar = getattr(dataclasses, "_FIELD_CLASSVAR", None)
    for f in cls.__dataclass_fields__.values():
        kind = getattr(f, "_field_type", None)
        if kind is classvar:
            continue
        if kind is not plain or getattr(f, "kw_only", False) is True or f.name in _OWN_NAMES:
            return False
    return plain is not None


def _signature(fs: Tuple[Field, ...]) -> Tuple[str, tuple, Dict[str, Any]]:
    """The ``__init__`` shape of a class with fields ``fs`` (see ``_template``), its parameters'
    defaults, and the globals its body reads (defaults and factories of the fields not in ``__init__``)."""
    shape, defaults, scope = [], [], {}
    for i, f in enumerate(fs):
        has_default = f.default is not dataclasses.MISSING
        has_factory = f.default_factory is not dataclasses.MISSING
        if has_factory:
            scope[f"_f{i}"] = f.default_factory
        if not f.init:
            shape.append("d" if has_default else "f" if has_factory else "-")
            if has_default:
                scope[f"_d{i}"] = f.default
            continue
        shape.append("P" if has_factory else "p")
        if has_default:
            defaults.append(f.default)
        elif has_factory:
            defaults.append(_HAS_DEFAULT_FACTORY)
        elif defaults:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    return "".join(shape), tuple(defaults), scope


# What ``dataclass(cls, init=False, frozen=False, eq=False, repr=False)`` does to a class whose
# annotations are all strings (``from __future__ import annotations``) naming no ClassVar,
# InitVar or KW_ONLY, done without its per-annotation regular expressions and module lookups
# (about 0.2 M instructions a class, some seventy classes at start-up): a Field per annotation
# as ``_get_field`` makes it (a Field default kept, a slot descriptor meaning no default, a
# mutable default refused with dataclass's message), Field defaults replaced on the class, a
# Field without annotation refused, ``__dataclass_params__``, ``__dataclass_fields__`` and
# ``__match_args__``. The names are dataclasses' internals of CPython 3.11 (checked here); any
# other version, or any other annotation, goes through ``dataclass`` itself.
# tests/ir/test_record.py compares both paths.
_FAST_FIELDS = sys.version_info[:2] == (3, 11) and all(
    hasattr(dataclasses, name) for name in ("_FIELD", "_DataclassParams", "_FIELDS", "_PARAMS", "Field"))
_NOT_PLAIN = ("ClassVar", "InitVar", "KW_ONLY")


def _plain_dataclass(cls):
    annotations = cls.__dict__.get("__annotations__", {})
    try:  # all annotations strings (else TypeError), and none naming _NOT_PLAIN (no word spans the "\n")
        texts = "\n".join(annotations.values())
    except TypeError:
        texts = None
    if not _FAST_FIELDS or texts is None or any(w in texts for w in _NOT_PLAIN):
        return dataclass(cls, init=False, frozen=False, eq=False, repr=False)
    missing, field_class, plain = dataclasses.MISSING, dataclasses.Field, dataclasses._FIELD
    setattr(cls, dataclasses._PARAMS, dataclasses._DataclassParams(False, False, False, False, False, False))
    found = {}
    for name, annotation in annotations.items():
        default = getattr(cls, name, missing)
        if isinstance(default, field_class):
            f = default
        else:
            f = dataclasses.field(default=missing if isinstance(default, MemberDescriptorType) else default)
        f.name, f.type, f._field_type = name, annotation, plain
        if f.kw_only is missing:
            f.kw_only = False
        if f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {f.name} is not allowed: "
                             "use default_factory")
        found[name] = f
    for f in found.values():
        if isinstance(getattr(cls, f.name, None), field_class):
            if f.default is missing:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, field_class) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    setattr(cls, dataclasses._FIELDS, found)
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple([f.name for f in found.values() if f.init and not f.kw_only])  # type: ignore[misc]
    abc.update_abstractmethods(cls)
    return cls


def _build(cls, slots: bool, mutable: bool, eq: bool):
    own = {name for name in ("__init__", "__eq__", "__hash__", "__repr__", "__setattr__", "__delattr__")
           if name in cls.__dict__}
    frozen = not mutable
    if "__init__" in own or (frozen and own & {"__setattr__", "__delattr__"}) \
            or any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"record: {cls.__qualname__} defines __init__, __setattr__ or __delattr__ or has a "
                        "dataclass base; use dataclasses.dataclass")
    documented = bool(cls.__dict__.get("__doc__"))
    if not documented:
        cls.__doc__ = "undocumented"  # dataclass would document it by a signature without __init__
    out = _plain_dataclass(cls)
    if not _plain_fields(out):
        raise TypeError(f"record: {cls.__qualname__} has an InitVar, a kw_only field or a field named like "
                        "__init__'s own names; use dataclasses.dataclass")
    fs = fields(out)
    names = tuple([f.name for f in fs])
    if slots:
        out = _with_slots(out, names, frozen)
    methods = _methods(out, fs, mutable, eq)
    methods["__init__"] = _init(out, fs, mutable)
    if frozen:
        methods.update(_frozen_methods(out, names))
    params = out.__dataclass_params__
    params.init, params.frozen = True, frozen
    for name, method in methods.items():
        if name not in own:
            if method is not None:
                method.__name__, method.__qualname__ = name, f"{out.__qualname__}.{name}"
            setattr(out, name, method)
    if not documented:  # as dataclass documents a class without a docstring: by its signature
        signature = _signature_text(out, fs)
        if signature is None:
            import inspect
            signature = str(inspect.signature(out))
        out.__doc__ = out.__name__ + signature.replace(" -> None", "")
    return out


def _signature_text(cls, fs: Tuple[Field, ...]) -> "str | None":
    """``str(inspect.signature(cls))`` written directly (inspect takes ~0.24 M instructions a
    class, some thirty undocumented records at start-up) for a class that ``record`` gave its
    ``__init__`` and whose parameters' annotations are strings: each parameter ``name: 'type'``,
    `` = repr(default)`` after it when it has one (a factory's sentinel shows as ``<factory>``),
    then `` -> None``, as inspect formats them. None for anything else (a metaclass, a
    ``__new__`` of its own, another annotation): inspect then answers.
    tests/ir/test_record.py compares both over every record of the package."""
    if type(cls) is not type or cls.__new__ is not object.__new__:
        return None
    parts = []
    for f in fs:
        if not f.init:
            continue
        if not isinstance(f.type, str):
            return None
        text = f"{f.name}: {f.type!r}"
        if f.default is not dataclasses.MISSING:
            text += f" = {f.default!r}"
        elif f.default_factory is not dataclasses.MISSING:
            text += f" = {_HAS_DEFAULT_FACTORY!r}"
        parts.append(text)
    return "(" + ", ".join(parts) + ") -> None"


def _getstate(self):
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self, state):
    for f, value in zip(fields(self), state):
        object.__setattr__(self, f.name, value)


def _with_slots(cls, names: Tuple[str, ...], frozen: bool):
    """A new class with ``__slots__`` for the fields, as ``dataclass(slots=True)`` makes (frozen:
    with the ``__getstate__``/``__setstate__`` that unpickling needs)."""
    body = dict(cls.__dict__)
    body["__slots__"] = names
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    qualname = getattr(cls, "__qualname__", None)
    out = type(cls)(cls.__name__, cls.__bases__, body)
    if qualname is not None:
        out.__qualname__ = qualname
    if frozen:
        if "__getstate__" not in body:
            out.__getstate__ = _getstate
        if "__setstate__" not in body:
            out.__setstate__ = _setstate
    return out


@dataclass_transform(frozen_default=True)
def record(cls=None, /, *, slots: bool = False, frozen: bool = True, eq: bool = True):
    """``@dataclass(frozen=True)`` (``slots``, ``frozen`` and ``eq`` as dataclass's) with every
    method built without compiling source (see the module docstring)."""
    def wrap(cls):
        return _build(cls, slots, not frozen, eq)
    return wrap if cls is None else wrap(cls)
