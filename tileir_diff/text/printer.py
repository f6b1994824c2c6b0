"""IR -> Tile IR text, byte-identical to ``tileirdisasm FILE``.

Value names follow MLIR's AsmPrinter ``SSANameState`` (see ``Namer``); op bodies come from the
op table's templates (``template.py``) or, for the region-holding ops, from ``custom.py``.
``print_module_lines`` also gives each op's line a stable id (``f0/o3``, ``f0/o3/r0/o1``).
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from typing import Dict, Iterator, List, Optional, Tuple

from ..gc_pause import gc_paused
from ..dialect.ops import OPS_BY_NAME
from ..dialect.traits import NAMES_RESULTS, ops_with
from ..ir import types as T
from ..ir.attributes import DenseElements
from ..ir.type_text import type_text
from ..ir.core import Block, Function, Module, Operation, Region, Value
from . import custom
from .floatfmt import FORMATS, classify
from .template import PrintContext, dense_elements, print_with_template

INDENT = "  "

# Ops implementing MLIR's OpAsmOpInterface (the op table's `names_results` trait): `assume` names
# its result after such a producer's suggested name ("assume_" + hint, or "assume_" when the
# producer names nothing for that value).
_ASM_INTERFACE_OPS = ops_with(NAMES_RESULTS)


# --- types: one spelling, in ir/type_text.py ---------------------------------------------
print_type = type_text


def print_attr(value) -> str:
    """One attribute value as the text shows it (for reports)."""
    from .template import hints_text, predicate_text, scalar_attr_text, dense_text
    from ..ir.attributes import (Bounded, DenseElements, DivBy, EnumValue, OptimizationHints, SameElements,
                                 FloatAttr, IntegerAttr)
    if isinstance(value, EnumValue):
        return value.name
    if isinstance(value, DenseElements):
        return f"<{value.element}: {dense_text(value)}> : {print_type(value.type)}"
    if isinstance(value, OptimizationHints):
        return hints_text(value)
    if isinstance(value, (DivBy, Bounded, SameElements)):
        return predicate_text(value)
    if isinstance(value, (FloatAttr, IntegerAttr)):
        return scalar_attr_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, T.Type):
        return print_type(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(print_attr(v) for v in value) + "]"
    if isinstance(value, str):
        from .spelling import escape_string
        return escape_string(value)
    return str(value)


# --- SSA names -----------------------------------------------------------------------------
_SANITIZED: Dict[str, str] = {}


def _sanitize(name: str) -> str:
    """MLIR sanitizeIdentifier (memoized: the same few hints come back for every op)."""
    try:
        return _SANITIZED[name]
    except KeyError:
        pass
    text = _sanitize_uncached(name)
    if len(_SANITIZED) > 1 << 14:
        _SANITIZED.clear()
    _SANITIZED[name] = text
    return text


def _sanitize_uncached(name: str) -> str:
    """MLIR sanitizeIdentifier: keep [A-Za-z0-9$._-], space -> '_', others as hex; '_' prefix
    for a leading digit."""
    def conv(s):
        out = []
        for ch in s:
            if ch.isascii() and (ch.isalnum() or ch in "$._-"):
                out.append(ch)
            elif ch == " ":
                out.append("_")
            else:
                out.append("".join("%X" % b for b in ch.encode("utf-8")))
        return "".join(out)
    if name[0].isdigit():
        return "_" + conv(name)
    return conv(name)


class _Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: Optional["_Scope"]):
        self.names = set()
        self.parent = parent

    def __contains__(self, name: str) -> bool:
        s = self
        while s is not None:
            if name in s.names:
                return True
            s = s.parent
        return False


#: Bytes per element of the element types ``dense_elements`` steps through by whole bytes.
_ELEMENT_BYTES: Dict[str, int] = {name: spec[0] // 8 for name, spec in T.SCALAR_TYPES.items() if spec[0] >= 8}


#: constant_name by (element type, data) for short data (splats: one element), bounded.
_CONSTANT_NAMES: Dict[Tuple[str, bytes], str] = {}


def constant_name(op: Operation) -> str:
    """ConstantOp::getAsmResultNames."""
    d = op.attributes.get("value")
    if d is None:
        return "cst"
    data = d.data
    if len(data) > 16:
        return _constant_name(d)
    key = (d.element.name, data)
    name = _CONSTANT_NAMES.get(key)
    if name is None:
        name = _constant_name(d)
        if len(_CONSTANT_NAMES) > 1 << 16:
            _CONSTANT_NAMES.clear()
        _CONSTANT_NAMES[key] = name
    return name


def _constant_name(d) -> str:
    name = d.element.name
    data = d.data
    if len(data) == _ELEMENT_BYTES.get(name):  # one element stored (a splat): dense_elements' list
        elems = [int.from_bytes(data, "little")]
    else:
        elems = dense_elements(d)
    if name == "i1":
        if all(elems):
            return "true"
        if not any(elems):
            return "false"
        return "cst_i1"
    s = "cst"
    splat = len(elems) == 1 or (elems and all(e == elems[0] for e in elems))
    if splat and elems:
        bits = elems[0]
        if name in T.SCALAR_TYPES and name[0] == "i":
            width = T.SCALAR_TYPES[name][0]
            v = bits & ((1 << width) - 1)
            if v >> (width - 1):
                v -= 1 << width
            s += f"_{v}"
        else:
            cat, neg, sig, exp = classify(bits, name)
            if cat == "nan":
                s += "_NaN"
            elif cat == "zero" and not neg:
                s += "_0"
            elif cat == "normal" and not neg:
                # exact conversion to a 64-bit unsigned integer (rmTowardZero, exact flag)
                if exp >= 0:
                    v = sig << exp
                    if v < (1 << 64):
                        s += f"_{v}"
                elif sig % (1 << -exp) == 0:
                    s += f"_{sig >> -exp}"
    return f"{s}_{name}"


def result_hints(op: Operation, producer_of) -> Dict[int, str]:
    """Suggested names for an op's results (MLIR getAsmResultNames), by result index."""
    if not op.results:
        return {}
    if op.name == "constant":
        return {0: constant_name(op)}
    if op.name == "assume":
        src = op.operands[0] if op.operands else None
        prod = producer_of(src) if src is not None else None
        if prod is not None and prod[0].name in _ASM_INTERFACE_OPS:
            pop, idx = prod
            hint = result_hints(pop, producer_of).get(idx, "")
            return {0: "assume_" + hint}
        return {0: "assume"}
    hints = _RESULT_HINTS.get(op.name)
    if hints is None:
        return {}
    n = len(op.results)
    if n >= len(hints):
        return dict(hints)
    return {i: h for i, h in hints.items() if i < n}


#: Per op name without variadic results, how many results the op table declares.
_FIXED_RESULT_COUNT: Dict[str, int] = {
    od.name: len(od.results) for od in OPS_BY_NAME.values() if not any(r.variadic for r in od.results)}

#: Per op name, the result-name hints of the op table (result index -> hint).
_RESULT_HINTS: Dict[str, Dict[int, str]] = {
    od.name: {i: n for i, n in enumerate(od.result_names) if n} for od in OPS_BY_NAME.values()}


#: Ops that suggest no result name (result_hints gives {} whatever the op holds): numbered.
_UNHINTED = frozenset(name for name, hints in _RESULT_HINTS.items()
                      if not hints and name != "constant" and name != "assume")  # result_hints' own cases


#: Ops that, with one result, are named by the two fast paths of ``Namer._number_op``: ``constant``
#: and the ops that suggest no name, of at most one declared result (or variadic results), so
#: that one result never gets a phantom one (``_with_phantoms``).
_ONE_RESULT_KINDS = frozenset(name for name in _UNHINTED | {"constant"}
                              if _FIXED_RESULT_COUNT.get(name) is None or _FIXED_RESULT_COUNT[name] <= 1)


def region_arg_hints(op: Operation, region: Region) -> List[Optional[str]]:
    args = region.blocks[0].arguments if region.blocks else ()
    if op.name == "for":
        return ["loopIdx"] + [f"iterArg{i}" for i in range(len(args) - 1)]
    if op.name == "reduce":
        out = []
        for i in range(len(args)):
            n = "reduce_lhs" if i % 2 == 0 else "reduce_rhs"
            if len(args) > 2:
                n += str(i // 2)
            out.append(n)
        return out
    return [None] * len(args)


class Namer:
    """MLIR SSANameState for one function: every value's reference text (``%x``, ``%1#2``) and
    every op's result-group text for its left-hand side (``lhs``: None for an op without
    results). ``OnDemandNamer`` gives the same names, numbering only as far as asked."""

    def __init__(self, func: Function):
        self._init_tables()
        deque(self._steps(func), 0)
        self.ref: Mapping[int, str] = self._ref
        self.lhs: Mapping[int, Optional[str]] = self._lhs  # id(op) -> "%a, %b" / "%1:2" / None
        self.producer: Mapping[int, Tuple[Operation, int]] = self._producer
        self._views: Mapping[int, Operation] = self._view_of

    def _init_tables(self) -> None:
        # the numbering writes these; ``ref``/``lhs``/``producer``/``_views`` are what readers see
        self._ref: Dict[int, str] = {}
        self._lhs: Dict[int, Optional[str]] = {}
        self._producer: Dict[int, Tuple[Operation, int]] = {}
        self._view_of: Dict[int, Operation] = {}
        self._phantom = 0
        #: (table, key): ``_steps`` pauses once ``key in table`` (never, for ``Namer``)
        self._wanted: Tuple[Dict, object] = ({}, None)

    def producer_of(self, v: Value):
        return self._producer.get(v.vid)

    def _steps(self, func: Function) -> Iterator[None]:
        """Number the function in MLIR's order: a block's arguments, its ops, then the regions
        of its ops, each nested block starting from the counters its parent block ended with.
        Pauses (yields) whenever ``self._wanted``'s key has been numbered."""
        ref = self._ref
        number_op = self._number_op
        table, key = self._wanted
        # (block, owner op or None for the function, counters, parent scope)
        stack = [(func.body, None, None, (0, 0, 0), None)]
        while stack:
            block, owner, region, counters, parent = stack.pop()
            self.next_value, self.next_arg, self.next_conflict = counters
            scope = _Scope(parent)
            self.scope = scope
            hints = region_arg_hints(owner, region) if owner is not None else [None] * len(block.arguments)
            for arg, hint in zip(block.arguments, hints):
                if hint:
                    ref[arg.vid] = "%" + self._unique(hint)
            for arg in block.arguments:
                if arg.vid not in ref:
                    name = f"arg{self.next_arg}"
                    self.next_arg += 1
                    ref[arg.vid] = "%" + self._unique(name)
            while key in table:
                yield
                table, key = self._wanted
            for op in block.operations:
                number_op(op)
                while key in table:
                    yield
                    table, key = self._wanted
            saved = (self.next_value, self.next_arg, self.next_conflict)
            for op in block.operations:
                for r in op.regions:
                    for b in r.blocks:
                        stack.append((b, op, r, saved, scope))

    def _unique(self, name: str) -> str:
        text = _SANITIZED.get(name)  # (_sanitize's memo, inline)
        name = _sanitize(name) if text is None else text
        scope = self.scope
        names = scope.names
        parent = scope.parent
        if name in names or (parent is not None and name in parent):
            k = self.next_conflict
            while True:
                probe = f"{name}_{k}"
                k += 1
                if probe not in names and (parent is None or probe not in parent):
                    break
            self.next_conflict = k
            name = probe
        names.add(name)
        return name

    def view(self, op: Operation) -> Operation:
        """The op as tileirdisasm sees it (with phantom results, see _with_phantoms)."""
        return self._views.get(id(op), op)

    def _with_phantoms(self, op: Operation) -> Operation:
        """print_tko had no result before 13.2, but tileirdisasm upgrades it and prints (and
        numbers) a token result: give such an op a phantom result so names match."""
        declared = _FIXED_RESULT_COUNT.get(op.name)
        if declared is None or len(op.results) >= declared:
            return op
        od = OPS_BY_NAME[op.name]
        extra = []
        for _r in od.results[len(op.results):]:
            self._phantom -= 1
            extra.append(Value(self._phantom, T.TokenType()))
        new = op.replace(results=op.results + tuple(extra))
        self._view_of[id(op)] = new
        return new

    def _number_op(self, op: Operation) -> None:
        results = op.results
        name = op.name
        if len(results) == 1 and name in _ONE_RESULT_KINDS:  # (no phantom result: see _ONE_RESULT_KINDS)
            vid = results[0].vid
            self._producer[vid] = (op, 0)
            if name == "constant":  # result_hints' {0: constant_name(op)}, as the general path takes it
                ref = "%" + self._unique(constant_name(op))
            else:  # no suggested name (most ops): the next number, as the general path gives it
                ref = f"%{self.next_value}"
                self.next_value += 1
            self._ref[vid] = self._lhs[id(op)] = ref
            return
        declared = _FIXED_RESULT_COUNT.get(name)
        if declared is not None and len(results) < declared:
            key = id(op)
            op = self._with_phantoms(op)
            results = op.results
        elif not results:
            self._lhs[id(op)] = None  # numbered, nothing to name (OnDemandNamer reads this)
            return
        else:
            key = id(op)
        n = len(results)
        producer = self._producer
        for i, r in enumerate(results):
            producer[r.vid] = (op, i)
        hints = result_hints(op, self.producer_of)
        if n == 1:  # the common case of the general path below
            if 0 in hints:
                ref = "%" + self._unique(hints[0])
            else:
                ref = f"%{self.next_value}"
                self.next_value += 1
            self._ref[results[0].vid] = ref
            self._lhs[key] = ref
            return
        names: Dict[int, str] = {}
        groups = [0]
        for i in sorted(hints):
            names[i] = self._unique(hints[i])
            if i:
                groups.append(i)
        if 0 not in names:
            names[0] = str(self.next_value)
            self.next_value += 1
        groups = sorted(set(groups))
        parts = []
        for gi, start in enumerate(groups):
            end = groups[gi + 1] if gi + 1 < len(groups) else n
            size = end - start
            head = names[start]
            parts.append(f"%{head}" + (f":{size}" if size > 1 else ""))
            for k in range(start, end):
                if n == 1 or size == 1:
                    self._ref[op.results[k].vid] = f"%{head}"
                else:
                    self._ref[op.results[k].vid] = f"%{head}#{k - start}"
        self._lhs[key] = ", ".join(parts)


class OnDemandNamer(Namer):
    """The same names as ``Namer``, numbered only as far as the ones asked for: a report names a
    few values of a function, and numbering all of it was most of what naming cost. MLIR's
    numbering is sequential, so asking for a value numbers every value before it (in
    ``Namer._steps``' order); a value not in the function numbers all of it.

    A name, once given, is the one ``Namer`` gives, because a value is named once (``vid`` is
    unique in a function) and numbering cannot fail part-way: a function where either might not
    hold (``_numbering_is_safe``) is numbered whole here, as ``Namer`` does (raising where it
    raises). The tables are read without a lock; numbering further takes one."""

    def __init__(self, func: Function):
        self._init_tables()
        self._pending: Optional[Iterator[None]] = self._steps(func)
        self._lock = threading.Lock()
        if not _numbering_is_safe(func):
            self.number_all()
        self.ref = _NumberedOnDemand(self._ref, self, self._ref)
        self.lhs = _NumberedOnDemand(self._lhs, self, self._lhs)
        self.producer = _NumberedOnDemand(self._producer, self, self._producer)
        # an op's view is made when the op is numbered, and every numbered op has an lhs entry
        self._views = _NumberedOnDemand(self._view_of, self, self._lhs)

    def number_until(self, table: Dict, key) -> None:
        """Number further until ``key in table`` (or to the end)."""
        with self._lock:
            if self._pending is None or key in table:
                return
            self._wanted = (table, key)
            for _ in self._pending:
                return
            self._pending = None

    def number_all(self) -> None:
        with self._lock:
            if self._pending is not None:
                self._wanted = ({}, None)
                deque(self._pending, 0)
                self._pending = None


class _NumberedOnDemand(Mapping):
    """One of an ``OnDemandNamer``'s tables: a key not there yet numbers further (until it is in
    ``until``: the table itself, or for an op's view, the table every numbered op is in)."""
    __slots__ = ("_table", "_namer", "_until")

    def __init__(self, table: Dict, namer: OnDemandNamer, until: Dict):
        self._table = table
        self._namer = namer
        self._until = until

    def __getitem__(self, key):
        try:
            return self._table[key]
        except KeyError:
            pass
        if self._namer._pending is not None:
            self._namer.number_until(self._until, key)
        return self._table[key]

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __iter__(self):
        self._namer.number_all()
        return iter(self._table)

    def __len__(self) -> int:
        self._namer.number_all()
        return len(self._table)


#: Element types whose constants ``constant_name`` spells without raising (the integers and the
#: floats ``classify`` knows, of a size ``dense_elements`` can step through).
_NAMEABLE_ELEMENTS = frozenset(
    name for name, spec in T.SCALAR_TYPES.items()
    if (name in ("i1", "i4", "f4E2M1FN") or spec[0] >= 8) and (name[0] == "i" or name in FORMATS))

def _numbering_is_safe(func: Function) -> bool:
    """Whether numbering ``func`` names each value once and cannot raise: its value ids are
    unique, results are tuples (``_with_phantoms`` adds to them), and every constant's value is
    a dense attribute of bytes whose element type ``constant_name`` spells (the only hints that
    depend on the module; the other hints are the op table's)."""
    try:
        vids: List[int] = []
        values = []
        stack = [func.body]
        while stack:
            block = stack.pop()
            vids += [a.vid for a in block.arguments]
            for op in block.operations:
                results = op.results
                if type(results) is not tuple:
                    return False
                if len(results) == 1:
                    vids.append(results[0].vid)
                elif results:
                    vids += [r.vid for r in results]
                if op.name == "constant":
                    values.append(op.attributes.get("value"))
                if op.regions:
                    for r in op.regions:
                        stack += r.blocks
        if len(set(vids)) != len(vids):
            return False
        types = {}  # a module shares its type objects: each is looked at once
        for d in values:
            if d is not None:
                if type(d) is not DenseElements or type(d.data) is not bytes:
                    return False
                types[id(d.type)] = d.type
        return all(t.element.name in _NAMEABLE_ELEMENTS for t in types.values())
    except Exception:
        return False


# --- printing ------------------------------------------------------------------------------
class RegionPiece:
    """Marks where a region goes inside an op's text. ``args``: print ``(%a: T, ...)`` on a new
    line first (reduce/scan); ``implicit``: a trailing operand-less terminator of that name is
    not printed (MLIR's implicit terminators: ``yield`` in if, ``continue`` in for/loop)."""

    def __init__(self, region: Region, *, args: bool = False, implicit: Optional[str] = None,
                 path: Optional[str] = None):
        self.region = region
        self.path = path
        self.args = args
        self.implicit = implicit


class _Printer(PrintContext):
    def __init__(self):
        self.lines: List[Tuple[Optional[str], str]] = []
        self.namer: Optional[Namer] = None
        #: id(type) -> (type, text): readers share type objects, and hashing a nested type for
        #: type_text's memo costs more than this lookup (entries keep their type alive)
        self._type_texts: Dict[int, Tuple[object, str]] = {}

    # PrintContext
    def value(self, v: Value) -> str:
        try:
            return self.namer.ref[v.vid]
        except KeyError:
            return f"<<UNKNOWN SSA VALUE v{v.vid}>>"

    def type(self, t) -> str:
        hit = self._type_texts.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        text = print_type(t)
        self._type_texts[id(t)] = (t, text)
        return text

    def arg_region(self, region):
        return RegionPiece(region, args=True)

    # structure
    def module(self, m: Module) -> None:
        for g in m.globals:
            self.lines.append((None, custom.print_global(g, self)))
        for fi, f in enumerate(m.functions):
            self.function(f, f"f{fi}")

    def function(self, f: Function, fid: str) -> None:
        self.namer = Namer(f)
        head = custom.print_entry_header(f, self)
        self.emit_pieces(fid, "", [head, " ", RegionPiece(Region((f.body,)), path=fid)], fid)

    def op(self, op: Operation, indent: str, oid: str) -> None:
        namer = self.namer
        lhs = namer.lhs.get(id(op))
        op = namer._views.get(id(op), op)  # namer.view(op), inline
        start = indent + (lhs + " = " if lhs else "") + op.name
        od = OPS_BY_NAME.get(op.name)
        if od is None:
            raise ValueError(f"cannot print unknown op {op.name!r}")
        if od.syntax is None:
            pieces = custom.print_custom(op, od, self)
        else:
            pieces = print_with_template(op, od, self)
        if not op.regions:  # no RegionPiece among the pieces: one line
            self.lines.append((oid, start + "".join(pieces)))
            return
        self.emit_pieces(oid, indent, [start] + pieces, oid)

    def emit_pieces(self, oid: str, indent: str, pieces, path: str) -> None:
        cur: List[str] = []
        first_id: Optional[str] = oid
        rcount = 0
        for p in pieces:
            if isinstance(p, RegionPiece):
                if p.args:
                    self.lines.append((first_id, "".join(cur)))
                    first_id = None
                    blk = p.region.blocks[0]
                    args = ", ".join(f"{self.value(a)}: {print_type(a.type)}" for a in blk.arguments)
                    cur = [indent, f"({args}) "]
                cur.append("{")
                self.lines.append((first_id, "".join(cur)))
                first_id = None
                self.region_body(p.region, indent + INDENT, p.path or f"{path}/r{rcount}", p.implicit)
                if p.path is None:
                    rcount += 1
                cur = [indent, "}"]
            else:
                cur.append(p)
        self.lines.append((first_id, "".join(cur)))

    def region_body(self, region: Region, indent: str, rpath: str, implicit: Optional[str]) -> None:
        if not region.blocks:
            return
        ops = region.blocks[0].operations
        if implicit and ops and ops[-1].name == implicit and not ops[-1].operands:
            ops = ops[:-1]
        for j, o in enumerate(ops):
            self.op(o, indent, f"{rpath}/o{j}")


def print_module_lines(module: Module) -> List[Tuple[Optional[str], str]]:
    p = _Printer()
    with gc_paused():  # a line tuple per op, all kept: see gc_pause.py
        p.module(module)
    return p.lines


def print_module(module: Module, *, locations: bool = False) -> str:
    if locations:
        raise NotImplementedError("printing debug locations (tileirdisasm -g) is not supported yet")
    return "".join(line + "\n" for _, line in print_module_lines(module))


def print_function(func: Function) -> str:
    p = _Printer()
    p.function(func, "f0")
    return "".join(line + "\n" for _, line in p.lines)


def print_op(op: Operation, func: Optional[Function] = None) -> str:
    """One op (with its regions). Names come from ``func`` when given (else a throwaway
    function around the op, so operands defined outside print as unknown)."""
    p = _Printer()
    if func is None:
        func = Function("_", (), (), Block((), (op,)))
    p.namer = Namer(func)
    p.op(op, "", "o")
    return "\n".join(line for _, line in p.lines)
