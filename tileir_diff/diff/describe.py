"""Names and one-line texts of values and ops for difference messages.

Value names come from the text printer's namer (the names a user sees in the printed module)
when the printer is importable, else from a local scheme (``%arg3``, ``%blockId_x``,
``%addf@f0/o12``). Constants are described by their value.
"""
from __future__ import annotations

from typing import Dict, Optional

from ..dialect import OPS_BY_NAME
from ..ir import Function, Operation
from ..normalize.canon import attr_text, fmt_type
from ..normalize.util import op_ids, public_attributes


def _printer():
    try:
        from ..text import printer
        return printer
    except Exception:  # the printer is another stage; messages degrade to local names without it
        return None


class FunctionText:
    """Names and op lines of one ORIGINAL (unnormalized) function."""

    def __init__(self, function: Function, index: int):
        self.function = function
        self.index = index
        self.names: Dict[int, str] = {}
        self.ops: Dict[str, Operation] = dict(op_ids(function, index))
        self.producer: Dict[int, Operation] = {}
        printer = _printer()
        if printer is not None:
            try:
                self.names = dict(printer.Namer(function).ref)
            except Exception:
                self.names = {}
        for i, a in enumerate(function.arguments):
            self.names.setdefault(a.vid, f"%arg{i}")
        for oid, op in self.ops.items():
            d = OPS_BY_NAME.get(op.name)
            for k, r in enumerate(op.results):
                self.producer[r.vid] = op
                if r.vid in self.names:
                    continue
                if d is not None and k < len(d.result_names):
                    self.names[r.vid] = f"%{d.result_names[k]}@{oid}"
                else:
                    self.names[r.vid] = f"%{op.name}@{oid}" + (f"#{k}" if len(op.results) > 1 else "")
            for reg in op.regions:
                for b in reg.blocks:
                    names = d.region_arg_names if d is not None else ()
                    for i, a in enumerate(b.arguments):
                        if a.vid not in self.names:
                            base = names[min(i, len(names) - 1)] if names else "barg"
                            self.names[a.vid] = f"%{base}{i}@{oid}"

    def value(self, vid: int) -> str:
        """How to show a value in a message: constants by value, others by name."""
        op = self.producer.get(vid)
        if op is not None and op.name == "constant":
            return attr_text(op.attributes.get("value"))
        return self.names.get(vid, f"%v{vid}")

    def op_line(self, op: Operation) -> str:
        printer = _printer()
        if printer is not None:
            try:
                return printer.print_op(op, self.function).splitlines()[0].strip()
            except Exception:
                pass
        return fallback_op_line(op, self.names)


def fallback_op_line(op: Operation, names: Dict[int, str]) -> str:
    res = ", ".join(names.get(r.vid, f"%v{r.vid}") for r in op.results)
    operands = ", ".join(names.get(v.vid, f"%v{v.vid}") for v in op.operands)
    attrs = " ".join(f"{k}={attr_text(v)}" for k, v in public_attributes(op).items())
    types = ", ".join(fmt_type(r.type) for r in op.results)
    text = f"{res + ' = ' if res else ''}{op.name} {operands}{' ' + attrs if attrs else ''}"
    return text + (f" : {types}" if types else "")


def location_text(op: Optional[Operation]) -> Optional[str]:
    if op is None or op.location is None:
        return None
    return str(op.location)
