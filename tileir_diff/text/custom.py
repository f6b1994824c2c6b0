"""Printers and parsers for the ops whose text no template describes (``syntax=None``):
the entry function header, ``for``, ``if``, ``loop``, ``global`` and the 13.5 multimem ops.

Printers return pieces (strings and region markers) like template printing does; parsers
fill a ``ParseState`` like template parsing does. Forms follow cuda-tile's C++ printers
(``ForOp::print``, ``LoopOp::print``, ``EntryOp::print``, the IfOp assembly format).
"""
from __future__ import annotations

from typing import List

from ..dialect.enums import ENUMS
from ..ir.attributes import EnumValue
from .template import ParseState, dense_text, escape_string, hints_text


# --- printing ------------------------------------------------------------------------------
def print_entry_header(f, pr) -> str:
    args = ", ".join(f"{pr.value(a)}: {pr.type(a.type)}" for a in f.arguments)
    s = f"entry @{f.name}({args})"
    if f.result_types:
        if len(f.result_types) == 1:
            s += " -> " + pr.type(f.result_types[0])
        else:
            s += " -> (" + ", ".join(pr.type(t) for t in f.result_types) + ")"
    if f.hints is not None and f.hints.by_arch:
        s += " optimization_hints=" + hints_text(f.hints)
    return s


def print_global(g, pr) -> str:
    # generated assembly format: ' ' visibility-or-nothing, ' constant', ' ' @name
    s = "global "
    if g.visibility not in (None, "public"):
        s += f"{g.visibility} "
    if g.constant:
        s += " constant"
    s += f" @{g.name}"
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
    """Best guess (no 13.5 sample yet): the load/store-view layout plus the reduction keyword."""
    a = op.attributes
    s = " " + a["memory_ordering_semantics"].name
    if "memory_scope" in a:
        s += " " + a["memory_scope"].name
    if "reduction" in a:
        s += " " + a["reduction"].name
    groups = {}
    pos = 0
    for i, o in enumerate(od.operands):
        k = op.segments[i]
        groups[o.name] = op.operands[pos:pos + k]
        pos += k
    view = groups["view"][0]
    if "tile" in groups:
        s += " " + pr.value(groups["tile"][0]) + ","
    s += f" {pr.value(view)}[" + ", ".join(pr.value(v) for v in groups["index"]) + "]"
    if groups.get("token"):
        s += " token = " + pr.value(groups["token"][0])
    inb = a.get("inbounds")
    if inb and any(inb):
        s += " inbounds = [" + ", ".join("true" if x else "false" for x in inb) + "]"
    s += " : "
    if "tile" in groups:
        s += pr.type(groups["tile"][0].type) + ", "
    s += pr.type(view.type)
    idx = groups["index"]
    if idx:
        ts = [v.type for v in idx]
        s += ", " + (pr.type(ts[0]) if all(t == ts[0] for t in ts) else ", ".join(pr.type(t) for t in ts))
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
    p.expect("punct", "(")
    names, inits = [], []
    if not p.peek().is_("punct", ")"):
        while True:
            names.append(p.expect("value"))
            p.expect("punct", "=")
            inits.append(p.parse_value_use())
            if not p.peek().is_("punct", ","):
                break
            p.next()
    p.expect("punct", ")")
    return names, inits


def _check(p, values, types):
    for v, t in zip(values, types):
        if v.type != t:
            p.type_mismatch(t, v.type)


def _parse_multimem(p, od, st):
    a = st.attrs
    tok = p.expect("ident")
    if tok.text not in ENUMS["MemoryOrderingSemantics"]:
        raise p.error(f"expected a memory ordering, got {tok}", tok)
    a["memory_ordering_semantics"] = EnumValue("MemoryOrderingSemantics", tok.text)
    if p.peek().kind == "ident" and p.peek().text in ENUMS["MemoryScope"]:
        a["memory_scope"] = EnumValue("MemoryScope", p.next().text)
    if any(x.name == "reduction" for x in od.attrs):
        tok = p.expect("ident")
        if tok.text not in ENUMS["MultimemReductionKind"]:
            raise p.error(f"expected a reduction kind, got {tok}", tok)
        a["reduction"] = EnumValue("MultimemReductionKind", tok.text)
    has_tile = "tile" in st.operands
    if has_tile:
        st.operands["tile"] = [p.parse_value_use()]
        p.expect("punct", ",")
    st.operands["view"] = [p.parse_value_use()]
    p.expect("punct", "[")
    idx = []
    if not p.peek().is_("punct", "]"):
        idx.append(p.parse_value_use())
        while p.peek().is_("punct", ","):
            p.next()
            idx.append(p.parse_value_use())
    p.expect("punct", "]")
    st.operands["index"] = idx
    if p.peek().is_("ident", "token"):
        p.next()
        p.expect("punct", "=")
        st.operands["token"] = [p.parse_value_use()]
    if p.peek().is_("ident", "inbounds"):
        p.next()
        p.expect("punct", "=")
        a["inbounds"] = tuple(p.parse_bool_list())
    else:
        a["inbounds"] = tuple(False for _ in idx)
    p.expect("punct", ":")
    if has_tile:
        _check(p, st.operands["tile"], [p.parse_type()])
        p.expect("punct", ",")
    _check(p, st.operands["view"], [p.parse_type()])
    if idx:
        p.expect("punct", ",")
        ts = [p.parse_type()]
        while len(ts) < len(idx) and p.peek().is_("punct", ","):
            p.next()
            ts.append(p.parse_type())
        _check(p, idx, ts * len(idx) if len(ts) == 1 else ts)
    p.expect("punct", "->")
    names = [r.name for r in od.results]
    for i, r in enumerate(names):
        if i:
            p.expect("punct", ",")
        st.result_types[r] = [p.parse_type()]
    return st


__all__ = ["print_entry_header", "print_global", "print_custom", "parse_custom", "escape_string"]
