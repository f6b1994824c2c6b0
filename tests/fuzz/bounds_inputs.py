"""Inputs for the bounded-work classes of issue 27, built from scratch (no corpus file needed).

Each builder is deterministic in its arguments (a ``random.Random`` where it varies), so the
sampled tests (``tests/fuzz/test_bounds.py``) and the long runs (``scripts/stress_bounds.py``)
draw from the same families:

* ``hash_lines``: text of many lines that start with ``#`` (the alias prescan);
* ``callsite_chain_text`` / ``callsite_chain_bytecode``: a location inlined through a chain of
  call sites, through text aliases or a crafted bytecode debug table (each entry refers to the
  one before, so nothing nests and the chain grows without recursion in the reader);
* ``identical_ops``: a kernel of N identical ops (the matcher's groups);
* ``analysis_json`` / ``launch_fact``: hostile analysis.json files and launch facts;
* ``control_names``: kernels whose function name and hint keys carry control characters.
"""
from __future__ import annotations

import random
from typing import List

from tileir_diff.bytecode.writer import _Writer, varint
from tileir_diff.text.parser import parse_text

#: Characters that must never reach an output raw: C0 (but tab and newline are already not in
#: names), DEL, C1, line/paragraph separators and the bidi controls.
CONTROL_CHARS = ([chr(c) for c in range(0x00, 0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
                 + ["\u2028", "\u2029", "\u200e", "\u200f"] + [chr(c) for c in range(0x202A, 0x202F)]
                 + [chr(c) for c in range(0x2066, 0x206A)] + ["\u061c"])


def hash_lines(n: int, rng: random.Random) -> str:
    """``n`` lines starting with ``#``: alias definitions, bare ``#``, broken definitions, mixed."""
    kinds = [lambda i: f'#a{i} = loc("f.py":{i + 1}:1)',
             lambda i: "#",
             lambda i: f"#a{i} = ",
             lambda i: f"#a{i} = loc(callsite(",
             lambda i: f"#a{i} = #a{max(i - 1, 0)}"]
    pick = rng.randrange(len(kinds) + 1)
    if pick < len(kinds):
        make = kinds[pick]
        return "\n".join(make(i) for i in range(n)) + "\n"
    return "\n".join(rng.choice(kinds)(i) for i in range(n)) + "\n"


def callsite_chain_text(depth: int) -> str:
    """An entry whose return is located through ``depth`` call sites, each an alias of the one
    before (defined after the use, as tileirdisasm prints them)."""
    lines = ["entry @k() {", f"  return loc(#l{depth})", "}", '#l0 = loc("f.py":1:1)']
    for i in range(1, depth + 1):
        lines.append(f'#l{i} = loc(callsite("f.py":{i + 1}:1 at #l{i - 1}))')
    return "\n".join(lines) + "\n"


class _ChainWriter(_Writer):
    """Our bytecode writer, with a debug section whose attributes form a call-site chain: one
    DILoc (tag 4) and then ``depth`` CallSite attributes (tag 6), each with the one before as its
    caller; op k of the function is located at chain element k (ids in increasing order, so that
    the decoder's cache lets the chain grow one element per op)."""

    def __init__(self, version, depth: int):
        super().__init__(version)
        self.depth = depth

    def _debug(self, dbg: List[List[int]]) -> bytes:
        file_index = self.string("f.py")
        attrs = [bytes([4]) + _varints(0, file_index, 1, 1)]
        for i in range(self.depth):
            attrs.append(bytes([6]) + _varints(1, i + 1))  # callee: the DILoc, caller: the one before
        ids = [[0] + [min(k + 2, self.depth + 1) for k in range(len(d) - 1)] for d in dbg]
        return super()._debug(ids, attrs)


def _varints(*xs: int) -> bytes:
    out = bytearray()
    for x in xs:
        varint(x, out)
    return bytes(out)


def callsite_chain_bytecode(depth: int) -> bytes:
    """Bytecode whose last op sits at the end of a ``depth``-long call-site chain (the strings
    table must exist before the debug section is written: the writer adds "f.py" to it first)."""
    ops = "\n".join(f"  %t{i} = make_token : token" for i in range(depth + 1))
    module = parse_text("entry @k() {\n" + ops + "\n  return\n}\n")
    w = _ChainWriter(module.version, depth)
    w.string("f.py")
    return w.write(module)


def identical_ops(n: int, op: str = "addi", *, kept: bool = False) -> str:
    """An entry with ``n`` identical ops on the same operands (one structural-key group of n).
    ``kept``: each result feeds an ``assert`` of its own (``n`` identical cmpi + assert pairs), so
    that nothing is dead code and every op reaches the matcher's graph."""
    if kept:
        body = "\n".join(f"  %c{i} = cmpi equal %arg0, %arg1, signed : tile<i32> -> tile<i1>\n"
                         f'  assert %c{i}, "x" : tile<i1>' for i in range(n))
    else:
        body = "\n".join(f"  %r{i} = {op} %arg0, %arg1 : tile<i32>" for i in range(n))
    return ("entry @k(%arg0: tile<i32>, %arg1: tile<i32>) {\n" + body + "\n  return\n}\n")


def control_names(rng: random.Random, count: int = 3):
    """A (left, right) pair of modules whose entry name and hint keys and string hint values carry
    ``count`` control characters each (ESC/OSC sequences, C1, bidi, line separators), with one
    real difference between them, so that every report has names, hints and a difference to
    show."""
    import dataclasses

    from tileir_diff.ir.attributes import DictAttr, IntegerAttr, OptimizationHints
    from tileir_diff.ir import types as T

    def noise() -> str:
        picks = [rng.choice(CONTROL_CHARS) for _ in range(count)]
        return "".join(picks) + rng.choice(["\x1b]8;;http://x\x07", "\x1b[31m", "\x9b2J", "\u202e", ""])

    name = "k" + noise() + "n"
    key = "hint" + noise()
    sval = "v" + noise()

    def make(c: int):
        m = parse_text("entry @k(%arg0: tile<i32>) {\n"
                       f"  %c = constant <i32: {c}> : tile<i32>\n"
                       "  %r = addi %arg0, %c : tile<i32>\n"
                       '  %t = print_tko "%d", %r : tile<i32> -> token\n'
                       "  return\n}\n")
        f = m.functions[0]
        hints = OptimizationHints((("sm_90", DictAttr(((key, IntegerAttr(c, T.ScalarType("i32"))),
                                                       ("s" + key, sval)))),))
        return dataclasses.replace(m, functions=(dataclasses.replace(f, name=name, hints=hints),))
    return make(1), make(2)
