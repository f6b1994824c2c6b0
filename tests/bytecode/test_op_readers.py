"""The compiled op readers (bytecode/op_readers.py) read what ``read_op`` reads: every corpus
kernel to the same module, every damaged kernel to the same error (message and offset) or the
same module; and the shipped shapes (op_reader_shapes.py) are what the generator writes now."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from tileir_diff import TileIRFormatError
from tileir_diff.bytecode import op_readers, reader
from tileir_diff.bytecode.op_reader_shapes import SHAPES
from tileir_diff.bytecode.reader import read_bytecode
from tileir_diff.ir.compare import module_mismatches

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "corpus" / "data").glob("*.tileirbc")) + sorted((ROOT / "corpus" / "rust").glob("*.tileirbc"))


@pytest.fixture
def interpreted(monkeypatch):
    """A function that decodes with read_op alone (no compiled reader is made or used)."""
    def read(data: bytes, verify: bool = True):
        with monkeypatch.context() as m:
            m.setattr(reader, "_PLANS", {})
            m.setattr(reader, "_READERS", {})
            m.setattr(reader, "compile_reader", lambda plan, markers: None)
            return read_bytecode(data, "k.tileirbc", verify=verify)
    return read


def _outcome(read, data: bytes, verify: bool = True):
    try:
        return read(data, verify)
    except TileIRFormatError as e:
        return (str(e), e.offset)


def test_shipped_shapes_are_what_the_generator_writes():
    text = op_readers.generate_shapes(op_readers.table_plans())
    shipped = Path(op_readers.__file__).with_name("op_reader_shapes.py").read_text()
    assert text == shipped, "run: python3 scripts/gen_op_readers.py"
    assert len(SHAPES) == text.count("\ndef _read")


def test_every_op_of_the_table_has_a_shipped_shape():
    for plan, markers in op_readers.table_plans():
        assert op_readers.shape_of(plan, markers) in SHAPES, plan.od.name


def test_an_unshipped_shape_is_compiled(monkeypatch):
    monkeypatch.setattr(op_readers, "_CODE", {})
    monkeypatch.setattr(op_readers, "_shipped", lambda: {})
    plan, markers = op_readers.table_plans()[0]
    fn = op_readers.compile_reader(plan, markers)
    assert fn.__code__.co_filename == "<op reader>"


def test_corpus_kernels_read_as_read_op_reads_them(interpreted):
    assert len(FILES) > 100
    for path in FILES:
        data = path.read_bytes()
        compiled = _outcome(lambda d, v: read_bytecode(d, "k.tileirbc", verify=v), data)
        plain = _outcome(interpreted, data)
        if isinstance(plain, tuple):
            assert compiled == plain, path.name
        else:
            assert module_mismatches(plain, compiled) == [], path.name


def test_damaged_kernels_fail_as_read_op_fails(interpreted):
    """Bytes of the Func section changed (a random byte, an index past the values, a long
    varint) or the file cut: the same error at the same offset, or the same module."""
    rng = random.Random(28)
    compared = refused = 0
    for path in FILES[::5]:
        data = path.read_bytes()
        for _ in range(12):
            damaged = bytearray(data)
            kind = rng.randrange(4)
            at = rng.randrange(12, len(data))
            if kind == 0:
                damaged[at] = rng.randrange(256)
            elif kind == 1:
                damaged[at] = 0x7F
            elif kind == 2:
                damaged[at] |= 0x80
            else:
                del damaged[at:]
            damaged = bytes(damaged)
            for verify in (True, False):
                compiled = _outcome(lambda d, v: read_bytecode(d, "k.tileirbc", verify=v), damaged, verify)
                plain = _outcome(interpreted, damaged, verify)
                if isinstance(plain, tuple) or isinstance(compiled, tuple):
                    assert compiled == plain, (path.name, kind, at)
                    refused += 1
                else:
                    assert module_mismatches(plain, compiled) == [], (path.name, kind, at)
                compared += 1
    assert compared > 500 and refused > 200, (compared, refused)


def test_every_op_is_located_at_its_opcode():
    """The verifier's locator pairs the offsets recorded in reading order with the ops: each op's
    offset holds its opcode, and the offsets grow in the order the ops are written (pre-order)."""
    from tileir_diff.bytecode.container import DebugInfo, Tables, read_header, read_sections
    from tileir_diff.bytecode.stream import Stream
    from tileir_diff.dialect.ops import OPS_BY_NAME

    nested = 0
    for path in FILES[::3]:
        data = path.read_bytes()
        s = Stream(data, 0, len(data), "k")
        header = read_header(s)
        tables = Tables(data, "k", header.version, read_sections(s))
        r = reader._FunctionReader(tables, DebugInfo(tables))
        funcs = r.read_all()
        for f in funcs:
            last = -1
            for op in f.walk():
                at = r.locate(op)
                assert at is not None and at > last, (path.name, op.name)
                assert data[at] == OPS_BY_NAME[op.name].opcode, (path.name, op.name, at)
                last = at
                nested += bool(op.regions)
            assert r.locate(f) is not None
    assert nested > 50


def _long_kernel(n: int) -> str:
    """A kernel of ``n`` chained f32 ops whose operands reach back to the first values: with more
    than 16,384 values in scope their indices take three bytes."""
    lines = ["entry @k(%arg0: tile<f32>) {"]
    for k in range(n):
        src = f"%x{k - 1}" if k else "%arg0"
        far = "%arg0" if k % 3 else f"%x{k // 2}" if k > 1 else "%arg0"
        lines.append(f"  %x{k} = addf {src}, {far} : tile<f32>")
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def test_three_byte_value_indices_read_as_read_op_reads_them(interpreted):
    from tileir_diff.bytecode.writer import write_bytecode
    from tileir_diff.text.parser import parse_text

    data = write_bytecode(parse_text(_long_kernel(17_000), version=(13, 3)), (13, 3))
    compiled = read_bytecode(data, "k.tileirbc")
    assert module_mismatches(interpreted(data), compiled) == []
    ops = compiled.functions[0].body.operations
    assert ops[-2].operands[0] is ops[-3].results[0]  # value 16,999: an index of three bytes
    assert ops[-3].operands[1] is ops[8_499].results[0]
    # damaged operand bytes near the end (three-byte indices): the same error or module
    rng = random.Random(3)
    for _ in range(40):
        damaged = bytearray(data)
        at = rng.randrange(len(data) * 3 // 4, len(data) - 40)
        damaged[at] = rng.choice((0x80, 0xFF, 0x7F, damaged[at] ^ 0x40))
        damaged = bytes(damaged)
        a = _outcome(lambda d, v: read_bytecode(d, "k.tileirbc", verify=v), damaged)
        b = _outcome(interpreted, damaged)
        assert (a == b) if isinstance(b, tuple) or isinstance(a, tuple) else module_mismatches(b, a) == [], at
