"""Integer expressions of a proof's cones, for messages in values (issue 11 class 5).

A root the proof step refuted says what each side computes, as an expression over entry arguments
(``L%arg2``, ``R%arg9``: a side prefix, never a bare name shared by both sides), block ids and
constants: ``cdiv(L%arg16, 128)`` vs ``(R%arg2 + 128 - 1) / 128``. Divisions are written by their
rounding (``/`` truncates, ``cdiv`` rounds up, ``floordiv`` down), ``%`` is the truncating
remainder; ``assume`` is transparent (its fact is reported on its own). Only words: the proof
itself is the checker's (check/smt.py).
"""
from __future__ import annotations

import re
from typing import Callable, Dict, Optional

from ..dialect import OPS_BY_NAME
from ..ir.attributes import DenseElements, IntegerAttr
from ..check.smt_common import index_space_extent
from ..normalize.canon import attr_text
from ..normalize.util import enum_name

#: the widest expression a message shows; deeper operands are named by their value
MAX_DEPTH = 5
_INFIX = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>"}
_CMP = {"equal": "==", "not_equal": "!=", "less_than": "<", "less_than_or_equal": "<=", "greater_than": ">",
        "greater_than_or_equal": ">="}


def _attr(op, enum_kind: str):
    d = OPS_BY_NAME.get(op.name)
    for a in d.attrs if d else ():
        if a.kind == "enum" and a.enum == enum_kind:
            return enum_name(op.attributes.get(a.name, a.default))
    return None


def _constant(op) -> Optional[str]:
    v = op.attributes.get("value")
    if isinstance(v, IntegerAttr):
        return str(v.value)
    if isinstance(v, DenseElements) and (v.is_splat or v.type.num_elements == 1):
        el = getattr(op.results[0].type, "element", None)
        width = getattr(el, "width", None)
        if getattr(el, "is_int", False) and width:
            bits = v.first_bits()
            return str(bits - (1 << width) if width > 1 and bits >> (width - 1) else bits)
        m = re.match(r"<\w+: ([^>]*)>", attr_text(v))  # <f32: 1.4426950216293335>
        return m.group(1) if m else None
    return None


def expression(index, vid: int, side: str, name_of: Callable[[int], str], depth: int = 0) -> str:
    """The expression of value ``vid`` in a checker index (``producer``, ``ops``, ``arg_index``)."""
    nid, res = index.producer.get(vid, (None, 0))
    if nid in index.arg_index:
        return f"{side}%arg{index.arg_index[nid]}"
    op = index.ops.get(nid)
    if op is None:
        return f"{side}{name_of(vid)}"
    sem = OPS_BY_NAME[op.name].semantics if op.name in OPS_BY_NAME else None

    def sub(k: int) -> str:
        return expression(index, op.operands[k].vid, side, name_of, depth + 1)

    written = _atom(op, sem, res, sub)
    if written is not None:
        return written
    if _named_by_value(op, sem, depth):
        return f"{side}{name_of(vid)}"
    if sem is None or sem == "float.div":  # exp2, ftof, divf: named with their operands
        return _call(op, sub)
    if sem == "index_space":
        found = index_space_extent(index, op, res)
        if found is None:
            return f"{side}{name_of(vid)}"
        x, tile = found
        extent = str(x) if isinstance(x, int) else expression(index, x.vid, side, name_of, depth + 1)
        return f"cdiv({extent}, {tile})"
    return _integer(op, sem, depth, sub)


def _atom(op, sem: Optional[str], res: int, sub: Callable[[int], str]) -> Optional[str]:
    """The words of a value that is a leaf of the expression or stands for its operand: a
    constant, a one-element splat and an ``assume`` (its fact is reported on its own) are their
    operand, block ids and grid sizes their axis; None for any other op (and a constant whose
    value has no short form)."""
    if sem == "constant" or op.name == "constant":
        c = _constant(op)
        if c is not None:
            return c
    if sem == "splat" and op.operands and getattr(op.operands[0].type, "num_elements", 0) == 1:
        return sub(0)
    if sem == "assume":
        return sub(0)
    if sem == "block_id":
        return f"bid.{'xyz'[res]}"
    if sem == "num_blocks":
        return f"grid.{'xyz'[res]}"
    return None


def _named_by_value(op, sem: Optional[str], depth: int) -> bool:
    """Whether a value is shown by its name rather than expanded: a load (named by its value, as
    before memory reads had semantics), anything past ``MAX_DEPTH``, and an op without semantics
    that is not one pure result of its operands (no operands, several results, regions)."""
    if sem == "memory.read" or depth >= MAX_DEPTH:
        return True
    return sem is None and (not op.operands or len(op.results) != 1 or bool(op.regions)
                            or "pure" not in OPS_BY_NAME[op.name].traits)


def _call(op, sub: Callable[[int], str]) -> str:
    """``name(operand, ...)``: an op written as a function of its operands."""
    return f"{op.name}({', '.join(sub(k) for k in range(len(op.operands)))})"


def _integer(op, sem: str, depth: int, sub: Callable[[int], str]) -> str:
    """An integer (or comparison, select) op by its semantics' operation (``int.add`` -> ``+``):
    infix operators parenthesized below the top, divisions by their rounding; any other as a
    call."""
    _, _, what = sem.partition(".")

    def infix(symbol: str) -> str:
        text = f"{sub(0)} {symbol} {sub(1)}"
        return f"({text})" if depth else text

    if sem == "select":
        return f"select({sub(0)}, {sub(1)}, {sub(2)})"
    if what in _INFIX:
        return infix(_INFIX[what])
    if what == "div":
        rounding = _attr(op, "RoundingMode") or "zero"
        if rounding == "positive_inf":
            return f"cdiv({sub(0)}, {sub(1)})"
        if rounding == "negative_inf":
            return f"floordiv({sub(0)}, {sub(1)})"
        return infix("/")
    if what == "rem":
        return infix("%")
    if what in ("min", "max"):
        return f"{what}({sub(0)}, {sub(1)})"
    if what == "cmp":
        return infix(_CMP.get(_attr(op, "ComparisonPredicate"), "?"))
    if what in ("neg", "abs"):
        return f"-{sub(0)}" if what == "neg" else f"abs({sub(0)})"
    if what in ("ext", "trunc"):
        return sub(0)
    return _call(op, sub)


class GraphIndex:
    """A function graph (graph/build.py) read as the index ``expression`` walks: the classifier's
    node ids are the checker's (the op ids of the input), so both word a value alike."""

    def __init__(self, g):
        self.ops, self.producer, self.arg_index = {}, {}, {}
        for n in g.node_list:
            if n.kind == "op":
                self.ops[n.nid] = n.op
                for i, r in enumerate(n.op.results):
                    self.producer[r.vid] = (n.nid, i)
            else:
                self.producer[n.value.vid] = (n.nid, 0)
                if n.kind == "arg":
                    self.arg_index[n.nid] = n.arg_index


def counterexample_text(cex: Dict[str, object], right_argument: Callable[[int], Optional[int]]) -> str:
    """The solver's model in values: ``L%arg16 = R%arg2 = 2147483584, bid.x = 3: left 16777216,
    right -16777215`` (the model names entry arguments by their left index)."""
    parts = []
    for k, v in cex.items():
        if k in ("left", "right"):
            continue
        if k.startswith("arg") and k[3:].isdigit():
            r = right_argument(int(k[3:]))
            k = f"L%{k}" + (f" = R%arg{r}" if r is not None else "")
        parts.append(f"{k} = {v}")
    values = f"left {cex.get('left')}, right {cex.get('right')}"
    return f"{', '.join(parts)}: {values}" if parts else f"some input: {values}"
