"""Indexing a function for summaries: op ids, value definitions and symbolic value names.

Op ids follow the printer's stable paths ``f<i>/o<j>[/r<k>/o<j>...]`` so summaries, differences
and the printed modules of a report all point at the same ops.
"""
from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Optional, Tuple

from ..dialect.ops import op_def
from ..dialect import traits
from ..ir import Function, Operation, TileType, Value
from .format import dense_text, shape_text
from ..record import record

# Binary ops rendered infix in index expressions (what a reader writes in the kernel source).
INFIX = {"addi": "+", "addf": "+", "subi": "-", "subf": "-", "muli": "*", "mulf": "*",
         "divi": "/", "divf": "/", "remi": "%", "remf": "%", "shli": "<<", "shri": ">>",
         "andi": "&", "ori": "|", "xori": "^"}
# Ops that do not change what an index means: shown as their operand.
TRANSPARENT = {"assume", "exti", "trunci", "bitcast", "reshape", "broadcast"}
COMPARE = {"equal": "==", "not_equal": "!=", "less_than": "<", "less_than_or_equal": "<=",
           "greater_than": ">", "greater_than_or_equal": ">="}
MAX_EXPR_DEPTH = 5
# op sets from the op table's traits (dialect/traits.py)
_COMPARES, _SHAPE_QUERIES = traits.ops_with(traits.COMPARE), traits.ops_with(traits.SHAPE_QUERY)
_VIEW_MAKERS, _LOOPS = traits.ops_with(traits.MAKES_VIEW), traits.ops_with(traits.LOOP)
_COMBINERS, _GRID_QUERIES = traits.ops_with(traits.COMBINER), traits.ops_with(traits.GRID_QUERY)


def operand_named(op: Operation, name: str) -> Tuple[Value, ...]:
    """The operands of ``op`` in the group the op table calls ``name``.

    Uses ``op.segments`` when they cover every group; otherwise (ops whose wire form has one
    total count) singles take one operand each and the one variadic group takes the rest.
    """
    try:
        d = op_def(op.name)
        index = d.operand_index(name)
    except KeyError:
        return ()
    groups = d.operands
    if op.segments and len(op.segments) == len(groups):
        return op.operand_group(index)
    sizes = [1 if g.arity == "single" else 0 for g in groups]
    rest = len(op.operands) - sum(sizes)
    variadic = [i for i, g in enumerate(groups) if g.arity == "variadic"]
    if variadic and rest > 0:
        sizes[variadic[0]] += rest
    start = sum(sizes[:index])
    return tuple(op.operands[start:start + sizes[index]])


@record(frozen=False, slots=True)  # one per value of the kernel: slots make them cheaper to build
class Definition:
    """Where a value comes from: an op result, a function argument or a region argument."""
    kind: str  # "arg", "result", "region_arg"
    op: Optional[Operation] = None
    op_id: Optional[str] = None
    index: int = 0


@record(frozen=False)
class FunctionIndex:
    function: Function
    function_index: int
    ops: List[Tuple[str, Operation, int]] = field(default_factory=list)  # (op id, op, loop depth)
    #: vid -> its Definition, or for an op's result the tuple (op, op id, result index) that
    #: ``definition`` makes one of (a record per value cost more than the rest of the walk)
    defs: Dict[int, Any] = field(default_factory=dict)
    op_ids: Dict[int, str] = field(default_factory=dict)  # id(op) -> op id
    names: Dict[int, str] = field(default_factory=dict)  # vid -> fixed symbolic name
    loop_ordinal: Dict[int, int] = field(default_factory=dict)  # id(loop op) -> 0, 1, ...

    def op_id(self, op: Operation) -> str:
        return self.op_ids[id(op)]

    def definition(self, v: Value) -> Optional[Definition]:
        d = self.defs.get(v.vid)
        if type(d) is tuple:
            op, op_id, index = d
            return Definition("result", op, op_id, index)
        return d

    def producer(self, v: Value) -> Optional[Operation]:
        d = self.defs.get(v.vid)
        if type(d) is tuple:
            return d[0]
        return d.op if d and d.kind == "result" else None

    def strip_transparent(self, v: Value) -> Value:
        """Follow ``assume`` (an identity on values) back to the value it constrains."""
        seen = 0
        while seen < 64:
            op = self.producer(v)
            if op is None or op.name != "assume" or not op.operands:
                return v
            v = op.operands[0]
            seen += 1
        return v

    # -- symbolic rendering -----------------------------------------------------------------
    def expr(self, v: Value, depth: int = 0) -> str:
        """``bid.x``, ``loopIdx``, ``arg3``, ``(bid.x + 1)``, ``2``: what a value means."""
        if v.vid in self.names:
            return self.names[v.vid]
        d = self.definition(v)
        if d is None:
            return f"%v{v.vid}"
        if d.kind != "result":
            return f"{d.op_id}.arg{d.index}" if d.op_id else f"%v{v.vid}"
        op = d.op
        if depth >= MAX_EXPR_DEPTH:
            return "…"
        if op.name == "constant":
            value = op.attributes.get("value")
            if value is not None and hasattr(value, "to_numpy"):
                text = dense_text(value)
                # "<i32: 1>" -> "1": a scalar constant reads best as its value.
                if text.count(":") == 1 and "[" not in text:
                    return text.split(": ", 1)[1].rstrip(">")
                return text
            return "const"
        if op.name in TRANSPARENT and op.operands:
            return self.expr(op.operands[0], depth)  # see-through: costs no depth
        if op.name in INFIX and len(op.operands) == 2:
            a, b = (self.expr(x, depth + 1) for x in op.operands)
            return f"({a} {INFIX[op.name]} {b})"
        if op.name in _COMPARES and len(op.operands) == 2:
            pred = op.attributes.get("comparison_predicate")
            sym = COMPARE.get(getattr(pred, "name", None), getattr(pred, "name", "?"))
            a, b = (self.expr(x, depth + 1) for x in op.operands)
            return f"({a} {sym} {b})"
        if op.name == "iota":
            return f"iota({shape_text(op.results[0].type) if isinstance(op.results[0].type, TileType) else ''})"
        if op.name in ("negi", "negf") and op.operands:
            return f"-{self.expr(op.operands[0], depth + 1)}"
        if op.name in _SHAPE_QUERIES and op.operands:
            what = "index_space" if op.name == "get_index_space_shape" else "shape"
            return f"{what}({self.view_label(op.operands[0])})[{d.index}]"
        if op.name in ("maxi", "mini", "maxf", "minf") and len(op.operands) == 2:
            a, b = (self.expr(x, depth + 1) for x in op.operands)
            return f"{op.name[:3]}({a}, {b})"
        args = ", ".join(self.expr(x, depth + 1) for x in op.operands[:3])
        more = ", …" if len(op.operands) > 3 else ""
        suffix = f"#{d.index}" if len(op.results) > 1 else ""
        return f"{op.name}({args}{more}){suffix}"

    def view_label(self, v: Value) -> str:
        """Name a view by the kernel argument its memory comes from (``arg0``)."""
        v = self.strip_transparent(v)
        for _ in range(16):
            op = self.producer(v)
            if op is None:
                return self.expr(v)
            if op.name in _VIEW_MAKERS:
                v = self.strip_transparent(op.operands[0])
                continue
            if op.name == "make_tensor_view":
                base = operand_named(op, "base")
                return self.expr(self.strip_transparent(base[0])) if base else self.op_id(op)
            return self.expr(v)
        return self.expr(v)

    def pointer_base(self, v: Value) -> str:
        """The argument a pointer tile derives from (through offset/broadcast/casts)."""
        for _ in range(32):
            v = self.strip_transparent(v)
            op = self.producer(v)
            if op is None:
                break
            if op.name in ("offset", "broadcast", "reshape", "ptr_to_ptr", "permute", "int_to_ptr",
                           "select") and op.operands:
                v = op.operands[0] if op.name != "select" else op.operands[1]
                continue
            break
        return self.expr(v)


def index_function(fn: Function, function_index: int) -> FunctionIndex:
    idx = FunctionIndex(fn, function_index)
    for i, a in enumerate(fn.arguments):
        idx.defs[a.vid] = Definition("arg", index=i)
        idx.names[a.vid] = f"arg{i}"
    prefix = f"f{function_index}"
    _index_block(idx, fn.body.operations, prefix, 0)
    return idx


def _index_block(idx: FunctionIndex, ops, prefix: str, depth: int) -> None:
    defs, op_list, op_ids = idx.defs, idx.ops, idx.op_ids
    for j, op in enumerate(ops):
        op_id = f"{prefix}/o{j}"
        op_list.append((op_id, op, depth))
        op_ids[id(op)] = op_id
        results = op.results
        if len(results) == 1:  # (most ops: no loop)
            defs[results[0].vid] = (op, op_id, 0)  # a Definition("result", ...) when asked (FunctionIndex.definition)
        else:
            for k, r in enumerate(results):
                defs[r.vid] = (op, op_id, k)
        if op.name in _NAMED_RESULT_OPS:
            _name_results(idx, op)
        if not op.regions:
            continue
        is_loop = op.name in _LOOPS
        if is_loop:
            idx.loop_ordinal[id(op)] = len(idx.loop_ordinal)
        for r_i, region in enumerate(op.regions):
            for b_i, block in enumerate(region.blocks):
                # Regions hold one block in Tile IR; extra blocks get a /b<n> step so ids stay unique.
                rp = f"{op_id}/r{r_i}" + (f"/b{b_i}" if b_i else "")
                for a_i, a in enumerate(block.arguments):
                    idx.defs[a.vid] = Definition("region_arg", op, op_id, a_i)
                    _name_region_arg(idx, op, a, a_i)
                _index_block(idx, block.operations, rp, depth + (1 if is_loop else 0))


_NAMED_RESULT_OPS = _GRID_QUERIES


def _name_results(idx: FunctionIndex, op: Operation) -> None:
    if op.name == "get_tile_block_id":
        for r, axis in zip(op.results, "xyz"):
            idx.names[r.vid] = f"bid.{axis}"
    elif op.name == "get_num_tile_blocks":
        for r, axis in zip(op.results, "xyz"):
            idx.names[r.vid] = f"num_blocks.{axis}"


def _name_region_arg(idx: FunctionIndex, op: Operation, a: Value, a_i: int) -> None:
    if op.name == "for":
        n = idx.loop_ordinal.get(id(op), 0)
        suffix = str(n) if n else ""
        idx.names[a.vid] = f"loopIdx{suffix}" if a_i == 0 else f"iter{suffix}_{a_i - 1}"
    elif op.name == "loop":
        n = idx.loop_ordinal.get(id(op), 0)
        idx.names[a.vid] = f"iter{n or ''}_{a_i}"
    elif op.name in _COMBINERS:
        half = max(1, len(op.operands))
        side = "lhs" if a_i < half else "rhs"
        idx.names[a.vid] = f"{side}{a_i % half if half > 1 else ''}"


