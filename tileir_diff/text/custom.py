"""Printers and parsers for the ops whose text no template describes (``syntax=None``):
the entry function header, ``for``, ``if``, ``loop``, ``global`` and the 13.5 multimem ops.

Printers return pieces (strings and region markers) like template printing does; parsers
fill a ``ParseState`` like template parsing does. Forms follow cuda-tile's C++ printers
(``ForOp::print``, ``LoopOp::print``, ``EntryOp::print``, the IfOp assembly format).
"""
from __future__ import annotations

import re
from typing import List

from ..dialect.enums import ENUMS
from ..ir import types as T
from ..ir.attributes import (Bounded, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr, OptimizationHints,
                             SameElements)
from .floatfmt import format_float
from .spelling import symbol_text
from .template import (ParseState, dense_text, escape_string, hints_text, int_text, predicate_text)

#: The multimem reduction kind an op has when its text names none (the ODS default).
MULTIMEM_DEFAULT_REDUCTION = "add"


# --- printing ------------------------------------------------------------------------------
def print_entry_header(f, pr) -> str:
    arg_attrs = f.arg_attrs or ()
    args = ", ".join(f"{pr.value(a)}: {pr.type(a.type)}" + _arg_attr_text(arg_attrs, i, pr)
                     for i, a in enumerate(f.arguments))
    s = f"entry {symbol_text(f.name)}({args})"
    if f.result_types:
        if len(f.result_types) == 1:
            s += " -> " + pr.type(f.result_types[0])
        else:
            s += " -> (" + ", ".join(pr.type(t) for t in f.result_types) + ")"
    if f.hints is not None and f.hints.by_arch:
        s += " optimization_hints=" + hints_text(f.hints)
    return s


def _arg_attr_text(arg_attrs, index: int, pr) -> str:
    """`` {cuda_tile.x = 1 : i32}`` after an entry argument (13.5 arg_attrs); empty dictionaries
    print nothing."""
    if index >= len(arg_attrs) or not arg_attrs[index].items:
        return ""
    return " " + generic_attr_text(arg_attrs[index], pr)


_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def generic_attr_text(v, pr, in_array: bool = False) -> str:
    """An attribute in MLIR's generic form, as tileirdisasm prints entry argument attributes:
    ``1 : i32``, ``true``, ``"s"``, ``[1, 2.5]`` (array elements drop ``: i64`` / ``: f64``),
    ``{a = 1 : i64}`` (sorted keys), a type, ``#cuda_tile.div_by<16>``, ..."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, IntegerAttr):
        s = int_text(v.value, v.type)
        if isinstance(v.type, T.ScalarType) and (v.type.name == "i1" or (in_array and v.type.name == "i64")):
            return s
        return f"{s} : {pr.type(v.type)}"
    if isinstance(v, FloatAttr):
        s, hexed = format_float(v.bits, v.type.name)
        if in_array and v.type.name == "f64" and not hexed:
            return s
        return f"{s} : {pr.type(v.type)}"
    if isinstance(v, str):
        return escape_string(v)
    if isinstance(v, tuple):
        return "[" + ", ".join(generic_attr_text(x, pr, True) for x in v) + "]"
    if isinstance(v, DictAttr):
        items = sorted(v.items, key=lambda kv: kv[0])
        return "{" + ", ".join(f"{k if _BARE_KEY.match(k) else escape_string(k)} = {generic_attr_text(x, pr)}"
                               for k, x in items) + "}"
    if isinstance(v, (DivBy, Bounded, SameElements)):
        return "#cuda_tile." + predicate_text(v)
    if isinstance(v, OptimizationHints):
        return "#cuda_tile.optimization_hints" + hints_text(v)
    if isinstance(v, T.Type):
        return pr.type(v)
    raise TypeError(f"cannot print attribute {v!r}")


def print_global(g, pr) -> str:
    # generated assembly format: ' ' visibility-or-nothing, ' constant', ' ' @name
    s = "global "
    if g.visibility not in (None, "public"):
        s += f"{g.visibility} "
    if g.constant:
        s += " constant"
    s += f" {symbol_text(g.name)}"
    if g.alignment:
        s += f" alignment = {g.alignment}"
    v = g.value
    return s + f" <{v.element}: {dense_text(v)}> : {pr.type(v.type)}"


def print_custom(op, od, pr) -> List:
    from .printer import RegionPiece
    n = op.name
    if n == "for":
        lb, ub, step = op.operands[:3]
        inits = op.operands[3:]
        block = op.regions[0].blocks[0]
        iv = block.arguments[0]
        s = " unsigned" if op.attributes.get("unsignedCmp") else ""
        s += f" {pr.value(iv)} in ({pr.value(lb)} to {pr.value(ub)}, step {pr.value(step)}) : {pr.type(iv.type)} "
        if inits:
            pairs = ", ".join(f"{pr.value(a)} = {pr.value(v)}" for a, v in zip(block.arguments[1:], inits))
            s += f"iter_values({pairs}) -> (" + ", ".join(pr.type(v.type) for v in inits) + ") "
        return [s, RegionPiece(op.regions[0], implicit="continue")]
    if n == "loop":
        inits = op.operands
        block = op.regions[0].blocks[0]
        s = " "
        if inits:
            pairs = ", ".join(f"{pr.value(a)} = {pr.value(v)}" for a, v in zip(block.arguments, inits))
            s += f"iter_values({pairs}) "
        if inits or op.results:
            s += ": "
        if inits:
            s += ", ".join(pr.type(v.type) for v in inits) + " "
            if op.results:
                s += "-> "
        if op.results:
            s += ", ".join(pr.type(r.type) for r in op.results) + " "
        return [s, RegionPiece(op.regions[0], implicit="continue")]
    if n == "if":
        s = " " + pr.value(op.operands[0])
        if op.results:
            s += " -> (" + ", ".join(pr.type(r.type) for r in op.results) + ")"
        out = [s + " ", RegionPiece(op.regions[0], implicit="yield")]
        if len(op.regions) > 1 and op.regions[1].blocks:
            out += [" else ", RegionPiece(op.regions[1], implicit="yield")]
        return out
    if n.startswith("multimem_"):
        return [_print_multimem(op, od, pr)]
    raise ValueError(f"no printer for op {n!r}")


def _print_multimem(op, od, pr) -> str:
    """As tileirdisasm 13.5.37 prints them (checked on every ordering/scope/token/inbounds/
    reduction combination the verifier accepts):

    ``multimem_load_reduce_view_tko relaxed device %view[%i, %j] token = %t  : VIEW, tile<i32>, token -> TILE, token``
    ``multimem_reduce_view_tko relaxed device %view, %tile[%i, %j] inbounds = [true, false] attributes
    {reduction = #cuda_tile.multimem_reduction_kind<min>} : VIEW, TILE, tile<i32> -> token``

    The index list follows the tile (reduce/store); ``inbounds`` is printed only when some flag is
    true, else an empty slot leaves two spaces; the reduction kind is not in the assembly format,
    so it appears in the attribute dictionary, and only when it is not ``add``.
    """
    a = op.attributes
    groups = {}
    pos = 0
    for i, o in enumerate(od.operands):
        k = op.segments[i]
        groups[o.name] = op.operands[pos:pos + k]
        pos += k
    s = " " + a["memory_ordering_semantics"].name
    if "memory_scope" in a:
        s += " " + a["memory_scope"].name
    view = groups["view"][0]
    s += " " + pr.value(view)
    if "tile" in groups:
        s += ", " + pr.value(groups["tile"][0])
    idx = groups["index"]
    s += "[" + ", ".join(pr.value(v) for v in idx) + "]"
    token = groups.get("token")
    if token:
        s += " token = " + pr.value(token[0])
    inb = a.get("inbounds")
    s += " "
    if inb and any(inb):
        s += "inbounds = [" + ", ".join("true" if x else "false" for x in inb) + "]"
    red = a.get("reduction")
    if red is not None and red.name != MULTIMEM_DEFAULT_REDUCTION:
        s += f" attributes {{reduction = #cuda_tile.multimem_reduction_kind<{red.name}>}}"
    types = [pr.type(view.type)]
    if "tile" in groups:
        types.append(pr.type(groups["tile"][0].type))
    if idx:
        ts = [v.type for v in idx]
        types.append(pr.type(ts[0]) if all(t == ts[0] for t in ts) else ", ".join(pr.type(t) for t in ts))
    if token:
        types.append(pr.type(token[0].type))
    s += " : " + ", ".join(types)
    s += " -> " + ", ".join(pr.type(r.type) for r in op.results)
    return s


# --- parsing -------------------------------------------------------------------------------
def parse_custom(p, od, result_counts) -> ParseState:
    st = ParseState(od, result_counts)
    n = od.name
    nres = sum(result_counts.values())
    if n == "for":
        if p.peek().is_("ident", "unsigned"):
            p.next()
            st.attrs["unsignedCmp"] = True
        iv_tok = p.expect("value")
        p.expect("ident", "in")
        p.expect("punct", "(")
        lb = p.parse_value_use()
        p.expect("ident", "to")
        ub = p.parse_value_use()
        p.expect("punct", ",")
        p.expect("ident", "step")
        step = p.parse_value_use()
        p.expect("punct", ")")
        p.expect("punct", ":")
        iv_type = p.parse_type()
        for v in (lb, ub, step):
            if v.type != iv_type:
                p.type_mismatch(iv_type, v.type)
        arg_names, inits = [], []
        types = []
        if p.peek().is_("ident", "iter_values"):
            arg_names, inits = _iter_values(p)
            p.expect("punct", "->")
            p.expect("punct", "(")
            types = p.parse_type_list(len(inits))
            p.expect("punct", ")")
            _check(p, inits, types)
        if len(inits) != nres:
            raise p.error(f"for: {nres} results named, {len(inits)} iter_values")
        st.operands.update(lowerBound=[lb], upperBound=[ub], step=[step], initValues=inits)
        st.result_types["results"] = types
        st.regions.append(p.parse_region([iv_tok] + arg_names, [iv_type] + types, implicit="continue"))
        return st
    if n == "loop":
        arg_names, inits = [], []
        if p.peek().is_("ident", "iter_values"):
            arg_names, inits = _iter_values(p)
        rtypes = []
        if p.peek().is_("punct", ":"):
            p.next()
            if inits:
                _check(p, inits, p.parse_type_list(len(inits)))
                if p.peek().is_("punct", "->"):
                    p.next()
                    rtypes = p.parse_type_list(nres)
            else:
                rtypes = p.parse_type_list(nres)
        if len(rtypes) != nres:
            raise p.error(f"loop: {nres} results named, {len(rtypes)} result types")
        st.operands["initValues"] = inits
        st.result_types["results"] = rtypes
        st.regions.append(p.parse_region(arg_names, [v.type for v in inits], implicit="continue"))
        return st
    if n == "if":
        cond = p.parse_value_use()
        st.operands["condition"] = [cond]
        rtypes = []
        if p.peek().is_("punct", "->"):
            p.next()
            p.expect("punct", "(")
            rtypes = p.parse_type_list(nres)
            p.expect("punct", ")")
        if len(rtypes) != nres:
            raise p.error(f"if: {nres} results named, {len(rtypes)} result types")
        st.result_types["results"] = rtypes
        st.regions.append(p.parse_region([], [], implicit="yield"))
        if p.peek().is_("ident", "else"):
            p.next()
            st.regions.append(p.parse_region([], [], implicit="yield"))
        else:
            from ..ir.core import Region
            st.regions.append(Region(()))
        return st
    if n.startswith("multimem_"):
        return _parse_multimem(p, od, st)
    raise p.error(f"no parser for op {n!r}")


def _iter_values(p):
    p.expect("ident", "iter_values")

    def binding():
        name = p.expect("value")
        p.expect("punct", "=")
        return name, p.parse_value_use()
    pairs = p.delimited(binding, "(", ")")
    return [n for n, _ in pairs], [v for _, v in pairs]


def _check(p, values, types):
    for v, t in zip(values, types):
        if v.type != t:
            p.type_mismatch(t, v.type)


def _parse_multimem(p, od, st):
    """The inverse of ``_print_multimem``; an absent ``inbounds`` is all false (one flag per
    index, as the bytes carry it) and an absent reduction kind is ``add``."""
    a = st.attrs
    tok = p.expect("ident")
    if tok.text not in ENUMS["MemoryOrderingSemantics"]:
        raise p.error(f"expected a memory ordering, got {tok}", tok)
    a["memory_ordering_semantics"] = EnumValue("MemoryOrderingSemantics", tok.text)
    if p.peek().kind == "ident" and p.peek().text in ENUMS["MemoryScope"]:
        a["memory_scope"] = EnumValue("MemoryScope", p.next().text)
    elif not any(x.name == "memory_scope" and x.optional for x in od.attrs):
        raise p.error(f"{od.name}: expected a memory scope, got {p.peek()}", p.peek())
    has_tile = any(o.name == "tile" for o in od.operands)
    st.operands["view"] = [p.parse_value_use()]
    if has_tile:
        p.expect("punct", ",")
        st.operands["tile"] = [p.parse_value_use()]
    p.expect("punct", "[")
    idx = []
    if not p.peek().is_("punct", "]"):
        idx.append(p.parse_value_use())
        while p.peek().is_("punct", ","):
            p.next()
            idx.append(p.parse_value_use())
    p.expect("punct", "]")
    st.operands["index"] = idx
    st.operands["token"] = []
    if p.peek().is_("ident", "token"):
        p.next()
        p.expect("punct", "=")
        st.operands["token"] = [p.parse_value_use()]
    if p.peek().is_("ident", "inbounds"):
        p.next()
        p.expect("punct", "=")
        at = p.peek()
        a["inbounds"] = tuple(p.parse_bool_list())
        if len(a["inbounds"]) != len(idx):
            raise p.error(f"{od.name}: {len(a['inbounds'])} inbounds flags for {len(idx)} indices", at)
    else:
        a["inbounds"] = tuple(False for _ in idx)
    has_reduction = any(x.name == "reduction" for x in od.attrs)
    if has_reduction:
        a["reduction"] = EnumValue("MultimemReductionKind", MULTIMEM_DEFAULT_REDUCTION)
    if p.peek().is_("ident", "attributes"):
        p.next()
        p.expect("punct", "{")
        key = p.expect("ident")
        if not has_reduction or key.text != "reduction":
            raise p.error(f"{od.name}: unexpected attribute {key.text!r}", key)
        p.expect("punct", "=")
        kind = _multimem_reduction_kind(p)
        a["reduction"] = EnumValue("MultimemReductionKind", kind)
        p.expect("punct", "}")
    p.expect("punct", ":")
    _check(p, st.operands["view"], [p.parse_type()])
    if has_tile:
        p.expect("punct", ",")
        _check(p, st.operands["tile"], [p.parse_type()])
    if idx:
        p.expect("punct", ",")
        ts = [p.parse_type()]
        # one type for all indices when they agree, else one per index
        while len(ts) < len(idx) and p.peek().is_("punct", ",") and not (
                st.operands["token"] and len(ts) == 1 and _next_is_token_type(p)):
            p.next()
            ts.append(p.parse_type())
        _check(p, idx, ts * len(idx) if len(ts) == 1 else ts)
    if st.operands["token"]:
        p.expect("punct", ",")
        _check(p, st.operands["token"], [p.parse_type()])
    p.expect("punct", "->")
    for i, r in enumerate(od.results):
        if i:
            p.expect("punct", ",")
        st.result_types[r.name] = [p.parse_type()]
    return st


def _multimem_reduction_kind(p) -> str:
    """``#cuda_tile.multimem_reduction_kind<min>`` -> ``min``."""
    t = p.next()
    if not t.is_("hash", "#cuda_tile.multimem_reduction_kind"):
        raise p.error(f"expected #cuda_tile.multimem_reduction_kind<...>, got {t}", t)
    p.expect("punct", "<")
    tok = p.expect("ident")
    if tok.text not in ENUMS["MultimemReductionKind"]:
        raise p.error(f"expected a multimem reduction kind, got {tok}", tok)
    p.expect("punct", ">")
    return tok.text


def _next_is_token_type(p) -> bool:
    """After one index type: is the rest ``, token ->`` (the token operand's type)?"""
    return p.peek(1).is_("ident", "token") and p.peek(2).is_("punct", "->")


__all__ = ["print_entry_header", "print_global", "print_custom", "parse_custom", "escape_string"]
