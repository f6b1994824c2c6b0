"""Fuzz harness for both readers and every consumer after them.

An input (bytes: bytecode or text) must either be refused by ``load`` with a
``TileIRFormatError`` carrying an offset, or be read into a module on which every consumer
works: the printer (and parsing its text back to the same module), the IR as JSON, the kernel
summary (JSON and text), the bytecode writer (and decoding its bytes back to the same module),
normalization + diff against itself (``identical``) and against the corpus file it was made
from, and every report format. Anything else is a crash.

Inputs come from the corpus (``tests/corpus/data`` and the cuTile Rust files) by three kinds of
mutation:

* ``bytes``: truncations, bit flips, byte substitutions, splices, insertions, deletions, long
  varints (what the decoder fuzzer does);
* ``text``: the printed module with characters or tokens substituted, lines deleted, duplicated
  or swapped, dimensions and result counts changed, and huge numbers put in;
* ``grammar``: the decoded module itself is changed (a result, argument or operand retyped from
  a pool of types, operands rewired, dropped or duplicated, results added or removed,
  attributes replaced by values of other kinds, constants retyped, regions emptied,
  dimensions made huge or zero) and then written as bytecode (our writer, the file's version)
  or printed as text, so that the input gets past the decoder and reaches the consumers.

Used by ``tests/fuzz/test_consumers.py`` (hypothesis, a bounded number of examples) and
``scripts/fuzz_consumers.py`` (long runs).
"""
from __future__ import annotations

import json
import random
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from tileir_diff import TileIRFormatError, load
from tileir_diff.bytecode.reader import read_bytecode
from tileir_diff.bytecode.writer import EncodeError, write_bytecode
from tileir_diff.ir import attributes as A
from tileir_diff.ir import types as T
from tileir_diff.ir.compare import module_mismatches
from tileir_diff.ir.core import Block, Function, Module, Operation, Region, Value
from tileir_diff.ir.to_json import module_to_json
from tileir_diff.text.parser import parse_text
from tileir_diff.text.printer import print_module, print_module_lines

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIRS = (ROOT / "tests" / "corpus" / "data", ROOT / "tests" / "corpus" / "rust",
               ROOT / "tests" / "corpus" / "v13_5")

KINDS = ("bytes", "text", "grammar")


def corpus_paths() -> List[Path]:
    out: List[Path] = []
    for d in CORPUS_DIRS:
        out += sorted(d.glob("*.tileirbc"))
    return out


class Corpus:
    """The corpus files as bytes, their decoded modules and printed text (made on first use)."""

    def __init__(self, paths: Optional[List[Path]] = None):
        self.paths = paths if paths is not None else corpus_paths()
        self.data = [p.read_bytes() for p in self.paths]
        self._modules: Dict[int, Module] = {}
        self._texts: Dict[int, str] = {}
        self._types: Optional[List[T.Type]] = None
        self._attrs: Optional[List[object]] = None

    def __len__(self) -> int:
        return len(self.paths)

    def module(self, i: int) -> Module:
        if i not in self._modules:
            self._modules[i] = read_bytecode(self.data[i], str(self.paths[i]))
        return self._modules[i]

    def text(self, i: int) -> str:
        if i not in self._texts:
            self._texts[i] = print_module(self.module(i))
        return self._texts[i]

    def type_pool(self, rng: random.Random) -> List[T.Type]:
        """Every distinct type of a sample of corpus modules."""
        if self._types is None:
            seen: Dict[T.Type, None] = {}
            for i in range(0, len(self), max(1, len(self) // 60)):
                for t in _module_types(self.module(i)):
                    seen.setdefault(t, None)
            self._types = list(seen)
        return self._types

    def attr_pool(self) -> List[object]:
        """Attribute values of every kind found in a sample of corpus modules, plus odd ones."""
        if self._attrs is None:
            seen: List[object] = []
            keys = set()
            for i in range(0, len(self), max(1, len(self) // 60)):
                for op in self.module(i).walk():
                    for v in op.attributes.values():
                        k = repr(v)[:200]
                        if k not in keys:
                            keys.add(k)
                            seen.append(v)
            i32 = T.ScalarType("i32")
            seen += [0, 1, -1, 1 << 40, -(1 << 62), True, False, "", "x\n\x1b[31m", (), (0,), (-1, 5),
                     (True,), (True, False, True), A.DivBy(16), A.DivBy(0), A.Bounded(None, None),
                     A.Bounded(5, 1), A.SameElements(()), A.SameElements((1, 2)), (A.DivBy(4),),
                     (A.Bounded(0, None),), A.IntegerAttr(3, i32), A.FloatAttr(0, T.ScalarType("f32")),
                     (A.IntegerAttr(1, T.ScalarType("i64")),), A.OptimizationHints(()),
                     A.OptimizationHints((("sm_90", A.DictAttr((("x", 1),))),)), A.DictAttr(()),
                     A.EnumValue("MemoryScope", "device"), A.EnumValue("RoundingMode", "approx"),
                     A.DenseElements(T.TileType((0,), i32), b"\0\0\0\0"),
                     A.DenseElements(T.TileType((4,), i32), b"\0\0\0\0"),
                     A.DenseElements(T.TileType((), T.ScalarType("f16")), b"\0\0"),
                     i32, T.TokenType(), T.TileType((2, 2), T.ScalarType("f32"))]
            self._attrs = seen
        return self._attrs


def _module_types(m: Module):
    for f in m.functions:
        for a in f.arguments:
            yield a.type
        for op in f.walk():
            for v in op.results:
                yield v.type
            for r in op.regions:
                for b in r.blocks:
                    for a in b.arguments:
                        yield a.type


# --- byte-level mutations ---------------------------------------------------------------------
def mutate_bytes(rng: random.Random, data: bytes, other: bytes) -> Tuple[str, bytes]:
    kind = rng.choice(("truncate", "flip", "byte", "splice", "insert", "delete", "varint", "bigvarint"))
    b = bytearray(data)
    if kind == "truncate":
        return kind, bytes(b[:rng.randrange(len(b))])
    if kind == "flip":
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == "byte":
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == "splice":
        return kind, bytes(b[:max(12, rng.randrange(len(b)))]) + other[rng.randrange(len(other)):]
    elif kind == "insert":
        i = rng.randrange(len(b))
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    elif kind == "delete":
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 8)]
    elif kind == "varint":
        i = rng.randrange(12, len(b))
        b[i:i + 1] = bytes([0xFF] * rng.randint(2, 9) + [0x7F])
    else:  # a varint of a plausible but large value in place of one byte
        i = rng.randrange(12, len(b))
        v = rng.choice((1 << 16, 1 << 20, 1 << 31, (1 << 63) - 1, 65536 * 65536))
        enc = bytearray()
        while v >= 0x80:
            enc.append((v & 0x7F) | 0x80)
            v >>= 7
        enc.append(v)
        b[i:i + 1] = enc
    return kind, bytes(b)


# --- text-level mutations ---------------------------------------------------------------------
_TOKEN = re.compile(r'%[\w$.#-]+|@"[^"\n]*"|@[\w$.-]+|"(?:[^"\\\n]|\\.)*"|0x[0-9A-Fa-f]+|-?\d+(?:\.\d+(?:[eE][+-]?\d+)?)?'
                    r'|[A-Za-z_][\w.$]*|->|\S')
_ODD_TOKENS = ("9" * 5000, "-" + "9" * 4400, "1.0e+999999", "1.5e-999999", "0.0e+2147483648",
               "1" + "0" * 400 + ".5", "18446744073709551616", "9223372036854775808", "-9223372036854775809",
               "4294967296", "65536", "0", "-1", "?", "\u0663", "\u00b2", "\uff11", "\u0661\u0662",
               "0x" + "F" * 300, '"\\0A\\1B[31m"', '"\u202e"', "%undefined", "@\"a\nb\"", "tile<0xf32>",
               "tile<65536x65536xf32>", "tile<18446744073709551616xf32>", "tile<1x-1xi32>",
               "tile<9223372036854775807xi8>", "tensor_view<?x?xf32, strides=[?,?]>", "token", "ptr<f32>",
               "i1", "f8E4M3FN", "bf16", "{", "}", "(", ")", "[", "]", "<", ">", ",", ":", "=", "->", "else",
               "if %arg0 {", "loc(", "#loc", "div_by<16>", "bounded<0, ?>", "same_elements<[1]>", "true", "false",
               "inbounds = [true]", "token = %0", "dim = 0", "identities = [0 : i32]")


def mutate_text(rng: random.Random, text: str, other: str) -> Tuple[str, str]:
    kind = rng.choice(("chars", "token", "token", "odd", "odd", "lines", "dims", "count", "splice"))
    if kind == "chars":
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(text) + 1)
            ins = rng.choice(["", "%", "#", "@", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", "=", "x", "?", "0",
                              "-1", '"', "\\", " ", "\n", "\r", "\t", "\x00", "\x1b", "é", "\u0663"])
            text = text[:pos] + ins + text[pos + rng.randint(0, 3):]
        return kind, text
    toks = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    if kind in ("token", "odd") and toks:
        for _ in range(rng.randint(1, 3)):
            a, b = rng.choice(toks)
            if kind == "odd":
                new = rng.choice(_ODD_TOKENS)
            else:
                c, d = rng.choice(toks)
                new = text[c:d]
            text = text[:a] + new + text[b:]
            toks = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
        return kind, text
    lines = text.split("\n")
    if kind == "lines" and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        op = rng.choice(("delete", "dup", "swap", "move"))
        if op == "delete":
            del lines[i]
        elif op == "dup":
            lines.insert(j, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(j, lines.pop(i))
        return kind, "\n".join(lines)
    if kind == "dims":
        spots = [m.span(1) for m in re.finditer(r"(?:tile<|\(|x)(\d+)(?=x|\)|\w)", text)]
        if spots:
            a, b = rng.choice(spots)
            new = str(rng.choice((0, 3, 1 << 16, 1 << 24, 1 << 31, 1 << 40, 1 << 63, 1 << 64, 10 ** 30)))
            return kind, text[:a] + new + text[b:]
    if kind == "count":
        spots = [m.end(1) for m in re.finditer(r"^\s*(%[\w$.-]+)(?::\d+)? =", text, re.M)]
        if spots:
            at = rng.choice(spots)
            n = rng.choice((2, 3, 1000, 300_000_000, 10 ** 20))
            end = at
            m = re.match(r":\d+", text[at:])
            if m:
                end = at + m.end()
            return kind, text[:at] + f":{n}" + text[end:]
    # splice two texts at line boundaries
    ol = other.split("\n")
    cut_a, cut_b = rng.randrange(len(lines) + 1), rng.randrange(len(ol) + 1)
    return "splice", "\n".join(lines[:cut_a] + ol[cut_b:])


# --- grammar-aware (IR-level) mutations -------------------------------------------------------
class _Rebuild:
    """Rebuilds a function bottom-up: ``fn(op, index)`` (index = the op's position in
    ``Function.walk()`` order, None drops it) and ``retype`` (vid -> new type, for definitions and
    uses alike)."""

    def __init__(self, fn, retype):
        self.fn = fn
        self.retype = retype
        self.index = 0

    def value(self, v: Value) -> Value:
        t = self.retype.get(v.vid)
        return v if t is None else Value(v.vid, t)

    def block(self, b: Block) -> Block:
        args = tuple(self.value(a) for a in b.arguments)
        ops = []
        for op in b.operations:
            new = self.op(op)
            if new is not None:
                ops.append(new)
        return Block(args, tuple(ops))

    def op(self, op: Operation) -> Optional[Operation]:
        index = self.index
        self.index += 1
        regions = tuple(Region(tuple(self.block(b) for b in r.blocks)) for r in op.regions)
        op = op.replace(operands=tuple(self.value(v) for v in op.operands),
                        results=tuple(self.value(v) for v in op.results), regions=regions)
        return self.fn(op, index)


def rebuild(m: Module, fn: Callable[[Operation, int], Optional[Operation]] = lambda op, i: op,
            retype: Optional[Dict[int, T.Type]] = None, func_index: Optional[int] = None) -> Module:
    """``m`` with ``fn`` applied to every op of function ``func_index`` (all when None) and the
    values in ``retype`` retyped."""
    funcs = []
    for i, f in enumerate(m.functions):
        if func_index is not None and i != func_index:
            funcs.append(f)
            continue
        body = _Rebuild(fn, retype or {}).block(f.body)
        funcs.append(Function(f.name, body.arguments, f.result_types, body, f.is_entry, f.hints, f.arg_attrs,
                              f.location))
    return Module(m.version, tuple(funcs), m.globals, m.name, m.producer, m.preview, m.source)


def _odd_types(rng: random.Random, t: T.Type) -> List[T.Type]:
    out: List[T.Type] = []
    elems = [T.ScalarType(n) for n in ("i1", "i8", "i32", "i64", "f16", "bf16", "f32", "f64", "f8E4M3FN", "i4")]
    if isinstance(t, T.TileType):
        s = list(t.shape)
        out.append(T.TileType(tuple(s[:-1]), t.element))
        out.append(T.TileType(tuple(s + [2]), t.element))
        out.append(T.TileType((), t.element))
        if s:
            for d in (0, 3, 1 << 16, 1 << 31, 1 << 40, (1 << 63) - 1):
                k = rng.randrange(len(s))
                out.append(T.TileType(tuple(s[:k] + [d] + s[k + 1:]), t.element))
        out.append(T.TileType((65536, 65536), t.element))
        out.append(T.TileType(t.shape, rng.choice(elems)))
        out.append(T.TileType(t.shape, T.PointerType(rng.choice(elems))))
        out.append(T.TileType(t.shape, T.TokenType()))
    if isinstance(t, T.TensorViewType):
        out.append(T.TensorViewType(t.element, t.shape + (None,), t.strides + (None,), t.ptr_attr))
        out.append(T.TensorViewType(t.element, t.shape[:-1], t.strides[:-1], t.ptr_attr))
        out.append(T.TensorViewType(t.element, t.shape, t.strides[:-1], t.ptr_attr))
        out.append(T.TensorViewType(t.element, tuple(0 if d is None else d for d in t.shape), t.strides, t.ptr_attr))
    if isinstance(t, T.VIEW_TYPES):
        tv = t.tensor_view
        if isinstance(t, T.PartitionViewType):
            out.append(T.PartitionViewType(t.tile_shape + (2,), tv, t.dim_map, t.padding))
            out.append(T.PartitionViewType(t.tile_shape, tv, tuple(reversed(t.dim_map)) + (7,), t.padding))
            out.append(T.PartitionViewType(tuple(d * 3 for d in t.tile_shape), tv, t.dim_map, t.padding))
            out.append(T.PartitionViewType((), tv, (), t.padding))
    out += [T.TokenType(), T.ScalarType("i32"), T.PointerType(T.ScalarType("f32")),
            T.TileType((), T.ScalarType("i1")), T.FunctionType((), ())]
    return out


def _all_values(f: Function) -> List[Value]:
    vals = list(f.arguments)
    for op in f.walk():
        for r in op.regions:
            for b in r.blocks:
                vals.extend(b.arguments)
        vals.extend(op.results)
    return vals


GRAMMAR_MUTATIONS = ("retype_result", "retype_arg", "rewire", "drop_operand", "dup_operand", "segments",
                     "add_result", "drop_result", "attr_kind", "attr_drop", "attr_add", "const_type",
                     "drop_region", "region_args", "drop_terminator", "drop_op", "dup_op", "hints", "huge_dims",
                     # well-typed changes: valid modules that differ from their original (the diff's work)
                     "enum_value", "swap_operands", "const_value", "rewire_same_type")


def mutate_module(rng: random.Random, m: Module, pool: List[T.Type], attrs: List[object]) -> Tuple[str, Module]:
    """One grammar-aware change to ``m`` (see GRAMMAR_MUTATIONS)."""
    if not m.functions:
        return "none", m
    fi = rng.randrange(len(m.functions))
    f = m.functions[fi]
    ops = list(f.walk())
    kind = rng.choice(GRAMMAR_MUTATIONS)
    if not ops:
        kind = "retype_arg"
    ti = rng.randrange(len(ops)) if ops else 0
    target = ops[ti] if ops else None

    def at_target(change, where=None):
        k = ti if where is None else where

        def fn(op, index):
            return change(op) if index == k else op
        return fn

    def pick_type(t):
        choices = _odd_types(rng, t)
        if rng.random() < 0.5 or not choices:
            return rng.choice(pool)
        return rng.choice(choices)

    if kind == "retype_result" and target.results:
        v = rng.choice(target.results)
        return kind, rebuild(m, retype={v.vid: pick_type(v.type)}, func_index=fi)
    if kind in ("retype_arg", "retype_result", "huge_dims"):
        vals = _all_values(f)
        if not vals:
            return "none", m
        v = rng.choice(vals)
        if kind == "huge_dims":
            t = v.type
            if isinstance(t, T.TileType) and t.shape:
                k = rng.randrange(len(t.shape))
                d = rng.choice((1 << 16, 1 << 24, 1 << 32, (1 << 62), (1 << 63) - 1))
                new = T.TileType(t.shape[:k] + (d,) + t.shape[k + 1:], t.element)
            else:
                new = T.TileType((65536, 65536), T.ScalarType("f32"))
            return kind, rebuild(m, retype={v.vid: new}, func_index=fi)
        return "retype_arg", rebuild(m, retype={v.vid: pick_type(v.type)}, func_index=fi)
    if kind == "rewire" and target.operands:
        vals = _all_values(f)
        k = rng.randrange(len(target.operands))
        new = rng.choice(vals)
        return kind, rebuild(m, at_target(lambda op: op.replace(
            operands=op.operands[:k] + (new,) + op.operands[k + 1:])), func_index=fi)
    if kind == "drop_operand" and target.operands:
        k = rng.randrange(len(target.operands))

        def drop(op):
            segs, pos = list(op.segments), 0
            for i, s in enumerate(segs):
                if pos <= k < pos + s:
                    segs[i] -= 1
                    break
                pos += s
            return op.replace(operands=op.operands[:k] + op.operands[k + 1:], segments=tuple(segs))
        return kind, rebuild(m, at_target(drop), func_index=fi)
    if kind == "dup_operand" and target.operands:
        k = rng.randrange(len(target.operands))

        def dup(op):
            segs, pos = list(op.segments), 0
            for i, s in enumerate(segs):
                if pos <= k < pos + s:
                    segs[i] += 1
                    break
                pos += s
            return op.replace(operands=op.operands[:k + 1] + op.operands[k:], segments=tuple(segs))
        return kind, rebuild(m, at_target(dup), func_index=fi)
    if kind == "segments" and target.segments:
        k = rng.randrange(len(target.segments))
        delta = rng.choice((-1, 1, 2))
        return kind, rebuild(m, at_target(lambda op: op.replace(
            segments=op.segments[:k] + (max(0, op.segments[k] + delta),) + op.segments[k + 1:])), func_index=fi)
    if kind == "add_result":
        t = rng.choice(pool)
        fresh = 1 + max([v.vid for v in _all_values(f)] or [0])
        return kind, rebuild(m, at_target(lambda op: op.replace(results=op.results + (Value(fresh, t),))),
                             func_index=fi)
    if kind == "drop_result" and target.results:
        k = rng.randrange(len(target.results))
        return kind, rebuild(m, at_target(lambda op: op.replace(results=op.results[:k] + op.results[k + 1:])),
                             func_index=fi)
    if kind == "attr_kind" and target.attributes:
        key = rng.choice(list(target.attributes))
        val = rng.choice(attrs)
        return kind, rebuild(m, at_target(lambda op: op.replace(attributes={**op.attributes, key: val})),
                             func_index=fi)
    if kind == "attr_drop" and target.attributes:
        key = rng.choice(list(target.attributes))
        return kind, rebuild(m, at_target(lambda op: op.replace(
            attributes={k: v for k, v in op.attributes.items() if k != key})), func_index=fi)
    if kind == "attr_add":
        from tileir_diff.dialect import op_def
        try:
            names = [a.name for a in op_def(target.name).attrs]
        except KeyError:
            names = []
        key = rng.choice(names + ["bogus"])
        val = rng.choice(attrs)
        return kind, rebuild(m, at_target(lambda op: op.replace(attributes={**op.attributes, key: val})),
                             func_index=fi)
    if kind == "const_type":
        consts = [op for op in ops if op.name == "constant"]
        if consts:
            target = rng.choice(consts)
            ti = ops.index(target)
            d = target.attributes.get("value")
            if isinstance(d, A.DenseElements):
                nt = pick_type(d.type)
                choice = rng.random()
                if choice < 0.4:
                    new_d = A.DenseElements(nt, d.data) if isinstance(nt, T.TileType) else d
                    res = target.results[0]
                    return kind, rebuild(m, at_target(lambda op: op.replace(attributes={"value": new_d})),
                                         retype={res.vid: nt}, func_index=fi)
                if choice < 0.7:
                    data = d.data[:rng.randrange(len(d.data) + 1)] + bytes(rng.randrange(3))
                    return kind, rebuild(m, at_target(lambda op: op.replace(
                        attributes={"value": A.DenseElements(d.type, data)})), func_index=fi)
                return kind, rebuild(m, at_target(lambda op: op.replace(
                    attributes={"value": A.DenseElements(nt, d.data)} if isinstance(nt, T.TileType) else {})),
                    func_index=fi)
    if kind == "drop_region" and target.regions:
        choice = rng.random()
        if choice < 0.3:
            regions = target.regions[:-1]
        elif choice < 0.6:
            regions = target.regions[:-1] + (Region(()),)
        else:
            regions = target.regions + target.regions[-1:]
        return kind, rebuild(m, at_target(lambda op: op.replace(regions=regions)), func_index=fi)
    if kind == "region_args":
        with_regions = [op for op in ops if op.regions and op.regions[0].blocks]
        if with_regions:
            target = rng.choice(with_regions)
            ti = ops.index(target)
            b = target.regions[0].blocks[0]
            fresh = 1 + max([v.vid for v in _all_values(f)] or [0])
            args = b.arguments[:-1] if b.arguments and rng.random() < 0.5 else b.arguments + (
                Value(fresh, rng.choice(pool)),)
            nb = Block(args, b.operations)
            return kind, rebuild(m, at_target(lambda op: op.replace(
                regions=(Region((nb,)),) + op.regions[1:])), func_index=fi)
    if kind == "drop_terminator":
        terms = [op for op in ops if op.name in ("yield", "continue", "break", "return")]
        if terms:
            target = rng.choice(terms)
            ti = ops.index(target)
            return kind, rebuild(m, at_target(lambda op: None), func_index=fi)
    if kind == "drop_op":
        return kind, rebuild(m, at_target(lambda op: None), func_index=fi)
    if kind == "dup_op" and not target.regions:
        # the copy's results get fresh ids, its uses stay on the original
        fresh = 1 + max([v.vid for v in _all_values(f)] or [0])
        copy = target.replace(results=tuple(Value(fresh + i, r.type) for i, r in enumerate(target.results)))

        def dup_op(op):
            return op
        body_ops = list(f.body.operations)
        if target in body_ops:
            k = body_ops.index(target)
            body_ops.insert(k + rng.choice((0, 1)), copy)
            nf = Function(f.name, f.arguments, f.result_types, Block(f.body.arguments, tuple(body_ops)), f.is_entry,
                          f.hints, f.arg_attrs, f.location)
            funcs = m.functions[:fi] + (nf,) + m.functions[fi + 1:]
            return kind, Module(m.version, funcs, m.globals, m.name, m.producer, m.preview, m.source)
    if kind == "hints":
        val = rng.choice([a for a in attrs if isinstance(a, (A.OptimizationHints, A.DictAttr))] or [None])
        nf = Function(f.name, f.arguments, f.result_types, f.body, f.is_entry,
                      val if isinstance(val, A.OptimizationHints) else A.OptimizationHints((("sm_90", val),)),
                      f.arg_attrs, f.location)
        return kind, Module(m.version, m.functions[:fi] + (nf,) + m.functions[fi + 1:], m.globals, m.name,
                            m.producer, m.preview, m.source)
    if kind == "enum_value":
        from tileir_diff.dialect.enums import ENUMS
        enums = [(i, k, v) for i, op in enumerate(ops) for k, v in op.attributes.items() if isinstance(v, A.EnumValue)]
        if enums:
            ti, key, v = rng.choice(enums)
            new = A.EnumValue(v.kind, rng.choice(ENUMS[v.kind]))
            return kind, rebuild(m, at_target(lambda op: op.replace(attributes={**op.attributes, key: new})),
                                 func_index=fi)
    if kind == "swap_operands":
        pairs = [(i, a, b) for i, op in enumerate(ops) for a in range(len(op.operands))
                 for b in range(a + 1, len(op.operands)) if op.operands[a].type == op.operands[b].type]
        if pairs:
            ti, a, b = rng.choice(pairs)

            def swap(op):
                vals = list(op.operands)
                vals[a], vals[b] = vals[b], vals[a]
                return op.replace(operands=tuple(vals))
            return kind, rebuild(m, at_target(swap), func_index=fi)
    if kind == "const_value":
        consts = [(i, op) for i, op in enumerate(ops) if op.name == "constant"
                  and isinstance(op.attributes.get("value"), A.DenseElements)]
        if consts:
            ti, op0 = rng.choice(consts)
            d = op0.attributes["value"]
            data = bytearray(d.data)
            if data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            return kind, rebuild(m, at_target(lambda op: op.replace(
                attributes={"value": A.DenseElements(d.type, bytes(data))})), func_index=fi)
    if kind == "rewire_same_type" and target.operands:
        k = rng.randrange(len(target.operands))
        same = [v for v in _all_values(f)[:_position(f, target)] if v.type == target.operands[k].type]
        if same:
            new = rng.choice(same)
            return kind, rebuild(m, at_target(lambda op: op.replace(
                operands=op.operands[:k] + (new,) + op.operands[k + 1:])), func_index=fi)
    return "none", m


def _position(f: Function, op: Operation) -> int:
    """How many values of ``_all_values(f)`` are defined before ``op`` (a rough dominance cut:
    values of regions that closed before it are included; the verifier or the writer sorts them)."""
    n = len(f.arguments)
    for o in f.walk():
        if o is op:
            return n
        for r in o.regions:
            for b in r.blocks:
                n += len(b.arguments)
        n += len(o.results)
    return n


# --- making one input -------------------------------------------------------------------------
@dataclass
class Case:
    kind: str  # bytes / text / grammar
    mutation: str
    source: int  # corpus index the input was made from
    data: bytes
    form: str  # "bytecode" or "text"


def make_case(corpus: Corpus, rng: random.Random, kind: Optional[str] = None) -> Case:
    kind = kind or rng.choice(KINDS)
    i = rng.randrange(len(corpus))
    j = rng.randrange(len(corpus))
    if kind == "bytes":
        mut, data = mutate_bytes(rng, corpus.data[i], corpus.data[j])
        return Case(kind, mut, i, data, "bytecode")
    if kind == "text":
        mut, text = mutate_text(rng, corpus.text(i), corpus.text(j))
        return Case(kind, mut, i, text.encode("utf-8", "surrogatepass"), "text")
    m = corpus.module(i)
    mut = "none"
    for _ in range(rng.randint(1, 2)):
        step, m = mutate_module(rng, m, corpus.type_pool(rng), corpus.attr_pool())
        mut = step if mut == "none" else f"{mut}+{step}"
    as_text = rng.random() < 0.35
    try:
        if as_text:
            data = print_module(m).encode("utf-8")
        else:
            data = write_bytecode(m, m.version)
    except Exception:  # not expressible in that form: send the other form, or the bytes unchanged
        try:
            data = write_bytecode(m, m.version) if as_text else print_module(m).encode("utf-8")
            as_text = not as_text
        except Exception:
            data = corpus.data[i]
            as_text = False
            mut += "(unwritable)"
    return Case(kind, mut, i, data, "text" if as_text else "bytecode")


# --- running the consumers --------------------------------------------------------------------
@dataclass
class Outcome:
    status: str  # "rejected", "accepted", "crash", "mismatch"
    stage: str = ""  # the consumer that crashed / mismatched
    error: str = ""
    seconds: float = 0.0
    trace: str = ""
    stages: List[str] = field(default_factory=list)
    worst: float = 0.0  # CPU seconds of the slowest single step (loading, or one consumer)
    worst_stage: str = ""


def _render_all(result) -> None:
    from tileir_diff.report import FORMATS, render
    for fmt in FORMATS:
        out = render(result, fmt)
        assert isinstance(out, str) and out


def consumers(m: Module, ref: Optional[Module]) -> List[Tuple[str, Callable[[], object]]]:
    """(name, thunk) for every consumer of a module that was read."""
    def printer():
        text = print_module(m)
        print_module_lines(m)
        again = parse_text(text, path="<printed>", version=m.version)
        bad = module_mismatches(m, again)
        if bad:
            raise Mismatch("print -> parse changed the module: " + "; ".join(bad[:3]))

    def to_json():
        json.dumps(module_to_json(m))

    def summary():
        from tileir_diff.report.summary_text import render_kernel
        from tileir_diff.summary import summarize
        s = summarize(m)
        json.dumps(s, ensure_ascii=False)
        render_kernel(s)

    def writer():
        try:
            data = write_bytecode(m, m.version)
        except EncodeError as e:
            # Text carries no version (13.4 is assumed): 13.5 fields cannot be written at 13.4.
            if "needs bytecode" in str(e):
                return
            raise
        again = read_bytecode(data, "<written>")
        bad = module_mismatches(m, again)
        if bad:
            raise Mismatch("write -> read changed the module: " + "; ".join(bad[:3]))

    def diff_self():
        from tileir_diff.api import diff
        r = diff(m, m)
        if r.verdict != "identical":
            raise Mismatch(f"a module diffed with itself is {r.verdict}")
        _render_all(r)

    def diff_ref():
        from tileir_diff.api import diff
        if ref is None:
            return
        r = diff(ref, m)
        from tileir_diff.compare.result import VERDICTS
        if r.verdict not in VERDICTS:
            raise Mismatch(f"verdict {r.verdict!r}")
        _render_all(r)
        json.loads(r.to_json())

    return [("print", printer), ("json", to_json), ("summary", summary), ("write", writer),
            ("diff-self", diff_self), ("diff-ref", diff_ref)]


class Mismatch(AssertionError):
    """A consumer ran but gave a wrong answer (a round trip that changed the module)."""


def run_case(data: bytes, path: str, ref: Optional[Module], stages: Optional[Tuple[str, ...]] = None) -> Outcome:
    """Load ``data`` and run every consumer (or ``stages``). Step times are CPU seconds
    (``time.process_time``), so that a busy machine does not make a case look slow."""
    t0 = time.perf_counter()
    c0 = time.process_time()

    def out(status, stage="", error="", trace="", done=(), worst=0.0, worst_stage=""):
        return Outcome(status, stage, error, time.perf_counter() - t0, trace, list(done), worst, worst_stage)

    try:
        m = load(data, path=path)
    except TileIRFormatError as e:
        dt = time.process_time() - c0
        if e.offset is None:
            return out("crash", "load", f"TileIRFormatError without an offset: {e}", worst=dt, worst_stage="load")
        if any(c in str(e) for c in "\n\r\x1b\x00"):
            return out("crash", "load", f"error message not one clean line: {str(e)!r}", worst=dt, worst_stage="load")
        return out("rejected", "load", str(e), worst=dt, worst_stage="load")
    except Exception as e:  # noqa: BLE001 - the property under test
        dt = time.process_time() - c0
        return out("crash", "load", f"{type(e).__name__}: {e}"[:500], traceback.format_exc(), worst=dt,
                   worst_stage="load")
    worst, worst_stage = time.process_time() - c0, "load"
    done: List[str] = []
    for name, thunk in consumers(m, ref):
        if stages is not None and name not in stages:
            continue
        t1 = time.process_time()
        try:
            thunk()
        except Mismatch as e:
            return out("mismatch", name, str(e)[:500], traceback.format_exc(), done, worst, worst_stage)
        except Exception as e:  # noqa: BLE001
            return out("crash", name, f"{type(e).__name__}: {e}"[:500], traceback.format_exc(), done, worst,
                       worst_stage)
        dt = time.process_time() - t1
        if dt > worst:
            worst, worst_stage = dt, name
        done.append(name)
    return out("accepted", "", "", "", done, worst, worst_stage)


def unmutated_step_seconds(corpus: Corpus, case: Case, stage: str) -> float:
    """CPU seconds ``stage`` takes now on the file ``case`` was made from, in the same form: the
    reference a slow-looking step is judged against, measured under the same load."""
    if case.form == "bytecode":
        data, suffix = corpus.data[case.source], ".tileirbc"
    else:
        data, suffix = corpus.text(case.source).encode(), ".tileir"
    out = run_case(data, f"fuzz{suffix}", corpus.module(case.source), () if stage == "load" else (stage,))
    return out.worst


def within_step_budget(seconds: float, reference: Callable[[], float], floor: float, ratio: float) -> bool:
    """A step is slow only when it is over ``floor`` CPU seconds and also over ``ratio`` times the
    same step on the unmutated input, measured just then (``reference`` runs only when the floor is
    crossed). CPU time still grows on a loaded machine (shared caches, a sibling hyperthread): the
    comparison with a reference measured under the same load is what tells a blow-up from a busy CI."""
    return seconds < floor or seconds < ratio * reference()


def run(corpus: Corpus, case: Case, stages: Optional[Tuple[str, ...]] = None) -> Outcome:
    suffix = ".tileirbc" if case.form == "bytecode" else ".tileir"
    return run_case(case.data, f"fuzz{suffix}", corpus.module(case.source), stages)
