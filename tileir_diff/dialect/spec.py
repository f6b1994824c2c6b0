"""The op-definition vocabulary: what one row of the op table says.

One ``OpDef`` per op states, once, everything every consumer needs: opcode, the version each
field appeared in, the wire shape (count-prefixed results, operand segments, flag bits), the
text template (see ``text/template.py``) and traits for normalization. Decoder, printer and
parser interpret it; nothing else describes an op.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Optional, Tuple

from ..record import record
from .traits import with_implied

Version = Tuple[int, int]
V13_1: Version = (13, 1)
V13_2: Version = (13, 2)
V13_3: Version = (13, 3)
V13_4: Version = (13, 4)
V13_5: Version = (13, 5)
#: What the decoder reads and the writer writes. 13.5 is checked against tileirdisasm 13.5.37
#: and cuda-tile 1.7.0's 13.5 ("dev") encoder (tests/bytecode/test_v13_5.py).
SUPPORTED_VERSIONS = (V13_1, V13_2, V13_3, V13_4, V13_5)


def parse_version(text: str) -> Version:
    major, minor = text.strip().split(".")[:2]
    return int(major), int(minor)


@record
class AttrDef:
    """An attribute. ``kind``: enum, unit, bool, int, str, symbol, type, i32_array, bool_array,
    dense, array, hints, predicate. ``default`` is what an absent attribute means (used when a
    version lacks the field and by normalization)."""
    name: str
    kind: str
    enum: Optional[str] = None
    optional: bool = False
    since: Version = V13_1
    default: Any = None

    @property
    def in_flags(self) -> bool:
        return self.optional or self.kind == "unit"


#: Type constraints of operand and result groups (``OperandDef.type``, ``ResultDef.type``), as
#: NVIDIA's ODS declares them; ``tileir_diff/ir/verify.py`` checks them:
#:
#: ``any`` any value type; ``token``; ``tensor_view``; ``partition_view``, ``strided_view``,
#: ``gather_scatter_view``, or ``view`` for any of the three; ``tile<E>`` a tile whose element
#: is in ``E`` and ``scalar<E>`` the same of rank 0, where ``E`` is ``|``-separated element names
#: or classes: ``*`` (any element), ``int`` (i1 i8 i16 i32 i64), ``int4`` (int and i4),
#: ``float`` (f16 bf16 f32 f64), ``anyfloat`` (float and tf32, the f8 and f4 types), ``number``
#: (int and anyfloat), ``ptr`` (a pointer).

#: Relations between groups (``OpDef.constraints``), also checked by ``ir/verify.py``; the names
#: are operand or result groups of the op (an absent optional group takes no part):
#:
#: ``same_type(a,b,...)`` every value of the groups has one type (ODS AllTypesMatch);
#: ``same_types(a,b)`` the two groups' type lists are equal (variadic groups, pairwise);
#: ``same_shape``, ``same_rank``, ``same_element`` (AllShapesMatch, AllRanksMatch,
#: AllElementTypeMatch); ``check:NAME(a,b,...)`` a rule of its own in ``ir/verify.py``
#: (``CHECKS``), given the named groups (mma shapes, view accesses, region signatures, ...).


@record
class OperandDef:
    """``arity``: single, optional, variadic. ``type``: its type constraint (see above)."""
    name: str
    arity: str = "single"
    since: Version = V13_1
    type: str = "any"


@record
class ResultDef:
    """``since``: the version whose bytes carry this result. Before it the op still has the
    result in the IR (as the MLIR reader upgrades it); only token results can be implied."""
    name: str
    variadic: bool = False
    since: Version = V13_1
    type: str = "any"


@record
class Layout:
    """The wire shape of an op in one bytecode version."""
    attrs: Tuple[AttrDef, ...]
    operands: Tuple[OperandDef, ...]
    results: Tuple[ResultDef, ...]
    flag_bits: Dict[str, int]

    @property
    def has_flags(self) -> bool:
        return bool(self.flag_bits)


@record
class OpDef:
    name: str
    opcode: int
    syntax: Optional[str]  # text template; None means a custom printer/parser (text/custom.py)
    since: Version = V13_1
    results: Tuple[ResultDef, ...] = ()
    attrs: Tuple[AttrDef, ...] = ()
    operands: Tuple[OperandDef, ...] = ()
    counted_results: bool = False  # result types written as count + indices
    total_operand_count: bool = False  # one count covering all operands, no segments
    regions: int = 0
    # Normalization's traits (pure, commutative, memory, reads, writes, effect, terminator, mma) and
    # the verifier's: top_level (entry, global, module: never in a function body), through_if (a
    # terminator that may end an if nested in its parent), optional_last_region (if's else).
    traits: FrozenSet[str] = frozenset()
    result_names: Tuple[str, ...] = ()  # name hints the text form uses (%tview, %blockId_x, ...)
    region_arg_names: Tuple[str, ...] = ()
    # What the verifier (ir/verify.py) checks beyond each group's type: relations between
    # groups and named rules (see "Relations" above).
    constraints: Tuple[str, ...] = ()
    # Terminators: the ops whose region they may end (NVIDIA's ParentOneOf), directly or, with the
    # trait ``through_if``, from inside ``if``s nested in them (early exits: return, break, continue).
    parents: Tuple[str, ...] = ()
    # What the op computes on integers and booleans, for the proof step's bit-vector encoding
    # (check/smt.py, which reads signedness, overflow, rounding and predicate from the op's own
    # attributes): ``int.<op>`` for add sub mul div rem and or xor shl shr min max neg abs cmp ext
    # trunc; ``select``, ``constant``, ``assume``, ``iota``, ``splat`` (broadcast/reshape: the
    # source element at the position the op maps the result's to, for a one-element source, a
    # broadcast of unit dims or a reshape that inserts or drops unit dims), ``block_id``,
    # ``num_blocks``; ``index_space`` (the tile count per dim of a partition view: cdiv(extent,
    # tile), the extent read through the view's make_partition_view / make_tensor_view);
    # ``ptr.offset`` (pointer plus index times the pointee's size); ``memory.read`` (a load's
    # tile: memory at the element's byte address where in bounds or unmasked, else padding;
    # expanded only for a load the mapping leaves unpaired); ``float.<op>`` for the bit-exact FP
    # cones (add sub mul neg). None: the op is a leaf of any cone.
    semantics: Optional[str] = None

    def __post_init__(self) -> None:
        # a row lists the traits it states; the ones they imply are its traits too
        object.__setattr__(self, "traits", with_implied(self.traits))

    def attr(self, name: str) -> AttrDef:
        for a in self.attrs:
            if a.name == name:
                return a
        raise KeyError(f"{self.name} has no attribute {name!r}")

    def operand_index(self, name: str) -> int:
        for i, o in enumerate(self.operands):
            if o.name == name:
                return i
        raise KeyError(f"{self.name} has no operand {name!r}")

    def layout(self, version: Version) -> Layout:
        cache = self.__dict__.setdefault("_layouts", {})
        if version not in cache:
            attrs = tuple(a for a in self.attrs if a.since <= version)
            operands = tuple(o for o in self.operands if o.since <= version)
            results = tuple(r for r in self.results if r.since <= version)
            # Flag bits are handed out in version order; within a version attributes first,
            # then operands, each in declaration order (the payload stays in declaration order).
            flagged = [(a.since, 0, i, a.name) for i, a in enumerate(attrs) if a.in_flags]
            flagged += [(o.since, 1, i, o.name) for i, o in enumerate(operands) if o.arity == "optional"]
            bits = {name: bit for bit, (*_, name) in enumerate(sorted(flagged))}
            cache[version] = Layout(attrs, operands, results, bits)
        return cache[version]

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def derived(self, key: str, build: Callable[["OpDef"], Any]) -> Any:
        """What a stage derives from this row (the printer's plan, the verifier's, ...): built by
        ``build(self)`` on first use and kept; OpDef is frozen, so the cache lives in the instance
        dict, not among its fields."""
        value = self.__dict__.get(key)
        if value is None:
            value = self.__dict__[key] = build(self)
        return value
