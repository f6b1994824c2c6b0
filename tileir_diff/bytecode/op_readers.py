"""Compiled op readers: one Python function per op shape, what ``_FunctionReader.read_op`` does
for one op table row in one version with the row's layout folded in.

``read_op`` interprets an ``_OpPlan`` for every op it reads: it loops over the plan's result
slots, attribute entries (unpacking each and testing its mode) and operand slots, and tests the
plan's flags on the way. Here the same steps are written out once per plan *shape* (``shape_of``:
how many results and whether they are counted, each attribute's mode, flag bit and fast read,
how many single operands or the general operand reader, regions, implied results) as
straight-line source (``reader_source``), and each row's constants (op name, attribute
definitions, enum members, segments) are the function's defaults, so that one code object serves
every row of its shape with local reads. The statements are ``read_op``'s, in its order, with its
messages and offsets and the same fallbacks to the Stream and Tables methods for anything longer,
uncached or wrong (the compiled readers also read a value index of three bytes inline): a file
reads to the same IR and fails with the same error. tests/bytecode/test_op_readers.py reads every
corpus kernel and 1,740 damaged ones both ways.

The readers of every shape of the op table are generated into ``op_reader_shapes.py``
(``scripts/gen_op_readers.py``; a test checks it is current) and so come compiled with the
package: compiling them at run time costs about 4 M instructions a shape, more than a 3,000-op
kernel's first load saves. A shape that file lacks is compiled on first use, once per process.
Caches are filled build-then-publish (a racing thread makes the same code object or function).
Readers exist only where ``ir/core.TWINS`` holds (they build values and operations as twins, as
``read_op`` does).
"""
from __future__ import annotations

import builtins
from types import FunctionType
from typing import Callable, Dict, List, Optional, Tuple

from ..ir import types as T
from ..ir.core import TWINS, Operation, OperationFields, Value, ValueFields, make_value

#: shape (shape_of) -> the code of its reader
_CODE: Dict[tuple, object] = {}


class _Src:
    """Indented lines of generated source."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self.depth = 1

    def __call__(self, *lines: str) -> None:
        pad = "    " * self.depth
        self.lines.extend(pad + line for line in lines)


def _byte_varint(src: _Src, target: str, what: str) -> None:
    """``target`` = a one-byte varint at ``pos`` inline, else ``s.varint(what)`` (read_op's reads)."""
    src("if pos < end and data[pos] < 0x80:",
        f"    {target} = data[pos]",
        "    pos += 1",
        "else:",
        "    s.pos = pos",
        f"    {target} = s.varint({what!r})",
        "    pos = s.pos")


def shape_of(plan, markers) -> tuple:
    """What the source of ``plan``'s reader depends on (everything else is a constant of its
    globals): counted results, result count, variadic results, flags and their bit count's
    presence, per attribute (mode, flag bit, fast read: None, "dense", "enum"), whether every
    operand group is one value and how many, regions, implied results."""
    attrs = tuple((mode, bit, None if fast is None else "dense" if fast == markers["_DENSE"] else "enum")
                  for _a, mode, bit, fast in plan.attrs)
    return (plan.counted_results, plan.nresults, plan.variadic_results, plan.has_flags, attrs, plan.all_single,
            len(plan.operand_slots) if plan.all_single else -1, plan.od.regions, plan.implied_results)


def _parameters(nattrs: int) -> List[str]:
    """The reader's parameters after its five arguments: a row's constants, given as the
    function's defaults (plan_defaults), so that one code object serves every row of its shape
    with fast local reads (per-row globals would make the shared code's global caches miss)."""
    names = ["NAME", "OD", "PLAN", "NBITS", "SEGS"]
    for i in range(nattrs):
        names += [f"A{i}", f"K{i}", f"E{i}", f"N{i}"]
    return names


def plan_defaults(plan, markers) -> tuple:
    """The values of _parameters for ``plan``."""
    od = plan.od
    values = [od.name, od, plan, plan.nflag_bits, plan.single_segments]
    for a, _mode, _bit, fast in plan.attrs:
        enum = fast is not None and fast != markers["_DENSE"]
        values += [a, a.name, fast if enum else None, len(fast) if enum else 0]
    return tuple(values)


#: the globals every reader runs with (one dict: the readers' global caches stay valid), made
#: on first use
_GLOBALS: List[dict] = []


def _reader_globals(markers) -> dict:
    if not _GLOBALS:
        env = dict(markers)
        env.update(__builtins__=builtins, T=T, ValueFields=ValueFields, Value=Value, OperationFields=OperationFields,
                   Operation=Operation, _new_value=make_value)
        _GLOBALS.append(env)  # published whole (a racing thread's copy holds the same values)
    return _GLOBALS[0]


def reader_source(shape: tuple, name: str = "read") -> str:
    """The source of the reader of plans of ``shape`` (shape_of), a function ``name``."""
    counted, nres, variadic, has_flags, attr_shape, all_single, nops, nreg, implied = shape
    src = _Src()
    src("data = s.data",
        "end = s.end",
        "loc = None",
        "if self.has_dbg:  # (else every op's entry is 0: no location)",
        "    dbg_id = _next(self.dbg_ids, 0)",
        "    if dbg_id:",
        "        loc = self.dbg_cache.get(dbg_id, _MISSING)",
        "        if loc is _MISSING:",
        "            loc = self.debug.location(dbg_id, at)")
    # 2. result types
    if counted:
        src("s.pos = pos",
            "read_type, varint = self.t.type, s.varint",
            "n = s.count('result count')",
            "rtypes = [read_type(varint('result type'), at) for _ in range(n)]")
        if not variadic:
            src(f"if n != {nres}:",
                f"    raise self.err(f'{{NAME}}: {{n}} results, expected {nres}', at)")
        src("pos = s.pos")
    else:
        if nres:
            src("types = self.type_cache")
        for k in range(nres):
            _byte_varint(src, "idx", "result type")
            src(f"r{k} = types.get(idx)",
                f"if r{k} is None:",
                f"    r{k} = self.t.type(idx, at)")
    rlist = "rtypes" if counted else "[" + ", ".join(f"r{k}" for k in range(nres)) + "]"
    # 3. flags
    if has_flags:
        _byte_varint(src, "flags", "flags")
        src("if flags >> NBITS:",
            "    raise self.err(f'{NAME}: unknown flag bits 0x{flags:X}', at)")
    else:
        src("flags = 0")
    # 4. attributes, declaration order: read into locals, the dict built after them
    entries: List[Tuple[str, str, Optional[str]]] = []  # (name constant, value expression, condition or None)
    for i, (mode, bit, fast) in enumerate(attr_shape):
        if mode == "unit":
            entries.append((f"K{i}", "True", f"flags >> {bit} & 1"))
            continue
        cond = None
        if mode == "optional":
            cond = f"flags >> {bit} & 1"
            src(f"if {cond}:")
            src.depth += 1
        generic = ["s.pos = pos",
                   f"v{i} = self.op_attr(s, A{i}, OD, {rlist})",
                   "pos = s.pos"]
        if fast == "dense" and (counted or nres):
            if counted:
                src("if rtypes:")
                src.depth += 1
            r0 = "rtypes[0]" if counted else "r0"
            src("apos = pos",
                "if pos + 1 < end and data[pos] < 0x80:  # a constant's index of one byte",
                "    idx = data[pos]",
                "    pos += 1",
                "elif pos + 1 < end and data[pos + 1] < 0x80:  # or of two",
                "    idx = (data[pos] & 0x7F) | (data[pos + 1] << 7)",
                "    pos += 2",
                "else:",
                "    s.pos = pos",
                "    idx = s.varint('attribute')",
                "    pos = s.pos",
                # Tables.constant's own first test, inline: an entry met before as this type
                "hit = self.t._const_cache.get(idx)",
                f"if hit is not None and hit[0] is {r0}:",
                f"    v{i} = hit[1]",
                "else:",
                f"    v{i} = self.t.constant(idx, {r0}, apos)")
            if counted:
                src.depth -= 1
                src("else:")
                src(*("    " + g for g in generic))
        elif fast == "enum":
            src(f"if pos < end and data[pos] < N{i}:",
                f"    v{i} = E{i}[data[pos]]  # an enum member by its one-byte index",
                "    pos += 1",
                "else:")
            src(*("    " + g for g in generic))
        else:
            src(*generic)
        if cond is not None:
            src.depth -= 1
        entries.append((f"K{i}", f"v{i}", cond))
    lead = 0
    while lead < len(entries) and entries[lead][2] is None:
        lead += 1
    src("attrs = {" + ", ".join(f"{k}: {v}" for k, v, _ in entries[:lead]) + "}")
    for key, value, cond in entries[lead:]:
        if cond is None:
            src(f"attrs[{key}] = {value}")
        else:
            src(f"if {cond}:",
                f"    attrs[{key}] = {value}")
    # 5. operands
    if all_single:
        if nops:
            src("nvalues = len(values)")
        for j in range(nops):
            # a value index of one, two or three bytes (up to 2,097,152 values in scope)
            src(f"o{j} = None",
                "if pos + 1 < end:",
                "    idx = data[pos]",
                "    if idx < 0x80:",
                "        if idx < nvalues:",
                f"            o{j} = values[idx]",
                "            pos += 1",
                "    else:",
                "        high = data[pos + 1]",
                "        if high < 0x80:",
                "            idx = (idx & 0x7F) | (high << 7)",
                "            if idx < nvalues:",
                f"                o{j} = values[idx]",
                "                pos += 2",
                "        elif pos + 2 < end and data[pos + 2] < 0x80:",
                "            idx = (idx & 0x7F) | ((high & 0x7F) << 7) | (data[pos + 2] << 14)",
                "            if idx < nvalues:",
                f"                o{j} = values[idx]",
                "                pos += 3",
                f"if o{j} is None:",
                "    s.pos = pos",
                f"    o{j} = self.value(s, values)",
                "    pos = s.pos")
        operands = "(" + "".join(f"o{j}, " for j in range(nops)) + ")"
        segments = "SEGS"
        src("s.pos = pos")
    else:
        src("s.pos = pos",
            "operands, segments = self.read_operands(s, values, PLAN, flags)")
        operands, segments = "tuple(operands)", "segments"
    # 6. regions (their values go out of scope after; results are numbered afterwards)
    if nreg:
        src("rat = s.pos",
            "nreg = s.varint('region count')",
            f"if nreg != {nreg}:",
            f"    raise self.err(f'{{NAME}}: {{nreg}} regions, expected {nreg}', rat)",
            "self.depth += 1",
            "if self.depth > MAX_REGION_DEPTH:",
            "    raise self.err(f'regions nested deeper than {MAX_REGION_DEPTH} levels', rat)",
            "regions = tuple(self.read_region(s, values) for _ in range(nreg))",
            "self.depth -= 1")
        regions = "regions"
    else:
        regions = "()"
    # results, numbered after the regions' values
    src("vid = self.next_vid")
    if counted:
        src("if len(rtypes) == 1:",
            "    result = ValueFields()",
            "    result.vid = vid",
            "    result.type = rtypes[0]",
            "    result.__class__ = Value",
            "    results = (result,)",
            "    values.append(result)",
            "    self.next_vid = vid + 1",
            "else:",
            "    results = tuple([_new_value(vid + i, rt) for i, rt in enumerate(rtypes)])",
            "    values.extend(results)",
            "    self.next_vid = vid + len(rtypes)")
    elif nres == 1:
        src("result = ValueFields()",
            "result.vid = vid",
            "result.type = r0",
            "result.__class__ = Value",
            "results = (result,)",
            "values.append(result)",
            "self.next_vid = vid + 1")
    elif nres == 0:
        src("results = ()")
    else:
        src("results = (" + "".join(f"_new_value(vid + {k}, r{k}), " for k in range(nres)) + ")",
            "values.extend(results)",
            f"self.next_vid = vid + {nres}")
    if implied:
        # a result added in a later version (see read_op)
        src(f"results += tuple(self.mint(T.TokenType()) for _ in range({implied}))")
    src("op = OperationFields()",
        "op.name = NAME",
        f"op.operands = {operands}",
        f"op.segments = {segments}",
        "op.results = results",
        "op.attributes = attrs",
        f"op.regions = {regions}",
        "op.location = loc",
        "op.origin = None",
        "op._label = None",  # (set: a memo read that finds no label raises and catches nothing)
        "op.__class__ = Operation",
        "self.add_offset(at)",
        "return op")
    params = ", ".join(f"{p}=None" for p in _parameters(len(attr_shape)))
    return f"def {name}(self, s, values, at, pos, {params}):\n" + "\n".join(src.lines) + "\n"


def _shipped() -> dict:
    """The precompiled shapes (op_reader_shapes.py), {} when that module is missing."""
    try:
        from .op_reader_shapes import SHAPES
    except ImportError:  # pragma: no cover - a checkout that has not generated it
        return {}
    return SHAPES


def shape_code(shape: tuple):
    """The code object of the reader of ``shape``: shipped, or compiled now (once per process)."""
    code = _CODE.get(shape)
    if code is None:
        fn = _shipped().get(shape)
        if fn is None:
            namespace: dict = {}
            exec(compile(reader_source(shape), "<op reader>", "exec"), namespace)
            fn = namespace["read"]
        code = _CODE.setdefault(shape, fn.__code__)
    return code


def compile_reader(plan, markers) -> Optional[Callable]:
    """The reader of ``plan`` (reader._OpPlan): ``f(self, s, values, at, pos)`` for a
    ``_FunctionReader`` ``self`` and an op at ``at`` whose opcode ends at ``pos``; it reads the op
    as ``read_op`` does and returns it with ``s.pos`` after it. ``markers``: the plan's mode marks
    and reader helpers (reader._READER_MARKERS). None without twins."""
    if not TWINS:  # pragma: no cover - an interpreter without twins: read_op
        return None
    code = shape_code(shape_of(plan, markers))
    return FunctionType(code, _reader_globals(markers), "read_" + plan.od.name,  # type: ignore[arg-type,unused-ignore]
                        plan_defaults(plan, markers))


def generate_shapes(plans) -> str:
    """The text of op_reader_shapes.py: the reader of every distinct shape of ``plans`` (pairs
    of a plan and the markers), as functions the interpreter compiles with the package."""
    shapes = sorted({shape_of(p, m) for p, m in plans}, key=repr)
    out = ['"""Generated by ``scripts/gen_op_readers.py``: the op readers of every shape of',
           'the op table (op_readers.py), compiled with the package. Do not edit."""',
           "# flake8: noqa",
           "# fmt: off",
           "# mypy: ignore-errors",
           "# ruff: noqa",
           ""]
    for i, shape in enumerate(shapes):
        out.append(reader_source(shape, f"_read{i}"))
    out.append("SHAPES = {")
    out += [f"    {shape!r}: _read{i}," for i, shape in enumerate(shapes)]
    out.append("}")
    return "\n".join(out) + "\n"


def table_plans():
    """(plan, markers) of every op with a reader in every supported version."""
    from ..dialect.ops import OPS
    from ..dialect.spec import SUPPORTED_VERSIONS
    from .reader import _OpPlan, _READER_MARKERS
    return [(_OpPlan.of(od, v), _READER_MARKERS) for v in SUPPORTED_VERSIONS for od in OPS
            if od.since <= v and od.opcode < 0x80 and not (od.syntax is None and od.has("top_level"))]

