"""Tile IR text (tileirdisasm syntax) -> ir.Module.

Accepts what ``tileirdisasm`` prints (with or without ``-g``), ``cuda_tile.`` op prefixes, a
``cuda_tile.module @name { ... }`` wrapper, several entries per file, ``//`` comments and
``loc(...)`` / ``#locN = ...`` debug info (mapped to ``ir.Location``). Every problem raises
``TileIRFormatError`` with ``offset="line:col"``.

Text carries no bytecode version. ``version`` (default 13.4, the newest cuTile Python writes)
decides which attributes exist: an attribute the text elides because it equals its default
(rounding nearest_even, overflow none, inbounds all false, ...) is filled with that default
only when the attribute exists in ``version``, so parse(text) equals decode(bytes) when the
caller passes the file's version.
"""
from __future__ import annotations

import re
import sys
import threading
from contextlib import contextmanager
from typing import Any, Dict, List, Optional, Tuple

from ..dialect.enums import PTR_ATTRS
from ..dialect.ops import OPS_BY_NAME, ALIASES
from ..dialect.spec import OpDef, V13_3, V13_4, Version
from ..errors import TileIRFormatError
from ..ir import limits as L
from ..ir import types as T
from ..ir.attributes import (Bounded, DictAttr, DivBy, FloatAttr, IntegerAttr, OptimizationHints,
                             SameElements)
from ..ir.core import (Block, Function, Global, Location, Module, Operation, Region, Value, make_operation,
                       make_value)
from . import custom
from .floatfmt import FORMATS, float_from_text
from .lexer import Lexer, Token
from .template import attr_default, dense_from_text, parse_dense_literal, parse_with_template, result_groups

DEFAULT_VERSION: Version = V13_4
#: Regions nest at most this deep (ir/limits.py, shared with the bytecode reader; real kernels
#: stay far below); deeper text is refused with an error instead of exhausting Python's stack.
MAX_REGION_DEPTH = L.MAX_REGION_DEPTH
_RECURSION_NEEDED = 12 * MAX_REGION_DEPTH + 500
_SCALARS = set(T.SCALAR_TYPES)


_recursion_lock = threading.Lock()
_parses = 0                           # parses running, in all threads
_limit_before: Optional[int] = None   # the recursion limit the first of them raised


@contextmanager
def _recursion_room():
    """The recursion limit raised to ``_RECURSION_NEEDED`` while any thread parses. The limit is
    one per process: the first parse raises it, the last one puts it back (one thread restoring
    it under another's deep parse would fail that parse as "nested too deeply")."""
    global _parses, _limit_before
    with _recursion_lock:
        if _parses == 0:
            old = sys.getrecursionlimit()
            _limit_before = old if old < _RECURSION_NEEDED else None
            if _limit_before is not None:
                sys.setrecursionlimit(_RECURSION_NEEDED)
        _parses += 1
    try:
        yield
    finally:
        with _recursion_lock:
            _parses -= 1
            if _parses == 0 and _limit_before is not None:
                sys.setrecursionlimit(_limit_before)
                _limit_before = None


def parse_text(text: str, path: str = "<text>", *, version: Optional[Version] = None,
               verify: bool = True) -> Module:
    """Parse Tile IR text; with ``verify`` (the default) the module is also checked against the
    op table (``ir/verify.py``), errors naming the op's ``line:col``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise TileIRFormatError(f"text is not valid UTF-8 ({e.reason})", path=path, offset="1:1") from None
    p = Parser(text, path, version or DEFAULT_VERSION)
    try:
        with _recursion_room():
            module = p.parse_module()
    except RecursionError:
        raise TileIRFormatError("input nested too deeply", path=path, offset=p.peek().where) from None
    if verify:
        from ..ir.verify import verify_module
        where = p.where
        verify_module(module, path, lambda obj: where.get(id(obj)))
    return module


class Parser:
    def __init__(self, text: str, path: str, version: Version):
        self.text = text
        self.path = path
        self.version = version
        self.lex = Lexer(text, path)
        self.buf: List[Token] = []
        self.scopes: List[Dict[str, Value]] = []
        self.next_vid = 0
        self.depth = 0
        self.aliases: Dict[str, object] = {}
        # alias -> why its definition was refused (by the prescan): a use reports that error,
        # not "undefined alias"
        self.refused_aliases: Dict[str, TileIRFormatError] = {}
        # offset of an alias definition the prescan read -> (its end, name, value)
        self.prescanned: Dict[int, Tuple[int, str, object]] = {}
        self.last: Optional[Token] = None
        self.where: Dict[int, str] = {}  # id(op, function or global) -> "line:col", for the verifier
        self._types: Dict[str, T.Type] = {}  # a composite type's text -> the type (see parse_type)

    # --- tokens --------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        buf = self.buf
        if k < len(buf):
            return buf[k]
        while len(buf) <= k:
            buf.append(self.lex.next())
        return buf[k]

    def next(self) -> Token:
        buf = self.buf
        t = buf.pop(0) if buf else self.lex.next()
        self.last = t
        return t

    def error(self, msg: str, tok: Optional[Token] = None) -> TileIRFormatError:
        tok = tok or self.peek()
        return TileIRFormatError(msg, path=self.path, offset=tok.where)

    def expect(self, kind: str, text: Optional[str] = None) -> Token:
        buf = self.buf
        t = buf[0] if buf else self.peek()
        if t.kind != kind or (text is not None and t.text != text):
            want = repr(text) if text is not None else {"value": "an SSA value", "ident": "a keyword",
                                                        "int": "an integer", "string": "a string",
                                                        "symbol": "a @symbol"}.get(kind, kind)
            raise self.error(f"expected {want}, got {t}", t)
        return self.next()

    def accept(self, kind: str, text: str) -> bool:
        """Read the next token when it is ``kind``/``text``; whether it was."""
        if self.peek().is_(kind, text):
            self.next()
            return True
        return False

    def _rewind_to(self, tok: Token) -> None:
        self.buf.clear()
        self.lex.reset(tok.offset)

    # --- values ----------------------------------------------------------------------------
    def mint(self, ty: T.Type) -> Value:
        v = make_value(self.next_vid, ty)
        self.next_vid += 1
        return v

    def define(self, name_tok: Token, name: str, v: Value) -> None:
        scope = self.scopes[-1]
        if name in scope:
            raise self.error(f"redefinition of SSA value {name}", name_tok)
        scope[name] = v

    def parse_value_use(self) -> Value:
        t = self.expect("value")
        for scope in reversed(self.scopes):
            v = scope.get(t.text)
            if v is not None:
                return v
        raise self.error(f"use of undefined value {t.text}", t)

    def type_mismatch(self, printed, actual) -> None:
        raise self.error(f"type mismatch: the text says {printed} but the value has type {actual}",
                         self.last)

    # --- types -------------------------------------------------------------------------------
    def parse_type(self) -> T.Type:
        tok = self.peek()
        if tok.kind not in ("ident", "punct") or (tok.kind == "punct" and tok.text != "!"):
            raise self.error(f"expected a type, got {tok}", tok)
        text, off = self.text, tok.offset
        # A kernel spells the same few composite types thousands of times: ``tile<128xf32>`` is
        # parsed once, then looked up by its text (up to the '>' that balances its first '<').
        key = None
        lt = text.find("<", off, off + 40)
        if lt > off and text[off:lt].lstrip("!").replace(".", "_").isidentifier():
            depth, q = 0, lt
            while True:
                a, b = text.find("<", q), text.find(">", q)
                if b < 0 or b - off > 400:
                    break
                if 0 <= a < b:
                    depth, q = depth + 1, a + 1
                else:
                    depth, q = depth - 1, b + 1
                    if depth == 0:
                        key = text[off:q]
                        break
        if key is not None:
            ty = self._types.get(key)
            if ty is not None:
                self.buf.clear()
                self.lex.reset(off + len(key))
                self.last = tok
                return ty
        self._rewind_to(tok)
        tp = _TypeParser(text, off, self, tok)
        ty = tp.type(0)
        if key is not None and tp.pos == off + len(key) and len(self._types) < 4096:
            self._types[key] = ty
        self.lex.reset(tp.pos)
        self.last = tok
        return ty

    def parse_type_list(self, n: int) -> List[T.Type]:
        out = []
        for i in range(n):
            if i:
                self.expect("punct", ",")
            out.append(self.parse_type())
        return out

    # --- attribute pieces ----------------------------------------------------------------
    def delimited(self, item, open_: str = "[", close: str = "]") -> list:
        """``open_ item, item, ... close`` (possibly empty): the items ``item()`` parsed, in order.
        Every comma-separated list of the grammar goes through here, so all report a missing
        separator or bracket alike."""
        self.expect("punct", open_)
        return self.items_until(close, item)

    def items_until(self, close: str, item) -> list:
        """The rest of a comma-separated list whose opening bracket is read: items up to ``close``."""
        out = []
        if not self.peek().is_("punct", close):
            while True:
                out.append(item())
                if not self.peek().is_("punct", ","):
                    break
                self.next()
        self.expect("punct", close)
        return out

    def parse_int_list(self) -> List[int]:
        return self.delimited(lambda: self.expect("int").value)

    def parse_bool_list(self) -> List[bool]:
        def item():
            t = self.expect("ident")
            if t.text not in ("true", "false"):
                raise self.error(f"expected true or false, got {t}", t)
            return t.text == "true"
        return self.delimited(item)

    def parse_scalar_attr(self):
        """``1.0 : f32``, ``0 : i32``, ``0x7F800000 : f32``; an untyped int is i64, an untyped
        float f64 (MLIR's defaults)."""
        t = self.next()
        if t.is_("ident", "true") or t.is_("ident", "false"):
            return t.text == "true"
        if t.kind == "string":
            return t.value
        if t.kind not in ("int", "float", "hex"):
            raise self.error(f"expected a number, got {t}", t)
        ty = None
        if self.peek().is_("punct", ":"):
            self.next()
            ty = self.parse_type()
        if ty is None:
            ty = T.ScalarType("f64" if t.kind == "float" else "i64")
        if not isinstance(ty, T.ScalarType):
            raise self.error(f"expected a scalar type, got {ty}", t)
        if ty.name in FORMATS:
            try:
                return FloatAttr(float_from_text(t.text, ty.name), ty)
            except (ValueError, ZeroDivisionError) as e:
                raise self.error(str(e), t) from None
        if t.kind == "float":
            raise self.error(f"expected an integer for {ty}, got {t}", t)
        return IntegerAttr(t.value, ty)

    def parse_scalar_attr_list(self):
        return self.delimited(self.parse_scalar_attr)

    def parse_hints(self) -> OptimizationHints:
        arches = self.delimited(lambda: self._dict_entry(self._dict), "<", ">")
        # Dictionaries are unordered (MLIR keeps them sorted by key): canonical as the decoder's.
        return OptimizationHints(tuple(sorted(arches, key=lambda kv: kv[0])))

    def _dict_key(self) -> str:
        t = self.next()
        if t.kind == "ident":
            return t.text
        if t.kind == "string":
            return t.value
        raise self.error(f"expected a key, got {t}", t)

    def _dict_entry(self, value) -> Tuple[str, Any]:
        """``key = value`` of a dictionary, the value parsed by ``value()``."""
        key = self._dict_key()
        self.expect("punct", "=")
        return key, value()

    def _sorted_dict(self, value) -> DictAttr:
        """``{key = value, ...}``; dictionaries are unordered (MLIR keeps them sorted by key)."""
        items = self.delimited(lambda: self._dict_entry(value), "{", "}")
        return DictAttr(tuple(sorted(items, key=lambda kv: kv[0])))

    def _dict(self) -> DictAttr:
        return self._sorted_dict(self._hint_value)

    def _hint_value(self):
        """A hint's value: a nested dictionary, an integer (i32 unless typed: cuTile EntryHints and
        load hints), else a scalar attribute."""
        if self.peek().is_("punct", "{"):
            return self._dict()
        if self.peek().kind != "int":
            return self.parse_scalar_attr()
        tok = self.next()
        value = tok.value
        if self.accept("punct", ":"):
            return IntegerAttr(value, self.parse_type())
        # untyped: an i32 (cuTile's hints), or an i64 when it does not fit (what the printer
        # and tileirdisasm print bare for a 64-bit hint)
        if L.MIN_I32 <= value <= L.MAX_I32:
            return IntegerAttr(value, T.ScalarType("i32"))
        if L.MIN_I64 <= value <= L.MAX_I64:
            return IntegerAttr(value, T.ScalarType("i64"))
        raise self.error(f"hint integer {value} does not fit 64 bits", tok)

    def parse_generic_attr(self, in_array: bool = False):
        """An attribute in MLIR's generic form (entry argument attributes), the inverse of
        ``custom.generic_attr_text``: dictionaries, arrays, scalars, strings, types,
        ``#cuda_tile.div_by<..>`` / ``bounded`` / ``same_elements`` / ``optimization_hints``."""
        t = self.peek()
        if t.is_("punct", "{"):
            return self._sorted_dict(self.parse_generic_attr)
        if t.is_("punct", "["):
            return tuple(self.delimited(lambda: self.parse_generic_attr(in_array=True)))
        if t.kind == "hash":
            name = t.text[1:]
            if name == "cuda_tile.optimization_hints":
                self.next()
                return self.parse_hints()
            if name in ("cuda_tile.div_by", "cuda_tile.bounded", "cuda_tile.same_elements"):
                self.next()
                self.buf.insert(0, Token("ident", name, t.line, t.col, None, t.offset))
                return self.parse_predicate()
            raise self.error(f"unsupported attribute {t.text}", t)
        if t.kind in ("int", "float", "hex", "string") or t.is_("ident", "true") or t.is_("ident", "false"):
            return self.parse_scalar_attr()
        return self.parse_type()

    def parse_predicate(self):
        t = self.expect("ident")
        name = t.text[len("cuda_tile."):] if t.text.startswith("cuda_tile.") else t.text
        self.expect("punct", "<")
        if name == "div_by":
            d = self.expect("int").value
            every = along = None
            if self.peek().is_("punct", ","):
                self.next()
                self.expect("ident", "every")
                every = self.expect("int").value
                self.expect("ident", "along")
                along = self.expect("int").value
            self.expect("punct", ">")
            return DivBy(d, every, along)
        if name == "bounded":
            lb = self._opt_int()
            self.expect("punct", ",")
            ub = self._opt_int()
            self.expect("punct", ">")
            return Bounded(lb, ub)
        if name == "same_elements":
            vals = self.parse_int_list()
            self.expect("punct", ">")
            return SameElements(tuple(vals))
        raise self.error(f"unknown assume predicate {t.text!r}", t)

    def _opt_int(self) -> Optional[int]:
        if self.peek().is_("punct", "?"):
            self.next()
            return None
        return self.expect("int").value

    # --- regions -----------------------------------------------------------------------------
    def parse_region(self, arg_toks: List[Token], arg_types: List[T.Type], implicit: Optional[str]) -> Region:
        open_tok = self.expect("punct", "{")
        self.depth += 1
        if self.depth > MAX_REGION_DEPTH:
            raise self.error(f"regions nested deeper than {MAX_REGION_DEPTH} levels", open_tok)
        self.scopes.append({})
        args = []
        for tok, ty in zip(arg_toks, arg_types):
            v = self.mint(ty)
            self.define(tok, tok.text, v)
            args.append(v)
        ops = []
        while not self.peek().is_("punct", "}"):
            if self.peek().kind == "eof":
                raise self.error("unexpected end of input: missing '}'")
            ops.append(self.parse_op())
        self.next()
        close = self.last
        if implicit and (not ops or not _is_terminator(ops[-1])):
            # MLIR's parser adds the elided terminator; it gets the parent op's location,
            # filled in once that is known (see _locate_implicit)
            ops.append(Operation(implicit, (), (0,), (), {}, (), _IMPLICIT))
            self.where[id(ops[-1])] = close.where
        self.scopes.pop()
        self.depth -= 1
        return Region((Block(tuple(args), tuple(ops)),))

    def parse_arg_region(self) -> Region:
        args = self.delimited(self._typed_value, "(", ")")
        return self.parse_region([t for t, _ in args], [ty for _, ty in args], implicit=None)

    def _typed_value(self) -> Tuple[Token, T.Type]:
        """``%name : type`` (a block or entry argument)."""
        tok = self.expect("value")
        self.expect("punct", ":")
        return tok, self.parse_type()

    # --- ops ---------------------------------------------------------------------------------
    def parse_op(self) -> Operation:
        lhs: List[Tuple[Token, int]] = []
        first_tok = self.peek()
        if self.peek().kind == "value":
            while True:
                t = self.expect("value")
                if "#" in t.text:
                    raise self.error(f"cannot define {t.text}: '#' is for uses", t)
                n = 1
                if self.peek().is_("punct", ":"):
                    self.next()
                    n = self.expect("int").value
                    if n < 1:
                        raise self.error("result count must be positive", self.last)
                    if n > L.MAX_VALUES_PER_OP:
                        raise self.error(f"result count {n} is more than {L.MAX_VALUES_PER_OP}", self.last)
                lhs.append((t, n))
                if not self.peek().is_("punct", ","):
                    break
                self.next()
            self.expect("punct", "=")
        name_tok = self.peek()
        if name_tok.kind == "string":  # generic form "cuda_tile.addf"(...) is not supported
            raise self.error("the generic op form is not supported", name_tok)
        self.expect("ident")
        od = _op_def(name_tok.text)
        if od is None or od.has("top_level"):
            raise self.error(f"unknown op {name_tok.text!r}" if od is None
                             else f"op {od.name!r} cannot appear inside a function", name_tok)
        nres = sum(n for _, n in lhs)
        if nres > L.MAX_VALUES_PER_OP:
            raise self.error(f"{nres} results named, more than {L.MAX_VALUES_PER_OP}", name_tok)
        fixed, variadic = _result_shape(od)
        if (variadic and nres < fixed) or (not variadic and nres != fixed):
            # print_tko has no result before 13.2
            later = sum(1 for r in od.results if not r.variadic and r.since > self.version)
            if variadic or nres != fixed - later:
                raise self.error(f"{od.name} has {fixed}{'+' if variadic else ''} results, "
                                 f"{nres} named", name_tok)
        groups = result_groups(od, nres)
        counts = dict(groups)
        if od.syntax is None:
            st = custom.parse_custom(self, od, counts)
        else:
            st = parse_with_template(self, od, counts)
        # results
        # A result added in a later version (print_tko's token, 13.2) is kept whatever the
        # version: tileirdisasm prints it and the decoder adds it, as MLIR's reader upgrades it.
        results: List[Value] = []
        for gname, cnt in groups:
            types = st.result_types.get(gname)
            if types is None or len(types) != cnt:
                raise self.error(f"{od.name}: cannot tell the type of result {gname}", name_tok)
            results.extend(self.mint(t) for t in types)
        # operands and one segment per declared group (a group absent from the version: 0)
        operands: List[Value] = []
        segments: List[int] = []
        for o in od.operands:
            vals = st.operands.get(o.name, [])
            if o.arity == "single" and len(vals) != 1:
                raise self.error(f"{od.name}: operand {o.name} missing", name_tok)
            operands.extend(vals)
            segments.append(len(vals))
        attrs = self._attributes(od, st, name_tok)
        loc = self.parse_trailing_location()
        regions = tuple(_locate_implicit(r, loc, self.where) for r in st.regions)
        op = make_operation(od.name, tuple(operands), tuple(segments), tuple(results), attrs, regions, loc)
        self.where[id(op)] = first_tok.where
        k = 0
        for tok, n in lhs:
            if n == 1:
                self.define(tok, tok.text, results[k])
            else:
                for j in range(n):
                    self.define(tok, f"{tok.text}#{j}", results[k + j])
            k += n
        return op

    def _attributes(self, od: OpDef, st, at: Token) -> Dict[str, object]:
        out: Dict[str, object] = {}
        for a in od.attrs:
            if a.name in st.attrs:
                out[a.name] = st.attrs[a.name]
                continue
            if a.since > self.version or a.optional or a.kind == "unit":
                continue
            if a.kind == "bool_array" and a.name == "inbounds":
                idx = st.operands.get("index", [])
                out[a.name] = tuple(False for _ in idx)  # the bytes carry one flag per index
                continue
            d = attr_default(a)
            if d is None:
                raise self.error(f"{od.name}: attribute {a.name} missing", at)
            out[a.name] = d
        return out

    # --- locations ---------------------------------------------------------------------------
    def parse_trailing_location(self) -> Optional[Location]:
        if self.peek().is_("ident", "loc") and self.peek(1).is_("punct", "("):
            return self.parse_loc()
        return None

    def parse_loc(self):
        self.expect("ident", "loc")
        self.expect("punct", "(")
        v = self._loc_body()
        self.expect("punct", ")")
        return v

    def _loc_body(self):
        t = self.peek()
        if t.kind == "hash":
            self.next()
            return self._alias(t)
        if t.is_("ident", "unknown"):
            self.next()
            return None
        if t.is_("ident", "callsite"):
            self.next()
            self.expect("punct", "(")
            callee = self._loc_body()
            self.expect("ident", "at")
            caller = self._loc_body()
            self.expect("punct", ")")
            if isinstance(callee, Location):
                outer = caller if isinstance(caller, Location) else None
                if outer is not None and outer.callsite_depth() >= L.MAX_CALLSITE_DEPTH:
                    raise self.error(f"location inlined through more than {L.MAX_CALLSITE_DEPTH} call sites", t)
                return Location(callee.file, callee.line, callee.col, callee.scope, outer)
            return callee
        if t.kind == "string":
            self.next()
            if self.peek().is_("punct", ":"):
                self.next()
                line = self.expect("int").value
                self.expect("punct", ":")
                col = self.expect("int").value
                return Location(t.value, line, col)
            if self.peek().is_("punct", "("):  # name location "name"(inner)
                self.next()
                inner = self._loc_body()
                self.expect("punct", ")")
                return inner
            return None
        raise self.error(f"unsupported location {t}", t)

    def _alias(self, t: Token):
        refused = self.refused_aliases.get(t.text)
        if refused is not None:
            raise refused
        if t.text not in self.aliases:
            raise self.error(f"undefined alias {t.text}", t)
        return self.aliases[t.text]

    def parse_alias_def(self) -> None:
        name = self.expect("hash")
        self.expect("punct", "=")
        self.aliases[name.text] = self._alias_value()

    def _alias_value(self):
        t = self.peek()
        if t.is_("ident", "loc"):
            return self.parse_loc()
        if t.kind == "hash":
            self.next()
            if not self.peek().is_("punct", "<"):
                return self._alias(t)
            kind = t.text.split(".")[-1].lstrip("#")
            self.expect("punct", "<")
            if kind == "di_loc":
                inner = self._loc_inner()
                self.expect("ident", "in")
                scope = self._attr_ref()
                self.expect("punct", ">")
                sname = scope.get("name") if isinstance(scope, dict) and scope.get("_kind") == "di_subprogram" else None
                if isinstance(inner, Location):
                    return Location(inner.file, inner.line, inner.col, sname)
                return None
            if kind == "di_file":
                fname = self.expect("string").value
                self.expect("ident", "in")
                directory = self.expect("string").value
                self.expect("punct", ">")
                return {"_kind": kind, "name": fname, "directory": directory}

            def param():
                key = self.expect("ident").text
                self.expect("punct", "=")
                return key, self._attr_ref()
            return {"_kind": kind, **dict(self.items_until(">", param))}
        raise self.error(f"unsupported alias value {t}", t)

    def _loc_inner(self):
        t = self.peek()
        if t.kind == "hash":
            self.next()
            return self._alias(t)
        return self.parse_loc()

    def _attr_ref(self):
        t = self.next()
        if t.kind == "hash":
            return self._alias(t)
        if t.kind in ("string",):
            return t.value
        if t.kind in ("int",):
            return t.value
        if t.kind == "ident":
            return t.text
        raise self.error(f"unexpected {t} in debug info", t)

    # --- module ------------------------------------------------------------------------------
    def _prescan_aliases(self) -> None:
        """Location aliases are defined after their uses (at the end); read them first.

        Linear in the text: one sub-parser visits the lines that start with ``#`` in order, the
        line number carried from one to the next (a parser per line, each counting the newlines
        before its line again, made 40k such lines take 11 s)."""
        sub = Parser(self.text, self.path, self.version)
        sub.aliases = self.aliases
        sub.refused_aliases = self.refused_aliases
        text = self.text
        line, counted_to = 1, 0
        for m in re.finditer(r"(?m)^#", text):
            start = m.start()
            line += text.count("\n", counted_to, start)
            counted_to = start
            sub.buf.clear()
            sub.lex.seek_line_start(start, line)
            name = None
            try:
                name = sub.peek()
                sub.parse_alias_def()
                last = sub.last
                assert last is not None
                self.prescanned[start] = (last.offset + len(last.text), name.text, self.aliases[name.text])
            except TileIRFormatError as e:  # reported when the main pass reaches a use or the line
                if name is not None and name.kind == "hash" and name.text not in self.aliases:
                    self.refused_aliases.setdefault(name.text, e)

    def parse_module(self) -> Module:
        self._prescan_aliases()
        funcs: List[Function] = []
        globs: List[Global] = []
        name = None
        t = self.peek()
        if t.kind == "ident" and t.text in ("cuda_tile.module", "module"):
            self.next()
            name = self.expect("symbol").value
            if self.peek().is_("ident", "attributes"):
                self.next()
                self._skip_braced()
            self.expect("punct", "{")
            self._top_level(funcs, globs, closing="}")
            self.expect("punct", "}")
            self.parse_trailing_location()
        self._top_level(funcs, globs, closing=None)
        self.expect("eof")
        return Module(version=self.version, functions=tuple(funcs), globals=tuple(globs), name=name,
                      source=self.path)

    def _skip_braced(self) -> None:
        self.expect("punct", "{")
        depth = 1
        while depth:
            t = self.next()
            if t.kind == "eof":
                raise self.error("unexpected end of input in attributes", t)
            if t.is_("punct", "{"):
                depth += 1
            elif t.is_("punct", "}"):
                depth -= 1

    def _top_level(self, funcs, globs, closing) -> None:
        while True:
            t = self.peek()
            if t.kind == "eof" or (closing and t.is_("punct", closing)):
                return
            if t.kind == "hash":
                done = self.prescanned.get(t.offset)
                if done is None:
                    self.parse_alias_def()
                else:  # read once already: take its value and continue after it
                    end, name, value = done
                    self.aliases[name] = value
                    self.buf.clear()
                    self.lex.reset(end)
                continue
            if t.kind != "ident":
                raise self.error(f"expected 'entry' or 'global', got {t}", t)
            word = t.text[len("cuda_tile."):] if t.text.startswith("cuda_tile.") else t.text
            if word == "entry":
                funcs.append(self.parse_function())
            elif word == "global":
                globs.append(self.parse_global())
            else:
                raise self.error(f"expected 'entry' or 'global', got {t}", t)

    def _entry_argument(self) -> Tuple[Token, T.Type, DictAttr]:
        tok, ty = self._typed_value()
        attrs = DictAttr(())
        if self.peek().is_("punct", "{"):
            # 13.5 argument attributes; accepted whatever ``version`` says (text carries
            # none, and the loader parses with the default): writing them needs 13.5.
            attrs = self.parse_generic_attr()
        if self.peek().is_("ident", "loc"):
            raise self.error("argument locations are not supported")
        return tok, ty, attrs

    def parse_function(self) -> Function:
        entry_tok = self.next()
        name = self.expect("symbol").value
        self.next_vid = 0
        self.scopes = [{}]
        args = self.delimited(self._entry_argument, "(", ")")
        toks, types, arg_dicts = [a[0] for a in args], [a[1] for a in args], [a[2] for a in args]
        results: List[T.Type] = []
        if self.peek().is_("punct", "->"):
            self.next()
            if self.peek().is_("punct", "("):
                self.next()
                if not self.peek().is_("punct", ")"):
                    results = [self.parse_type()]
                    while self.peek().is_("punct", ","):
                        self.next()
                        results.append(self.parse_type())
                self.expect("punct", ")")
            else:
                results = [self.parse_type()]
        hints = None
        if self.peek().is_("ident", "optimization_hints"):
            self.next()
            self.expect("punct", "=")
            hints = self.parse_hints()
            if not hints.by_arch:
                hints = None  # as the decoder reads empty entry hints (and the printer prints none)
        # The body's terminator may be elided, as MLIR's parser adds it (SingleBlockImplicitTerminator).
        region = self.parse_region(toks, types, implicit="return")
        loc = self.parse_trailing_location()
        body = _locate_implicit(region, loc, self.where).blocks[0]
        self.scopes = []
        # As the decoder reads them: no argument attributes at all unless some dictionary has one.
        arg_attrs = tuple(arg_dicts) if any(d.items for d in arg_dicts) else None
        func = Function(name=name, arguments=body.arguments, result_types=tuple(results), body=body,
                        is_entry=True, hints=hints, arg_attrs=arg_attrs, location=loc)
        self.where[id(func)] = entry_tok.where
        return func

    def parse_global(self) -> Global:
        global_tok = self.next()
        vis = "public" if self.version >= V13_3 else None
        const = False if self.version >= V13_3 else None
        if self.peek().kind == "ident" and self.peek().text in ("public", "private"):
            vis = self.next().text
        if self.peek().is_("ident", "constant"):
            self.next()
            const = True
        name = self.expect("symbol").value
        align = 0
        if self.peek().is_("ident", "alignment"):
            self.next()
            self.expect("punct", "=")
            align = self.expect("int").value
        tok, elem, raw, ty = parse_dense_literal(self)
        value = dense_from_text(self, raw, elem, ty, tok)
        self.parse_trailing_location()
        g = Global(name, value, align, vis, const)
        self.where[id(g)] = global_tok.where
        return g


def _result_shape(od: OpDef) -> Tuple[int, bool]:
    """(fixed result count, whether a group is variadic), memoized on the op definition."""
    return od.derived("_result_shape", lambda d: (sum(1 for r in d.results if not r.variadic),
                                                  any(r.variadic for r in d.results)))


def _op_def(name: str) -> Optional[OpDef]:
    if name.startswith("cuda_tile."):
        name = name[len("cuda_tile."):]
    name = ALIASES.get(name, name)
    return OPS_BY_NAME.get(name)


_IMPLICIT = Location("<implicit terminator>", 0, 0)


def _locate_implicit(region: Region, loc: Optional[Location], where: Dict[int, str]) -> Region:
    if not region.blocks:
        return region
    block = region.blocks[0]
    if not block.operations or block.operations[-1].location is not _IMPLICIT:
        return region
    last = block.operations[-1].replace(location=loc)
    where[id(last)] = where.get(id(block.operations[-1]))
    return Region((Block(block.arguments, block.operations[:-1] + (last,)),))


def _is_terminator(op: Operation) -> bool:
    od = OPS_BY_NAME.get(op.name)
    return od is not None and od.has("terminator")


# --- types (character level: "128x64xf16" is not a token sequence MLIR-style parsing likes) --
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_INT = re.compile(r"-?[0-9]+")
_MAX_TYPE_DEPTH = 16


class _TypeParser:
    def __init__(self, text: str, pos: int, owner: Parser, tok: Token):
        self.text = text
        self.pos = pos
        self.owner = owner
        self.tok = tok

    def err(self, msg: str) -> TileIRFormatError:
        # column of self.pos on the token's line (types do not span lines in practice)
        line_start = self.text.rfind("\n", 0, self.pos) + 1
        line = self.tok.line + self.text.count("\n", self.tok.offset, self.pos)
        return TileIRFormatError(msg, path=self.owner.path, offset=f"{line}:{self.pos - line_start + 1}")

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def lit(self, s: str) -> None:
        self.ws()
        if not self.text.startswith(s, self.pos):
            got = self.text[self.pos:self.pos + 12].split("\n")[0] or "end of input"
            raise self.err(f"expected {s!r} in type, got {got!r}")
        self.pos += len(s)

    def opt(self, s: str) -> bool:
        self.ws()
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def name(self) -> str:
        self.ws()
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise self.err("expected a type")
        self.pos = m.end()
        return m.group()

    def int_(self) -> int:
        self.ws()
        m = _INT.match(self.text, self.pos)
        if not m:
            raise self.err("expected an integer in type")
        return self._bounded(m)

    def _bounded(self, m) -> int:
        """The integer ``m`` matched, refused (at its column) beyond 64 bits: a dimension of
        2^64 would only fail later, in the writer."""
        digits = m.group()
        if len(digits.lstrip("-")) > 19 or not L.MIN_I64 <= int(digits) <= L.MAX_I64:
            raise self.err(f"integer {digits[:24]}{'...' if len(digits) > 24 else ''} in type does not fit 64 bits")
        self.pos = m.end()
        return int(digits)

    def dims(self, allow_dynamic: bool) -> List[Optional[int]]:
        """``128x64x`` / ``?x4x`` prefix of a shaped type (each dimension ends with 'x')."""
        out: List[Optional[int]] = []
        while True:
            self.ws()
            c = self.text[self.pos:self.pos + 1]
            if c == "?" and allow_dynamic:
                self.pos += 1
                out.append(None)
            elif c and c in "0123456789":  # ASCII only: str.isdigit() accepts digits the regex does not
                out.append(self._bounded(_INT.match(self.text, self.pos)))
            else:
                return out
            if self.text[self.pos:self.pos + 1] != "x":
                raise self.err("expected 'x' after a dimension")
            self.pos += 1

    def _ptr_attr_name(self) -> int:
        at = self.pos
        name = self.name()
        if name not in PTR_ATTRS:
            self.pos = at
            raise self.err(f"unknown pointer attribute {name!r} (expected one of {', '.join(PTR_ATTRS)})")
        return PTR_ATTRS.index(name)

    def type(self, depth: int) -> T.Type:
        if depth > _MAX_TYPE_DEPTH:
            raise self.err("type nested too deeply")
        self.ws()
        if self.text.startswith("!", self.pos):
            self.pos += 1
        start = self.pos
        n = self.name()
        if n.startswith("cuda_tile."):
            n = n[len("cuda_tile."):]
        if n in _SCALARS:
            return T.ScalarType(n)
        if n == "token":
            return T.TokenType()
        if n == "ptr":
            self.lit("<")
            inner = self.type(depth + 1)
            ptr_attr = None
            if self.opt(","):  # ptr<f32, <multicast>>
                self.lit("<")
                ptr_attr = self._ptr_attr_name()
                self.lit(">")
            self.lit(">")
            return T.PointerType(inner, ptr_attr)
        if n == "tile":
            self.lit("<")
            shape = self.dims(False)
            elem = self.type(depth + 1)
            self.lit(">")
            return T.TileType(tuple(shape), elem)
        if n == "tensor_view":
            self.lit("<")
            shape = self.dims(True)
            elem = self.type(depth + 1)
            strides: List[Optional[int]] = []
            ptr_attr = None
            if self.opt(","):
                self.ws()
                if not self.text.startswith("#", self.pos):
                    self.lit("strides")
                    self.lit("=")
                    self.lit("[")
                    if not self.opt("]"):
                        while True:
                            if self.opt("?"):
                                strides.append(None)
                            else:
                                strides.append(self.int_())
                            if self.opt("]"):
                                break
                            self.lit(",")
                if self.text.startswith("#", self.pos) or self.opt(","):
                    # tensor_view<?xf32, strides=[?], #cuda_tile.ptr_attr<multicast>>
                    self.lit("#cuda_tile.ptr_attr")
                    self.lit("<")
                    ptr_attr = self._ptr_attr_name()
                    self.lit(">")
            self.lit(">")
            if len(strides) != len(shape):
                raise self.err(f"tensor_view has {len(shape)} dimensions but {len(strides)} strides")
            return T.TensorViewType(elem, tuple(shape), tuple(strides), ptr_attr)
        if n in ("partition_view", "strided_view", "gather_scatter_view"):
            self.lit("<")
            self.lit("tile")
            self.lit("=")
            self.lit("(")
            tile = [self.int_()]
            while self.opt("x"):
                tile.append(self.int_())
            self.lit(")")
            self.lit(",")
            trav: List[int] = []
            if n == "strided_view":
                self.lit("traversal_strides")
                self.lit("=")
                trav = self._int_list()
                self.lit(",")
            padding = None
            if self.opt("padding_value"):
                self.lit("=")
                padding = self.name()
                if padding not in ("zero", "neg_zero", "nan", "pos_inf", "neg_inf"):
                    raise self.err(f"unknown padding value {padding!r}")
                self.lit(",")
            tv = self.type(depth + 1)
            if not isinstance(tv, T.TensorViewType):
                raise self.err(f"{n} needs a tensor_view, got {tv}")
            dim_map = tuple(range(len(tv.shape)))
            sparse = 0
            if n == "gather_scatter_view":
                self.lit(",")
                self.lit("sparse_dim")
                self.lit("=")
                sparse = self.int_()
            elif self.opt(","):
                self.lit("dim_map")
                self.lit("=")
                dim_map = tuple(self._int_list())
            self.lit(">")
            if n == "partition_view":
                return T.PartitionViewType(tuple(tile), tv, dim_map, padding)
            if n == "strided_view":
                return T.StridedViewType(tuple(tile), tuple(trav), tv, dim_map, padding)
            return T.GatherScatterViewType(tuple(tile), tv, sparse, padding)
        self.pos = start
        raise self.err(f"unknown type {n!r}")

    def _int_list(self) -> List[int]:
        self.lit("[")
        out: List[int] = []
        if self.opt("]"):
            return out
        while True:
            out.append(self.int_())
            if self.opt("]"):
                return out
            self.lit(",")
