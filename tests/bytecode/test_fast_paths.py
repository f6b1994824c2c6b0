"""The decoder's shortcuts give what the general paths give: the offset tables' spans without the
entry-by-entry loop, a one-element constant without canonical_dense, and the inline reads of
two-byte value and constant indices (a kernel with hundreds of values and constants)."""
from __future__ import annotations

import random
import struct

import pytest

from tileir_diff import TileIRFormatError, load
from tileir_diff.bytecode.container import Tables, checked_spans, read_offset_table
from tileir_diff.bytecode.stream import Stream
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.dialect.spec import SUPPORTED_VERSIONS
from tileir_diff.ir.attributes import DenseElements, canonical_dense
from tileir_diff.ir.compare import module_mismatches
from tileir_diff.ir.types import SCALAR_TYPES, ScalarType, TileType
from tileir_diff.text.parser import parse_text


def _table(offsets, data_size: int, width: int = 4, lead: bytes = b"") -> Stream:
    """An offset table as the container writes it, after ``lead`` bytes: count, padding to the
    word width, the words, ``data_size`` bytes of data."""
    body = bytes([len(offsets)])  # count < 128: one varint byte
    body += b"\xCB" * (-(len(lead) + len(body)) % width)
    body += struct.pack(f"<{len(offsets)}{'I' if width == 4 else 'Q'}", *offsets) + bytes(data_size)
    data = lead + body
    return Stream(data, len(lead), len(data), "t.tileirbc")


def _reference(s: Stream, n: int, width: int, what: str):
    """read_offset_table's checks entry by entry (no shortcut)."""
    s.count(what, width)
    s.align(width, what)
    offsets = [s.u32(what) if width == 4 else s.u64(what) for _ in range(n)]
    base = s.pos
    return checked_spans(s, offsets, base, s.end - base, what)


@pytest.mark.parametrize("width", [4, 8])
def test_offset_table_spans_as_the_checked_loop_gives_them(width):
    rng = random.Random(5)
    seen_valid = seen_refused = 0
    for case in range(600):
        size = rng.randrange(0, 64)
        n = rng.randrange(0, 12)
        offsets = sorted(rng.randrange(0, size + 1) for _ in range(n))
        kind = case % 4
        if kind == 1 and n:  # one entry out of order
            i = rng.randrange(n)
            offsets[i] = rng.randrange(0, size + 2)
        elif kind == 2 and n:  # past the data
            offsets[-1] = size + rng.randrange(1, 4)
        elif kind == 3 and n > 1:  # swapped neighbours
            i = rng.randrange(n - 1)
            offsets[i], offsets[i + 1] = offsets[i + 1] + 1, offsets[i]
        lead = bytes(rng.randrange(0, 9))
        try:
            expected = _reference(_table(offsets, size, width, lead), n, width, "constant")
        except TileIRFormatError as e:
            with pytest.raises(TileIRFormatError) as info:
                read_offset_table(_table(offsets, size, width, lead), width, "constant")
            assert (str(info.value), info.value.offset) == (str(e), e.offset)
            seen_refused += 1
        else:
            assert read_offset_table(_table(offsets, size, width, lead), width, "constant") == expected
            seen_valid += 1
    assert seen_valid > 100 and seen_refused > 100


@pytest.mark.parametrize("name", sorted(SCALAR_TYPES))
def test_one_element_constant_is_what_canonical_dense_makes(name):
    """Tables.constant keeps the data of one element as read when canonical_dense would not
    change it (every type but i1, whose bytes it normalizes): the same value either way."""
    ty = TileType((4, 8), ScalarType(name))
    tables = Tables(b"", "t", (13, 4), {})
    esize, total, _packed = tables._dense_sizes(ty)
    as_read = tables._dense_size_cache[id(ty)][1][3]
    assert as_read == (name != "i1")
    for raw in (bytes(esize), bytes(range(1, esize + 1)), b"\xff" * esize, b"\x01" * esize):
        if as_read:
            assert canonical_dense(ty, raw) == DenseElements(ty, raw)
        else:  # i1: any byte but zero reads as true (0xFF), so the shortcut would be wrong
            assert canonical_dense(ty, b"\x01") == DenseElements(ty, b"\xff")


def _wide_kernel(n: int) -> str:
    """``n`` distinct constants and as many values: indices of two varint bytes for values,
    constants and types alike, enum attributes, unit flags."""
    lines = ["entry @k(%p: tile<ptr<f32>>, %n: tile<i32>) {",
             "  %t = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>",
             "  %v = make_partition_view %t : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>",
             "  %i = constant <i32: 0> : tile<i32>",
             "  %x0, %tok = load_view_tko weak %v[%i] : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, "
             "tile<i32> -> tile<64xf32>, token"]
    ops = ("addf", "mulf", "maxf", "subf")
    for k in range(1, n):
        lines.append(f"  %c{k} = constant <f32: {1.0 + k / 1024:.6e}> : tile<64xf32>")
        # reach back: operands hundreds of values away (two-byte indices)
        lines.append(f"  %x{k} = {ops[k % 4]} %x{k - 1}, %c{max(1, k - 150 * (k % 2))} : tile<64xf32>")
    lines += [f"  %s = store_view_tko weak %x{n - 1}, %v[%i] token = %tok : tile<64xf32>, "
              "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token", "  return", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_a_wide_kernel_decodes_to_what_its_text_parses_to(version):
    text = _wide_kernel(400)
    parsed = parse_text(text, version=version)
    decoded = load(write_bytecode(parsed, version))
    assert module_mismatches(parsed, decoded) == []
    constants = [op.attributes["value"] for op in decoded.walk() if op.name == "constant"]
    assert len(constants) == 400 and len({c.data for c in constants}) == 400
