"""Names and one-line texts of values and ops for difference messages.

Value names come from the text printer's namer (the names a user sees in the printed module)
when the printer is importable, else from a local scheme (``%arg3``, ``%blockId_x``,
``%addf@f0/o12``). Constants are described by their value.
"""
from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional

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
    """Names and op lines of one ORIGINAL (unnormalized) function. Everything is computed on
    first use: a diff without differences never pays for naming."""

    def __init__(self, function: Function, index: int, module_lines=None):
        self.function = function
        self.index = index
        self._module_lines = module_lines  # callable -> {op id: printed line} for the whole module
        self._names: Optional[Dict[int, str]] = None
        self._ops: Optional[Dict[str, Operation]] = None
        self._producer: Optional[Dict[int, Operation]] = None
        self._namer = None
        #: whether the printer's namer named every value (then its tables are the names and
        #: the producers, and no walk of our own is needed)
        self._complete = False

    @property
    def ops(self) -> Dict[str, Operation]:
        if self._ops is None:
            self._ops = dict(op_ids(self.function, self.index))
        return self._ops

    def op(self, op_id: str) -> Optional[Operation]:
        """``self.ops.get(op_id)``, found by following the id's path (``f0/o12/r0/o3``: op 12 of
        the body, its region 0, op 3 there) instead of listing every op's id."""
        if self._ops is not None:
            return self._ops.get(op_id)
        parts = op_id.split("/")
        if parts[0] != f"f{self.index}" or len(parts) % 2:
            return None
        block = self.function.body
        op: Optional[Operation] = None
        for k in range(1, len(parts), 2):
            if op is not None:  # a region of the op found last
                j = _index(parts[k - 1], "r")
                if j is None or j >= len(op.regions):
                    return None
                blocks = op.regions[j].blocks
                if len(blocks) != 1:  # the blocks of a region share their ops' ids: the list decides
                    return self.ops.get(op_id)
                block = blocks[0]
            j = _index(parts[k], "o")
            if j is None or j >= len(block.operations):
                return None
            op = block.operations[j]
        return op

    @property
    def producer(self) -> Dict[int, Operation]:
        if self._producer is None:
            self._producer = {r.vid: op for op in self.ops.values() for r in op.results}
        return self._producer

    @property
    def names(self) -> Dict[int, str]:
        if self._names is not None:
            return self._names
        printer = _printer()
        if printer is not None:
            try:
                # numbered as far as the names asked for (the same names as printer.Namer's)
                self._namer = printer.OnDemandNamer(self.function)
            except Exception:
                self._namer = None
        if self._namer is not None and all(a.vid in self._namer.ref for a in self.function.arguments):
            # The namer names the body's arguments, every op's results and every block's
            # arguments: the local names below would add nothing. (Nothing writes to it after.)
            self._complete = True
            self._names = self._namer.ref
            return self._names
        names: Dict[int, str] = dict(self._namer.ref) if self._namer is not None else {}
        for i, a in enumerate(self.function.arguments):
            names.setdefault(a.vid, f"%arg{i}")
        for oid, op in self.ops.items():
            d = OPS_BY_NAME.get(op.name)
            for k, r in enumerate(op.results):
                if r.vid in names:
                    continue
                if d is not None and k < len(d.result_names):
                    names[r.vid] = f"%{d.result_names[k]}@{oid}"
                else:
                    names[r.vid] = f"%{op.name}@{oid}" + (f"#{k}" if len(op.results) > 1 else "")
            for reg in op.regions:
                for b in reg.blocks:
                    rnames = d.region_arg_names if d is not None else ()
                    for i, a in enumerate(b.arguments):
                        if a.vid not in names:
                            base = rnames[min(i, len(rnames) - 1)] if rnames else "barg"
                            names[a.vid] = f"%{base}{i}@{oid}"
        self._names = names
        return names

    def value(self, vid: int) -> str:
        """How to show a value in a message: constants by value, others by name."""
        names = self.names
        namer = self._namer
        if self._complete and namer is not None:  # its producer of a value (vids are unique in a function)
            hit = namer.producer.get(vid)
            op = hit[0] if hit is not None else None
        else:
            op = self.producer.get(vid)
        if op is not None and op.name == "constant":
            return attr_text(op.attributes.get("value"))
        return names.get(vid, f"%v{vid}")

    def op_line(self, op: Operation, op_id: Optional[str] = None) -> str:
        """The op as the printer prints it (first line), names from this function's namer."""
        names = self.names
        printer = _printer()
        if printer is not None and self._namer is not None:
            try:  # print_op would rebuild the namer for every call; reuse ours
                p = printer._Printer()
                p.namer = self._namer
                p.op(op, "", "o")
                if p.lines:
                    return p.lines[0][1].strip()
            except Exception:
                pass
        return fallback_op_line(op, names)


def _index(part: str, letter: str) -> Optional[int]:
    """The number of an id part (``o12`` -> 12) as ``op_ids`` writes it, else None."""
    digits = part[1:]
    if part[:1] != letter or not (digits.isascii() and digits.isdigit()) or (digits[0] == "0" and digits != "0"):
        return None
    return int(digits)


def fallback_op_line(op: Operation, names: Dict[int, str]) -> str:
    res = ", ".join(names.get(r.vid, f"%v{r.vid}") for r in op.results)
    operands = ", ".join(names.get(v.vid, f"%v{v.vid}") for v in op.operands)
    attrs = " ".join(f"{k}={attr_text(v)}" for k, v in public_attributes(op).items())
    types = ", ".join(fmt_type(r.type) for r in op.results)
    text = f"{res + ' = ' if res else ''}{op.name} {operands}{' ' + attrs if attrs else ''}"
    return text + (f" : {types}" if types else "")


def location_record(op: Optional[Operation]) -> Optional[Dict[str, Any]]:
    """The op's debug location for an agent: ``{"file", "line", "col", "scope", "inlined_at": [...]}``,
    ``file`` relative to the repository root where it is one of its files (tileir_diff.paths),
    ``inlined_at`` the call sites from the innermost out, each a ``{"file", "line", "col"}``;
    ``written`` keeps the file name as the bytecode has it when that differs."""
    if op is None or op.location is None:
        return None
    from ..paths import repo_relative
    root = _root()

    def one(loc) -> Dict[str, Any]:
        file = repo_relative(loc.file, root)
        rec: Dict[str, Any] = {"file": file, "line": loc.line, "col": loc.col}
        if file != loc.file:
            rec["written"] = loc.file
        return rec

    record = one(op.location)
    record["scope"] = op.location.scope
    chain: List[Dict[str, Any]] = []
    caller = op.location.caller
    while caller is not None and len(chain) < 64:  # the reader bounds nesting; so does this
        chain.append(one(caller))
        caller = caller.caller
    record["inlined_at"] = chain
    return record


def location_text(op: Optional[Operation]) -> Optional[str]:
    """``file:line:col (inlined at file:line:col (inlined at ...))``, files as in location_record."""
    record = location_record(op)
    if record is None:
        return None
    text = ""
    for site in reversed(record["inlined_at"]):
        text = f" (inlined at {site['file']}:{site['line']}:{site['col']}{text})"
    return f"{record['file']}:{record['line']}:{record['col']}{text}"


@functools.lru_cache(maxsize=1)
def _root():
    from ..paths import find_root
    return find_root()
