"""Hand-made inputs for each class of issue 13, built from corpus files.

Each builder returns bytes: bytecode written by our writer from a corpus module changed in one
place, or text. They use only what the code before the fix had too (loader, writer, printer,
IR classes), so that the tests in test_issue13.py fail there for the right reason.
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Callable, Dict

from tileir_diff import load
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.ir import attributes as A
from tileir_diff.ir import types as T
from tileir_diff.ir.core import Block, Function, Module, Operation, Region, Value

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "corpus" / "data"

ABS_NEG = DATA / "int_abs_neg.v13_4.tileirbc"      # make_tensor_view, views, loads, stores, tokens
MMA = DATA / "batched_mma.v13_4.tileirbc"          # mmaf
REDUCE = DATA / "argmax_argmin.v13_4.tileirbc"      # reduce with identities
CONST = DATA / "advanced_indexing.v13_4.tileirbc"  # constants
IF = DATA / "early_return.v13_4.tileirbc"          # if without results


def _change(path: Path, pick: Callable[[Operation], bool], change: Callable[[Operation], Operation],
            retype: Dict[int, T.Type] = None) -> Module:
    """The module at ``path`` with ``change`` applied to the first op ``pick`` accepts (and the
    values in ``retype`` given new types, definitions and uses alike)."""
    m = load(path)
    retype = retype or {}
    done = []

    def val(v: Value) -> Value:
        return Value(v.vid, retype[v.vid]) if v.vid in retype else v

    def block(b: Block) -> Block:
        return Block(tuple(val(a) for a in b.arguments), tuple(op(o) for o in b.operations))

    def op(o: Operation) -> Operation:
        o = o.replace(operands=tuple(val(v) for v in o.operands), results=tuple(val(v) for v in o.results),
                      regions=tuple(Region(tuple(block(b) for b in r.blocks)) for r in o.regions))
        if not done and pick(o):
            done.append(o)
            return change(o)
        return o

    f = m.functions[0]
    body = block(f.body)
    assert done, f"no op to change in {path.name}"
    f = Function(f.name, body.arguments, f.result_types, body, f.is_entry, f.hints, f.arg_attrs, f.location)
    return Module(m.version, (f,) + m.functions[1:], m.globals, m.name, m.producer, m.preview, m.source)


def _first(name: str) -> Callable[[Operation], bool]:
    return lambda op: op.name == name


def _bytes(m: Module) -> bytes:
    return write_bytecode(m, m.version)


# --- class 1: well-formed files of ill-typed ops ---------------------------------------------------
def wrong_result_kind() -> bytes:
    """make_tensor_view whose result is a tile, not a tensor_view (the printer needed its strides)."""
    m = load(ABS_NEG)
    view = next(op for op in m.walk() if op.name == "make_tensor_view").results[0]
    return _bytes(_change(ABS_NEG, _first("make_tensor_view"), lambda op: op,
                          {view.vid: T.TileType((), T.ScalarType("i32"))}))


def few_dynamic_operands() -> bytes:
    """make_tensor_view of tensor_view<?xi32, strides=[?]> given one dynamic operand, not two."""
    return _bytes(_change(ABS_NEG, _first("make_tensor_view"),
                          lambda op: op.replace(operands=op.operands[:2], segments=(1, 1, 0))))


def array_holds_predicate() -> bytes:
    """reduce whose identities array holds an assume predicate."""
    return _bytes(_change(REDUCE, _first("reduce"), lambda op: op.replace(
        attributes={**op.attributes, "identities": tuple(A.DivBy(16) for _ in op.operands)})))


def zero_element_constant() -> bytes:
    """constant of type tile<0xi32> holding one element."""
    m = load(CONST)
    c = next(op for op in m.walk() if op.name == "constant" and op.results[0].type.element == T.ScalarType("i32"))
    zero = T.TileType((0,), T.ScalarType("i32"))
    return _bytes(_change(CONST, lambda op: op.name == "constant" and op.results[0].vid == c.results[0].vid,
                          lambda op: op.replace(attributes={"value": A.DenseElements(zero, b"\1\0\0\0")}),
                          {c.results[0].vid: zero}))


def mma_rank1() -> bytes:
    """mmaf of 1-d tiles (constants), a kernel of its own."""
    f16, f32 = T.ScalarType("f16"), T.ScalarType("f32")
    a_t, c_t = T.TileType((32,), f16), T.TileType((32,), f32)
    one16, zero32 = struct.pack("<e", 1.0), struct.pack("<f", 0.0)
    a = Operation("constant", (), (), (Value(0, a_t),), {"value": A.DenseElements(a_t, one16)})
    b = Operation("constant", (), (), (Value(1, a_t),), {"value": A.DenseElements(a_t, one16)})
    c = Operation("constant", (), (), (Value(2, c_t),), {"value": A.DenseElements(c_t, zero32)})
    mma = Operation("mmaf", (Value(0, a_t), Value(1, a_t), Value(2, c_t)), (1, 1, 1), (Value(3, c_t),), {})
    ret = Operation("return", (), (0,), (), {})
    fn = Function("mma1d", (), (), Block((), (a, b, c, mma, ret)))
    return write_bytecode(Module((13, 4), (fn,)), (13, 4))


def token_result_is_tile() -> bytes:
    """load_view_tko whose token result is a tile (a tracked memory op without a token)."""
    m = load(ABS_NEG)
    load_op = next(op for op in m.walk() if op.name == "load_view_tko")
    return _bytes(_change(ABS_NEG, _first("load_view_tko"), lambda op: op,
                          {load_op.results[1].vid: T.TileType((), T.ScalarType("i32"))}))


def empty_inbounds() -> bytes:
    """load_view_tko with one index and an empty inbounds list (found by the long fuzz run: the
    printer prints none, the parser then reads one false per index, and print -> parse changed
    the module; NVIDIA's verifier refuses it)."""
    return _bytes(_change(ABS_NEG, _first("load_view_tko"),
                          lambda op: op.replace(attributes={**op.attributes, "inbounds": ()})))


CLASS1 = {"wrong result kind": (wrong_result_kind, "make_tensor_view", "result must be tensor_view"),
          "fewer dynamic operands than ?": (few_dynamic_operands, "make_tensor_view", "dynamic"),
          "array holds an assume predicate": (array_holds_predicate, "reduce", "identity"),
          "zero-element tile with one element": (zero_element_constant, "constant", "tile<0xi32>: dimensions must be positive powers of two"),
          "mma operands of rank 1": (mma_rank1, "mmaf", "2-d or 3-d"),
          "memory op without a token result": (token_result_is_tile, "load_view_tko", "result_token must be token"),
          "inbounds list of the wrong length": (empty_inbounds, "load_view_tko", "0 inbounds flags for 1 indices")}


# --- class 2: declared sizes -----------------------------------------------------------------------
def huge_splat_bytecode() -> bytes:
    """A small file whose splat constant declares 65536x65536 f32 (16 GiB if expanded)."""
    i32 = T.TileType((), T.ScalarType("i32"))
    big = T.TileType((65536, 65536), T.ScalarType("f32"))
    c = Operation("constant", (), (), (Value(0, big),), {"value": A.DenseElements(big, struct.pack("<f", 1.0))})
    ret = Operation("return", (), (0,), (), {})
    del i32
    return write_bytecode(Module((13, 4), (Function("k", (), (), Block((), (c, ret))),)), (13, 4))


HUGE_SPLAT_TEXT = b"entry @k() {\n  %c = constant <f32: 1.0> : tile<65536x65536xf32>\n  return\n}\n"
_PV = b"partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>"
HUGE_RESULT_COUNT_TEXT = (b"entry @k(%p: tile<ptr<f32>>) {\n"
                          b"  %t = make_tensor_view %p, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>\n"
                          b"  %v = make_partition_view %t : " + _PV + b"\n"
                          b"  %r:300000000 = get_index_space_shape %v : " + _PV + b" -> tile<i32>\n  return\n}\n")


# --- class 3: numbers and nesting in text ------------------------------------------------------------
HUGE_EXPONENT_TEXT = b"entry @k() {\n  %c = constant <f32: 1.0e+999999> : tile<f32>\n  return\n}\n"
LONG_INTEGER_TEXT = b"entry @k() {\n  %c = constant <i32: " + b"9" * 5000 + b"> : tile<i32>\n  return\n}\n"
NON_ASCII_DIGIT_TEXT = "entry @k() {\n  %c = constant <f32: 1.0> : tile<\u0663xf32>\n  return\n}\n".encode()
HUGE_DIM_TEXT = (b"entry @k(%a: tile<ptr<f32>>) {\n  %t = make_tensor_view %a, shape = [18446744073709551616], "
                 b"strides = [1] : tensor_view<18446744073709551616xf32, strides=[1]>\n  return\n}\n")


def nested_ifs_text(levels: int) -> bytes:
    lines = ["entry @k(%c: tile<i1>) {"]
    lines += ["  " * (i + 1) + "if %c {" for i in range(levels)]
    lines += ["  " * (i + 1) + "}" for i in reversed(range(levels))]
    return ("\n".join(lines) + "\n  return\n}\n").encode()


IF_WITHOUT_ELSE_TEXT = b"entry @k(%arg0: tile<i1>) {\n  if %arg0 {\n    return\n  }\n  return\n}\n"


# --- class 6: strings from the file ------------------------------------------------------------------
def renamed(path: Path, name: str) -> Module:
    m = load(path)
    f = m.functions[0]
    f = Function(name, f.arguments, f.result_types, f.body, f.is_entry, f.hints, f.arg_attrs, f.location)
    return Module(m.version, (f,), m.globals, m.name, m.producer, m.preview, m.source)


EVIL_NAME = "k\n\x1b[31mDIFFERENT\x1b[0m\r\r<img src=x onerror=alert(1)>"
