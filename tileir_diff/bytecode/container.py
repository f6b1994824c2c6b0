"""The bytecode container: header, sections (in any order), and the string, type, constant
and debug tables the Func section refers to."""
from __future__ import annotations

import struct
from typing import Dict, List, Optional, Tuple

from ..dialect.enums import PADDING_VALUES, PTR_ATTRS
from ..dialect.spec import SUPPORTED_VERSIONS, V13_1, V13_2, V13_3, V13_4, Version
from ..errors import TileIRFormatError, UnsupportedVersionError
from ..ir import limits as L
from ..ir.record import record
from ..ir import types as T
from ..ir.attributes import DenseElements, canonical_dense
from ..ir.core import Location
from .stream import Stream


@record
class ViewLayout:
    """A tiled view type's encoding (the reader and the writer both follow it): its tag, the
    first version that has it, and its fields in order from 13.3 on (``older``: the order before
    13.3 where it differs). ``has_padding`` is the flag, ``padding`` the value (present when the
    flag is set); a field named like the IR type's field holds that field."""
    tag: int
    cls: type
    keyword: str
    since: Version
    fields: Tuple[str, ...]
    older: Tuple[str, ...] = ()

    def fields_for(self, v: Version) -> Tuple[str, ...]:
        return self.older if self.older and v < V13_3 else self.fields


VIEW_LAYOUTS = (
    ViewLayout(0x0F, T.PartitionViewType, "partition_view", V13_1,
               ("has_padding", "tile_shape", "tensor_view", "dim_map", "padding"),
               ("tile_shape", "tensor_view", "dim_map", "has_padding", "padding")),
    ViewLayout(0x14, T.GatherScatterViewType, "gather_scatter_view", V13_3,
               ("has_padding", "tile_shape", "tensor_view", "sparse_dim", "padding")),
    ViewLayout(0x15, T.StridedViewType, "strided_view", V13_3,
               ("has_padding", "tile_shape", "traversal_strides", "tensor_view", "dim_map", "padding")),
)
VIEW_LAYOUT_BY_TAG = {layout.tag: layout for layout in VIEW_LAYOUTS}
VIEW_LAYOUT_BY_CLASS = {layout.cls: layout for layout in VIEW_LAYOUTS}
#: how the reader's messages name a field
_VIEW_FIELD_LABELS = {"tile_shape": "tile shape", "traversal_strides": "traversal strides"}

MAGIC = b"\x7fTileIR\x00"
HEADER_SIZE = 12

SECTION_NAMES = {0x01: "String", 0x02: "Func", 0x03: "Debug", 0x04: "Constant", 0x05: "Type",
                 0x06: "Global", 0x07: "Producer"}
REQUIRED_SECTIONS = (0x01, 0x02)

_SCALAR_TAGS = {0x00: "i1", 0x01: "i8", 0x02: "i16", 0x03: "i32", 0x04: "i64", 0x05: "f16", 0x06: "bf16",
                0x07: "f32", 0x08: "tf32", 0x09: "f64", 0x0A: "f8E4M3FN", 0x0B: "f8E5M2"}
_SCALAR_TAGS_SINCE = {0x12: ("f8E8M0FNU", V13_2), 0x13: ("f4E2M1FN", V13_3), 0x16: ("i4", V13_3),
                      130: ("f8E5M3FNU", V13_4)}
_INT64_MIN = -(1 << 63)
MAX_TYPE_DEPTH = L.MAX_NESTING_DEPTH


def _dim(d: int) -> Optional[int]:
    return None if d == _INT64_MIN else d


@record(frozen=False)
class Header:
    version: Version
    tag: int


@record(frozen=False)
class Section:
    id: int
    start: int  # absolute offset of the payload
    end: int


def read_header(s: Stream) -> Header:
    if s.remaining < HEADER_SIZE:
        if bytes(s.data[:min(len(s.data), 8)]) != MAGIC[:min(len(s.data), 8)]:
            raise s.error("not Tile IR bytecode: bad magic", 0)
        raise s.error(f"truncated header: {s.remaining} of {HEADER_SIZE} bytes", 0)
    if bytes(s.data[0:8]) != MAGIC:
        raise s.error("not Tile IR bytecode: bad magic (expected 7F 54 69 6C 65 49 52 00)", 0)
    major, minor = s.data[8], s.data[9]
    tag = s.data[10] | (s.data[11] << 8)
    version = (major, minor)
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(f"{a}.{b}" for a, b in SUPPORTED_VERSIONS)
        raise UnsupportedVersionError(
            f"unsupported bytecode version {major}.{minor} (this reader decodes {supported})",
            path=s.path, offset=8)
    s.pos = HEADER_SIZE
    return Header(version, tag)


def read_sections(s: Stream) -> Dict[int, Section]:
    sections: Dict[int, Section] = {}
    while True:
        at = s.pos
        id_align = s.u8("section id")
        sid = id_align & 0x7F
        if sid == 0:
            if not s.at_end():
                raise s.error(f"{s.remaining} trailing bytes after the end-of-bytecode marker")
            break
        if sid not in SECTION_NAMES:
            raise s.error(f"unknown section id 0x{sid:02X}", at)
        name = SECTION_NAMES[sid]
        length = s.varint(f"{name} section length")
        if id_align & 0x80:
            alignment = s.varint(f"{name} section alignment")
            if alignment == 0 or alignment > 4096 or alignment & (alignment - 1):
                raise s.error(f"{name} section: invalid alignment {alignment}")
            s.align(alignment, f"{name} section")
        if length > s.remaining:
            raise s.error(f"{name} section length {length} runs past the end of the file "
                          f"({s.remaining} bytes left)", at)
        if sid in sections:
            raise s.error(f"duplicate {name} section", at)
        sections[sid] = Section(sid, s.pos, s.pos + length)
        s.pos += length
    for sid in REQUIRED_SECTIONS:
        if sid not in sections:
            raise s.error(f"missing {SECTION_NAMES[sid]} section", HEADER_SIZE)
    return sections


def read_words(s: Stream, n: int, width: int, what: str) -> List[int]:
    """``n`` little-endian unsigned words of ``width`` (4 or 8) bytes, in one unpack when they are
    all there (else word by word, so that a short table fails at the word that runs out)."""
    if s.end - s.pos >= n * width:
        words = list(struct.unpack_from(f"<{n}{'I' if width == 4 else 'Q'}", s.data, s.pos))
        s.pos += n * width
        return words
    return [s.u32(what) if width == 4 else s.u64(what) for _ in range(n)]


def read_offset_table(s: Stream, index_width: int, what: str) -> List[Tuple[int, int]]:
    """count, padding, ``count`` offsets, data -> absolute (start, end) of each item."""
    n = s.count(f"{what} table count", index_width)
    s.align(index_width, f"{what} table")
    offsets = read_words(s, n, index_width, f"{what} offset")
    base = s.pos
    size = s.end - base
    if not offsets or (offsets[-1] <= size and sorted(offsets) == offsets):
        # in order and inside the data (the words are unsigned): every check of checked_spans
        # passes, so the spans are made without a Python loop
        add_base = base.__add__
        return list(zip(map(add_base, offsets), map(add_base, offsets[1:] + [size])))
    return checked_spans(s, offsets, base, size, what)


def checked_spans(s: Stream, offsets: List[int], base: int, size: int, what: str) -> List[Tuple[int, int]]:
    """The spans of an offset table entry by entry, refusing the first out of order or past the data."""
    n = len(offsets)
    spans = []
    for i, off in enumerate(offsets):
        nxt = offsets[i + 1] if i + 1 < n else size
        if not (0 <= off <= nxt <= size):
            raise s.error(f"{what} table: entry {i} offset {off} out of order or past the data ({size} bytes)")
        spans.append((base + off, base + nxt))
    return spans


class Tables:
    """Decoded tables with lazy, memoized, bounds-checked lookups."""

    def __init__(self, data: bytes, path: str, version: Version, sections: Dict[int, Section]):
        self.data, self.path, self.version = data, path, version
        self.sections = sections
        self._strings = self._table(0x01, 4, "string")
        self._types = self._table(0x05, 4, "type")
        self._consts = self._table(0x04, 8, "constant")
        self._string_cache: Dict[int, str] = {}
        self._const_cache: Dict[int, Tuple[T.Type, DenseElements]] = {}  # index -> (type, value)
        self._dense_size_cache: Dict[int, tuple] = {}  # id(type) -> (type, sizes)
        self.type_cache: Dict[int, T.Type] = {}  # the decode loop reads it directly
        self._resolving: set = set()

    def _table(self, sid: int, width: int, what: str):
        sec = self.sections.get(sid)
        if sec is None:
            return []
        return read_offset_table(Stream(self.data, sec.start, sec.end, self.path), width, what)

    def stream(self, sid: int) -> Optional[Stream]:
        sec = self.sections.get(sid)
        return None if sec is None else Stream(self.data, sec.start, sec.end, self.path)

    def _check_index(self, idx: int, table: list, what: str, at: int) -> None:
        if idx >= len(table):
            raise TileIRFormatError(f"{what} index {idx} out of range ({len(table)} {what}s)", path=self.path,
                                    offset=at)

    # -- strings -----------------------------------------------------------------------------
    def string(self, idx: int, at: int) -> str:
        s = self._string_cache.get(idx)
        if s is not None:
            return s
        self._check_index(idx, self._strings, "string", at)
        a, b = self._strings[idx]
        try:
            s = bytes(self.data[a:b]).decode("utf-8")
        except UnicodeDecodeError as e:
            raise TileIRFormatError(f"string {idx} is not valid UTF-8 ({e.reason})", path=self.path,
                                    offset=a + e.start) from None
        self._string_cache[idx] = s
        return s

    # -- constants ---------------------------------------------------------------------------
    def constant(self, idx: int, ty: T.Type, at: int) -> DenseElements:
        # Kernels repeat constants (one table entry, many ops): the same entry read as the same
        # type object is the same immutable value.
        hit = self._const_cache.get(idx)
        if hit is not None and hit[0] is ty:
            return hit[1]
        if idx >= len(self._consts):
            self._check_index(idx, self._consts, "constant", at)
        sized = self._dense_size_cache.get(id(ty))  # a type met before passed the test below
        if sized is None or sized[0] is not ty:
            if not isinstance(ty, T.TileType) or not isinstance(ty.element, T.ScalarType):
                raise TileIRFormatError(f"dense constant needs a tile type, got {ty}", path=self.path, offset=at)
            self._dense_sizes(ty)
            sized = self._dense_size_cache[id(ty)]
        esize, total, packed, as_read = sized[1]
        a, b = self._consts[idx]
        data = self.data
        if a < b and data[a] < 0x80 and a + 1 + data[a] <= b:  # a length of one byte, in the entry
            n = data[a]
            raw = data[a + 1:a + 1 + n]
        else:
            s = Stream(data, a, b, self.path)
            n = s.count("constant byte length")
            raw = s.fixed(n, "constant data")
        if n != esize and n != esize * total and n != packed:
            raise TileIRFormatError(f"constant {idx}: {n} bytes do not fit {ty} (splat {esize} or full "
                                    f"{esize * total})", path=self.path, offset=a)
        # All-equal data is a splat, as MLIR reads it (and as the text parser stores it); one
        # element of a type canonical_dense leaves as it is needs no look.
        value = DenseElements(ty, raw) if n == esize and as_read else canonical_dense(ty, raw)
        self._const_cache[idx] = (ty, value)
        return value

    def _dense_sizes(self, ty: T.TileType) -> Tuple[int, int, int]:
        """A dense constant type's element size in bytes, its element count, and the byte length
        of its data packed two elements to a byte (-1 for types that are not packed)."""
        hit = self._dense_size_cache.get(id(ty))
        if hit is not None and hit[0] is ty:
            return hit[1][:3]
        elem = ty.element
        assert isinstance(elem, T.ScalarType)  # constant() tested it
        name = elem.name
        esize = 1 if name in ("i1", "i4", "f4E2M1FN") else elem.width // 8
        total = ty.num_elements
        sizes = (esize, total, (total + 1) // 2 if name in ("i4", "f4E2M1FN") else -1)
        # whether canonical_dense keeps data of one element as it is (i1 data is normalized)
        self._dense_size_cache[id(ty)] = (ty, sizes + (name != "i1",))
        return sizes

    # -- types -------------------------------------------------------------------------------
    def type(self, idx: int, at: int) -> T.Type:
        t = self.type_cache.get(idx)
        if t is not None:
            return t
        self._check_index(idx, self._types, "type", at)
        if idx in self._resolving:
            raise TileIRFormatError(f"type {idx} refers to itself", path=self.path, offset=at)
        if len(self._resolving) >= MAX_TYPE_DEPTH:
            raise TileIRFormatError("types nested too deeply", path=self.path, offset=at)
        self._resolving.add(idx)
        try:
            a, b = self._types[idx]
            s = Stream(self.data, a, b, self.path)
            t = self._decode_type(s)
            if not s.at_end():
                raise s.error(f"type {idx}: {s.remaining} unexpected trailing bytes")
        finally:
            self._resolving.discard(idx)
        self.type_cache[idx] = t
        return t

    def _decode_type(self, s: Stream) -> T.Type:
        v = self.version
        at = s.pos
        tag = s.varint("type tag")
        if tag in _SCALAR_TAGS:
            return T.ScalarType(_SCALAR_TAGS[tag])
        if tag in _SCALAR_TAGS_SINCE:
            name, since = _SCALAR_TAGS_SINCE[tag]
            if v < since:
                raise s.error(f"type {name} needs bytecode {since[0]}.{since[1]}", at)
            return T.ScalarType(name)
        if tag == 0x11:
            return T.TokenType()
        if tag == 0x0C:  # pointer
            flags = s.varint("pointer flags") if v >= V13_4 else 0
            pointee = self.type(s.varint("pointee type"), at)
            ptr_attr = self._ptr_attr(s, flags)
            return T.PointerType(pointee, ptr_attr)
        if tag == 0x0D:  # tile
            elem = self.type(s.varint("tile element type"), at)
            shape = s.int_list(8, "tile shape")
            if any(d < 0 for d in shape):
                raise s.error(f"tile shape {shape} has a negative dimension", at)
            return T.TileType(tuple(shape), elem)
        if tag == 0x0E:  # tensor_view
            flags = s.varint("tensor_view flags") if v >= V13_4 else 0
            elem = self.type(s.varint("tensor_view element type"), at)
            shape = tuple(_dim(d) for d in s.int_list(8, "tensor_view shape"))
            strides = tuple(_dim(d) for d in s.int_list(8, "tensor_view strides"))
            ptr_attr = self._ptr_attr(s, flags)
            return T.TensorViewType(elem, shape, strides, ptr_attr)
        layout = VIEW_LAYOUT_BY_TAG.get(tag)
        if layout is not None and v >= layout.since:
            return self._view_type(s, layout, v, at)
        if tag == 0x10:  # function
            ins = [s.varint("function input type") for _ in range(s.count("function input count"))]
            outs = [s.varint("function result type") for _ in range(s.count("function result count"))]
            return T.FunctionType(tuple(self.type(i, at) for i in ins), tuple(self.type(i, at) for i in outs))
        raise s.error(f"unknown type tag 0x{tag:X} in bytecode {v[0]}.{v[1]}", at)

    def _view_type(self, s: Stream, layout: "ViewLayout", v: Version, at: int) -> T.Type:
        """A tiled view type, field by field in the order ``layout`` gives for version ``v``."""
        values: Dict[str, object] = {}
        has_padding = False
        for field in layout.fields_for(v):
            label = f"{layout.keyword} {_VIEW_FIELD_LABELS.get(field, field)}"
            if field == "has_padding":  # 13.3 and later: a flags word (bit 0); before: a 0/1 varint
                has_padding = bool(s.varint(f"{layout.keyword} flags") & 1) if v >= V13_3 else \
                    bool(s.varint(f"{layout.keyword} has-padding"))
            elif field == "padding":
                values["padding"] = self._padding(s) if has_padding else None
            elif field == "tensor_view":
                values["tensor_view"] = self._tensor_view(s, at)
            elif field == "sparse_dim":
                values["sparse_dim"] = s.varint(label)
            else:  # a list of dimensions
                values[field] = tuple(s.int_list(4, label))
        return layout.cls(**values)

    def _tensor_view(self, s: Stream, at: int) -> T.TensorViewType:
        tv = self.type(s.varint("tensor_view type"), at)
        if not isinstance(tv, T.TensorViewType):
            raise s.error(f"view refers to a {type(tv).__name__}, not a tensor_view", at)
        return tv

    def _ptr_attr(self, s: Stream, flags: int) -> Optional[int]:
        if flags & ~1:
            raise s.error(f"unknown type flag bits 0x{flags:X}")
        if not flags & 1:
            return None
        at = s.pos
        a = s.u8("pointer attribute")
        if a >= len(PTR_ATTRS):
            raise s.error(f"unknown pointer attribute {a}", at)
        return a

    def _padding(self, s: Stream) -> str:
        at = s.pos
        p = s.u8("padding value")
        if p >= len(PADDING_VALUES):
            raise s.error(f"unknown padding value {p}", at)
        return PADDING_VALUES[p]


# -- debug info --------------------------------------------------------------------------------
class DebugInfo:
    """Per-function lists of debug attribute ids (function first, then ops in pre-order),
    resolved to ir.Location on demand."""

    def __init__(self, tables: Tables):
        self.tables = tables
        self.per_function: List[List[int]] = []
        self._attrs: List[Tuple[int, int]] = []
        self.cache: Dict[int, Optional[Location]] = {}  # the decode loop reads it directly
        self._scope_names: Dict[int, Optional[str]] = {}
        s = tables.stream(0x03)
        if s is None:
            return
        nfunc = s.count("debug function count", 4)
        s.align(4, "debug function offsets")
        starts = read_words(s, nfunc, 4, "debug function offset")
        nidx = s.count("debug index count", 8)
        s.align(8, "debug indices")
        ids = read_words(s, nidx, 8, "debug attribute id")
        for i, st in enumerate(starts):
            en = starts[i + 1] if i + 1 < nfunc else nidx
            if not (0 <= st <= en <= nidx):
                raise s.error(f"debug function {i}: index range {st}..{en} out of bounds ({nidx})")
            self.per_function.append(ids[st:en])
        self._attrs = read_offset_table(s, 4, "debug attribute")

    def location(self, attr_id: int, at: int, depth: int = 0) -> Optional[Location]:
        if attr_id == 0:
            return None
        if attr_id in self.cache:
            return self.cache[attr_id]
        if attr_id > len(self._attrs):
            raise TileIRFormatError(f"debug attribute {attr_id} out of range ({len(self._attrs)})",
                                    path=self.tables.path, offset=at)
        if depth > 32:
            raise TileIRFormatError("debug call-site chain too deep", path=self.tables.path, offset=at)
        a, b = self._attrs[attr_id - 1]
        s = Stream(self.tables.data, a, b, self.tables.path)
        tag = s.u8("debug attribute tag")
        loc: Optional[Location] = None
        if tag == 4:  # DILoc: scope, filename, line, column
            scope = s.varint("loc scope")
            fname = self.tables.string(s.varint("loc file"), s.pos)
            line, col = s.varint("loc line"), s.varint("loc column")
            loc = Location(fname, line, col, self._scope_name(scope, s.pos))
        elif tag == 6:  # CallSite: callee, caller
            callee, caller = s.varint("callsite callee"), s.varint("callsite caller")
            inner = self.location(callee, a, depth + 1)
            outer = self.location(caller, a, depth + 1)
            if inner is not None:
                # Cached callers let a chain grow past the recursion bound above: count it.
                if outer is not None and outer.callsite_depth() >= L.MAX_CALLSITE_DEPTH:
                    raise s.error(f"debug location inlined through more than {L.MAX_CALLSITE_DEPTH} call sites", a)
                loc = Location(inner.file, inner.line, inner.col, inner.scope, outer)
        elif tag in (1, 2, 3, 5):
            loc = None  # scopes, not locations
        else:
            raise s.error(f"unknown debug attribute tag {tag}", a)
        self.cache[attr_id] = loc
        return loc

    def _scope_name(self, scope_id: int, at: int) -> Optional[str]:
        if scope_id in self._scope_names:  # many locations share a scope; reading one never depends on `at`
            return self._scope_names[scope_id]
        name = self._scope_name_uncached(scope_id, at)
        self._scope_names[scope_id] = name
        return name

    def _scope_name_uncached(self, scope_id: int, at: int) -> Optional[str]:
        if scope_id == 0 or scope_id > len(self._attrs):
            return None
        a, b = self._attrs[scope_id - 1]
        s = Stream(self.tables.data, a, b, self.tables.path)
        if s.u8("scope tag") != 5:
            return None
        s.varint("subprogram file")
        s.varint("subprogram line")
        return self.tables.string(s.varint("subprogram name"), at)
