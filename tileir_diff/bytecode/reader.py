"""Func/Global/Producer sections -> ir.Module, interpreting the op table (no per-op code)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from ..dialect.enums import ENUMS
from ..dialect.ops import ops_for_version, OPS_BY_OPCODE
from ..dialect.spec import AttrDef, OpDef, V13_3, V13_5, Version
from ..errors import TileIRFormatError
from ..ir import limits as L
from ..ir import types as T
from ..ir.attributes import (Bounded, DenseElements, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr,
                             OptimizationHints, SameElements)
from ..ir.core import (TWINS, Block, Function, Global, Module, Operation, OperationFields, Region, Value, ValueFields,
                       make_operation, make_value)
from ..gc_pause import gc_paused
from .container import DebugInfo, Tables, read_header, read_sections
from .op_readers import compile_reader
from .stream import Stream

#: Regions and attributes nest at most this deep (ir/limits.py, shared with the text parser);
#: deeper input is refused with an error instead of exhausting Python's stack.
MAX_REGION_DEPTH = L.MAX_REGION_DEPTH
MAX_ATTR_DEPTH = L.MAX_NESTING_DEPTH


def read_bytecode(data: bytes, path: str = "<bytes>", *, verify: bool = True) -> Module:
    """Decode ``data``; with ``verify`` (the default) the module is also checked against the op
    table (``ir/verify.py``), so that a well-formed file of ill-typed ops is refused here with the
    op's offset rather than breaking a later stage."""
    with gc_paused():  # only new, live objects: the cycle collector would re-scan them for nothing
        return _read_bytecode(data, path, verify)


def _read_bytecode(data: bytes, path: str, verify: bool = True) -> Module:
    data = bytes(data)
    s = Stream(data, 0, len(data), path)
    header = read_header(s)
    sections = read_sections(s)
    tables = Tables(data, path, header.version, sections)
    debug = DebugInfo(tables)
    producer = _read_producer(tables)
    offsets: Dict[int, int] = {}
    glbls = _read_globals(tables, offsets)
    reader = _FunctionReader(tables, debug, offsets)
    funcs = reader.read_all()
    module = Module(version=header.version, functions=tuple(funcs), globals=tuple(glbls), producer=producer,
                    preview=bool(header.tag & 1), source=path)
    if verify:
        from ..ir.verify import verify_module
        verify_module(module, path, reader.locate)
    return module


def _ops_in_reading_order(funcs: List[Function]):
    """Every op of ``funcs`` in the order the reader finished them: an op after the ops of its
    regions (it is made once they are read), functions and blocks in order."""
    for f in funcs:
        stack = [iter(f.body.operations)]
        pending: List[Operation] = []  # the op whose regions are being walked, per level below the body
        while stack:
            op = next(stack[-1], None)
            if op is None:
                stack.pop()
                if pending and len(pending) == len(stack):
                    yield pending.pop()
                continue
            if op.regions:
                pending.append(op)
                stack.append(iter([o for r in op.regions for b in r.blocks for o in b.operations]))
            else:
                yield op


def _read_producer(tables: Tables) -> Optional[str]:
    s = tables.stream(0x07)
    if s is None or s.at_end():
        return None
    return tables.string(s.varint("producer string"), s.pos)


def _read_globals(tables: Tables, offsets: Dict[int, int]) -> List[Global]:
    s = tables.stream(0x06)
    if s is None:
        return []
    out = []
    for _ in range(s.count("global count")):
        at = s.pos
        name = tables.string(s.varint("global name"), at)
        ty = tables.type(s.varint("global type"), at)
        value = tables.constant(s.varint("global value"), ty, at)
        align = s.varint("global alignment")
        vis = const = None
        if tables.version >= V13_3:
            v = s.varint("global visibility")
            if v >= len(ENUMS["SymbolVisibility"]):
                raise s.error(f"global {name}: unknown visibility {v}", at)
            vis = ENUMS["SymbolVisibility"][v]
            const = bool(s.varint("global constant flag"))
        out.append(Global(name, value, align, vis, const))
        offsets[id(out[-1])] = at
    if not s.at_end():
        raise s.error(f"{s.remaining} unexpected bytes at the end of the Global section")
    return out


def _holds_dense(value) -> bool:
    if isinstance(value, DenseElements):
        return True
    if isinstance(value, tuple):
        return any(_holds_dense(x) for x in value)
    if isinstance(value, DictAttr):
        return any(_holds_dense(x) for _, x in value.items)
    return False


class _EnumValues(dict):
    """Enum name -> every member as an EnumValue, made on first use of that enum (immutable
    values, shared by all ops)."""

    def __missing__(self, enum: str) -> Tuple[EnumValue, ...]:
        members = self[enum] = tuple(EnumValue(enum, name) for name in ENUMS[enum])
        return members


_ENUM_VALUES = _EnumValues()

_SINGLE, _OPTIONAL, _VARIADIC, _UNIT, _ALWAYS = "single", "optional", "variadic", "unit", "always"
#: an attribute plan's mark of a dense attribute (read inline by the constant's table index)
_DENSE = "dense"


class _OpPlan:
    """How one op reads in one bytecode version: the op table's layout for that version turned
    into what the decode loop tests (flag bit per optional field, fixed counts, whether every
    operand group is a single value), computed once per (op, version) instead of per op."""
    __slots__ = ("od", "counted_results", "nresults", "variadic_results", "has_flags", "nflag_bits", "attrs",
                 "operands", "nsingle", "all_single", "single_segments", "segment_positions", "implied_results",
                 "result_slots", "operand_slots")

    @classmethod
    def of(cls, od: OpDef, version: Version) -> "_OpPlan":
        lay = od.layout(version)
        bits = lay.flag_bits
        p = cls()
        p.od = od
        p.counted_results = od.counted_results
        p.nresults = len(lay.results)
        p.result_slots = (None,) * p.nresults  # what the decode loop iterates over, one per result
        p.variadic_results = any(r.variadic for r in lay.results)
        p.has_flags = lay.has_flags
        p.nflag_bits = len(bits)
        p.attrs = tuple((a, _UNIT if a.kind == "unit" else _OPTIONAL if a.optional else _ALWAYS, bits.get(a.name),
                         _DENSE if a.kind == "dense" else _one_byte_enum(a))
                        for a in lay.attrs)
        arity = {"single": _SINGLE, "optional": _OPTIONAL, "variadic": _VARIADIC}
        p.operands = tuple((arity[o.arity], bits.get(o.name)) for o in lay.operands)
        p.nsingle = sum(1 for o in lay.operands if o.arity != "variadic")
        p.operand_slots = (None,) * p.nsingle
        same_groups = len(lay.operands) == len(od.operands)
        p.all_single = (not od.total_operand_count and same_groups
                        and all(o.arity == "single" for o in lay.operands))
        p.single_segments = (1,) * len(lay.operands)
        if same_groups:
            p.segment_positions = None
        else:
            where = {o.name: i for i, o in enumerate(lay.operands)}
            p.segment_positions = tuple(where.get(o.name) for o in od.operands)
        p.implied_results = max(len(od.results) - len(lay.results), 0)
        return p


def _one_byte_enum(a: AttrDef) -> Optional[Tuple[EnumValue, ...]]:
    """An enum attribute's members when every member's index is a one-byte varint (the decode
    loop then reads it inline), else None."""
    if a.kind != "enum":
        return None
    members = _ENUM_VALUES[a.enum]
    return members if len(members) <= 0x80 else None


_PLANS: Dict[Version, Dict[int, _OpPlan]] = {}
#: version -> opcode -> the op's compiled reader (_compile_reader), beside _PLANS: what the decode
#: loops call directly for an opcode of one byte
_READERS: Dict[Version, Dict[int, Callable]] = {}


def _plans_for_version(version: Version) -> Dict[int, _OpPlan]:
    """The plan cache shared by all files of one version (filled as opcodes are met)."""
    return _PLANS.setdefault(version, {})


#: what op_readers.compile_reader folds into the readers it compiles
_READER_MARKERS = {"_UNIT": _UNIT, "_OPTIONAL": _OPTIONAL, "_DENSE": _DENSE, "_MISSING": object(),
                   "_next": next, "MAX_REGION_DEPTH": MAX_REGION_DEPTH}


_MISSING = _READER_MARKERS["_MISSING"]
_next = next
_new_value = make_value
new_operation = make_operation


class _FunctionReader:
    def __init__(self, tables: Tables, debug: DebugInfo, offsets: Optional[Dict[int, int]] = None):
        self.offsets = {} if offsets is None else offsets  # id(function or global) -> byte offset
        #: the byte offset of every op, in the order the ops are finished (locate() pairs them
        #: with the ops when an error needs one: a list append per op, not a dict entry)
        self.op_offsets: List[int] = []
        self.add_offset = self.op_offsets.append
        self.functions: List[Function] = []
        self.t = tables
        self.debug = debug
        self.version: Version = tables.version
        self.opdefs: Dict[int, OpDef] = ops_for_version(self.version)
        self.plans: Dict[int, _OpPlan] = _plans_for_version(self.version)
        #: opcode (of one byte) -> its compiled reader, filled beside ``plans``
        self.readers: Dict[int, Callable] = _READERS.setdefault(self.version, {})
        self.path = tables.path
        self.type_cache = tables.type_cache  # index -> type, read by the decode loop before Tables.type
        self.dbg_cache = debug.cache  # attribute id -> location, likewise before DebugInfo.location

    def err(self, msg: str, at: int) -> TileIRFormatError:
        return TileIRFormatError(msg, path=self.path, offset=at)

    def locate(self, obj) -> Optional[int]:
        """The byte offset of an op, function or global read here (None for anything else): the
        verifier's locator. The ops' entries are made on the first question (an error's)."""
        offsets = self.offsets
        if self.op_offsets:
            done = self.op_offsets
            self.op_offsets = []
            for op, at in zip(_ops_in_reading_order(self.functions), done):
                offsets[id(op)] = at
        return offsets.get(id(obj))

    def read_all(self) -> List[Function]:
        s = self.t.stream(0x02)
        n = s.count("function count", 4)
        funcs = self.functions
        for i in range(n):
            funcs.append(self.read_function(s, i))
        # cuTile Rust pads the Func section itself up to the next alignment with 0xCB bytes.
        while not s.at_end() and s.remaining < 8 and s.data[s.pos] == 0xCB:
            s.pos += 1
        if not s.at_end():
            raise s.error(f"{s.remaining} unexpected bytes after the last function")
        return funcs

    def read_function(self, s: Stream, index: int) -> Function:
        at = s.pos
        t = self.t
        name = t.string(s.varint("function name"), at)
        ftype = t.type(s.varint("function signature"), at)
        if not isinstance(ftype, T.FunctionType):
            raise self.err(f"function {name}: signature is {ftype}, not a function type", at)
        flags = s.u8("function flags")
        if flags & ~0x07:
            raise self.err(f"function {name}: unknown flag bits 0x{flags:02X}", at + 1)
        loc_index = s.varint("function location index")
        is_entry = bool(flags & 0x02)
        hints = None
        if (self.version >= V13_5 and is_entry) or flags & 0x04:
            hat = s.pos
            hints = self.tagged(s, 0)
            if not isinstance(hints, OptimizationHints):
                raise self.err(f"function {name}: expected optimization hints", hat)
            if not hints.by_arch:
                # Empty hints say nothing (tileirdisasm prints none), and 13.5 writes them for
                # every entry: read them as absent so all versions agree.
                hints = None
        arg_attrs = None
        if self.version >= V13_5:
            aat = s.pos
            arg_attrs = self.tagged(s, 0)
            if not isinstance(arg_attrs, tuple):
                raise self.err(f"function {name}: argument attributes are not an array", aat)
            if arg_attrs and len(arg_attrs) != len(ftype.inputs):
                raise self.err(f"function {name}: {len(arg_attrs)} argument attribute dictionaries "
                               f"for {len(ftype.inputs)} arguments", aat)
            if any(not isinstance(d, DictAttr) for d in arg_attrs):
                raise self.err(f"function {name}: argument attributes must be dictionaries", aat)
            for d in arg_attrs:
                for key, value in d.items:
                    # What NVIDIA's verifier refuses too (tileirdisasm 13.5.37 rejects the file).
                    if "." not in key:
                        raise self.err(f"function {name}: argument attribute {key!r} has no dialect prefix", aat)
                    if _holds_dense(value):
                        raise self.err(f"function {name}: argument attribute {key!r} holds a dense constant", aat)
            # 13.5 writes the array for every function: no dictionary with an entry means none
            # (as before 13.5, and as the text prints it).
            if not any(d.items for d in arg_attrs):
                arg_attrs = None
        body_len = s.varint("function body length")
        body = s.sub(body_len, f"function {name} body")
        self.next_vid = 0
        self.depth = 0
        dbg_ids = self.debug.per_function[loc_index - 1] if 0 < loc_index <= len(self.debug.per_function) else []
        # entry 0 is the function's own location, then one per op in pre-order (read_op takes them)
        self.dbg_ids = iter(dbg_ids[1:])
        self.has_dbg = len(dbg_ids) > 1  # whether any op has an entry (the compiled readers skip them else)
        args = tuple(self.mint(ty) for ty in ftype.inputs)
        values: List[Value] = list(args)
        ops = []
        read_op, body_end = self.read_op, body.end
        readers, data = self.readers, body.data
        while True:
            pos = body.pos
            if pos >= body_end:
                break
            # read_op's first step inline: an opcode of one byte with a compiled reader
            reader = readers.get(data[pos])
            ops.append(read_op(body, values) if reader is None else reader(self, body, values, pos, pos + 1))
        floc = self.debug.location(dbg_ids[0], at) if dbg_ids else None
        func = Function(name=name, arguments=args, result_types=ftype.results, is_entry=is_entry,
                        body=Block(args, tuple(ops)), hints=hints, arg_attrs=arg_attrs, location=floc)
        self.offsets[id(func)] = at
        return func

    def mint(self, ty: T.Type) -> Value:
        v = _new_value(self.next_vid, ty)
        self.next_vid += 1
        return v

    def value(self, s: Stream, values: List[Value]) -> Value:
        at = s.pos
        idx = s.varint("operand")
        try:
            return values[idx]
        except IndexError:
            raise self.err(f"value index {idx} out of range ({len(values)} values in scope)", at) from None

    # -- ops ---------------------------------------------------------------------------------
    def plan(self, opcode: int, at: int) -> "_OpPlan":
        """The decode plan of ``opcode`` in this file's version (errors for opcodes it lacks)."""
        plan = self.plans.get(opcode)
        if plan is not None:
            return plan
        od = self.opdefs.get(opcode)
        if od is None:
            later = OPS_BY_OPCODE.get(opcode)
            v = self.version
            if later is not None:
                raise self.err(f"opcode 0x{opcode:X} ({later.name}) needs bytecode "
                               f"{later.since[0]}.{later.since[1]}, file is {v[0]}.{v[1]}", at)
            raise self.err(f"unknown opcode 0x{opcode:X}", at)
        if od.syntax is None and od.has("top_level"):
            raise self.err(f"op {od.name} cannot appear inside a function body", at)
        plan = _OpPlan.of(od, self.version)
        reader = compile_reader(plan, _READER_MARKERS) if opcode < 0x80 else None
        self.plans[opcode] = plan
        if reader is not None:
            self.readers[opcode] = reader
        return plan

    def read_op(self, s: Stream, values: List[Value]) -> Operation:
        # The common fields are read here from the buffer directly (a one-byte varint, a cached
        # type, an enum member), the cursor kept in ``pos`` and stored back into ``s`` only
        # around the Stream and Tables methods, which read anything longer, uncached or wrong
        # and give the same values and the same errors.
        data, end = s.data, s.end
        at = pos = s.pos
        if pos < end and data[pos] < 0x80:
            opcode = data[pos]
            pos += 1
            reader = self.readers.get(opcode)
            if reader is not None:
                return reader(self, s, values, at, pos)
        else:
            opcode = s.varint("opcode")
            pos = s.pos
        plan = self.plans.get(opcode)
        if plan is None:
            plan = self.plan(opcode, at)
        od = plan.od
        dbg_id = _next(self.dbg_ids, 0)  # this op's entry of the function's pre-order list
        if dbg_id:
            loc = self.dbg_cache.get(dbg_id, _MISSING)
            if loc is _MISSING:
                loc = self.debug.location(dbg_id, at)
        else:
            loc = None
        # 2. result types
        if plan.counted_results:
            s.pos = pos
            read_type, varint = self.t.type, s.varint
            n = s.count("result count")
            rtypes = [read_type(varint("result type"), at) for _ in range(n)]
            if not plan.variadic_results and n != plan.nresults:
                raise self.err(f"{od.name}: {n} results, expected {plan.nresults}", at)
            pos = s.pos
        else:
            rtypes = []
            types = self.type_cache
            for _ in plan.result_slots:
                if pos < end and data[pos] < 0x80:
                    idx = data[pos]
                    pos += 1
                else:
                    s.pos = pos
                    idx = s.varint("result type")
                    pos = s.pos
                t = types.get(idx)
                rtypes.append(t if t is not None else self.t.type(idx, at))
        # 3. flags
        if plan.has_flags:
            if pos < end and data[pos] < 0x80:
                flags = data[pos]
                pos += 1
            else:
                s.pos = pos
                flags = s.varint("flags")
                pos = s.pos
            if flags >> plan.nflag_bits:
                raise self.err(f"{od.name}: unknown flag bits 0x{flags:X}", at)
        else:
            flags = 0
        # 4. attributes, declaration order
        attrs = {}
        for a, mode, bit, fast in plan.attrs:
            if mode is _UNIT:
                if flags >> bit & 1:
                    attrs[a.name] = True
                continue
            if mode is _OPTIONAL and not flags >> bit & 1:
                continue
            if fast is not None:
                if fast is _DENSE:
                    if rtypes:
                        apos = pos
                        if pos + 1 < end and data[pos] < 0x80:  # a constant's index of one byte
                            idx = data[pos]
                            pos += 1
                        elif pos + 1 < end and data[pos + 1] < 0x80:  # or of two
                            idx = (data[pos] & 0x7F) | (data[pos + 1] << 7)
                            pos += 2
                        else:
                            s.pos = pos
                            idx = s.varint("attribute")
                            pos = s.pos
                        attrs[a.name] = self.t.constant(idx, rtypes[0], apos)
                        continue
                elif pos < end and data[pos] < len(fast):
                    attrs[a.name] = fast[data[pos]]  # an enum member by its one-byte index
                    pos += 1
                    continue
            s.pos = pos
            attrs[a.name] = self.op_attr(s, a, od, rtypes)
            pos = s.pos
        # 5. operands
        if plan.all_single:
            operands = []
            nvalues = len(values)
            for _ in plan.operand_slots:
                # a value index of one or two bytes (a kernel of up to 16,384 values in scope)
                if pos + 1 < end:
                    idx = data[pos]
                    if idx < 0x80:
                        if idx < nvalues:
                            operands.append(values[idx])
                            pos += 1
                            continue
                    else:
                        high = data[pos + 1]
                        idx = (idx & 0x7F) | (high << 7)
                        if high < 0x80 and idx < nvalues:
                            operands.append(values[idx])
                            pos += 2
                            continue
                s.pos = pos
                operands.append(self.value(s, values))
                pos = s.pos
            segments = plan.single_segments
            s.pos = pos
        else:
            s.pos = pos
            operands, segments = self.read_operands(s, values, plan, flags)
        # 6. regions (their values go out of scope after; results are numbered afterwards)
        regions: Tuple[Region, ...] = ()
        if od.regions:
            rat = s.pos
            nreg = s.varint("region count")
            if nreg != od.regions:
                raise self.err(f"{od.name}: {nreg} regions, expected {od.regions}", rat)
            self.depth += 1
            if self.depth > MAX_REGION_DEPTH:
                raise self.err(f"regions nested deeper than {MAX_REGION_DEPTH} levels", rat)
            regions = tuple(self.read_region(s, values) for _ in range(nreg))
            self.depth -= 1
        vid = self.next_vid
        if TWINS:  # Value and Operation filled as their twins (ir/core.py), the cheapest way to build them
            if len(rtypes) == 1:
                result = ValueFields()
                result.vid = vid
                result.type = rtypes[0]
                result.__class__ = Value
                results: Tuple[Value, ...] = (result,)  # type: ignore[assignment]
                values.append(result)  # type: ignore[arg-type]
                self.next_vid = vid + 1
            else:
                results = tuple([_new_value(vid + i, rt) for i, rt in enumerate(rtypes)])
                values.extend(results)
                self.next_vid = vid + len(rtypes)
            if plan.implied_results:
                # A result added in a later version (print_tko's token in 13.2): the op has it in
                # the IR whatever the file's version, as NVIDIA's reader upgrades it; the file's
                # value numbering does not count it.
                results += tuple(self.mint(T.TokenType()) for _ in range(plan.implied_results))
            op = OperationFields()
            op.name = od.name
            op.operands = tuple(operands)
            op.segments = segments
            op.results = results
            op.attributes = attrs
            op.regions = regions
            op.location = loc
            op.origin = None
            op._label = None  # (as make_operation sets it)
            op.__class__ = Operation
        else:  # pragma: no cover - an interpreter without twins
            results = tuple([_new_value(vid + i, rt) for i, rt in enumerate(rtypes)])
            values.extend(results)
            self.next_vid = vid + len(rtypes)
            if plan.implied_results:
                results += tuple(self.mint(T.TokenType()) for _ in range(plan.implied_results))
            op = new_operation(od.name, tuple(operands), segments, results, attrs, regions, loc)
        self.add_offset(at)
        return op  # type: ignore[return-value]

    def read_operands(self, s: Stream, values: List[Value], plan: "_OpPlan", flags: int):
        """Operands and segment sizes of an op with optional, variadic or version-dependent groups."""
        od = plan.od
        operands: List[Value] = []
        segments: List[int] = []
        if od.total_operand_count:
            total_at = s.pos
            total = s.count("operand count")
            fixed = plan.nsingle
            if total < fixed:
                raise self.err(f"{od.name}: {total} operands, needs at least {fixed}", total_at)
            for arity, _bit in plan.operands:
                k = total - fixed if arity is _VARIADIC else 1
                operands.extend(self.value(s, values) for _ in range(k))
                segments.append(k)
        else:
            for arity, bit in plan.operands:
                if arity is _SINGLE:
                    operands.append(self.value(s, values))
                    segments.append(1)
                elif arity is _OPTIONAL:
                    if flags >> bit & 1:
                        operands.append(self.value(s, values))
                        segments.append(1)
                    else:
                        segments.append(0)
                else:
                    k = s.count("operand group count")
                    operands.extend(self.value(s, values) for _ in range(k))
                    segments.append(k)
        if plan.segment_positions is not None:
            # Groups that do not exist in this version are present with size 0, so that the
            # segments always line up with the op table's declaration.
            segments = [0 if i is None else segments[i] for i in plan.segment_positions]
        return operands, tuple(segments)

    def read_region(self, s: Stream, values: List[Value]) -> Region:
        at = s.pos
        nblocks = s.count("block count")
        if nblocks == 0:
            return Region(())  # an if without else (the verifier allows no other empty region)
        if nblocks != 1:
            raise s.error(f"region with {nblocks} blocks (Tile IR regions have one block)", at)
        scope = len(values)
        nargs = s.count("block argument count")
        at = s.pos
        args = tuple(self.mint(self.t.type(s.varint("block argument type"), at)) for _ in range(nargs))
        values.extend(args)
        nops = s.count("block op count")
        ops = tuple(self.read_op(s, values) for _ in range(nops))
        del values[scope:]
        return Region((Block(args, ops),))

    # -- attributes --------------------------------------------------------------------------
    def op_attr(self, s: Stream, a: AttrDef, od: OpDef, rtypes):
        at = s.pos
        k = a.kind
        t = self.t
        if k == "enum":
            members = _ENUM_VALUES[a.enum]
            v = s.varint("attribute")
            if v >= len(members):
                raise self.err(f"{od.name}.{a.name}: value {v} is not a {a.enum}", at)
            return members[v]
        if k == "bool":
            v = s.u8("attribute")
            if v > 1:
                raise self.err(f"{od.name}.{a.name}: bool byte {v}", at)
            return bool(v)
        if k == "int":
            return s.varint("attribute")
        if k in ("str", "symbol"):
            return t.string(s.varint("attribute"), at)
        if k == "type":
            return t.type(s.varint("attribute"), at)
        if k == "i32_array":
            return tuple(s.int_list(4, "attribute"))
        if k == "bool_array":
            vals = s.int_list(1, "attribute")
            return tuple(bool(x) for x in vals)
        if k == "dense":
            if not rtypes:
                raise self.err(f"{od.name}: dense attribute without a result type", at)
            return t.constant(s.varint("attribute"), rtypes[0], at)
        if k == "array":
            return tuple(self.tagged(s, 1) for _ in range(s.count("array size")))
        if k == "hints":
            return OptimizationHints(self.dict_items(s, 1, hints=True))
        if k == "predicate":
            p = self.tagged(s, 1)
            if not isinstance(p, (DivBy, Bounded, SameElements)):
                raise self.err(f"{od.name}.{a.name}: expected an assume predicate, got {type(p).__name__}", at)
            return p
        raise AssertionError(f"op table: unknown attribute kind {k}")

    def dict_items(self, s: Stream, depth: int, hints: bool = False):
        items = []
        for _ in range(s.count("dictionary size", 2)):
            at = s.pos
            key = self.t.string(s.varint("dictionary key"), at)
            val = self.tagged(s, depth + 1)
            if hints and not isinstance(val, DictAttr):
                raise self.err(f"optimization hints for {key!r} are not a dictionary", at)
            items.append((key, val))
        # Dictionaries are unordered (MLIR keeps them sorted by key); canonicalize here.
        return tuple(sorted(items, key=lambda kv: kv[0]))

    def tagged(self, s: Stream, depth: int):
        at = s.pos
        if depth > MAX_ATTR_DEPTH:
            raise self.err("attributes nested too deeply", at)
        tag = s.u8("attribute tag")
        t = self.t
        if tag == 1:
            ty = t.type(s.varint("integer type"), at)
            raw = s.varint("integer value")
            width = ty.width if isinstance(ty, T.ScalarType) and ty.is_int else 64
            if width > 1 and raw >> (width - 1) & 1:
                raw -= 1 << width
            return IntegerAttr(raw, ty)
        if tag == 2:
            ty = t.type(s.varint("float type"), at)
            if not isinstance(ty, T.ScalarType) or not ty.is_float:
                raise self.err(f"float attribute of non-float type {ty}", at)
            bits = s.u8("float bits") if ty.width <= 8 else s.svarint("float bits")
            if bits < 0 or bits >> ty.width:
                raise self.err(f"float bits 0x{bits:X} do not fit {ty}", at)
            return FloatAttr(bits, ty)
        if tag == 3:
            v = s.u8("bool attribute")
            if v > 1:
                raise self.err(f"bool attribute byte {v}", at)
            return bool(v)
        if tag == 4:
            return t.type(s.varint("type attribute"), at)
        if tag == 5:
            return t.string(s.varint("string attribute"), at)
        if tag == 6:
            return tuple(self.tagged(s, depth + 1) for _ in range(s.count("array size")))
        if tag == 7:
            ty = t.type(s.varint("dense type"), at)
            return t.constant(s.varint("dense constant"), ty, at)
        if tag == 8:
            divisor = s.varint("div_by divisor")
            fl = s.u8("div_by flags")
            if fl & ~3:
                raise self.err(f"div_by flags 0x{fl:X}", at)
            every = s.svarint("div_by every") if fl & 1 else None
            along = s.svarint("div_by along") if fl & 2 else None
            return DivBy(divisor, every, along)
        if tag == 9:
            return SameElements(tuple(s.int_list(8, "same_elements values")))
        if tag == 10:
            return DictAttr(self.dict_items(s, depth))
        if tag == 11:
            return OptimizationHints(self.dict_items(s, depth, hints=True))
        if tag == 12:
            fl = s.u8("bounded flags")
            if fl & ~3:
                raise self.err(f"bounded flags 0x{fl:X}", at)
            lb = s.svarint("bounded lower bound") if fl & 1 else None
            ub = s.svarint("bounded upper bound") if fl & 2 else None
            return Bounded(lb, ub)
        raise self.err(f"unknown attribute tag {tag}", at)
