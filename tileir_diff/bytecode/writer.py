"""ir.Module -> bytecode, interpreting the same op table as the reader.

Used to re-encode a module at another version (invariance tests), to build fixtures and
mutants, and to generate large kernels for benchmarks. Writes cuTile Python's section order.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Optional, Sequence

from ..dialect.enums import ENUMS, PADDING_VALUES
from ..dialect.ops import OPS_BY_NAME
from ..dialect.spec import SUPPORTED_VERSIONS, V13_3, V13_4, V13_5, Version
from ..ir import types as T
from ..ir.attributes import (Bounded, DenseElements, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr,
                             OptimizationHints, SameElements)
from ..ir.core import Function, Module, Operation
from .container import MAGIC, VIEW_LAYOUT_BY_CLASS

_SCALAR_CODES = {"i1": 0x00, "i8": 0x01, "i16": 0x02, "i32": 0x03, "i64": 0x04, "f16": 0x05, "bf16": 0x06,
                 "f32": 0x07, "tf32": 0x08, "f64": 0x09, "f8E4M3FN": 0x0A, "f8E5M2": 0x0B,
                 "f8E8M0FNU": 0x12, "f4E2M1FN": 0x13, "i4": 0x16, "f8E5M3FNU": 130}
_INT64_MIN = -(1 << 63)


class EncodeError(ValueError):
    """The module cannot be written at the requested version."""


def varint(x: int, buf: bytearray) -> None:
    if x < 0:
        raise EncodeError(f"negative varint {x}")
    while x >= 0x80:
        buf.append((x & 0x7F) | 0x80)
        x >>= 7
    buf.append(x)


def svarint(x: int, buf: bytearray) -> None:
    varint((x << 1) ^ (x >> 63) if x < 0 else x << 1, buf)


def int_list(vals, width: int, buf: bytearray) -> None:
    varint(len(vals), buf)
    fmt = {1: "b", 4: "i", 8: "q"}[width]
    buf.extend(struct.pack(f"<{len(vals)}{fmt}", *vals))


class _Table:
    def __init__(self, start: int = 0):
        self.items: Dict[bytes, int] = {}
        self.start = start

    def __getitem__(self, key: bytes) -> int:
        if key not in self.items:
            self.items[key] = len(self.items) + self.start
        return self.items[key]


def write_bytecode(module: Module, version: Optional[Version] = None) -> bytes:
    return _Writer(version or module.version).write(module)


class _Writer:
    def __init__(self, version: Version):
        if version not in SUPPORTED_VERSIONS:
            raise EncodeError(f"cannot write bytecode {version[0]}.{version[1]}")
        self.v = version
        self.strings = _Table()
        self.types = _Table()
        self.consts = _Table()
        self.type(T.ScalarType("i1"))
        self.type(T.ScalarType("i32"))

    # -- tables ------------------------------------------------------------------------------
    def string(self, s: str) -> int:
        return self.strings[s.encode("utf-8")]

    def type(self, t: T.Type) -> int:
        b = bytearray()
        if isinstance(t, T.ScalarType):
            varint(_SCALAR_CODES[t.name], b)
        elif isinstance(t, T.TokenType):
            b.append(0x11)
        elif isinstance(t, T.PointerType):
            b.append(0x0C)
            if self.v >= V13_4:
                varint(1 if t.ptr_attr is not None else 0, b)
            varint(self.type(t.pointee), b)
            if t.ptr_attr is not None:
                b.append(t.ptr_attr)
        elif isinstance(t, T.TileType):
            b.append(0x0D)
            varint(self.type(t.element), b)
            int_list(t.shape, 8, b)
        elif isinstance(t, T.TensorViewType):
            b.append(0x0E)
            if self.v >= V13_4:
                varint(1 if t.ptr_attr is not None else 0, b)
            varint(self.type(t.element), b)
            int_list([_INT64_MIN if d is None else d for d in t.shape], 8, b)
            int_list([_INT64_MIN if d is None else d for d in t.strides], 8, b)
            if t.ptr_attr is not None:
                b.append(t.ptr_attr)
        elif isinstance(t, T.VIEW_TYPES):
            self._view_type(t, b)
        elif isinstance(t, T.FunctionType):
            b.append(0x10)
            varint(len(t.inputs), b)
            for x in t.inputs:
                varint(self.type(x), b)
            varint(len(t.results), b)
            for x in t.results:
                varint(self.type(x), b)
        else:
            raise EncodeError(f"cannot encode type {t!r}")
        return self.types[bytes(b)]

    def _view_type(self, t, b: bytearray) -> None:
        """A tiled view type, field by field in the order its ``ViewLayout`` gives for this version."""
        layout = VIEW_LAYOUT_BY_CLASS[type(t)]
        if self.v < layout.since:  # the reader refuses the tag before then: never write what it cannot read
            raise EncodeError(f"type {layout.keyword} needs bytecode {layout.since[0]}.{layout.since[1]}")
        b.append(layout.tag)
        for field in layout.fields_for(self.v):
            if field == "has_padding":
                varint(1 if t.padding else 0, b)
            elif field == "padding":
                if t.padding:
                    b.append(PADDING_VALUES.index(t.padding))
            elif field == "tensor_view":
                varint(self.type(t.tensor_view), b)
            elif field == "sparse_dim":
                varint(t.sparse_dim, b)
            else:  # a list of dimensions
                int_list(getattr(t, field), 4, b)

    def const(self, d: DenseElements) -> int:
        b = bytearray()
        varint(len(d.data), b)
        b.extend(d.data)
        return self.consts[bytes(b)]

    # -- attributes --------------------------------------------------------------------------
    def tagged(self, a, b: bytearray) -> None:
        if isinstance(a, bool):
            b.append(3)
            b.append(int(a))
        elif isinstance(a, IntegerAttr):
            b.append(1)
            varint(self.type(a.type), b)
            width = a.type.width if isinstance(a.type, T.ScalarType) else 64
            varint(a.value & ((1 << width) - 1), b)
        elif isinstance(a, FloatAttr):
            b.append(2)
            varint(self.type(a.type), b)
            if a.type.width <= 8:
                b.append(a.bits)
            else:
                svarint(a.bits, b)
        elif isinstance(a, T.Type):
            b.append(4)
            varint(self.type(a), b)
        elif isinstance(a, str):
            b.append(5)
            varint(self.string(a), b)
        elif isinstance(a, tuple):
            b.append(6)
            varint(len(a), b)
            for x in a:
                self.tagged(x, b)
        elif isinstance(a, DenseElements):
            b.append(7)
            varint(self.type(a.type), b)
            varint(self.const(a), b)
        elif isinstance(a, DivBy):
            b.append(8)
            varint(a.divisor, b)
            b.append((a.every is not None) | ((a.along is not None) << 1))
            if a.every is not None:
                svarint(a.every, b)
            if a.along is not None:
                svarint(a.along, b)
        elif isinstance(a, SameElements):
            b.append(9)
            int_list(list(a.values), 8, b)
        elif isinstance(a, DictAttr):
            b.append(10)
            self.dict_items(a.items, b)
        elif isinstance(a, OptimizationHints):
            b.append(11)
            self.dict_items(a.by_arch, b)
        elif isinstance(a, Bounded):
            b.append(12)
            b.append((a.lb is not None) | ((a.ub is not None) << 1))
            if a.lb is not None:
                svarint(a.lb, b)
            if a.ub is not None:
                svarint(a.ub, b)
        else:
            raise EncodeError(f"cannot encode attribute {a!r}")

    def dict_items(self, items, b: bytearray) -> None:
        varint(len(items), b)
        for k, v in items:
            varint(self.string(k), b)
            self.tagged(v, b)

    def op_attr(self, a, value, b: bytearray) -> None:
        k = a.kind
        if k == "enum":
            name = value.name if isinstance(value, EnumValue) else value
            varint(ENUMS[a.enum].index(name), b)
        elif k == "bool":
            b.append(int(bool(value)))
        elif k == "int":
            varint(value, b)
        elif k in ("str", "symbol"):
            varint(self.string(value), b)
        elif k == "type":
            varint(self.type(value), b)
        elif k == "i32_array":
            int_list(list(value), 4, b)
        elif k == "bool_array":
            int_list([int(x) for x in value], 1, b)
        elif k == "dense":
            varint(self.const(value), b)
        elif k == "array":
            varint(len(value), b)
            for x in value:
                self.tagged(x, b)
        elif k == "hints":
            self.dict_items(value.by_arch, b)
        elif k == "predicate":
            self.tagged(value, b)
        else:
            raise EncodeError(f"unknown attribute kind {k}")

    # -- ops ---------------------------------------------------------------------------------
    def op(self, op: Operation, values: Dict[int, int], counter: List[int], b: bytearray, dbg: List[int]) -> None:
        od = OPS_BY_NAME[op.name]
        if od.since > self.v:
            raise EncodeError(f"{op.name} needs bytecode {od.since[0]}.{od.since[1]}")
        lay = od.layout(self.v)
        written = op.results
        if len(lay.results) < len(od.results) and len(op.results) == len(od.results):
            # Results this version does not carry (implied tokens): droppable only if unused.
            written = op.results[:len(lay.results)]
            dropped = {v.vid for v in op.results[len(lay.results):]}
            if dropped & self.used:
                raise EncodeError(f"{op.name}: its token result is used, which {self.v[0]}.{self.v[1]} "
                                  f"cannot express")
        if not any(r.variadic for r in lay.results) and len(written) != len(lay.results):
            raise EncodeError(f"{op.name}: {len(op.results)} results cannot be written at "
                              f"{self.v[0]}.{self.v[1]}")
        known = {a.name for a in lay.attrs}
        for a in od.attrs:
            if a.name not in known and a.name in op.attributes:
                val = op.attributes[a.name]
                val = val.name if isinstance(val, EnumValue) else val
                if val not in (a.default, False) and not (a.kind == "bool_array" and not any(val)):
                    raise EncodeError(f"{op.name}: {a.name}={val} needs bytecode {a.since[0]}.{a.since[1]}")
        dbg.append(0)
        varint(od.opcode, b)
        rtypes = [r.type for r in written]
        if od.counted_results:
            varint(len(rtypes), b)
        for t in rtypes:
            varint(self.type(t), b)
        flags = 0
        for a in lay.attrs:
            if a.name in lay.flag_bits and op.attributes.get(a.name) not in (None, False):
                flags |= 1 << lay.flag_bits[a.name]
        present = {o.name: op.segments[i] if i < len(op.segments) else 0 for i, o in enumerate(od.operands)}
        for o in lay.operands:
            if o.arity == "optional" and present.get(o.name):
                flags |= 1 << lay.flag_bits[o.name]
        if lay.has_flags:
            varint(flags, b)
        for a in lay.attrs:
            if a.kind == "unit":
                continue
            if a.name not in op.attributes:
                if a.optional:
                    continue
                if a.kind == "bool_array" and a.name == "inbounds":
                    # Absent (a file older than the field): no index is known in bounds. NVIDIA's
                    # verifier wants one flag per index, so an empty list is refused.
                    nidx = op.segments[od.operand_index("index")]
                    self.op_attr(a, (False,) * nidx, b)
                    continue
                if a.default is None:
                    raise EncodeError(f"{op.name}: attribute {a.name} is required")
                self.op_attr(a, EnumValue(a.enum, a.default) if a.kind == "enum" else a.default, b)
                continue
            self.op_attr(a, op.attributes[a.name], b)
        groups = {o.name: op.operand_group(i) for i, o in enumerate(od.operands) if i < len(op.segments)}
        if od.total_operand_count:
            varint(len(op.operands), b)
            for v in op.operands:
                varint(values[v.vid], b)
        else:
            for o in lay.operands:
                g = groups.get(o.name, ())
                if o.arity == "variadic":
                    varint(len(g), b)
                for v in g:
                    varint(values[v.vid], b)
        for name, g in groups.items():
            if g and name not in {o.name for o in lay.operands}:
                raise EncodeError(f"{op.name}: operand {name} needs a newer bytecode version")
        if od.regions:
            varint(len(op.regions), b)
            for r in op.regions:
                saved = counter[0]
                varint(len(r.blocks), b)
                for blk in r.blocks:
                    varint(len(blk.arguments), b)
                    for a in blk.arguments:
                        varint(self.type(a.type), b)
                        values[a.vid] = counter[0]
                        counter[0] += 1
                    varint(len(blk.operations), b)
                    for inner in blk.operations:
                        self.op(inner, values, counter, b, dbg)
                counter[0] = saved
        for r in written:
            values[r.vid] = counter[0]
            counter[0] += 1

    def function(self, f: Function, b: bytearray, index: int, dbg: List[int]) -> None:
        varint(self.string(f.name), b)
        varint(self.type(f.type), b)
        hints = f.hints
        if self.v >= V13_5:
            b.append(0x02 if f.is_entry else 0)
        else:
            b.append((0x02 | (0x04 if hints is not None else 0)) if f.is_entry else 0)
        varint(index + 1, b)
        if hints is not None or (self.v >= V13_5 and f.is_entry):
            self.tagged(hints or OptimizationHints(()), b)
        if self.v >= V13_5:
            # 13.5 records always carry the argument attributes (an empty array when none).
            self.tagged(tuple(f.arg_attrs or ()), b)
        elif f.arg_attrs and any(d.items for d in f.arg_attrs):
            raise EncodeError(f"function {f.name}: argument attributes need bytecode 13.5")
        body = bytearray()
        self.used = {v.vid for op in f.walk() for v in op.operands}
        values = {a.vid: i for i, a in enumerate(f.arguments)}
        counter = [len(f.arguments)]
        dbg.append(0)
        for op in f.body.operations:
            self.op(op, values, counter, body, dbg)
        varint(len(body), b)
        b.extend(body)

    # -- container ---------------------------------------------------------------------------
    def write(self, m: Module) -> bytes:
        funcs = bytearray()
        varint(len(m.functions), funcs)
        dbg: List[List[int]] = []
        for i, f in enumerate(m.functions):
            d: List[int] = []
            self.function(f, funcs, i, d)
            dbg.append(d)
        glob = bytearray()
        if m.globals:
            varint(len(m.globals), glob)
            for g in m.globals:
                varint(self.string(g.name), glob)
                varint(self.type(g.value.type), glob)
                varint(self.const(g.value), glob)
                varint(g.alignment, glob)
                if self.v >= V13_3:
                    varint(ENUMS["SymbolVisibility"].index(g.visibility or "public"), glob)
                    varint(int(bool(g.constant)), glob)
        return self.assemble(bytes(funcs), bytes(glob), dbg, m.preview)

    def assemble(self, funcs: bytes, glob: bytes, dbg: List[List[int]], preview: bool = False) -> bytes:
        """Header + sections around an already encoded Func section payload."""
        out = bytearray(MAGIC)
        out += bytes([self.v[0], self.v[1]])
        out += (1 if preview else 0).to_bytes(2, "little")
        self._section(out, 0x02, funcs, 8)
        if glob:
            self._section(out, 0x06, glob, 1)
        self._section(out, 0x04, self._table(self.consts, 8), 8)
        self._section(out, 0x03, self._debug(dbg), 8)
        self._section(out, 0x05, self._table(self.types, 4), 4)
        self._section(out, 0x01, self._table(self.strings, 4), 4)
        out.append(0)
        return bytes(out)

    @staticmethod
    def _pad(buf: bytearray, alignment: int, base: int = 0) -> None:
        buf.extend(b"\xcb" * (-(base + len(buf)) % alignment))

    def _section(self, out: bytearray, sid: int, payload: bytes, alignment: int) -> None:
        out.append(sid | (0x80 if alignment > 1 else 0))
        varint(len(payload), out)
        if alignment > 1:
            varint(alignment, out)
            self._pad(out, alignment)
        out.extend(payload)

    def _table(self, table: _Table, width: int) -> bytes:
        # Padding inside a table is relative to the absolute offset; sections are aligned to at
        # least the index width, so aligning relative to the section start is equivalent.
        items = sorted(table.items.items(), key=lambda kv: kv[1])
        b = bytearray()
        varint(len(items), b)
        self._pad(b, width)
        off = 0
        for data, _ in items:
            b.extend(off.to_bytes(width, "little"))
            off += len(data)
        for data, _ in items:
            b.extend(data)
        return bytes(b)

    def _debug(self, dbg: List[List[int]], attributes: Sequence[bytes] = (b"\x00",)) -> bytes:
        """The debug section: per op its debug attribute ids, then the attribute table (by default
        one placeholder attribute: readers reject an empty attribute table)."""
        b = bytearray()
        varint(len(dbg), b)
        self._pad(b, 4)
        off = 0
        for d in dbg:
            b.extend(off.to_bytes(4, "little"))
            off += len(d)
        varint(off, b)
        self._pad(b, 8)
        for d in dbg:
            for x in d:
                b.extend(x.to_bytes(8, "little"))
        table = _Table()
        for attribute in attributes:
            table[attribute]
        b.extend(self._table(table, 4))
        return bytes(b)
