"""The IR model: values, operations, blocks, regions, functions, modules.

Immutable by convention (tuples, frozen dataclasses); passes build new objects. Values are
identified by ``vid``, unique within a function (decoders mint them; bytecode indices are
scoped and reused, so they are never used as identities).
"""
from __future__ import annotations

from dataclasses import field
from typing import Any, Iterator, Mapping, Optional, Tuple

from .record import record
from .types import FunctionType, Type


@record
class Location:
    """A source location ``file:line:col``; ``scope`` is the enclosing subprogram name,
    ``caller`` the call-site location for inlined code."""
    file: str
    line: int
    col: int
    scope: Optional[str] = None
    caller: Optional["Location"] = None

    def __str__(self) -> str:
        # Iterative: "f:1:2 (inlined at g:3:4 (inlined at ...))" without one frame per caller.
        parts = []
        loc: Optional[Location] = self
        while loc is not None:
            parts.append(f"{loc.file}:{loc.line}:{loc.col}")
            loc = loc.caller
        return " (inlined at ".join(parts) + ")" * (len(parts) - 1)

    def callsite_depth(self) -> int:
        """How many call sites this location is inlined through (the length of its caller chain)."""
        n, loc = 0, self.caller
        while loc is not None:
            n, loc = n + 1, loc.caller
        return n


class _OperationBase:
    """Slots an Operation has besides its fields: ``__weakref__`` (dataclass ``weakref_slot``
    needs 3.11) and ``_label``, where tileir_diff.normalize.keys memoizes the op's canonical
    label (a pure function of fields that never change, as str memoizes its hash)."""
    __slots__ = ("__weakref__", "_label")
    _label: Optional[str]


# Value and Operation are slotted: kernels hold hundreds of thousands of them, and a slotted
# instance is about a third of one with a __dict__ (less memory, fewer cache misses).
@record(slots=True)
class Value:
    """An SSA value: ``vid`` is unique in its function (the readers number values in definition
    order; rules that make new values take ids above the function's largest)."""
    vid: int
    type: Type

    def __repr__(self) -> str:
        return f"%v{self.vid}:{self.type}"


@record
class Block:
    arguments: Tuple[Value, ...]
    operations: Tuple["Operation", ...]


@record
class Region:
    blocks: Tuple[Block, ...]

    @property
    def block(self) -> Block:
        return self.blocks[0]


@record(eq=False, slots=True)
class Operation(_OperationBase):
    """One op. ``operands`` is flat; ``segments`` gives the size of each operand group the
    op's schema declares (an absent optional is 0). ``attributes`` keeps schema order and
    holds only what the input carried (a field absent in the input's version is absent here).
    ``origin`` is bookkeeping, not meaning: the op's id (``f0/o12/r0/o3``) in the module a diff
    started from, set by ``tileir_diff.normalize.tag_origins`` and carried through rewrites so
    that differences point at the op as the user's file has it. Printers, writers and
    comparisons ignore it.
    """
    name: str
    operands: Tuple[Value, ...] = ()
    segments: Tuple[int, ...] = ()
    results: Tuple[Value, ...] = ()
    attributes: Mapping[str, Any] = field(default_factory=dict)
    regions: Tuple[Region, ...] = ()
    location: Optional[Location] = None
    origin: Optional[str] = None

    def operand_group(self, index: int) -> Tuple[Value, ...]:
        start = sum(self.segments[:index])
        return self.operands[start:start + self.segments[index]]

    def walk(self) -> Iterator["Operation"]:
        """Pre-order: this op, then ops of nested regions."""
        yield self
        for r in self.regions:
            for b in r.blocks:
                for op in b.operations:
                    yield from op.walk()

    def replace(self, **changes) -> "Operation":
        """A copy with ``changes`` (field names as in the constructor)."""
        unknown = changes.keys() - _OPERATION_FIELDS
        if unknown:
            raise TypeError(f"Operation has no field(s) {sorted(unknown)}")
        get = changes.get
        op = make_operation(get("name", self.name), get("operands", self.operands),
                            get("segments", self.segments), get("results", self.results),
                            get("attributes", self.attributes), get("regions", self.regions),
                            get("location", self.location), get("origin", self.origin))
        if changes.keys() <= _LABEL_FREE_FIELDS:
            copy_label(self, op)
        return op

    def __repr__(self) -> str:
        res = ", ".join(map(repr, self.results))
        ops = ", ".join(f"%v{v.vid}" for v in self.operands)
        return f"<{res + ' = ' if res else ''}{self.name} {ops} {dict(self.attributes)}>"


@record
class Function:
    name: str
    arguments: Tuple[Value, ...]
    result_types: Tuple[Type, ...]
    body: Block
    is_entry: bool = True
    hints: Any = None  # OptimizationHints or None
    arg_attrs: Any = None  # 13.5: tuple of DictAttr or None
    location: Optional[Location] = None

    @property
    def type(self) -> FunctionType:
        return FunctionType(tuple(a.type for a in self.arguments), self.result_types)

    def walk(self) -> Iterator[Operation]:
        for op in self.body.operations:
            yield from op.walk()


@record
class Global:
    name: str
    value: Any  # DenseElements
    alignment: int = 0
    visibility: Optional[str] = None  # 13.3+: "public" / "private"
    constant: Optional[bool] = None  # 13.3+


@record
class Module:
    version: Tuple[int, int]
    functions: Tuple[Function, ...]
    globals: Tuple[Global, ...] = ()
    name: Optional[str] = None  # module sym_name when the text carried a wrapper
    producer: Optional[str] = None
    preview: bool = False  # header tag bit 0
    source: Optional[str] = None  # where it was read from (not part of the IR's meaning)

    @property
    def version_str(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def walk(self) -> Iterator[Operation]:
        for f in self.functions:
            yield from f.walk()


# Values and ops are made by the thousand (decoder, normalization rules). The frozen dataclass
# ``__init__`` sets each field through ``object.__setattr__``; the slot descriptors' setters
# (``_set_*`` below) cost a third of that, but each is still a call through a method wrapper. The
# fast constructors build the object as an instance of a *twin* class (the same slots on the same
# base, no frozen ``__setattr__``: plain slot stores, which the interpreter specializes), then
# make it a Value/Operation by assigning ``__class__`` (CPython allows it between classes of the
# same layout; it checks that and raises TypeError otherwise): about 2.9k instructions an
# Operation against 7.7k through the setters. Valid because these classes are plain frozen
# slotted dataclasses (no __post_init__): tests/ir/test_core.py checks it.
_object_new = object.__new__
_OPERATION_FIELDS = frozenset(("name", "operands", "segments", "results", "attributes", "regions", "location",
                               "origin"))


def _slot(cls: type, name: str) -> Any:
    """The member descriptor of slot ``name`` of ``cls`` (its ``__get__``/``__set__`` read and
    write the slot). Looked up by name: a type checker reads ``Value.vid`` as the field's value
    type (``int``), not as the descriptor a slotted class holds."""
    return getattr(cls, name)


class ValueFields:
    """Value's layout without its frozen ``__setattr__``: ``make_value`` fills one, then makes it
    a Value (``obj.__class__ = Value``). Nothing else should hold one."""
    __slots__ = Value.__slots__
    vid: int
    type: Type


class OperationFields(_OperationBase):
    """Operation's layout without its frozen ``__setattr__`` (see ValueFields); the decoder fills
    one inline and assigns ``__class__`` itself."""
    __slots__ = Operation.__slots__
    name: str
    operands: Tuple[Value, ...]
    segments: Tuple[int, ...]
    results: Tuple[Value, ...]
    attributes: Mapping[str, Any]
    regions: Tuple[Region, ...]
    location: Optional[Location]
    origin: Optional[str]


def _twins_fit() -> bool:
    """Whether this interpreter lets a twin become its class (CPython does for equal layouts)."""
    try:
        v = ValueFields()
        v.__class__ = Value  # type: ignore[assignment]
        op = OperationFields()
        op.__class__ = Operation  # type: ignore[assignment]
    except TypeError:  # pragma: no cover - another interpreter: the setters below
        return False
    return True


#: whether the constructors (and the decoder) build twins (else the slot setters)
TWINS = _twins_fit()
_set_vid, _set_type = _slot(Value, "vid").__set__, _slot(Value, "type").__set__
(_set_name, _set_operands, _set_segments, _set_results, _set_attributes, _set_regions, _set_location,
 _set_origin) = (_slot(Operation, f).__set__ for f in ("name", "operands", "segments", "results", "attributes",
                                                      "regions", "location", "origin"))


#: Fields the memoized canonical label (``_OperationBase._label``) does not read: a copy that
#: changes only these keeps the label.
_LABEL_FREE_FIELDS = frozenset(("operands", "regions", "location", "origin"))
_set_label = _slot(_OperationBase, "_label").__set__


def copy_label(source: Operation, copy: Operation) -> None:
    """Give ``copy`` the label memoized on ``source``, if any: for a copy whose name,
    attributes, segments and results are ``source``'s (the label reads only those)."""
    label = getattr(source, "_label", None)  # None: none memoized yet (cheaper than a caught AttributeError)
    if label is not None:
        _set_label(copy, label)


def make_value(vid: int, type: Type) -> Value:
    """``Value(vid, type)``, without the frozen-dataclass ``__init__`` cost."""
    if TWINS:
        v = ValueFields()
        v.vid = vid
        v.type = type
        v.__class__ = Value  # type: ignore[assignment]
        return v  # type: ignore[return-value]
    value = _object_new(Value)  # pragma: no cover - without twins
    _set_vid(value, vid)
    _set_type(value, type)
    return value


def make_operation(name, operands, segments, results, attributes, regions, location, origin=None) -> Operation:
    """``Operation(...)`` with every field given, without the frozen-dataclass ``__init__`` cost."""
    if TWINS:
        op = OperationFields()
        op.name = name
        op.operands = operands
        op.segments = segments
        op.results = results
        op.attributes = attributes
        op.regions = regions
        op.location = location
        op.origin = origin
        op._label = None  # set, not absent: reading an absent slot raises (~15x a read that finds None)
        op.__class__ = Operation  # type: ignore[assignment]
        return op  # type: ignore[return-value]
    made = _object_new(Operation)  # pragma: no cover - without twins
    _set_name(made, name)
    _set_operands(made, operands)
    _set_segments(made, segments)
    _set_results(made, results)
    _set_attributes(made, attributes)
    _set_regions(made, regions)
    _set_location(made, location)
    _set_origin(made, origin)
    _set_label(made, None)
    return made
