"""The one interpreter of op text templates (``OpDef.syntax``), used to print AND to parse.

Notation (see ``dialect/ops.py``): literal text; ``$x`` an operand group, attribute or region of
the op; ``$x:style`` an attribute with a printing style (``angle`` -> ``<kw>``, ``round`` ->
``rounding<kw>`` elided when equal to the default); ``type($x)`` the types of an operand or
result group (comma separated); ``{?x|...}`` printed only when ``x`` is present (an operand
group that is non-empty, an attribute that is present and not equal to its default, a unit
attribute that is set); ``@name($a,...)`` a directive (below). Printing emits literal text
byte for byte; parsing matches it token by token (whitespace is free).

Directives: ``@itype($g)`` one type if all of group ``g`` share it, else each (MLIR's index
types); ``@same($r,$g)`` result group ``r`` takes the types of group ``g`` (prints nothing);
``@dense($value,$result)`` ``<f32: ...> : tile<...>``; ``@dynlist($g,attrname)`` the
``[%a, 4, ?]`` shape/stride lists of make_tensor_view; ``@inbounds($inbounds)`` `` inbounds =
[...]`` when any is true; ``@argregion($r)`` a newline, ``(%a: T, ...)`` and the region.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple

from ..dialect.enums import ENUMS
from ..dialect.spec import AttrDef, OpDef
from ..ir import limits as L
from ..ir.record import record
from ..ir import types as T
from ..ir.attributes import (Bounded, DenseElements, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr,
                             OptimizationHints, SameElements, canonical_dense)
from .floatfmt import FORMATS, float_from_text, format_float
from .spelling import escape_string, key_text, symbol_text


# --- compiled template elements (the notation above, one class per form) -------------------
@record
class Lit:
    """Literal text, printed byte for byte and matched token by token."""
    text: str


@record
class Ref:
    """``$x`` / ``$x:style``: an operand group, attribute or region of the op. ``style`` is an
    attribute's printing style: ``angle`` (``<kw>``) or ``round`` (``rounding<kw>``, elided
    when the attribute has its default)."""
    name: str
    style: Optional[str] = None


@record
class TypeOf:
    """``type($x)``: the types of an operand or result group."""
    name: str


@record
class Opt:
    """``{?x|...}``: ``body`` only when ``x`` is present (a non-empty operand group, an attribute
    present and not at its default, a set unit attribute); parsing tries ``body`` at its first
    token."""
    name: str
    body: Tuple[Any, ...]


@record
class Dir:
    """``@name($a, ...)``: a directive."""
    name: str
    args: Tuple[str, ...]


def _name_at(s: str, i: int) -> Tuple[str, int]:
    j = i
    while j < len(s) and (s[j].isalnum() or s[j] == "_"):
        j += 1
    return s[i:j], j


@lru_cache(maxsize=None)
def compile_template(tpl: str) -> Tuple[Any, ...]:
    elems, i = _compile(tpl, 0, top=True)
    return elems


def _compile(s: str, i: int, top: bool):
    out: List[Any] = []
    lit: List[str] = []

    def flush():
        if lit:
            out.append(Lit("".join(lit)))
            lit.clear()

    while i < len(s):
        c = s[i]
        if c == "$":
            flush()
            name, i = _name_at(s, i + 1)
            style = None
            if i < len(s) and s[i] == ":" and i + 1 < len(s) and s[i + 1].isalpha():
                style, i = _name_at(s, i + 1)
            out.append(Ref(name, style))
        elif s.startswith("type($", i):
            flush()
            name, j = _name_at(s, i + 6)
            if s[j] != ")":
                raise ValueError(f"bad type() in template {s!r}")
            out.append(TypeOf(name))
            i = j + 1
        elif s.startswith("{?", i):
            flush()
            name, j = _name_at(s, i + 2)
            if s[j] != "|":
                raise ValueError(f"bad optional group in template {s!r}")
            body, i = _compile(s, j + 1, top=False)
            out.append(Opt(name, tuple(body)))
        elif c == "}" and not top:
            flush()
            return out, i + 1
        elif c == "@":
            flush()
            name, j = _name_at(s, i + 1)
            if s[j] != "(":
                raise ValueError(f"bad directive in template {s!r}")
            k = s.index(")", j)
            args = tuple(a.strip().lstrip("$") for a in s[j + 1:k].split(",") if a.strip())
            out.append(Dir(name, args))
            i = k + 1
        else:
            lit.append(c)
            i += 1
    if not top:
        raise ValueError(f"unclosed optional group in template {s!r}")
    flush()
    return out, i


# --- shared helpers ----------------------------------------------------------------------
def attr_default(a: AttrDef, op=None):
    """The value an absent/elided attribute stands for (EnumValue for enums)."""
    if a.kind == "enum" and a.default is not None:
        return EnumValue(a.enum, a.default)
    if a.kind == "unit":
        return False
    return a.default


def attr_is_default(a: AttrDef, value) -> bool:
    if a.kind == "unit":
        return not value
    d = attr_default(a)
    return d is not None and value == d


def int_text(value: int, ty) -> str:
    if isinstance(ty, T.ScalarType) and ty.name == "i1":
        return "true" if value else "false"
    return str(value)


def scalar_attr_text(v) -> str:
    """An attribute inside an array (identities): ``0.000000e+00 : f32``, ``0 : i32``; MLIR
    elides ``: i64`` and (when not printed as hex) ``: f64``."""
    if isinstance(v, FloatAttr):
        s, hexed = format_float(v.bits, v.type.name)
        if v.type.name == "f64" and not hexed:
            return s
        return f"{s} : {v.type}"
    if isinstance(v, IntegerAttr):
        s = int_text(v.value, v.type)
        if isinstance(v.type, T.ScalarType) and v.type.name == "i64":
            return s
        return f"{s} : {v.type}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return escape_string(v)
    raise TypeError(f"cannot print array element {v!r}")


def hints_text(h: OptimizationHints) -> str:
    """MLIR keeps these in DictionaryAttrs, which sort their keys: print sorted whatever the
    order in the bytes."""
    parts = []
    for arch, d in sorted(h.by_arch, key=lambda kv: kv[0]):
        inner = ", ".join(f"{key_text(k)} = {_dict_value_text(v)}" for k, v in sorted(d.items, key=lambda kv: kv[0]))
        parts.append(f"{key_text(arch)} = {{{inner}}}")
    return "<" + ", ".join(parts) + ">"


def _dict_value_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, IntegerAttr):
        return hint_int_text(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, FloatAttr):
        return format_float(v.bits, v.type.name)[0]
    if isinstance(v, str):
        return escape_string(v)
    if isinstance(v, DictAttr):
        return "{" + ", ".join(f"{key_text(k)} = {_dict_value_text(x)}"
                               for k, x in sorted(v.items, key=lambda kv: kv[0])) + "}"
    return str(v)


def hint_int_text(v: IntegerAttr) -> str:
    """A hint's integer as the parser reads it back (``Parser._hint_value``): bare when it is an
    i32 (cuTile's hints; tileirdisasm's text) or an i1 (``true``/``false``), bare when it is an
    i64 too large for i32 (a bare integer reads as i64 then), else with its type:
    ``40000 : i64``, ``7 : i16``. The bytecode's type is the truth; printing it bare for every
    type made an i64 hint come back as an i32 (or not at all, at 2^31 and above)."""
    ty = v.type
    name = ty.name if isinstance(ty, T.ScalarType) else None
    if name in ("i32", "i1") or (name == "i64" and not L.MIN_I32 <= v.value <= L.MAX_I32):
        return int_text(v.value, ty)
    return f"{v.value} : {ty}"


def predicate_text(p) -> str:
    if isinstance(p, DivBy):
        s = f"div_by<{p.divisor}"
        if p.every is not None:
            s += f", every {p.every} along {p.along}"
        return s + ">"
    if isinstance(p, Bounded):
        lb = "?" if p.lb is None else str(p.lb)
        ub = "?" if p.ub is None else str(p.ub)
        return f"bounded<{lb}, {ub}>"
    if isinstance(p, SameElements):
        return "same_elements<[" + ", ".join(map(str, p.values)) + "]>"
    raise TypeError(f"not an assume predicate: {p!r}")


# --- dense constants -----------------------------------------------------------------------
def _elem_size(name: str) -> int:
    if name in ("i1", "i4", "f4E2M1FN"):
        return 1
    return T.SCALAR_TYPES[name][0] // 8


def dense_elements(d: DenseElements) -> List[int]:
    """Raw element bit patterns (ints are sign-extended) as stored (one for a splat)."""
    name = d.element.name
    size = _elem_size(name)
    data = d.data
    out = []
    for k in range(0, len(data) - len(data) % size, size):
        v = int.from_bytes(data[k:k + size], "little")
        out.append(v)
    return out


def _element_text(bits: int, name: str) -> str:
    if name == "i1":
        return "true" if bits else "false"
    if name in FORMATS:
        return format_float(bits, name)[0]
    width = T.SCALAR_TYPES[name][0]
    bits &= (1 << width) - 1
    if bits >> (width - 1):
        bits -= 1 << width
    return str(bits)


def dense_text(d: DenseElements) -> str:
    """The part after ``<elem: `` of a constant: a splat value, nested ``[...]`` or hex data."""
    name = d.element.name
    elems = dense_elements(d)
    shape = d.type.shape
    total = d.type.num_elements
    if len(elems) == 1 or (elems and all(e == elems[0] for e in elems)):
        return _element_text(elems[0], name)
    if total > 100 and name != "i1":
        return '"0x' + d.data.hex().upper() + '"'
    texts = [_element_text(e, name) for e in elems]

    def nest(dim: int, start: int) -> Tuple[str, int]:
        if dim == len(shape):
            return texts[start], start + 1
        parts = []
        for _ in range(shape[dim]):
            s, start = nest(dim + 1, start)
            parts.append(s)
        return "[" + ", ".join(parts) + "]", start

    if not shape:
        return texts[0]
    return nest(0, 0)[0]


def element_bytes(bits: int, name: str) -> bytes:
    if name == "i1":
        return b"\xff" if bits else b"\x00"
    size = _elem_size(name)
    return (bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


# --- printing ------------------------------------------------------------------------------
class PrintContext:
    """What the template printer needs from the module printer."""

    def value(self, v) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def type(self, t) -> str:  # pragma: no cover
        raise NotImplementedError

    def arg_region(self, region) -> str:  # pragma: no cover
        raise NotImplementedError


def _groups(op, od: OpDef):
    """name -> tuple of values, for operand groups and result groups of ``op``."""
    g: Dict[str, Tuple] = {}
    pos = 0
    for i, o in enumerate(od.operands):
        n = op.segments[i] if i < len(op.segments) else 0
        g[o.name] = tuple(op.operands[pos:pos + n])
        pos += n
    rg = result_groups(od, len(op.results))
    rpos = 0
    for (name, n) in rg:
        g[name] = tuple(op.results[rpos:rpos + n])
        rpos += n
    return g


def result_groups(od: OpDef, count: int) -> List[Tuple[str, int]]:
    """Split ``count`` results over the op's declared result groups (one may be variadic)."""
    fixed = sum(1 for r in od.results if not r.variadic)
    out = []
    for r in od.results:
        out.append((r.name, max(count - fixed, 0) if r.variadic else 1))
    # results declared since a later version may be missing (print_tko before 13.2)
    total = sum(n for _, n in out)
    while total > count and out:
        name, n = out.pop()
        total -= n
    return out


def print_with_template(op, od: OpDef, ctx: PrintContext) -> List[Any]:
    """The op's text after its name, as pieces: strings, and region markers from ``ctx``."""
    plan = print_plan(od)
    out: List[Any] = []
    groups = plan.groups(op)
    for step in plan.steps:
        step(op, groups, ctx, out)
    return out


# The printer runs the template once per op; interpreting the element tree each time (type tests,
# name lookups in the op table, default values rebuilt) cost more than the text itself. A plan
# resolves all of that once per op definition: each element becomes a small function that appends
# its text, with attribute definitions and defaults bound in (the notation's meaning is the
# module docstring's; the parser, ``_parse_elems``, walks the same elements).
class PrintPlan:
    __slots__ = ("od", "steps", "operand_names", "single_segments", "result_names", "fixed_results")

    def __init__(self, od: OpDef):
        self.od = od
        self.operand_names = tuple(o.name for o in od.operands)
        self.single_segments = (1,) * len(od.operands)
        self.result_names = tuple(r.name for r in od.results)
        self.fixed_results = not any(r.variadic for r in od.results)
        self.steps = _compile_steps(compile_template(od.syntax), od)

    def groups(self, op) -> Dict[str, Tuple]:
        """Same as ``_groups`` (name -> values), with the all-single-operands and fixed-results
        cases done without slicing."""
        if op.segments == self.single_segments and len(op.operands) == len(self.single_segments):
            g = {name: (v,) for name, v in zip(self.operand_names, op.operands)}
        else:
            g = {}
            pos = 0
            segs = op.segments
            for i, name in enumerate(self.operand_names):
                n = segs[i] if i < len(segs) else 0
                g[name] = tuple(op.operands[pos:pos + n])
                pos += n
        results = op.results
        if self.fixed_results and len(results) == len(self.result_names):
            for name, v in zip(self.result_names, results):
                g[name] = (v,)
        else:
            rpos = 0
            for name, n in result_groups(self.od, len(results)):
                g[name] = tuple(results[rpos:rpos + n])
                rpos += n
        return g


def print_plan(od: OpDef) -> PrintPlan:
    return od.derived("_print_plan", PrintPlan)


def _compile_steps(elems, od: OpDef) -> Tuple[Any, ...]:
    group_names = {o.name for o in od.operands} | {r.name for r in od.results}
    steps = []
    for e in elems:
        if isinstance(e, Lit):
            steps.append(_lit_step(e.text))
        elif isinstance(e, Opt):
            steps.append(_opt_step(_present_test(e.name, od, group_names), _compile_steps(e.body, od)))
        elif isinstance(e, Ref):
            if e.name in group_names:
                steps.append(_values_step(e.name))
            else:
                steps.append(_attr_step(od.attr(e.name), e.style))
        elif isinstance(e, TypeOf):
            steps.append(_types_step(e.name))
        elif isinstance(e, Dir):
            steps.append(_directive_step(e, od))
        else:  # pragma: no cover
            raise AssertionError(e)
    return tuple(steps)


def _lit_step(text: str):
    def step(op, groups, ctx, out):
        out.append(text)
    return step


def _opt_step(present, body):
    def step(op, groups, ctx, out):
        if present(op, groups):
            for s in body:
                s(op, groups, ctx, out)
    return step


def _present_test(name: str, od: OpDef, group_names):
    """``_present`` with the attribute definition and its default resolved up front."""
    if name in group_names:
        def present(op, groups):
            if name in groups:
                return bool(groups[name])
            raise ValueError(f"template of {od.name}: unknown name {name!r}")
        return present
    try:
        a = od.attr(name)
    except KeyError:
        raise ValueError(f"template of {od.name}: unknown name {name!r}") from None
    if a.kind == "unit":
        def present(op, groups):
            attrs = op.attributes
            return name in attrs and bool(attrs[name])
        return present
    default = attr_default(a)

    def present(op, groups):
        attrs = op.attributes
        if name not in attrs:
            return False
        return default is None or attrs[name] != default
    return present


def _values_step(name: str):
    def step(op, groups, ctx, out):
        vals = groups[name]
        if len(vals) == 1:
            out.append(ctx.value(vals[0]))
        else:
            out.append(", ".join([ctx.value(v) for v in vals]))
    return step


def _types_step(name: str):
    def step(op, groups, ctx, out):
        vals = groups[name]
        if len(vals) == 1:
            out.append(ctx.type(vals[0].type))
        else:
            out.append(", ".join([ctx.type(v.type) for v in vals]))
    return step


def _attr_step(a: AttrDef, style: Optional[str]):
    name = a.name
    default = attr_default(a)
    if a.kind == "enum":
        def step(op, groups, ctx, out):
            attrs = op.attributes
            v = attrs[name] if name in attrs else default
            if v is None:
                out.append("")
                return
            text = v.name if isinstance(v, EnumValue) else str(v)
            if style == "angle":
                out.append(f"<{text}>")
            elif style == "round":
                out.append("" if default is not None and v == default else f"rounding<{text}>")
            else:
                out.append(text)
        return step

    def step(op, groups, ctx, out):
        attrs = op.attributes
        out.append(_attr_text_of(attrs[name] if name in attrs else default, a, style, ctx))
    return step


def _directive_step(d: Dir, od: OpDef):
    if d.name == "same":
        return lambda op, groups, ctx, out: None  # prints nothing (as _print_directive's "")

    def step(op, groups, ctx, out):
        out.append(_print_directive(d, op, od, groups, ctx))
    return step


def _attr_text_of(v, a: AttrDef, style: Optional[str], ctx) -> str:
    k = a.kind
    if k == "enum":
        if v is None:
            return ""
        name = v.name if isinstance(v, EnumValue) else str(v)
        if style == "angle":
            return f"<{name}>"
        if style == "round":
            return "" if attr_is_default(a, v) else f"rounding<{name}>"
        return name
    if k == "unit":
        return ""
    if k == "int":
        return str(v)
    if k == "bool":
        return "true" if v else "false"
    if k == "str":
        return escape_string(v)
    if k == "symbol":
        return symbol_text(v)
    if k == "i32_array":
        return "[" + ", ".join(map(str, v)) + "]"
    if k == "bool_array":
        return "[" + ", ".join("true" if x else "false" for x in v) + "]"
    if k == "array":
        return "[" + ", ".join(scalar_attr_text(x) for x in v) + "]"
    if k == "hints":
        return hints_text(v)
    if k == "predicate":
        return predicate_text(v)
    if k == "type":
        return ctx.type(v)
    raise ValueError(f"cannot print attribute kind {k}")


def _has_ptr_attr(t) -> bool:
    """A pointer type (or tile of pointers) carrying the 13.4 pointer attribute."""
    if isinstance(t, T.TileType):
        t = t.element
    return isinstance(t, T.PointerType) and t.ptr_attr is not None


def _print_directive(d: Dir, op, od, groups, ctx) -> str:
    n = d.name
    if n == "itype":
        vals = [v for g in d.args for v in groups[g]]
        if not vals:
            return ""
        types = [v.type for v in vals]
        if all(t == types[0] for t in types):
            return ctx.type(types[0])
        return ", ".join(ctx.type(t) for t in types)
    if n == "same":
        return ""
    if n == "dense":
        value = op.attributes[d.args[0]]
        return f"<{value.element}: {dense_text(value)}> : {ctx.type(value.type)}"
    if n == "dynlist":
        group, which = d.args
        rtype = groups["result"][0].type
        dims = rtype.shape if which == "shape" else rtype.strides
        dyn = iter(groups[group])
        parts = [ctx.value(next(dyn)) if x is None else str(x) for x in dims]
        return "[" + ", ".join(parts) + "]"
    if n == "tvtype":
        # @tvtype($base,$dynamicShape,$dynamicStrides,$result). A base pointer with a pointer
        # attribute (13.4+) has its type printed first: `: tile<ptr<f32, <none>>>, tile<i32> -> ...`.
        base = groups[d.args[0]][0].type
        dyn = [v for g in d.args[1:3] for v in groups[g]]
        res = ctx.type(groups[d.args[3]][0].type)
        types = [ctx.type(base)] if _has_ptr_attr(base) else []
        if dyn:
            types.append(ctx.type(dyn[0].type))
        return (", ".join(types) + " -> " + res) if types else res
    if n == "inbounds":
        v = op.attributes.get(d.args[0])
        if v and any(v):
            return " inbounds = [" + ", ".join("true" if x else "false" for x in v) + "]"
        return ""
    if n == "argregion":
        return ctx.arg_region(op.regions[0])
    raise ValueError(f"unknown template directive @{n}")


# --- parsing -------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def literal_tokens(text: str) -> Tuple[Tuple[str, str], ...]:
    from .lexer import Lexer  # parsing only: a printer never loads the lexer
    return tuple((t.kind, t.text) for t in Lexer(text).tokens() if t.kind != "eof")


class ParseState:
    """What parsing one op collects: operand groups, attributes, result types, regions."""

    def __init__(self, od: OpDef, result_counts: Dict[str, int]):
        self.od = od
        self.operands: Dict[str, List] = {o.name: [] for o in od.operands}
        self.attrs: Dict[str, Any] = {}
        self.result_counts = result_counts
        self.result_types: Dict[str, List] = {}
        self.regions: List = []
        self.shown: set = set()
        self.seen: set = set()  # optional operand groups already decided


def parse_with_template(p, od: OpDef, result_counts: Dict[str, int]) -> ParseState:
    """``p`` is the parser (token stream + value table, see parser.py)."""
    st = ParseState(od, result_counts)
    _parse_elems(compile_template(od.syntax), p, st)
    return st


def _starts(e, p, st: ParseState) -> bool:
    """Does the next input start element ``e`` (used to decide optional groups)?"""
    tok = p.peek()
    if isinstance(e, Lit):
        lt = literal_tokens(e.text)
        if not lt:
            return True
        return tok.kind == lt[0][0] and tok.text == lt[0][1]
    if isinstance(e, Ref):
        if e.name in st.operands:
            return tok.kind == "value"
        a = st.od.attr(e.name)
        if a.kind == "enum":
            return tok.kind == "ident" and tok.text in ENUMS[a.enum]
        return True
    if isinstance(e, Dir) and e.name == "inbounds":
        return tok.is_("ident", "inbounds")
    return True


def _group_starts(body, p, st: ParseState) -> bool:
    for e in body:
        if isinstance(e, Lit) and not literal_tokens(e.text):
            continue  # whitespace only
        return _starts(e, p, st)
    return False


def _parse_elems(elems, p, st: ParseState):
    for e in elems:
        if isinstance(e, Lit):
            for kind, text in literal_tokens(e.text):
                p.expect(kind, text)
        elif isinstance(e, Opt):
            if e.name in st.operands and e.name in st.seen:
                # the group's values were parsed already; later groups (types) follow them
                if any(isinstance(x, Ref) and x.name == e.name for x in e.body):
                    continue
                present = bool(st.operands[e.name])
            else:
                present = _group_starts(e.body, p, st)
                if e.name in st.operands:
                    st.seen.add(e.name)
            if present:
                st.shown.add(e.name)
                a = _maybe_attr(st.od, e.name)
                if a is not None and a.kind == "unit":
                    st.attrs[a.name] = True
                _parse_elems(e.body, p, st)
                if e.name == "mask" and "paddingValue" in st.operands and "paddingValue" not in st.seen:
                    _mask_or_padding(st)
        elif isinstance(e, Ref):
            if e.name in st.operands:
                _parse_operand_group(e.name, p, st)
            else:
                a = st.od.attr(e.name)
                v = parse_attr(p, a, e.style)
                if v is not None:
                    st.attrs[a.name] = v
        elif isinstance(e, TypeOf):
            _parse_types(e.name, p, st)
        elif isinstance(e, Dir):
            _parse_directive(e, p, st)


def _mask_or_padding(st: ParseState) -> None:
    """load_ptr_tko prints ``%src, %mask, %pad`` but also ``%src, %pad`` (a padding value without
    a mask): the one optional operand is the mask only if it is a tile of i1."""
    v = st.operands["mask"][0]
    elem = v.type.element if isinstance(v.type, T.TileType) else v.type
    if elem != T.ScalarType("i1"):
        st.operands["paddingValue"] = st.operands["mask"]
        st.operands["mask"] = []
        st.seen.add("paddingValue")


def _maybe_attr(od: OpDef, name: str):
    for a in od.attrs:
        if a.name == name:
            return a
    return None


def _operand_def(od: OpDef, name: str):
    for o in od.operands:
        if o.name == name:
            return o
    return None


def _parse_operand_group(name: str, p, st: ParseState):
    o = _operand_def(st.od, name)
    vals = st.operands[name]
    vals.append(p.parse_value_use())
    if o.arity == "variadic":
        while p.peek().is_("punct", ",") and p.peek(1).kind == "value":
            p.next()
            vals.append(p.parse_value_use())


def _parse_types(name: str, p, st: ParseState):
    if name in st.operands:
        vals = st.operands[name]
        types = p.parse_type_list(len(vals)) if vals else []
        for v, t in zip(vals, types):
            if v.type != t:
                p.type_mismatch(t, v.type)
        return
    n = st.result_counts.get(name)
    if n is None:
        raise p.error(f"{st.od.name}: unknown result group {name!r}")
    st.result_types[name] = p.parse_type_list(n) if n else []


def _parse_directive(d: Dir, p, st: ParseState):
    n = d.name
    if n == "itype":
        g = d.args[0]
        if g in st.operands:
            vals = [v for a in d.args for v in st.operands[a]]
            if not vals:
                return
            t0 = p.parse_type()
            types = [t0]
            while len(types) < len(vals) and p.peek().is_("punct", ","):
                p.next()
                types.append(p.parse_type())
            if len(types) == 1:
                types = types * len(vals)
            if len(types) != len(vals):
                raise p.error(f"{st.od.name}: expected 1 or {len(vals)} index types, got {len(types)}")
            for v, t in zip(vals, types):
                if v.type != t:
                    p.type_mismatch(t, v.type)
        else:
            cnt = st.result_counts.get(g, 0)
            t0 = p.parse_type()
            types = [t0]
            while len(types) < cnt and p.peek().is_("punct", ",") and not p.peek(1).is_("punct"):
                p.next()
                types.append(p.parse_type())
            if len(types) == 1:
                types = types * cnt
            st.result_types[g] = types
        return
    if n == "same":
        r, src = d.args
        if src in st.operands:
            types = [v.type for v in st.operands[src]]
        else:
            types = st.result_types.get(src, [])
        cnt = st.result_counts.get(r, 0)
        if types and len(types) != cnt:
            types = [types[0]] * cnt
        st.result_types[r] = list(types)
        return
    if n == "dense":
        aname, rname = d.args
        tok, elem, raw, ty = parse_dense_literal(p)
        st.result_types[rname] = [ty]
        st.attrs[aname] = dense_from_text(p, raw, elem, ty, tok)
        return
    if n == "dynlist":
        group, which = d.args

        def dim() -> Optional[int]:  # a dynamic one is an operand of ``group``
            tok = p.peek()
            if tok.kind == "value":
                st.operands[group].append(p.parse_value_use())
                return None
            if tok.kind == "int":
                return p.next().value
            raise p.error(f"expected a value or an integer in {which}, got {tok}", tok)
        dims: List[Optional[int]] = p.delimited(dim)
        st.__dict__.setdefault("dynlists", {})[which] = dims
        return
    if n == "tvtype":
        base = st.operands[d.args[0]][0]
        dyn = [v for g in d.args[1:3] for v in st.operands[g]]
        t1 = p.parse_type()
        if _has_ptr_attr(base.type):
            if t1 != base.type:
                p.type_mismatch(t1, base.type)
            if dyn:
                p.expect("punct", ",")
                t1 = p.parse_type()
            else:
                p.expect("punct", "->")
                t1 = p.parse_type()
        if p.peek().is_("punct", "->"):
            p.next()
            for v in dyn:
                if v.type != t1:
                    p.type_mismatch(t1, v.type)
            t1 = p.parse_type()
        elif dyn:
            raise p.error("make_tensor_view: expected '->' after the dynamic size type")
        if not isinstance(t1, T.TensorViewType):
            raise p.error(f"make_tensor_view: result must be a tensor_view, got {t1}", p.last)
        lists = st.__dict__.get("dynlists", {})
        if (lists.get("shape") != list(t1.shape)) or (lists.get("strides") != list(t1.strides)):
            raise p.error(f"make_tensor_view: shape/strides do not match {t1}", p.last)
        st.result_types[d.args[3]] = [t1]
        return
    if n == "inbounds":
        if p.peek().is_("ident", "inbounds"):
            p.next()
            p.expect("punct", "=")
            st.attrs[d.args[0]] = tuple(p.parse_bool_list())
            st.shown.add(d.args[0])
        return
    if n == "argregion":
        st.regions.append(p.parse_arg_region())
        return
    raise p.error(f"unknown template directive @{n}")


def parse_dense_literal(p):
    """``<elem: values> : type`` (a constant's or a global's value): (the ``<`` token, the element
    type, the values as _parse_dense_body reads them, the type)."""
    tok = p.expect("punct", "<")
    elem = p.parse_type()
    p.expect("punct", ":")
    raw = _parse_dense_body(p, elem)
    p.expect("punct", ">")
    p.expect("punct", ":")
    return tok, elem, raw, p.parse_type()


def _parse_dense_body(p, elem):
    """-> nested python lists of tokens, a single token, or a hex-string token."""
    tok = p.peek()
    if tok.is_("punct", "["):
        return p.delimited(lambda: _parse_dense_body(p, elem))
    if tok.kind in ("int", "float", "hex", "string") or tok.is_("ident", "true") or tok.is_("ident", "false"):
        return p.next()
    raise p.error(f"expected a constant element, got {tok}", tok)


def element_bits_from_token(p, tok, name: str) -> int:
    if name == "i1":
        if tok.is_("ident", "true"):
            return 1
        if tok.is_("ident", "false"):
            return 0
        if tok.kind == "int" and tok.value in (0, 1):
            return tok.value
        raise p.error(f"expected true or false for an i1 element, got {tok}", tok)
    if name in FORMATS:
        if tok.kind not in ("float", "hex", "int"):
            raise p.error(f"expected a float for {name}, got {tok}", tok)
        try:
            return float_from_text(tok.text, name)
        except (ValueError, ZeroDivisionError) as e:
            raise p.error(str(e), tok) from None
    if tok.kind not in ("int", "hex"):
        raise p.error(f"expected an integer for {name}, got {tok}", tok)
    width = T.SCALAR_TYPES[name][0]
    v = tok.value
    if not (-(1 << (width - 1)) <= v < (1 << width)):
        raise p.error(f"integer {v} does not fit {name}", tok)
    return v & ((1 << width) - 1)


def dense_from_text(p, raw, elem, ty, at_tok) -> DenseElements:
    if not isinstance(ty, T.TileType) or not isinstance(elem, T.ScalarType) or ty.element != elem:
        raise p.error(f"constant element type {elem} does not match {ty}", at_tok)
    name = elem.name
    if not isinstance(raw, list) and raw.kind == "string":
        text = raw.value
        if not text.startswith("0x"):
            raise p.error("expected hex data \"0x...\" in a dense constant", raw)
        try:
            data = bytes.fromhex(text[2:])
        except ValueError:
            raise p.error("bad hex data in a dense constant", raw) from None
        if len(data) != _elem_size(name) * ty.num_elements:
            raise p.error(f"hex data has {len(data)} bytes, {ty} needs {_elem_size(name) * ty.num_elements}", raw)
        return canonical_dense(ty, data)
    if not isinstance(raw, list):
        return DenseElements(ty, element_bytes(element_bits_from_token(p, raw, name), name))
    flat: List = []

    def walk(x, dim):
        if isinstance(x, list):
            if dim >= len(ty.shape) or len(x) != ty.shape[dim]:
                raise p.error(f"constant shape does not match {ty}", at_tok)
            for y in x:
                walk(y, dim + 1)
        else:
            if dim != len(ty.shape):
                raise p.error(f"constant shape does not match {ty}", at_tok)
            flat.append(x)

    walk(raw, 0)
    bits = [element_bits_from_token(p, t, name) for t in flat]
    if bits and all(b == bits[0] for b in bits):
        bits = bits[:1]  # MLIR would print it as a splat; the model stores splats as one element
    return DenseElements(ty, b"".join(element_bytes(b, name) for b in bits))


def parse_attr(p, a: AttrDef, style: Optional[str]):
    k = a.kind
    if k == "enum":
        names = ENUMS[a.enum]
        if style == "round":
            if not p.peek().is_("ident", "rounding"):
                return None  # elided: the default (filled in by the parser)
            p.next()
            p.expect("punct", "<")
            tok = p.expect("ident")
            p.expect("punct", ">")
        elif style == "angle":
            p.expect("punct", "<")
            tok = p.expect("ident")
            p.expect("punct", ">")
        else:
            tok = p.expect("ident")
        if tok.text not in names:
            raise p.error(f"expected one of {', '.join(names)} for {a.name}, got {tok}", tok)
        return EnumValue(a.enum, tok.text)
    if k == "int":
        tok = p.expect("int")
        return tok.value
    if k == "bool":
        tok = p.expect("ident")
        if tok.text not in ("true", "false"):
            raise p.error(f"expected true or false for {a.name}, got {tok}", tok)
        return tok.text == "true"
    if k == "str":
        return p.expect("string").value
    if k == "symbol":
        return p.expect("symbol").value
    if k == "i32_array":
        return tuple(p.parse_int_list())
    if k == "bool_array":
        return tuple(p.parse_bool_list())
    if k == "array":
        return tuple(p.parse_scalar_attr_list())
    if k == "hints":
        return p.parse_hints()
    if k == "predicate":
        return p.parse_predicate()
    if k == "type":
        return p.parse_type()
    if k == "unit":
        return None
    raise p.error(f"cannot parse attribute kind {k}")
