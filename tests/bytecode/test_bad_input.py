"""Bad bytecode never escapes as anything but TileIRFormatError with an offset, fast.

Property tests over the corpus (truncations, bit flips, splices) plus targeted corruptions:
wrong magic, unknown versions, opcodes newer than the file, out-of-range indices, absurd
lengths, invalid UTF-8, and 10,000-deep region nesting. Each property runs TILEIR_FUZZ_EXAMPLES
examples (default 1500, also in CI: ~10 s for the four on a loaded 2-core machine).
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tileir_diff import TileIRFormatError, UnsupportedVersionError, load
from tileir_diff.bytecode.container import MAGIC, read_header, read_sections
from tileir_diff.bytecode.stream import Stream
from tileir_diff.bytecode.writer import _Writer, varint, write_bytecode
from tileir_diff.ir import (Block, Function, FunctionType, Module, Operation, ScalarType, TileType, TokenType, Value)

from tests.conftest import corpus_files

FILES = corpus_files()
SAMPLES = [p.read_bytes() for p in FILES[:: max(1, len(FILES) // 40)]]
EXAMPLES = int(os.environ.get("TILEIR_FUZZ_EXAMPLES", "1500"))
PROP = settings(max_examples=EXAMPLES, deadline=1000, suppress_health_check=list(HealthCheck))


def decode_or_error(data: bytes):
    """The only allowed outcomes: a Module, or TileIRFormatError carrying an offset."""
    try:
        return load(data)
    except TileIRFormatError as e:
        assert e.offset is not None, f"error without offset: {e}"
        assert isinstance(e, ValueError)
        return e


def must_fail(data: bytes, *fragments: str) -> TileIRFormatError:
    with pytest.raises(TileIRFormatError) as info:
        load(data)
    err = info.value
    assert err.offset is not None
    for f in fragments:
        assert f in str(err), f"{f!r} not in {err}"
    return err


def section_boundaries(data: bytes):
    s = Stream(data)
    read_header(s)
    cuts = {len(MAGIC), 12}
    for sec in read_sections(s).values():
        cuts.update({sec.start - 1, sec.start, sec.end})
    return sorted(c for c in cuts if c < len(data))


# -- property tests over the corpus --------------------------------------------------------
def test_truncation_at_every_section_boundary():
    checked = 0
    for data in SAMPLES:
        for cut in section_boundaries(data):
            must_fail(data[:cut])
            checked += 1
    assert checked > len(SAMPLES) * 8


@PROP
@given(st.sampled_from(range(len(SAMPLES))), st.floats(0, 1, exclude_max=True))
def test_any_truncation_fails_cleanly(i, frac):
    data = SAMPLES[i]
    must_fail(data[: int(len(data) * frac)])


@PROP
@given(st.sampled_from(range(len(SAMPLES))), st.lists(st.tuples(st.floats(0, 1, exclude_max=True),
                                                                  st.integers(0, 7)), min_size=1, max_size=4))
def test_bit_flips_decode_or_fail_cleanly(i, flips):
    data = bytearray(SAMPLES[i])
    for frac, bit in flips:
        data[int(len(data) * frac)] ^= 1 << bit
    decode_or_error(bytes(data))


@PROP
@given(st.sampled_from(range(len(SAMPLES))), st.sampled_from(range(len(SAMPLES))),
       st.floats(0, 1), st.floats(0, 1))
def test_spliced_files_decode_or_fail_cleanly(i, j, a, b):
    x, y = SAMPLES[i], SAMPLES[j]
    decode_or_error(x[: max(12, int(len(x) * a))] + y[int(len(y) * b):])


@PROP
@given(st.binary(max_size=64))
def test_random_bytes_after_a_valid_header(tail):
    decode_or_error(MAGIC + bytes([13, 3, 0, 0]) + tail)


# -- targeted corruptions -------------------------------------------------------------------
def test_wrong_magic_and_empty_input():
    data = SAMPLES[0]
    must_fail(b"\x7fTileIX\x00" + data[8:], "bad magic")
    must_fail(data[:5], "")
    must_fail(b"", "")


@pytest.mark.parametrize("major,minor", [(13, 0), (13, 6), (14, 1), (0, 0), (255, 255)])
def test_unknown_version_is_refused_not_guessed(major, minor):
    data = bytearray(SAMPLES[0])
    data[8], data[9] = major, minor
    err = must_fail(bytes(data), f"unsupported bytecode version {major}.{minor}")
    assert isinstance(err, UnsupportedVersionError) and err.offset == 8


def _tiny_module(version=(13, 3)) -> bytes:
    """entry @tiny(%a: tile<i32>) { %t = make_token; %r = absi %a; return }"""
    i32 = TileType((), ScalarType("i32"))
    a = Value(0, i32)
    ops = (Operation("make_token", results=(Value(1, TokenType()),)),
           Operation("absi", operands=(a,), segments=(1,), results=(Value(2, i32),)),
           Operation("return", segments=(0,)))
    fn = Function("tiny", (a,), (), Block((a,), ops))
    return write_bytecode(Module(version, (fn,)), version)


def _body_offset(data: bytes, pattern: bytes) -> int:
    """Offset of the first op in the tiny module's body that starts with ``pattern``."""
    s = Stream(data)
    read_header(s)
    func = read_sections(s)[0x02]
    body = func.start + _hints_end(data[func.start:func.end])
    b = Stream(data, body, func.end)
    b.varint()  # body length
    return data.index(pattern, b.pos, func.end)


def test_tiny_module_decodes():
    m = load(_tiny_module())
    assert [op.name for op in m.functions[0].walk()] == ["make_token", "absi", "return"]


def test_opcode_newer_than_the_file_version():
    data = bytearray(_tiny_module((13, 3)))
    at = _body_offset(data, bytes([0x44]))  # make_token
    data[at] = 0x78  # gdc_wait_tko exists from 13.4 on
    err = must_fail(bytes(data), "gdc_wait_tko", "needs bytecode 13.4")
    assert err.offset == at


def test_unknown_opcode():
    data = bytearray(_tiny_module())
    at = _body_offset(data, bytes([0x44]))
    data[at] = 0x19  # an unassigned opcode
    must_fail(bytes(data), "unknown opcode 0x19")


def test_value_index_out_of_range():
    data = bytearray(_tiny_module())
    at = _body_offset(data, bytes([0x01]))  # absi: opcode, result type, operand
    data[at + 2] = 0x09
    err = must_fail(bytes(data), "value index 9 out of range")
    assert err.offset == at + 2


def test_type_index_out_of_range():
    data = bytearray(_tiny_module())
    at = _body_offset(data, bytes([0x01]))
    data[at + 1] = 0x7E
    must_fail(bytes(data), "type index 126 out of range")


def test_absurd_section_length_is_refused_without_allocating():
    data = _tiny_module()
    out = bytearray(data[:12])
    out.append(0x82)  # Func section, aligned
    varint(1 << 62, out)
    varint(8, out)
    out += b"\xcb" * (-len(out) % 8)
    out += data[16:]
    must_fail(bytes(out), "runs past the end")


def test_absurd_counts_are_refused():
    data = bytearray(_tiny_module())
    at = _body_offset(data, bytes([0x5C]))  # return: opcode, result count, operand count
    data[at + 1] = 0x7F
    err = must_fail(bytes(data), "count 127 exceeds")
    assert err.offset == at + 1
    data[at + 1] = 0x00
    data[at + 2] = 0xFF  # a varint that never ends inside the body
    must_fail(bytes(data), "unexpected end")


def test_invalid_utf8_in_the_string_table():
    data = bytearray(_tiny_module())
    at = data.rindex(b"tiny")
    data[at] = 0xFF
    must_fail(bytes(data), "not valid UTF-8")


def _nested_loops(depth: int) -> bytes:
    """A function whose body nests `depth` loop ops, encoded without recursion."""
    w = _Writer((13, 3))
    body = bytearray()
    for level in range(depth):
        # loop: 0 results, 0 operands, 1 region, 1 block, 0 block args, 2 ops (the next loop and
        # a continue; the innermost holds only its continue)
        body += bytes([0x41, 0x00, 0x00, 0x01, 0x01, 0x00, 0x02 if level < depth - 1 else 0x01])
    body += bytes([0x11, 0x00, 0x00]) * depth  # continue, no operands: one per loop
    body += bytes([0x5C, 0x00, 0x00])  # return
    funcs = bytearray()
    varint(1, funcs)
    varint(w.string("deep"), funcs)
    varint(w.type(FunctionType((), ())), funcs)
    funcs.append(0x02)
    varint(1, funcs)
    varint(len(body), funcs)
    funcs += body
    return w.assemble(bytes(funcs), b"", [[0]])


def _hints_end(payload: bytes) -> int:
    """Offset of the body length in a one-function Func section without hints."""
    s = Stream(payload)
    for _ in range(3):  # count, name, signature
        s.varint()
    flags = s.u8()
    s.varint()  # location index
    assert not flags & 0x04
    return s.pos


def test_deeply_nested_regions_fail_cleanly():
    ok = load(_nested_loops(20))
    assert sum(1 for _ in ok.functions[0].walk()) == 20 + 20 + 1
    err = must_fail(_nested_loops(10_000), "nested deeper")
    assert isinstance(err.offset, int)
