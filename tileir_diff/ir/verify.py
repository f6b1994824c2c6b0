"""The verifier: a module read from bytecode or text is checked against the op table once,
before anything else sees it.

Decoding only proves that the bytes (or the text) are well formed; a well-formed file can still
hold ops the rest of the tool cannot take: a result type of the wrong kind, fewer dynamic
operands than ``?`` dimensions, an array attribute holding an assume predicate, mma operands of
rank 1, a tracked memory op whose token result is a tile. ``verify_module`` checks what the op
table states for every op (``dialect/ops.py``: operand and result groups with their type
constraints, attribute kinds, regions, terminators and their parents, and the relations and
named rules in ``OpDef.constraints``) and the types themselves (the limits of ``ir/limits.py``:
tile dimensions positive powers of two, at most 2^24 elements, ...), and raises
``TileIRFormatError`` naming the op, its id (``f0/o12/r0/o3``) and where it is in the input (a
byte offset for bytecode, ``line:col`` for text).

The rules are NVIDIA's (cuda-tile's ODS and verifiers) where they decide whether the other
stages can work at all: shapes, ranks, element types, counts, regions. Rules that only restrict
what a compiler accepts (rounding modes per element type, memory orderings per op, hint names)
are not checked: such a file is read and compared like any other.

The op table is the only list of ops: this module knows the vocabulary of type constraints and
relations (``dialect/spec.py``) and the named rules (``CHECKS``), not the ops.
"""
from __future__ import annotations

import re
from functools import lru_cache
from operator import attrgetter
from typing import Callable, Dict, List, Optional, Tuple

from ..dialect.enums import ENUM_VALUE_SINCE, ENUMS, PADDING_VALUES, PTR_ATTRS
from ..dialect.ops import OPS_BY_NAME
from ..dialect.spec import OpDef, Version
from ..errors import TileIRFormatError
from . import limits as L
from . import types as T
from .attributes import (Bounded, DenseElements, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr,
                         OptimizationHints, SameElements)
from .core import Block, Function, Module, Operation, Value
from .type_text import type_text

#: Where an op or function is in the input: ``id(obj) -> offset`` (bytes) or ``"line:col"``.
Locator = Callable[[object], object]

_INTS = frozenset(("i1", "i8", "i16", "i32", "i64"))
_FLOATS = frozenset(("f16", "bf16", "f32", "f64"))
_ANYFLOATS = _FLOATS | frozenset(("tf32", "f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN", "f8E5M3FNU"))
_ELEMENT_CLASSES = {"int": _INTS, "int4": _INTS | {"i4"}, "float": _FLOATS, "anyfloat": _ANYFLOATS,
                    "number": _INTS | _ANYFLOATS}
_NUMBERS = _INTS | _ANYFLOATS  # what a pointer may point to, what a tensor_view holds
_SPECIAL_PADDING = frozenset(("neg_zero", "nan", "pos_inf", "neg_inf"))
_IMPLICIT_LOC_FILE = "<implicit terminator>"


class VerifyError(Exception):
    """Raised inside the verifier; turned into a TileIRFormatError naming the op."""


# --- type constraints ---------------------------------------------------------------------------
class _Constraint:
    __slots__ = ("text", "kind", "elements", "ptr", "rank0", "accepted")

    def __init__(self, text: str):
        self.text = text
        #: id(type) -> type, for types found acceptable (readers share type objects, so most ops
        #: are checked by one identity lookup); bounded, see ``admits``
        self.accepted: Dict[int, T.Type] = {}
        self.elements: Optional[frozenset] = None
        self.ptr = False
        self.rank0 = False
        m = re.fullmatch(r"(tile|scalar)<([^<>]+)>", text)
        if m:
            self.kind = "tile"
            self.rank0 = m.group(1) == "scalar"
            names = set()
            for atom in m.group(2).split("|"):
                if atom == "*":
                    names |= _NUMBERS | {"i4"}
                    self.ptr = True
                elif atom == "ptr":
                    self.ptr = True
                elif atom in _ELEMENT_CLASSES:
                    names |= _ELEMENT_CLASSES[atom]
                elif atom in T.SCALAR_TYPES:
                    names.add(atom)
                else:
                    raise ValueError(f"op table: unknown element class {atom!r} in {text!r}")
            self.elements = frozenset(names)
        elif text in ("any", "token", "tensor_view", "partition_view", "strided_view", "gather_scatter_view", "view"):
            self.kind = text
        else:
            raise ValueError(f"op table: unknown type constraint {text!r}")

    def admits(self, t: T.Type) -> bool:
        """``accepts(t)``, remembered by identity for the types it accepts."""
        accepted = self.accepted
        if accepted.get(id(t)) is t:
            return True
        if not self.accepts(t):
            return False
        if len(accepted) >= 4096:  # a long-lived process reads many modules: keep the latest types
            accepted.clear()
        accepted[id(t)] = t
        return True

    def accepts(self, t: T.Type) -> bool:
        k = self.kind
        if k == "tile":
            if type(t) is not T.TileType or (self.rank0 and t.shape):
                return False
            e = t.element
            if type(e) is T.PointerType:
                return self.ptr
            return type(e) is T.ScalarType and e.name in self.elements
        if k == "any":
            return not isinstance(t, T.FunctionType)
        if k == "token":
            return type(t) is T.TokenType
        if k == "tensor_view":
            return type(t) is T.TensorViewType
        if k == "view":
            return isinstance(t, T.VIEW_TYPES)
        return type(t) is {"partition_view": T.PartitionViewType, "strided_view": T.StridedViewType,
                           "gather_scatter_view": T.GatherScatterViewType}[k]


@lru_cache(maxsize=None)
def _constraint(text: str) -> _Constraint:
    return _Constraint(text)


# --- per-op plans (compiled once per op definition from the table row) ---------------------------
class _Plan:
    __slots__ = ("od", "operand_names", "result_names", "operand_checks", "result_checks", "relations",
                 "attr_defs", "fixed_results", "variadic_results", "later_results", "terminator",
                 "single_segments", "required_attrs", "top_level", "flat", "operand_checks_at", "result_checks_at",
                 "attr_quick", "flat_relations", "flat_checks", "attrs_in_signature", "dense_attr",
                 "checks_value_type")

    def __init__(self, od: OpDef):
        self.od = od
        self.top_level = od.has("top_level")
        self.operand_names = tuple(o.name for o in od.operands)
        self.result_names = tuple(r.name for r in od.results)
        self.operand_checks = tuple((o.name, _constraint(o.type)) for o in od.operands if o.type != "any")
        self.result_checks = tuple((r.name, _constraint(r.type)) for r in od.results if r.type != "any")
        self.attr_defs = {a.name: a for a in od.attrs}
        self.required_attrs = tuple(a for a in od.attrs if not a.optional and a.kind != "unit")
        self.single_segments = (1,) * len(od.operands) if all(o.arity == "single" for o in od.operands) else None
        self.fixed_results = sum(1 for r in od.results if not r.variadic)
        self.variadic_results = any(r.variadic for r in od.results)
        self.later_results = tuple(r.since for r in od.results if not r.variadic)
        self.terminator = od.has("terminator")
        rels = []
        names = set(self.operand_names) | set(self.result_names)
        for c in od.constraints:
            m = re.fullmatch(r"([a-z_:]+)\(([A-Za-z_0-9,]*)\)", c)
            if not m:
                raise ValueError(f"op table: bad constraint {c!r} of {od.name}")
            kind, args = m.group(1), tuple(a for a in m.group(2).split(",") if a)
            for a in args:
                if a not in names:
                    raise ValueError(f"op table: {od.name} constraint {c!r} names no group {a!r}")
            if kind.startswith("check:"):
                fn = CHECKS.get(kind[len("check:"):])
                if fn is None:
                    raise ValueError(f"op table: {od.name} names an unknown rule {kind!r}")
                rels.append((fn, args))
            else:
                rel = _RELATIONS.get(kind)
                if rel is None:
                    raise ValueError(f"op table: {od.name} has an unknown relation {kind!r}")
                rels.append((rel, args))
        self.relations = tuple(rels)
        # An op of a "flat" row (single operands, fixed results, no region) whose segments and
        # counts are the row's has group i = (operand i,) and result group k = (result k,): its
        # checks read values by position, and groups are built only for relations that need them.
        self.flat = self.single_segments is not None and not self.variadic_results and not od.regions
        self.operand_checks_at = tuple((i, o.name, _constraint(o.type)) for i, o in enumerate(od.operands)
                                       if o.type != "any")
        self.result_checks_at = tuple((k, r.name, _constraint(r.type)) for k, r in enumerate(od.results)
                                      if r.type != "any")
        #: attribute name -> its enum's name, _UNIT_KIND or _DENSE_KIND: the kinds attributes()
        #: accepts inline when they are plainly right
        self.attr_quick = {a.name: a.enum if a.kind == "enum" else _UNIT_KIND if a.kind == "unit" else _DENSE_KIND
                           for a in od.attrs if (a.kind == "enum" and a.enum) or a.kind in ("unit", "dense")}
        #: the relations of a flat op, each with a quick test when it has one (_flat_quick)
        self.flat_relations = tuple((fn, names, _flat_quick(fn, self._positions(names)))
                                    for fn, names in rels) if self.flat else ()
        #: flat_relations less the type relations (_RELATIONS: they read only the groups' types),
        #: what an op whose types a verified op had still needs (see _Verifier.typed_ok)
        self.flat_checks = tuple(r for r in self.flat_relations if r[0] not in _TYPE_RELATIONS)
        #: whether a flat op's signature holds its attributes too (names, then the values' ids):
        #: for rows without a dense attribute, whose values readers share (enum members, units),
        #: so that an op whose attributes a verified op had skips the attribute checks as well
        self.attrs_in_signature = self.flat and bool(od.attrs) and all(a.kind != "dense" for a in od.attrs)
        #: the name of the row's one attribute when that is a required dense constant (``constant``):
        #: verify_op checks a plainly right value inline (attributes() gives the messages)
        self.dense_attr = od.attrs[0].name if (len(od.attrs) == 1 and od.attrs[0].kind == "dense"
                                               and not od.attrs[0].optional) else None
        #: whether flat_checks is only check:constant of the one result (its quick test, that
        #: the value's type object is the result's, is then made inline)
        self.checks_value_type = (self.dense_attr == "value" and len(self.flat_checks) == 1
                                  and self.flat_checks[0][0] is _check_constant
                                  and self._positions(self.flat_checks[0][1]) == ((True, 0),))

    def _positions(self, names) -> Tuple[Tuple[bool, int], ...]:
        """Where each named group's one value is in a flat op: (is a result, index); a name of
        both kinds is the result's (structure() sets result groups last)."""
        return tuple((True, self.result_names.index(n)) if n in self.result_names
                     else (False, self.operand_names.index(n)) for n in names)

    def flat_groups(self, operands, results) -> Dict[str, Tuple[Value, ...]]:
        """structure()'s groups of a flat op (its segments and counts already found to be the row's)."""
        groups = {name: (v,) for name, v in zip(self.operand_names, operands)}
        for name, r in zip(self.result_names, results):
            groups[name] = (r,)
        return groups


_id = id
_type_of = attrgetter("type")

#: attr_quick's marks of a unit and a dense attribute (not an enum's name)
_UNIT_KIND, _DENSE_KIND = object(), object()
#: (enum, version) -> the member names a module of that version may use
_ENUM_NAMES: Dict[Tuple[str, Version], frozenset] = {}


def _enum_names(enum: str, version: Version) -> frozenset:
    names = _ENUM_NAMES.get((enum, version))
    if names is None:  # a racing thread computes the same set
        if len(_ENUM_NAMES) > 4096:  # modules made in code may carry any version
            _ENUM_NAMES.clear()
        since = ENUM_VALUE_SINCE.get
        names = _ENUM_NAMES[(enum, version)] = frozenset(
            n for n in ENUMS[enum] if (since((enum, n)) or version) <= version)
    return names


def _plan(od: OpDef) -> _Plan:
    return od.derived("_verify_plan", _Plan)


#: op name -> its plan (None: no such op), in front of OPS_BY_NAME + OpDef.derived: one lookup
#: per op. Filled on first use; a racing thread computes the same plan.
_PLANS_BY_NAME: Dict[str, Optional[_Plan]] = {}


def _plan_of(name: str) -> Optional[_Plan]:
    plan = _PLANS_BY_NAME.get(name)
    if plan is None:
        od = OPS_BY_NAME.get(name)
        if od is None:
            return None
        plan = _PLANS_BY_NAME[name] = _plan(od)
    return plan


def check_op_table() -> None:
    """Compile every row's constraints (a typo in the table fails here, in the tests)."""
    for od in OPS_BY_NAME.values():
        _plan(od)


# --- relations between groups -------------------------------------------------------------------
def _flat(groups, names) -> List[Value]:
    out: List[Value] = []
    for n in names:
        out.extend(groups[n])
    return out


def _rel_same_type(ctx, op, groups, names):
    first = None
    for n in names:
        for v in groups[n]:
            t = v.type
            if first is None:
                first = t
            # the readers share type objects: the same object is the common case, equality the fallback
            elif t is not first and t != first:
                break
        else:
            continue
        break
    else:
        return
    vals = _flat(groups, names)
    raise VerifyError(f"{', '.join(names)} must have one type, got "
                          + ", ".join(sorted({_t(v.type) for v in vals})))


def _rel_same_types(ctx, op, groups, names):
    a, b = names
    ta, tb = [v.type for v in groups[a]], [v.type for v in groups[b]]
    if ta != tb:
        raise VerifyError(f"{a} ({_ts(ta)}) and {b} ({_ts(tb)}) must have the same types")


def _same_prop(what: str, get):
    def rel(ctx, op, groups, names):
        vals = _flat(groups, names)
        props = [get(v.type) for v in vals]
        if props and any(p != props[0] for p in props):
            raise VerifyError(f"{', '.join(names)} must have the same {what}, got "
                              + ", ".join(_t(v.type) for v in vals))
    return rel


def _shape(t):
    return t.shape if type(t) is T.TileType else ("?", t)


def _rank(t):
    return len(t.shape) if type(t) is T.TileType else ("?", t)


def _element(t):
    return t.element if type(t) is T.TileType else ("?", t)


_RELATIONS = {"same_type": _rel_same_type, "same_types": _rel_same_types,
              "same_shape": _same_prop("shape", _shape), "same_rank": _same_prop("rank", _rank),
              "same_element": _same_prop("element type", _element)}
_SAME_PROP_RELATIONS = frozenset((_RELATIONS["same_shape"], _RELATIONS["same_rank"], _RELATIONS["same_element"]))
_TYPE_RELATIONS = frozenset(_RELATIONS.values())


def _t(t) -> str:
    try:
        return type_text(t)
    except Exception:  # noqa: BLE001 - a message must not fail
        return type(t).__name__


def _ts(ts) -> str:
    return "(" + ", ".join(_t(t) for t in ts) + ")"


# --- named rules (``check:NAME`` in the table) ----------------------------------------------------
def _one(groups, name) -> Optional[Value]:
    g = groups[name]
    return g[0] if g else None


def _width(t: T.Type) -> int:
    e = t.element if type(t) is T.TileType else t
    if type(e) is T.ScalarType:
        return T.SCALAR_TYPES[e.name][0]
    return 64


def _check_assume(ctx, op, groups, names):
    (value,) = names
    t = groups[value][0].type
    p = op.attributes.get("predicate")
    elem = t.element if type(t) is T.TileType else None
    int_or_ptr = elem is not None and (type(elem) is T.PointerType or
                                       (type(elem) is T.ScalarType and elem.name in _INTS | {"i4"}))
    if isinstance(p, DivBy):
        if not L.is_power_of_two(p.divisor) or p.divisor > (1 << 62):
            raise VerifyError(f"div_by divisor {p.divisor} must be a power of 2 of at most 2^62")
        if (p.every is None) != (p.along is None):
            raise VerifyError("div_by 'every' and 'along' must be given together")
        if type(t) is T.TensorViewType:
            if p.every is not None:
                raise VerifyError("div_by 'every'/'along' cannot be used on a tensor_view")
            return
        if not int_or_ptr:
            raise VerifyError(f"div_by is valid only for tiles of integers or pointers and tensor_views, not {_t(t)}")
        if p.every is not None:
            if not t.shape:
                raise VerifyError("div_by 'every'/'along' cannot be used on a 0-d tile")
            if not 0 <= p.along < len(t.shape):
                raise VerifyError(f"div_by along {p.along} is not a dimension of {_t(t)}")
            if not 0 <= p.every <= t.shape[p.along]:
                raise VerifyError(f"div_by every {p.every} is outside 0..{t.shape[p.along]}")
    elif isinstance(p, SameElements):
        if not int_or_ptr:
            raise VerifyError(f"same_elements is valid only for tiles of integers or pointers, not {_t(t)}")
        if len(p.values) != len(t.shape):
            raise VerifyError(f"same_elements has {len(p.values)} values for a tile of rank {len(t.shape)}")
        for i, (v, d) in enumerate(zip(p.values, t.shape)):
            if not 0 <= v <= d:
                raise VerifyError(f"same_elements value {i} ({v}) is outside 0..{d}")
    elif isinstance(p, Bounded):
        if elem is None or type(elem) is not T.ScalarType or elem.name not in _INTS:
            raise VerifyError(f"bounded is valid only for tiles of integers, not {_t(t)}")
        w = T.SCALAR_TYPES[elem.name][0]
        lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
        for b in (p.lb, p.ub):
            if b is not None and not lo <= b <= hi:
                raise VerifyError(f"bounded bound {b} does not fit {elem.name}")


def _check_pointee(ctx, op, groups, names):
    ptrs, val = (_one(groups, n) for n in names)
    pointee = ptrs.type.element.pointee
    if pointee != val.type.element:
        raise VerifyError(f"{names[0]} points to {_t(pointee)} but {names[1]} holds {_t(val.type.element)}")


def _check_same_width(ctx, op, groups, names):
    a, b = (_one(groups, n) for n in names)
    if _width(a.type) != _width(b.type):
        raise VerifyError(f"{_t(a.type)} and {_t(b.type)} differ in width")


def _check_wider(ctx, op, groups, names):
    narrow, wide = (_one(groups, n) for n in names)
    if _width(narrow.type) >= _width(wide.type):
        raise VerifyError(f"{_t(wide.type)} must be wider than {_t(narrow.type)}")


def _check_broadcast(ctx, op, groups, names):
    src, res = (_one(groups, n).type for n in names)
    for a, b in zip(src.shape, res.shape):
        if a != b and a != 1:
            raise VerifyError(f"cannot broadcast {_t(src)} to {_t(res)}")


def _check_cat(ctx, op, groups, names):
    lhs, rhs, res = (_one(groups, n).type for n in names)
    dim = op.attributes.get("dim")
    rank = len(lhs.shape)
    if not isinstance(dim, int) or not 0 <= dim < rank:
        raise VerifyError(f"dim {dim} is not a dimension of {_t(lhs)}")
    for i, (a, b, c) in enumerate(zip(lhs.shape, rhs.shape, res.shape)):
        if (i == dim and a + b != c) or (i != dim and not a == b == c):
            raise VerifyError(f"cannot concatenate {_t(lhs)} and {_t(rhs)} along {dim} into {_t(res)}")


def _check_constant(ctx, op, groups, names):
    res = _one(groups, names[0])
    d = op.attributes.get("value")
    if not isinstance(d, DenseElements):
        return  # the attribute check reports it
    if d.type is not res.type and d.type != res.type:
        raise VerifyError(f"value of type {_t(d.type)} for a result of type {_t(res.type)}")


def _check_extract(ctx, op, groups, names):
    big, small, idx = groups[names[0]][0].type, groups[names[1]][0].type, groups[names[2]]
    if len(idx) != len(big.shape):
        raise VerifyError(f"{len(idx)} indices for {_t(big)} of rank {len(big.shape)}")
    for a, b in zip(big.shape, small.shape):
        if a % b:
            raise VerifyError(f"{_t(big)} is not divisible into tiles {_t(small)}")


def _region_block(op: Operation, i: int = 0) -> Block:
    return op.regions[i].blocks[0]


def _check_for_region(ctx, op, groups, names):
    lb, inits = _one(groups, names[0]), groups[names[1]]
    args = _region_block(op).arguments
    want = [lb.type] + [v.type for v in inits]
    got = [a.type for a in args]
    if got != want:
        raise VerifyError(f"body arguments {_ts(got)} must be the induction variable and iter_values {_ts(want)}")


def _check_loop_region(ctx, op, groups, names):
    inits = groups[names[0]]
    got = [a.type for a in _region_block(op).arguments]
    want = [v.type for v in inits]
    if got != want:
        raise VerifyError(f"body arguments {_ts(got)} must match iter_values {_ts(want)}")


def _check_if_regions(ctx, op, groups, names):
    results = groups[names[0]]
    if op.regions[0].blocks == ():
        raise VerifyError("if needs a then region")
    if not op.regions[1].blocks and results:
        raise VerifyError("an if with results needs an else region")
    for r in results:
        if isinstance(r.type, (T.TensorViewType,) + T.VIEW_TYPES):
            raise VerifyError(f"an if cannot return a view ({_t(r.type)})")
    want = [r.type for r in results]
    for region, which in zip(op.regions, ("then", "else")):
        if not region.blocks:
            continue
        block = region.blocks[0]
        if block.arguments:
            raise VerifyError("if regions take no arguments")
        term = block.operations[-1] if block.operations else None
        # a yield passes the results; an early exit (return, break, continue) yields nothing
        if term is not None and _is_terminator(term) and not _through_if(term):
            got = [v.type for v in term.operands]
            if got != want:
                raise VerifyError(f"the {which} branch yields {_ts(got)}, the if returns {_ts(want)}")


def _check_iota(ctx, op, groups, names):
    t = _one(groups, names[0]).type
    if len(t.shape) != 1:
        raise VerifyError(f"iota makes a 1-d tile, not {_t(t)}")
    w = _width(t)
    if w < 64 and t.shape[0] > (1 << w):
        raise VerifyError(f"{t.shape[0]} elements exceed the range of {_t(t.element)}")


def _check_global(ctx, op, groups, names):
    res = _one(groups, names[0])
    name = op.attributes.get("name")
    g = ctx.globals.get(name) if isinstance(name, str) else None
    if g is None:
        raise VerifyError(f"@{name} is not a global of this module")
    if isinstance(g.value, DenseElements) and g.value.element != res.type.element.pointee:
        raise VerifyError(f"result {_t(res.type)} does not point to the global's {_t(g.value.element)}")


def _index_rank(t) -> int:
    return len(t.tile_shape)


def _check_index_space(ctx, op, groups, names):
    src, res = _one(groups, names[0]), groups[names[1]]
    if len(res) != _index_rank(src.type):
        raise VerifyError(f"{len(res)} results for a view of index rank {_index_rank(src.type)}")


def _check_tensor_shape(ctx, op, groups, names):
    src, res = _one(groups, names[0]), groups[names[1]]
    if len(res) != len(src.type.shape):
        raise VerifyError(f"{len(res)} results for a tensor_view of rank {len(src.type.shape)}")


def _check_view_of(ctx, op, groups, names):
    tv, res = (_one(groups, n) for n in names)
    if res.type.tensor_view != tv.type:
        raise VerifyError(f"result {_t(res.type)} is not a view of {_t(tv.type)}")


def _check_make_tensor_view(ctx, op, groups, names):
    base, shape, strides, res = (groups[n] for n in names)
    tv = res[0].type
    if base[0].type.element.pointee != tv.element:
        raise VerifyError(f"a pointer to {_t(base[0].type.element.pointee)} cannot make {_t(tv)}")
    dyn_shape = sum(1 for d in tv.shape if d is None)
    dyn_strides = sum(1 for d in tv.strides if d is None)
    if len(shape) != dyn_shape:
        raise VerifyError(f"{len(shape)} dynamic shape operands for {dyn_shape} '?' dimensions of {_t(tv)}")
    if len(strides) != dyn_strides:
        raise VerifyError(f"{len(strides)} dynamic stride operands for {dyn_strides} '?' strides of {_t(tv)}")


def _check_mma(ctx, op, groups, names):
    lhs, rhs, acc = (_one(groups, n).type for n in names)
    rank = len(lhs.shape)
    if rank not in (2, 3):
        raise VerifyError(f"mma operands must be 2-d or 3-d tiles, got {_t(lhs)}")
    b = rank - 2
    ls, rs, as_ = lhs.shape, rhs.shape, acc.shape
    if (b and not ls[0] == rs[0] == as_[0]) or ls[b + 1] != rs[b] or ls[b] != as_[b] or rs[b + 1] != as_[b + 1]:
        raise VerifyError(f"shapes {_t(lhs)} x {_t(rhs)} -> {_t(acc)} do not multiply")
    scales = [groups[n][0].type for n in ("lhs_scale", "rhs_scale") if n in groups and groups[n]]
    if scales:
        lsc, rsc = scales
        if len(lsc.shape) != rank or len(rsc.shape) != rank or (b and (lsc.shape[0] != ls[0] or rsc.shape[0] != rs[0])) \
                or lsc.shape[b] != ls[b] or rsc.shape[b + 1] != rs[b + 1] or lsc.shape[b + 1] != rsc.shape[b] \
                or ls[b + 1] % lsc.shape[b + 1]:
            raise VerifyError(f"scale shapes {_t(lsc)}, {_t(rsc)} do not fit {_t(lhs)} x {_t(rhs)}")


def _check_permute(ctx, op, groups, names):
    src, res = (_one(groups, n).type for n in names)
    perm = op.attributes.get("permutation")
    rank = len(src.shape)
    if rank < 2:
        raise VerifyError(f"permute needs rank 2 or more, got {_t(src)}")
    if not isinstance(perm, tuple) or sorted(perm) != list(range(rank)):
        raise VerifyError(f"permutation {list(perm) if isinstance(perm, tuple) else perm} is not a permutation of "
                          f"0..{rank - 1}")
    if tuple(src.shape[p] for p in perm) != tuple(res.shape):
        raise VerifyError(f"permuting {_t(src)} by {list(perm)} does not give {_t(res)}")


def _check_aggregate(ctx, op, groups, names):
    operands, results = groups[names[0]], groups[names[1]]
    n = len(operands)
    if n == 0:
        raise VerifyError("needs at least one operand")
    if len(results) != n:
        raise VerifyError(f"{len(results)} results for {n} operands")
    dim = op.attributes.get("dim")
    rank = len(operands[0].type.shape)
    if not isinstance(dim, int) or not 0 <= dim < rank:
        raise VerifyError(f"dim {dim} is not a dimension of {_t(operands[0].type)}")
    ids = op.attributes.get("identities")
    if not isinstance(ids, tuple) or len(ids) != n:
        raise VerifyError(f"needs one identity per operand ({n}), got "
                          f"{len(ids) if isinstance(ids, tuple) else type(ids).__name__}")
    for i, (v, ident) in enumerate(zip(operands, ids)):
        if not isinstance(ident, (IntegerAttr, FloatAttr)):
            raise VerifyError(f"identity {i} must be an integer or float attribute, got {type(ident).__name__}")
        el = v.type.element
        if ident.type != el and {getattr(el, "name", None), ident.type.name} != {"f16", "bf16"}:
            raise VerifyError(f"identity {i} is {_t(ident.type)} for an operand of {_t(el)}")
    block = _region_block(op)
    args = block.arguments
    if len(args) != 2 * n:
        raise VerifyError(f"the body takes {len(args)} arguments, expected {2 * n}")
    for i, a in enumerate(args):
        if type(a.type) is not T.TileType or a.type.shape:
            raise VerifyError(f"body argument {i} must be a 0-d tile, got {_t(a.type)}")
        if a.type.element != operands[i // 2].type.element:
            raise VerifyError(f"body argument {i} is {_t(a.type)} for an operand of {_t(operands[i // 2].type)}")
    term = block.operations[-1] if block.operations else None
    if term is not None and _is_terminator(term):
        got = [v.type for v in term.operands]
        if len(got) != n:
            raise VerifyError(f"the body yields {len(got)} values for {n} operands")
        for t, v in zip(got, operands):
            if type(t) is not T.TileType or t.shape or t.element != v.type.element:
                raise VerifyError(f"the body yields {_t(t)} for an operand of {_t(v.type)} (a 0-d tile of its element)")


def _check_reduced(ctx, op, groups, names):
    operands, results = groups[names[0]], groups[names[1]]
    dim = op.attributes.get("dim")
    for v, r in zip(operands, results):
        want = T.TileType(v.type.shape[:dim] + v.type.shape[dim + 1:], v.type.element)
        if r.type != want:
            raise VerifyError(f"reducing {_t(v.type)} along {dim} gives {_t(want)}, not {_t(r.type)}")


def _check_same_size(ctx, op, groups, names):
    a, b = (_one(groups, n).type for n in names)
    if a.num_elements != b.num_elements:
        raise VerifyError(f"{_t(a)} and {_t(b)} have different numbers of elements")


def _check_view_access(ctx, op, groups, names):
    view, index, tile = _one(groups, names[0]).type, groups[names[1]], _one(groups, names[2])
    rank = _index_rank(view)
    if len(index) != rank:
        raise VerifyError(f"{len(index)} indices for a view of index rank {rank}")
    want = T.TileType(tuple(view.tile_shape), view.tensor_view.element)
    if tile.type != want:
        raise VerifyError(f"{names[2]} is {_t(tile.type)}, the view's tiles are {_t(want)}")
    sparse = view.sparse_dim if type(view) is T.GatherScatterViewType else None
    scalar = [v.type for i, v in enumerate(index) if i != sparse]
    for t in scalar:
        if t.shape:
            raise VerifyError(f"index {_t(t)} must be a 0-d tile")
        if t != scalar[0]:
            raise VerifyError(f"indices must have one type, got {_t(scalar[0])} and {_t(t)}")
    if sparse is not None and index:
        t = index[sparse].type
        if len(t.shape) != 1 or t.shape[0] != view.tile_shape[sparse]:
            raise VerifyError(f"the gather/scatter index must be a 1-d tile of {view.tile_shape[sparse]}, got {_t(t)}")
    inb = op.attributes.get("inbounds")
    if isinstance(inb, tuple) and len(inb) != len(index):  # NVIDIA: an empty list too
        raise VerifyError(f"{len(inb)} inbounds flags for {len(index)} indices")


def _is_terminator(op: Operation) -> bool:
    od = OPS_BY_NAME.get(op.name)
    return od is not None and od.has("terminator")


def _through_if(op: Operation) -> bool:
    od = OPS_BY_NAME.get(op.name)
    return od is not None and od.has("through_if")


def _terminator_parent(ctx, op: Operation, od: OpDef) -> Optional[Operation]:
    """The op whose region this terminator ends: the enclosing op, or with ``through_if`` the
    first enclosing op past any ``if``s (None: the entry body). Checks it is one of
    ``OpDef.parents``."""
    chain = ctx.parents
    i = len(chain) - 1
    if od.has("through_if"):
        while i > 0 and chain[i] is not None and chain[i].name == "if" and "if" not in od.parents:
            i -= 1
        # return may also end an if's region directly (NVIDIA: ParentOneOf<EntryOp, IfOp>)
    parent = chain[i] if i >= 0 else None
    name = "entry" if parent is None else parent.name
    if name not in od.parents:
        where = "the entry body" if parent is None else name
        raise VerifyError(f"{op.name} cannot end a region of {where} (only of {', '.join(od.parents)}"
                          f"{', or of ifs inside them' if od.has('through_if') else ''})")
    return parent


def _check_return(ctx, op, groups, names):
    want = list(ctx.function.result_types)
    got = [v.type for v in groups[names[0]]]
    if got != want:
        raise VerifyError(f"returns {_ts(got)}, the function returns {_ts(want)}")


def _check_break(ctx, op, groups, names):
    got = [v.type for v in groups[names[0]]]
    want = [r.type for r in ctx.terminator_parent.results]
    if got != want:
        raise VerifyError(f"break passes {_ts(got)}, the {ctx.terminator_parent.name} returns {_ts(want)}")


def _check_continue(ctx, op, groups, names):
    """The next iteration's values: the types of the parent's iter_values (``initValues``)."""
    parent = ctx.terminator_parent
    got = [v.type for v in groups[names[0]]]
    want = [v.type for v in _parent_group(parent, "initValues")]
    if got != want:
        raise VerifyError(f"continue passes {_ts(got)}, the {parent.name} carries {_ts(want)}")


def _parent_group(op: Operation, name: str) -> Tuple[Value, ...]:
    od = OPS_BY_NAME[op.name]
    pos = 0
    for o, n in zip(od.operands, op.segments):
        if o.name == name:
            return op.operands[pos:pos + n]
        pos += n
    return ()


def _flat_quick(fn, positions):
    """A test of ``fn`` on a flat op (its values at ``positions``, (is a result, index)) that
    is True only where ``fn`` finds nothing wrong; None when ``fn`` has none."""
    if fn is _rel_same_type or fn in _SAME_PROP_RELATIONS:  # one type object: one type, one shape, ...
        def same_type_object(op, operands, results) -> bool:
            first = None
            for is_result, i in positions:
                t = (results if is_result else operands)[i].type
                if first is None:
                    first = t
                elif t is not first:
                    return False
            return True
        return same_type_object
    if fn is _check_constant:
        is_result, i = positions[0]

        def value_of_result_type(op, operands, results) -> bool:
            d = op.attributes.get("value")
            return type(d) is DenseElements and d.type is (results if is_result else operands)[i].type
        return value_of_result_type
    return None


CHECKS: Dict[str, Callable] = {
    "assume": _check_assume, "pointee": _check_pointee, "same_width": _check_same_width, "wider": _check_wider,
    "broadcast": _check_broadcast, "cat": _check_cat, "constant": _check_constant, "extract": _check_extract,
    "for_region": _check_for_region, "loop_region": _check_loop_region, "if_regions": _check_if_regions,
    "iota": _check_iota, "global": _check_global, "index_space": _check_index_space,
    "tensor_shape": _check_tensor_shape, "view_of": _check_view_of, "make_tensor_view": _check_make_tensor_view,
    "mma": _check_mma, "permute": _check_permute, "aggregate": _check_aggregate, "same_size": _check_same_size,
    "view_access": _check_view_access, "return": _check_return, "break": _check_break,
    "continue": _check_continue, "reduced": _check_reduced,
}


# --- types ---------------------------------------------------------------------------------------
#: Types already found valid (types are frozen, hashable values; a module uses a few dozen).
_VALID_TYPES: Dict[T.Type, None] = {}


def _ptr_attr_error(t) -> Optional[str]:
    """A pointer or tensor_view's pointer attribute, when set, names one of PTR_ATTRS."""
    if t.ptr_attr is not None and t.ptr_attr not in range(len(PTR_ATTRS)):
        return f"unknown pointer attribute {t.ptr_attr!r}"
    return None


#: id(type) -> type, for types found valid, in front of _VALID_TYPES: the readers share type
#: objects (a constant's value has its result's type object), so the same few come back, and
#: hashing a nested frozen dataclass costs more than this lookup. Entries keep their type alive
#: (bounded like _VALID_TYPES).
_VALID_BY_ID: Dict[int, object] = {}


def type_error(t, depth: int = 0) -> Optional[str]:
    """Why ``t`` is not a valid value type (None when it is)."""
    if _VALID_BY_ID.get(id(t)) is t:
        return None
    try:
        known = t in _VALID_TYPES
    except TypeError:
        return f"{type(t).__name__} is not a type"
    err = None if known else _type_error(t, depth)
    if err is None:
        if len(_VALID_TYPES) > 1 << 14:
            _VALID_TYPES.clear()
        if len(_VALID_BY_ID) > 1 << 14:
            _VALID_BY_ID.clear()
        _VALID_TYPES[t] = None
        _VALID_BY_ID[id(t)] = t
    return err


def _dims_error(shape, what: str) -> Optional[str]:
    if not isinstance(shape, tuple):
        return f"{what} is not a list of dimensions"
    n = 1
    for d in shape:
        if type(d) is not int or not L.is_power_of_two(d):
            return f"{what}: dimensions must be positive powers of two, got {list(shape)}"
        n *= d
        if n > L.MAX_TILE_ELEMENTS:
            return f"{what} has more than {L.MAX_TILE_ELEMENTS} elements (2^24, NVIDIA's limit)"
    return None


def _type_error(t, depth: int) -> Optional[str]:
    if depth > L.MAX_NESTING_DEPTH:
        return "type nested too deeply"
    k = type(t)
    if k is T.ScalarType:
        return None if t.name in T.SCALAR_TYPES else f"unknown element type {t.name!r}"
    if k is T.TokenType:
        return None
    if k is T.PointerType:
        if type(t.pointee) is not T.ScalarType or t.pointee.name not in _NUMBERS:
            return f"a pointer must point to a number type, not {_t(t.pointee)}"
        return _ptr_attr_error(t)
    if k is T.TileType:
        e = t.element
        if type(e) is T.PointerType:
            err = type_error(e, depth + 1)
            if err:
                return err
        elif type(e) is not T.ScalarType or e.name not in T.SCALAR_TYPES:
            return f"a tile holds numbers or pointers, not {_t(e)}"
        return _dims_error(t.shape, _t(t))
    if k is T.TensorViewType:
        if type(t.element) is not T.ScalarType or t.element.name not in _NUMBERS:
            return f"a tensor_view holds numbers, not {_t(t.element)}"
        if not isinstance(t.shape, tuple) or not isinstance(t.strides, tuple) or len(t.shape) != len(t.strides):
            return "a tensor_view needs one stride per dimension"
        for d in t.shape + t.strides:
            if d is not None and (type(d) is not int or not 1 <= d <= L.MAX_DIM):
                return f"tensor_view dimensions and strides must be positive 64-bit integers or ?, got {d}"
        return _ptr_attr_error(t)
    if k in T.VIEW_TYPES:
        tv = t.tensor_view
        if type(tv) is not T.TensorViewType:
            return "a view needs a tensor_view"
        err = type_error(tv, depth + 1)
        if err:
            return err
        rank = len(tv.shape)
        tile = t.tile_shape
        if not isinstance(tile, tuple) or not tile:
            return "a view needs a tile shape of rank 1 or more"
        if len(tile) != rank:
            return f"view tile shape {list(tile)} does not match the tensor_view's rank {rank}"
        err = _dims_error(tile, f"view tile shape of {_t(t)}")
        if err:
            return err
        if t.padding is not None:
            if t.padding not in PADDING_VALUES:
                return f"unknown padding value {t.padding!r}"
            if t.padding in _SPECIAL_PADDING and tv.element.name not in _ANYFLOATS:
                return f"padding_value {t.padding} needs a float element type"
        if k is T.GatherScatterViewType:
            if type(t.sparse_dim) is not int or not 0 <= t.sparse_dim < rank:
                return f"sparse_dim {t.sparse_dim} is not a dimension of the tensor_view"
            return None
        if not isinstance(t.dim_map, tuple) or sorted(t.dim_map) != list(range(rank)):
            return f"dim_map {t.dim_map!r} is not a permutation of 0..{rank - 1}"
        if k is T.StridedViewType:
            trav = t.traversal_strides
            if not isinstance(trav, tuple) or len(trav) != rank or any(
                    type(s) is not int or not 1 <= s <= L.MAX_I32 for s in trav):
                return f"traversal strides {trav!r} must be {rank} positive 32-bit integers"
        return None
    if k is T.FunctionType:
        return "a function type is not a value type"
    return f"{type(t).__name__} is not a type"


# --- attributes ----------------------------------------------------------------------------------
def _int_fits(v: int, t: T.Type) -> bool:
    w = T.SCALAR_TYPES[t.name][0]
    if w == 1:
        return v in (0, 1)
    return -(1 << (w - 1)) <= v < (1 << (w - 1))


def attr_value_error(v, depth: int = 0) -> Optional[str]:
    """Why ``v`` is not a valid tagged attribute value (as arrays and dictionaries hold)."""
    if depth > L.MAX_NESTING_DEPTH:
        return "attributes nested too deeply"
    if isinstance(v, bool) or isinstance(v, str):
        return None
    if isinstance(v, IntegerAttr):
        if type(v.type) is not T.ScalarType or v.type.name not in _INTS | {"i4"}:
            return f"integer attribute of non-integer type {_t(v.type)}"
        if type(v.value) is not int or not _int_fits(v.value, v.type):
            return f"integer {v.value} does not fit {v.type.name}"
        return None
    if isinstance(v, FloatAttr):
        if type(v.type) is not T.ScalarType or v.type.name not in _ANYFLOATS:
            return f"float attribute of non-float type {_t(v.type)}"
        if type(v.bits) is not int or v.bits < 0 or v.bits >> T.SCALAR_TYPES[v.type.name][0]:
            return f"float bits do not fit {v.type.name}"
        return None
    if isinstance(v, T.Type):
        return type_error(v) if not isinstance(v, T.FunctionType) else None
    if isinstance(v, tuple):
        for x in v:
            err = attr_value_error(x, depth + 1)
            if err:
                return err
        return None
    if isinstance(v, DictAttr):
        return _dict_error(v, depth)
    if isinstance(v, OptimizationHints):
        return _hints_error(v, depth)
    if isinstance(v, DenseElements):
        return _dense_error(v)
    if isinstance(v, (DivBy, Bounded, SameElements)):
        return _predicate_error(v)
    return f"{type(v).__name__} is not an attribute value"


def _dict_error(d: DictAttr, depth: int) -> Optional[str]:
    if not isinstance(d.items, tuple):
        return "malformed dictionary"
    for item in d.items:
        if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str):
            return "malformed dictionary"
        err = attr_value_error(item[1], depth + 1)
        if err:
            return err
    return None


def _hints_error(h: OptimizationHints, depth: int = 0) -> Optional[str]:
    if not isinstance(h.by_arch, tuple):
        return "malformed optimization hints"
    for item in h.by_arch:
        if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str) \
                or not isinstance(item[1], DictAttr):
            return "optimization hints must map architecture names to dictionaries"
        for key, value in item[1].items:
            if not isinstance(key, str):
                return "malformed optimization hints"
            if not _hint_value_ok(value, depth + 1):
                return f"optimization hint {key!r} has a value of kind {type(value).__name__} (numbers, booleans, " \
                       f"strings and dictionaries of them)"
    return None


def _hint_value_ok(v, depth: int) -> bool:
    if depth > L.MAX_NESTING_DEPTH:
        return False
    if isinstance(v, DictAttr):
        return all(isinstance(k, str) and _hint_value_ok(x, depth + 1) for k, x in v.items)
    if isinstance(v, (bool, str)):
        return True
    if isinstance(v, (IntegerAttr, FloatAttr)):
        return attr_value_error(v) is None
    return False


def _dense_error(d: DenseElements, valid_type: Optional[Callable[[T.Type], Optional[str]]] = None) -> Optional[str]:
    """What is wrong with a dense constant, or None. ``valid_type``: ``type_error`` or a
    verifier's cached form of it."""
    t = d.type
    if type(t) is not T.TileType or type(t.element) is not T.ScalarType:
        return f"a dense constant needs a tile of numbers, not {_t(t)}"
    err = (valid_type or type_error)(t)
    if err:
        return err
    if not isinstance(d.data, bytes):
        return "malformed dense constant"
    name = t.element.name
    esize = 1 if name in ("i1", "i4", "f4E2M1FN") else T.SCALAR_TYPES[name][0] // 8
    n = len(d.data)
    total = t.num_elements
    if n != esize and n != esize * total and not (name in ("i4", "f4E2M1FN") and n == (total + 1) // 2):
        return f"{n} bytes of data do not fit {_t(t)} (one element of {esize} bytes, or {esize * total})"
    return None


def _predicate_error(p) -> Optional[str]:
    ints = lambda *xs: all(x is None or (type(x) is int and L.MIN_I64 <= x <= L.MAX_I64) for x in xs)  # noqa: E731
    if isinstance(p, DivBy):
        if type(p.divisor) is not int or not 0 <= p.divisor <= L.MAX_U64 or not ints(p.every, p.along):
            return "div_by values out of range"
    elif isinstance(p, Bounded):
        if not ints(p.lb, p.ub):
            return "bounded bounds out of the 64-bit range"
    elif not isinstance(p.values, tuple) or not all(type(x) is int for x in p.values) or not ints(*p.values):
        return "same_elements values out of the 64-bit range"
    return None


def _op_attr_error(a, v, version: Version) -> Optional[str]:
    k = a.kind
    if k == "enum":
        if not isinstance(v, EnumValue) or v.kind != a.enum or v.name not in ENUMS[a.enum]:
            return f"expected a {a.enum}, got {v!r}"
        since = ENUM_VALUE_SINCE.get((a.enum, v.name))
        if since is not None and since > version:
            return f"{v.name} needs bytecode {since[0]}.{since[1]}, the module is {version[0]}.{version[1]}"
        return None
    if k == "unit":
        return None if v is True else f"expected a unit attribute (set or absent), got {v!r}"
    if k == "bool":
        return None if isinstance(v, bool) else f"expected true or false, got {v!r}"
    if k == "int":
        if type(v) is not int or not 0 <= v <= L.MAX_I64:
            return f"expected a non-negative 64-bit integer, got {v!r}"
        return None
    if k in ("str", "symbol"):
        return None if isinstance(v, str) else f"expected a string, got {v!r}"
    if k == "type":
        return None if isinstance(v, T.Type) else f"expected a type, got {v!r}"
    if k == "i32_array":
        if not isinstance(v, tuple) or not all(type(x) is int and L.MIN_I32 <= x <= L.MAX_I32 for x in v):
            return f"expected a list of 32-bit integers, got {v!r}"
        return None
    if k == "bool_array":
        if not isinstance(v, tuple) or not all(isinstance(x, bool) for x in v):
            return f"expected a list of booleans, got {v!r}"
        return None
    if k == "dense":
        if not isinstance(v, DenseElements):
            return f"expected a dense constant, got {type(v).__name__}"
        return _dense_error(v)
    if k == "array":
        if not isinstance(v, tuple):
            return f"expected an array, got {type(v).__name__}"
        return attr_value_error(v)
    if k == "hints":
        if not isinstance(v, OptimizationHints):
            return f"expected optimization hints, got {type(v).__name__}"
        return _hints_error(v)
    if k == "predicate":
        if not isinstance(v, (DivBy, Bounded, SameElements)):
            return f"expected an assume predicate (div_by, bounded, same_elements), got {type(v).__name__}"
        return _predicate_error(v)
    return f"unknown attribute kind {k}"  # pragma: no cover - the table has no other kinds


# --- the walk ------------------------------------------------------------------------------------
class _Verifier:
    def __init__(self, module: Module, path: str, locate: Optional[Locator]):
        self.module = module
        self.path = path
        self.locate = locate or (lambda obj: None)
        self.version = module.version
        self.globals = {}
        self.parents: List[Optional[Operation]] = []
        self.function: Optional[Function] = None
        self.fid = ""
        self.seen_types: Dict[int, object] = {}
        #: id(type) -> (type, the data lengths it takes: one element, all, packed two to a byte)
        self.dense_sizes: Dict[int, Tuple[T.Type, frozenset]] = {}
        #: enum -> the member names this module's version may use (_enum_names, per verifier)
        self.enum_names: Dict[str, frozenset] = {}
        self.terminator_parent: Optional[Operation] = None
        #: a flat op's signature (plan, segments, the ids of its operand types, None, those of its
        #: result types) once an op of it passed verify_op: another op of the same signature
        #: passes the structure, type and type-relation checks too (they read nothing else), so
        #: only its attributes and other rules are checked. Ids are safe keys here: the module
        #: holds every type it uses while it is verified.
        self.typed_ok: set = set()

    def error(self, message: str, obj, what: str) -> TileIRFormatError:
        return TileIRFormatError(f"{what}: {message}", path=self.path, offset=self.locate(obj))

    def run(self) -> None:
        m = self.module
        for g in m.globals:
            self.verify_global(g)
        for fi, f in enumerate(m.functions):
            self.function = f
            self.fid = f"f{fi}"
            self.verify_function(f)

    def verify_global(self, g) -> None:
        what = f"global @{g.name}"
        if not isinstance(g.name, str):
            raise self.error("malformed name", g, "global")
        err = _dense_error(g.value) if isinstance(g.value, DenseElements) else "its value is not a dense constant"
        if err is None and len(g.value.type.shape) != 1:
            err = f"its type {_t(g.value.type)} must have rank 1"
        if err is None and (type(g.alignment) is not int or not 0 <= g.alignment <= L.MAX_I64):
            err = f"alignment {g.alignment!r} out of range"
        if err is None and g.visibility is not None and g.visibility not in ENUMS["SymbolVisibility"]:
            err = f"unknown visibility {g.visibility!r}"
        if err:
            raise self.error(err, g, what)
        self.globals.setdefault(g.name, g)

    def verify_function(self, f: Function) -> None:
        what = f"entry @{f.name}"
        for i, a in enumerate(f.arguments):
            err = self.valid_type(a.type)
            if err is None and type(a.type) is T.TileType and a.type.shape:
                err = f"entry arguments must be 0-d tiles, argument {i} is {_t(a.type)}"
            if err:
                raise self.error(f"argument {i}: {err}", f, what)
        if f.result_types:
            raise self.error("an entry returns nothing", f, what)
        if not f.is_entry:
            # no producer writes other functions, and their text form is unknown: refused, so that
            # every module read prints and reads back the same
            raise self.error("functions that are not entries are not supported", f, what)
        if f.hints is not None:
            err = _hints_error(f.hints) if isinstance(f.hints, OptimizationHints) else "malformed hints"
            if err:
                raise self.error(err, f, what)
        if f.arg_attrs is not None:
            err = None
            if not isinstance(f.arg_attrs, tuple) or len(f.arg_attrs) != len(f.arguments) \
                    or not all(isinstance(d, DictAttr) for d in f.arg_attrs):
                err = "argument attributes must be one dictionary per argument"
            else:
                err = attr_value_error(f.arg_attrs)
            if err:
                raise self.error(err, f, what)
        if f.body.arguments != f.arguments:
            raise self.error("the body's arguments are not the entry's arguments", f, what)
        self.parents = [None]
        self.verify_block(f.body, self.fid, f, what)

    def verify_block(self, b: Block, path: str, owner, owner_what: str) -> None:
        ops = b.operations
        if not ops:
            raise self.error("a block must end with a terminator (it is empty)", owner, owner_what)
        for a in b.arguments:
            err = self.valid_type(a.type)
            if err:
                raise self.error(f"block argument: {err}", owner, owner_what)
        last = len(ops) - 1
        for j, op in enumerate(ops):
            self.verify_op(op, path, j, j == last)
        od = OPS_BY_NAME.get(ops[-1].name)
        if od is None or not od.has("terminator"):
            raise self.error("a block must end with a terminator (return, yield, continue, break)", ops[-1],
                             f"{ops[-1].name} ({path}/o{last} in @{self.function.name})")

    def dense_fits(self, d: DenseElements) -> bool:
        """Whether ``_dense_error(d)`` is None, for a type met before: its sizes are remembered
        per type object (False: not known, ask _dense_error)."""
        t = d.type
        sizes = self.dense_sizes.get(id(t))
        if sizes is None or sizes[0] is not t:
            if _dense_error(d, self.valid_type) is not None:
                return False
            name = t.element.name
            esize = 1 if name in ("i1", "i4", "f4E2M1FN") else T.SCALAR_TYPES[name][0] // 8
            total = t.num_elements
            lengths = {esize, esize * total} | ({(total + 1) // 2} if name in ("i4", "f4E2M1FN") else set())
            self.dense_sizes[id(t)] = (t, frozenset(lengths))
            return True
        return type(d.data) is bytes and len(d.data) in sizes[1]

    def valid_type(self, t) -> Optional[str]:
        """type_error with a per-module cache by identity (readers share type objects)."""
        seen = self.seen_types
        if seen.get(id(t)) is t:
            return None
        err = type_error(t)
        if err is None:
            seen[id(t)] = t
        return err

    def verify_op(self, op: Operation, path: str, j: int, is_last: bool) -> None:
        # the op's id (path/oJ) is spelled only for a message or a nested region: most ops have neither
        plan = _PLANS_BY_NAME.get(op.name)
        if plan is None:
            plan = _plan_of(op.name)
            if plan is None or plan.top_level:
                raise self.error("not an op of a function body", op,
                                 f"{op.name} ({path}/o{j} in @{self.function.name})")
        elif plan.top_level:
            raise self.error("not an op of a function body", op, f"{op.name} ({path}/o{j} in @{self.function.name})")
        od = plan.od
        try:
            operands, results = op.operands, op.results
            groups: Optional[Dict[str, Tuple[Value, ...]]] = None
            signature = None
            if plan.flat and not op.regions:
                if plan.attrs_in_signature:
                    # (the attribute names, then their values' ids: the lengths tell them apart)
                    attrs = op.attributes
                    if len(results) == 1 and len(operands) == 2 and len(attrs) <= 1:  # most: spelled out
                        if attrs:
                            (key, value), = attrs.items()
                            signature = (plan, op.segments, _id(operands[0].type), _id(operands[1].type),
                                         _id(results[0].type), key, _id(value))
                        else:
                            signature = (plan, op.segments, _id(operands[0].type), _id(operands[1].type),
                                         _id(results[0].type))
                    else:
                        signature = (plan, op.segments, *map(_id, map(_type_of, operands)), None,
                                     *map(_id, map(_type_of, results)), None, *attrs, *map(_id, attrs.values()))
                elif len(results) == 1 and len(operands) <= 2:  # most ops: spelled out, cheaper than the maps
                    if not operands:
                        signature = (plan, op.segments, _id(results[0].type))
                    elif len(operands) == 1:
                        signature = (plan, op.segments, _id(operands[0].type), _id(results[0].type))
                    else:
                        signature = (plan, op.segments, _id(operands[0].type), _id(operands[1].type),
                                     _id(results[0].type))
                else:  # (None between operands and results: no key of the three above has one)
                    signature = (plan, op.segments, *map(_id, map(_type_of, operands)), None,
                                 *map(_id, map(_type_of, results)))
                if signature in self.typed_ok:
                    # structure, types and type relations as a verified op of this signature had,
                    # and its attributes too where the signature holds them
                    if plan.attrs_in_signature:
                        if plan.terminator:
                            self.attributes_and_place(op, od, plan, is_last)
                    elif plan.dense_attr is not None:
                        attrs = op.attributes
                        value = attrs.get(plan.dense_attr)
                        sizes = None
                        if len(attrs) == 1 and type(value) is DenseElements:
                            t = value.type
                            sizes = self.dense_sizes.get(_id(t))  # attributes()' own test, inline
                        if sizes is None or sizes[0] is not t or type(value.data) is not bytes \
                                or len(value.data) not in sizes[1] or plan.terminator:
                            self.attributes_and_place(op, od, plan, is_last)
                        elif plan.checks_value_type and t is results[0].type:
                            return  # check:constant's quick test, inline
                    else:
                        self.attributes_and_place(op, od, plan, is_last)
                    if plan.flat_checks:
                        self.flat_relations(op, plan, operands, results, plan.flat_checks)
                    return
            if signature is not None and op.segments == plan.single_segments \
                    and len(operands) == len(plan.single_segments) and len(results) == plan.fixed_results:
                self.check_flat(plan, operands, results)  # structure() would find nothing wrong
            else:
                signature = None
                groups = self.structure(op, od, plan)
                self.check_groups(op, plan, groups)
            self.attributes_and_place(op, od, plan, is_last)
            if groups is None:
                if plan.flat_relations:
                    self.flat_relations(op, plan, operands, results, plan.flat_relations)
                self.typed_ok.add(signature)
            else:
                for fn, names in plan.relations:
                    fn(self, op, groups, names)
        except VerifyError as e:
            raise self.error(str(e), op, f"{op.name} ({path}/o{j} in @{self.function.name})") from None
        if op.regions:
            oid = f"{path}/o{j}"
            self.parents.append(op)
            for ri, r in enumerate(op.regions):
                if not r.blocks:
                    continue  # allowed only for if's else (checked above)
                self.verify_block(r.blocks[0], f"{oid}/r{ri}", op, f"{op.name} ({oid} in @{self.function.name})")
            self.parents.pop()

    def check_groups(self, op: Operation, plan: _Plan, groups: Dict[str, Tuple[Value, ...]]) -> None:
        """The type constraints of every operand and result group, and the result types."""
        for name, c in plan.operand_checks:
            for v in groups[name]:
                if not c.admits(v.type):
                    raise VerifyError(f"operand {name} must be {c.text}, got {_t(v.type)}")
        for r in op.results:
            err = self.valid_type(r.type)
            if err:
                raise VerifyError(f"result type: {err}")
        for name, c in plan.result_checks:
            for v in groups[name]:
                if not c.admits(v.type):
                    raise VerifyError(f"{'result' if name == 'result' else 'result ' + name} must be {c.text}, "
                                      f"got {_t(v.type)}")

    def check_flat(self, plan: _Plan, operands, results) -> None:
        """check_groups for a flat op: group i is operand i, result group k result k (same order,
        same messages)."""
        for i, name, c in plan.operand_checks_at:
            t = operands[i].type
            if c.accepted.get(id(t)) is not t and not c.admits(t):  # admits' own first test, inline
                raise VerifyError(f"operand {name} must be {c.text}, got {_t(t)}")
        seen = self.seen_types
        for r in results:
            t = r.type
            if seen.get(id(t)) is not t:
                err = self.valid_type(t)
                if err:
                    raise VerifyError(f"result type: {err}")
        for k, name, c in plan.result_checks_at:
            t = results[k].type
            if c.accepted.get(id(t)) is not t and not c.admits(t):
                raise VerifyError(f"{'result' if name == 'result' else 'result ' + name} must be {c.text}, got {_t(t)}")

    def flat_relations(self, op: Operation, plan: _Plan, operands, results, relations) -> None:
        """``relations`` of a flat op (``plan.flat_relations`` or ``plan.flat_checks``) in order:
        one whose quick test passes is done (the relation would find nothing), the others get
        the groups structure() would have built."""
        groups = None
        for fn, names, quick in relations:
            if quick is not None and quick(op, operands, results):
                continue
            if groups is None:
                groups = plan.flat_groups(operands, results)
            fn(self, op, groups, names)

    def structure(self, op: Operation, od: OpDef, plan: _Plan) -> Dict[str, Tuple[Value, ...]]:
        segs = op.segments
        operands = op.operands
        if segs == plan.single_segments and len(operands) == len(segs):
            groups = {name: (v,) for name, v in zip(plan.operand_names, operands)}
        else:
            if len(segs) != len(od.operands) or sum(segs) != len(operands) or any(s < 0 for s in segs):
                raise VerifyError(f"operand segments {list(segs)} do not fit {len(operands)} operands in "
                                  f"{len(od.operands)} groups")
            groups = {}
            pos = 0
            for o, n in zip(od.operands, segs):
                if o.arity == "single" and n != 1:
                    raise VerifyError(f"operand {o.name}: {n} values, expected 1")
                if o.arity == "optional" and n > 1:
                    raise VerifyError(f"optional operand {o.name}: {n} values")
                groups[o.name] = operands[pos:pos + n]
                pos += n
        results = op.results
        n = len(results)
        fixed = plan.fixed_results
        if not plan.variadic_results and n == fixed:
            for name, r in zip(plan.result_names, results):
                groups[name] = (r,)
        else:
            if plan.variadic_results:
                if n < fixed:
                    raise VerifyError(f"{n} results, expected at least {fixed}")
            elif n != fixed:
                # A result added in a later version (print_tko's token) may be absent before it.
                later = sum(1 for s in plan.later_results if s > self.version)
                if not (later and n == fixed - later):
                    raise VerifyError(f"{n} results, expected {fixed}")
            if n > L.MAX_VALUES_PER_OP:
                raise VerifyError(f"{n} results, more than {L.MAX_VALUES_PER_OP}")
            rpos = 0
            for r in od.results:
                k = max(n - fixed, 0) if r.variadic else (1 if rpos < n else 0)
                groups[r.name] = results[rpos:rpos + k]
                rpos += k
        regions = op.regions
        if len(regions) != od.regions:
            raise VerifyError(f"{len(regions)} regions, expected {od.regions}")
        for ri, r in enumerate(regions):
            nb = len(r.blocks)
            if nb == 1 or (nb == 0 and ri == len(regions) - 1 and od.has("optional_last_region")):
                continue
            raise VerifyError(f"region {ri} has {nb} blocks (a Tile IR region has one)")
        return groups

    def attributes_and_place(self, op: Operation, od: OpDef, plan: _Plan, is_last: bool) -> None:
        """The checks every op gets, whether or not its signature was verified before: its
        attributes, and a terminator's place (last in its block, under an op that takes it)."""
        if op.attributes or plan.required_attrs:
            self.attributes(op, od, plan)
        if plan.terminator:
            if not is_last:
                raise VerifyError("a terminator must be the last op of its block")
            self.terminator_parent = _terminator_parent(self, op, od)

    def attributes(self, op: Operation, od: OpDef, plan: _Plan) -> None:
        attrs = op.attributes
        defs = plan.attr_defs
        quick = plan.attr_quick
        for key, value in attrs.items():
            q = quick.get(key)
            if q is not None:
                # what _op_attr_error accepts without a closer look: a unit set, an enum member
                # of this version, a dense constant whose size fits its type; anything else gets
                # its message below
                if q is _UNIT_KIND:
                    if value is True:
                        continue
                elif q is _DENSE_KIND:
                    if type(value) is DenseElements:
                        t = value.type
                        sizes = self.dense_sizes.get(id(t))  # dense_fits' own test, inline
                        if sizes is not None and sizes[0] is t:
                            if type(value.data) is bytes and len(value.data) in sizes[1]:
                                continue
                        elif self.dense_fits(value):
                            continue
                elif type(value) is EnumValue and value.kind == q and type(value.name) is str:
                    names = self.enum_names.get(q)
                    if names is None:
                        names = self.enum_names[q] = _enum_names(q, self.version)
                    if value.name in names:
                        continue
            a = defs.get(key)
            if a is None:
                raise VerifyError(f"unknown attribute {key!r}")
            if a.kind == "dense" and type(value) is DenseElements:
                err = _dense_error(value, self.valid_type)  # the type by identity when seen before
            else:
                err = _op_attr_error(a, value, self.version)
            if err:
                raise VerifyError(f"attribute {key}: {err}")
        for a in plan.required_attrs:
            if a.name not in attrs and a.since <= self.version:
                raise VerifyError(f"attribute {a.name} is missing")


def verify_module(module: Module, path: Optional[str] = None, locate: Optional[Locator] = None) -> Module:
    """Check ``module`` against the op table; return it, or raise ``TileIRFormatError``.

    ``locate(obj)`` gives the offset (bytecode) or ``"line:col"`` (text) of an op, function or
    global, for the message; the readers pass their own."""
    _Verifier(module, path or module.source or "<input>", locate).run()
    return module


__all__ = ["verify_module", "type_error", "attr_value_error", "check_op_table", "CHECKS"]
