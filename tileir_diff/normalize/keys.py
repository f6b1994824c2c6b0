"""Structural (Merkle) keys of values: equal keys mean equal computations, names and order aside.

A value's key hashes its defining op's canonical label together with the keys of its operands
(in operand order, except at commutative positions and for ``join_tokens``, whose operands are
a set), and the keys of the op's region bodies. blake2b over canonical strings keeps the keys
identical across runs, processes and library versions (unlike networkx's WL hashes).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.traits import COMPARE, ops_with
from ..ir import Block, DenseElements, Function, Operation
from .canon import attr_key, fmt_type

try:  # hashlib's own blake2b (it takes it from _blake2), without hashlib's OpenSSL start-up (~11 M instructions)
    from _blake2 import blake2b as _blake2b
except ImportError:  # an interpreter built without _blake2
    from hashlib import blake2b as _blake2b

#: Ops whose whole operand list is a set (order carries no meaning).
SET_OPERAND_OPS = frozenset({"join_tokens"})


#: op name -> (commutative, commutative2) traits, for ops with either (looked up per op, often).
_COMMUTATIVE_TRAITS: Dict[str, Tuple[bool, bool]] = {
    d.name: ("commutative" in d.traits, "commutative2" in d.traits)
    for d in OPS_BY_NAME.values() if "commutative" in d.traits or "commutative2" in d.traits}


#: Compare predicates whose two operands commute (a == b is b == a, for ints and floats, ordered
#: or not).
SYMMETRIC_PREDICATES = frozenset({"equal", "not_equal"})


_COMPARES = ops_with(COMPARE)


def commutative_positions(op: Operation) -> Optional[Tuple[int, int]]:
    """The two operand positions that may be swapped without changing the result, if any."""
    traits = _COMMUTATIVE_TRAITS.get(op.name)
    if traits is None:
        if op.name in _COMPARES and len(op.operands) == 2 and \
                getattr(op.attributes.get("comparison_predicate"), "name", None) in SYMMETRIC_PREDICATES:
            return (0, 1)
        return None
    n = len(op.operands)
    if n < 2:
        return None
    if traits[0] and n == 2:
        return (0, 1)
    if traits[1]:  # fma: the two multiplicands
        return (0, 1)
    return None


def digest(*parts: str) -> str:
    """blake2b (96 bits) of the parts joined by a separator that canonical text never contains."""
    return _blake2b("\x1f".join(parts).encode(), digest_size=12).hexdigest()


def _attrs_text(attributes) -> str:
    """Canonical text of an attribute mapping (public entries, sorted by name). Not cached: the
    label it goes into is memoized on the op, and copies of an op that keep its attributes keep
    its label (``Operation.replace``, ``util.with_fields``)."""
    return ",".join([f"{k}={attr_key(v)}" for k, v in sorted(attributes.items()) if k[:1] != "_"])


_LABEL_SLOT: Any = Operation._label  # the memo slot's descriptor (see ir.core._OperationBase)
_set_memo = _LABEL_SLOT.__set__


#: (name, id(segments), id(result type), attribute name, id(attribute value)) -> (segments, result
#: type, value, label), for ops with one result and at most one attribute (most ops): the decoder
#: shares segments tuples, type objects and enum values among the ops of a module, so most labels
#: are found by identity instead of formatted again. An entry keeps its objects alive (an id is
#: never reused while its entry stands) and is checked by identity; bounded like the tables of
#: canon.py. A constant's value is its own object: it is formatted, never kept here.
_LABEL_BY_IDS: dict = {}


def op_label(op: Operation) -> str:
    """Canonical label: name, attributes (sorted, canonical values), result types, operand segments.
    Memoized on the op: ops never change, and most pass through the rules unchanged, so the
    label one rule's keys computed serves the next rules and the graph."""
    label = getattr(op, "_label", None)  # (a default is cheaper than a caught AttributeError)
    if label is not None:
        return label
    results, segments, attributes = op.results, op.segments, op.attributes
    key = None
    value = None
    if len(results) == 1 and type(segments) is tuple and len(attributes) <= 1:
        # (_LABEL_BY_IDS, inline: a call per op costs as much as the lookup)
        name = None
        for name, value in attributes.items():  # noqa: B007 - (the one entry, if any: cheaper than next(iter()))
            pass
        if type(value) is not DenseElements:
            rtype = results[0].type
            key = (op.name, id(segments), id(rtype), name, id(value))
            hit = _LABEL_BY_IDS.get(key)
            if hit is not None and hit[0] is segments and hit[1] is rtype and hit[2] is value:
                label = hit[3]
    if label is None:
        label = _label_text(op)
        if key is not None:
            if len(_LABEL_BY_IDS) > 4096:
                _LABEL_BY_IDS.clear()
            _LABEL_BY_IDS[key] = (segments, rtype, value, label)
    if type(op) is Operation:
        _set_memo(op, label)
    return label


def _label_text(op: Operation) -> str:
    attributes = op.attributes
    if not attributes:
        attrs = ""
    elif len(attributes) == 1:  # most ops: one attribute, nothing to sort
        for name, value in attributes.items():
            attrs = "" if name[:1] == "_" else f"{name}={attr_key(value)}"
    else:
        attrs = _attrs_text(attributes)
    results = op.results
    if len(results) == 1:
        res = fmt_type(results[0].type)
    else:
        res = ",".join([fmt_type(r.type) for r in results])
    return f"{op.name}[{attrs}]({_segments_text(op.segments)})->({res})"


#: id(segments) -> (segments, text): the decoder shares one segments tuple among the ops of a
#: kind, so looking its text up by identity skips formatting a tuple per op (formatting is
#: several times the lookup). The entry keeps its tuple alive, so an id is never reused while
#: its entry stands; bounded like canon's type-text table.
_SEGMENTS_TEXT_BY_ID: dict = {}


def _segments_text(segments) -> str:
    """``f"{segments}"`` (the text of the label's operand segments), looked up by identity first
    (tuples only: a list could change after its text was kept)."""
    if type(segments) is not tuple:
        return f"{segments}"
    hit = _SEGMENTS_TEXT_BY_ID.get(id(segments))
    if hit is not None and hit[0] is segments:
        return hit[1]
    text = f"{segments}"
    if len(_SEGMENTS_TEXT_BY_ID) > 4096:
        _SEGMENTS_TEXT_BY_ID.clear()
    _SEGMENTS_TEXT_BY_ID[id(segments)] = (segments, text)
    return text


class KeyBuilder:
    """Computes op and value keys for one function. ``arg_positions``: whether an entry argument's
    key includes its position (True for sorting operands deterministically; the graph uses False
    so that an inserted argument does not change every key downstream; anchors pin arguments)."""

    def __init__(self, arg_positions: bool = True, record_swaps: bool = False):
        self.arg_positions = arg_positions
        self.value: Dict[int, str] = {}
        self.op: Dict[Operation, str] = {}  # op -> key (ops hash by identity)
        #: with ``record_swaps``: the ops whose commutative operands (``commutative_positions``)
        #: are out of key order, which the key put in order (what commutative-operands swaps),
        #: and the ids of the blocks that hold one, directly or in a nested region
        self.swapped: Optional[List[Operation]] = [] if record_swaps else None
        self.swapped_blocks: Set[int] = set()

    def function(self, f: Function) -> "KeyBuilder":
        for i, a in enumerate(f.arguments):
            self.value[a.vid] = digest("arg", str(i) if self.arg_positions else "", fmt_type(a.type))
        self.block(f.body, depth=0, keyed=False)  # (the body's own key: nothing reads it)
        return self

    def block(self, b: Block, depth: int, keyed: bool = True) -> str:
        value = self.value
        for i, a in enumerate(b.arguments):
            value[a.vid] = digest("barg", str(depth), str(i), fmt_type(a.type))
        # ``operation`` inlined for ops without regions and with at most one result (most ops):
        # the same text hashed, [label, operand keys..., "|"] joined by \x1f
        get, op_keys, order_free, swapped = value.get, self.op, _ORDER_FREE, self.swapped
        swaps_before = len(swapped) if swapped is not None else 0
        keys = []
        for op in b.operations:
            results = op.results
            if op.regions or len(results) > 1:
                keys.append(self.operation(op, depth))
                continue
            label = getattr(op, "_label", None)  # op_label's memo
            if label is None:
                label = op_label(op)
            operands = op.operands
            if not operands:
                text = label + "\x1f|"
            elif len(operands) == 1:
                text = label + "\x1f" + get(operands[0].vid, "?") + "\x1f|"
            elif len(operands) == 2:  # _order_operands inlined: two operands are commutative at (0, 1) or not at all
                first, second = get(operands[0].vid, "?"), get(operands[1].vid, "?")
                if second < first and op.name in order_free:
                    if op.name in SET_OPERAND_OPS:
                        first, second = second, first
                    elif commutative_positions(op):
                        first, second = second, first
                        if swapped is not None:
                            swapped.append(op)
                text = f"{label}\x1f{first}\x1f{second}\x1f|"
            else:
                parts = [label]
                parts += [get(v.vid, "?") for v in operands]
                if op.name in order_free and _order_operands(op, parts) and swapped is not None:
                    swapped.append(op)
                parts.append("|")
                text = "\x1f".join(parts)
            k = _blake2b(text.encode(), digest_size=12).hexdigest()
            op_keys[op] = k
            if results:
                value[results[0].vid] = k
            keys.append(k)
        if swapped is not None and len(swapped) > swaps_before:
            self.swapped_blocks.add(id(b))
        if not keyed:
            return ""
        return digest("block", *(fmt_type(a.type) for a in b.arguments), *sorted(keys))

    def operation(self, op: Operation, depth: int) -> str:
        # digest() inlined: [label, operand keys..., "|", region keys...] joined and hashed
        value = self.value
        parts = [op_label(op)]
        operands = op.operands
        if operands:
            get = value.get
            parts += [get(v.vid, "?") for v in operands]
            if len(operands) > 1 and op.name in _ORDER_FREE and _order_operands(op, parts) \
                    and self.swapped is not None:  # (commutative pairs and sets in one order)
                self.swapped.append(op)
        parts.append("|")
        if op.regions:
            parts += [self.block(b, depth + 1) for r in op.regions for b in r.blocks]
        k = _blake2b("\x1f".join(parts).encode(), digest_size=12).hexdigest()
        self.op[op] = k
        results = op.results
        if results:
            # no need to hash again: the op key is already a digest (result 0 is the op's key)
            value[results[0].vid] = k
            for i in range(1, len(results)):
                value[results[i].vid] = f"{k}#{i}"
        return k


class GraphKeyBuilder:
    """``KeyBuilder(arg_positions=False)``'s keys as ints, for the graphs: equal ints for equal
    computations, over the same parts (label, operand keys in order but at commutative positions
    and for sets, region bodies as sorted multisets, entry arguments by type, block arguments
    by depth, position and type). Cheaper: a text (label, type) is hashed with blake2b once per
    distinct text (``text_ids``, which the two graphs of a pair share), and everything above
    it with Python's hash of a tuple of ints, which unlike a str's is not salted
    (``PYTHONHASHSEED``): the same in every run and process.

    The graph's keys only propose: the matchers pair nodes of equal keys, and the checker
    proves every pair it is given (docs/matching.md), so two computations with one key (a
    64-bit collision) can cost a match, never a wrong verdict. Where keys order something a
    verdict or an output depends on (``commutative-operands``), ``KeyBuilder``'s digests are used."""

    def __init__(self, text_ids: Optional[Dict[str, int]] = None):
        self.value: Dict[int, int] = {}
        self.op: Dict[Operation, int] = {}  # op -> key (ops hash by identity)
        self.text_ids: Dict[str, int] = {} if text_ids is None else text_ids

    def text_id(self, text: str) -> int:
        tid = self.text_ids.get(text)
        if tid is None:
            tid = self.text_ids[text] = int.from_bytes(_blake2b(text.encode(), digest_size=8).digest(), "little")
        return tid

    def function(self, f: Function) -> "GraphKeyBuilder":
        for a in f.arguments:
            self.value[a.vid] = hash((_ARG_KEY, self.text_id(fmt_type(a.type))))
        self.block(f.body, depth=0, keyed=False)  # (the body's own key: nothing reads it)
        return self

    def block(self, b: Block, depth: int, keyed: bool = True) -> int:
        value = self.value
        arg_types = tuple([self.text_id(fmt_type(a.type)) for a in b.arguments])
        for i, a in enumerate(b.arguments):
            value[a.vid] = hash((_BLOCK_ARG_KEY, depth, i, arg_types[i]))
        # ``operation`` inlined for ops without regions and with at most one result (most ops)
        get, op_keys, order_free, text_ids = value.get, self.op, _ORDER_FREE, self.text_ids
        keys = []
        for op in b.operations:
            results = op.results
            if op.regions or len(results) > 1:
                keys.append(self.operation(op, depth))
                continue
            label = getattr(op, "_label", None)  # op_label's memo
            if label is None:
                label = op_label(op)
            lid = text_ids.get(label)
            if lid is None:
                lid = self.text_id(label)
            operands = op.operands
            if not operands:
                k = hash((lid,))
            elif len(operands) == 1:
                k = hash((lid, get(operands[0].vid, _UNKNOWN_KEY)))
            elif len(operands) == 2:  # two operands are commutative at (0, 1) or not at all
                first, second = get(operands[0].vid, _UNKNOWN_KEY), get(operands[1].vid, _UNKNOWN_KEY)
                if second < first and op.name in order_free and (op.name in SET_OPERAND_OPS
                                                                 or commutative_positions(op)):
                    first, second = second, first
                k = hash((lid, first, second))
            else:
                parts = [lid]
                parts += [get(v.vid, _UNKNOWN_KEY) for v in operands]
                if op.name in order_free:
                    _order_operands(op, parts)
                k = hash(tuple(parts))
            op_keys[op] = k
            if results:
                value[results[0].vid] = k
            keys.append(k)
        if not keyed:
            return 0
        keys.sort()
        return hash((_BLOCK_KEY, arg_types, tuple(keys)))

    def operation(self, op: Operation, depth: int) -> int:
        value = self.value
        operands = op.operands
        parts = [self.text_id(op_label(op))]
        if operands:
            get = value.get
            parts += [get(v.vid, _UNKNOWN_KEY) for v in operands]
            if len(operands) > 1 and op.name in _ORDER_FREE:
                _order_operands(op, parts)
        regions = tuple([self.block(b, depth + 1) for r in op.regions for b in r.blocks])
        k = hash((tuple(parts), regions))
        self.op[op] = k
        results = op.results
        if results:
            value[results[0].vid] = k  # result 0 is the op's key
            for i in range(1, len(results)):
                value[results[i].vid] = hash((k, i))
        return k


#: Tags of GraphKeyBuilder's tuples that are not an op's (an op's starts with its label's id).
_ARG_KEY, _BLOCK_ARG_KEY, _BLOCK_KEY, _UNKNOWN_KEY = 1, 2, 3, 4


#: Ops whose operand order may carry no meaning (commutative traits, compares, sets): only
#: these need ``commutative_positions`` (which is None for any other op).
ORDER_FREE_OPS = frozenset(_COMMUTATIVE_TRAITS) | _COMPARES | SET_OPERAND_OPS
_ORDER_FREE = ORDER_FREE_OPS


def _order_operands(op: Operation, parts: list) -> bool:
    """Sort the operand keys in ``parts`` (after the label at 0) where their order carries no
    meaning. True when the two keys at the op's commutative positions were swapped (a set's
    sorting is not a swap: commutative-operands leaves sets as they are)."""
    if op.name in SET_OPERAND_OPS:
        parts[1:] = sorted(parts[1:])
        return False
    pos = commutative_positions(op)
    if pos is not None:
        i, j = pos[0] + 1, pos[1] + 1
        if parts[j] < parts[i]:
            parts[i], parts[j] = parts[j], parts[i]
            return True
    return False
