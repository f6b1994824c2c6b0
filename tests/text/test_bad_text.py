"""Bad text: every malformed input raises TileIRFormatError with a ``line:col`` offset, never
another exception, quickly, and no recursion crash on deep nesting."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tileir_diff.errors import TileIRFormatError
from tileir_diff.text import parse_text

SAMPLE = (Path(__file__).parent / "samples" / "nested.mlir").read_text()
HEAD = "entry @k(%arg0: tile<i1>, %arg1: tile<i32>) {\n"


def must_fail(text: str, fragment: str, where: str | None = None) -> TileIRFormatError:
    with pytest.raises(TileIRFormatError) as info:
        parse_text(text, path="bad.mlir")
    err = info.value
    assert err.path == "bad.mlir"
    assert isinstance(err.offset, str) and ":" in err.offset
    assert fragment in err.message, err.message
    if where is not None:
        assert err.offset == where
    return err


def test_sample_parses():
    m = parse_text(SAMPLE)
    assert [op.name for op in m.walk()][:3] == ["constant", "constant", "for"]


@pytest.mark.parametrize("text,fragment,where", [
    (HEAD + "  %0 = frobnicate %arg0 : tile<i1>\n}\n", "unknown op 'frobnicate'", "2:8"),
    (HEAD + "  %0 = andi %arg0, %zz : tile<i1>\n}\n", "undefined value %zz", "2:20"),
    (HEAD + "  %0 = select %arg0, %arg1, %arg1 : tile<i32>, tile<i32>\n}\n", "type mismatch", None),
    (HEAD + "  %0 = cmpi less_than %arg1, %arg1, sideways : tile<i32> -> tile<i1>\n}\n",
     "expected one of unsigned, signed", "2:37"),
    (HEAD + "  %0 = andi %arg0, %arg0 : tile<i1>\n  %0 = andi %arg0, %arg0 : tile<i1>\n}\n",
     "redefinition of SSA value %0", "3:3"),
    (HEAD + "  %0, %1 = andi %arg0, %arg0 : tile<i1>\n}\n", "andi has 1 results, 2 named", "2:12"),
    (HEAD + "  %0 = andi %arg0, %arg0 : tile<i1>\n", "missing '}'", None),
    (HEAD + '  assert %arg0, "oops\\q" : tile<i1>\n}\n', "unknown escape", None),
    (HEAD + '  assert %arg0, "never closed : tile<i1>\n}\n', "unterminated string", "2:17"),
    (HEAD + "  %0 = constant <i32: 99999999999> : tile<i32>\n}\n", "does not fit i32", None),
    (HEAD + "  %0 = constant <i32: [1, 2]> : tile<3xi32>\n}\n", "shape does not match", None),
    (HEAD + "  %0 = iota : tile<4xwat>\n}\n", "unknown type 'wat'", "2:22"),
    ("\x00garbage", "unexpected character", "1:1"),
    ("module @m {", "expected '}', got end of input", "1:12"),
    ("module @m { %0 = make_token : token }", "expected 'entry' or 'global'", "1:13"),
    ("entry @k(", "expected an SSA value", "1:10"),
    ("", "", None),
])
def test_malformed_text(text, fragment, where):
    if not text:
        assert parse_text(text).functions == ()  # empty input is an empty module
        return
    must_fail(text, fragment, where)


def test_ten_thousand_nested_regions_fail_cleanly_and_fast():
    deep = HEAD + "if %arg0 {\n" * 10000 + "}\n" * 10000 + "return\n}\n"
    t0 = time.process_time()  # a hang guard, in this process's CPU time (not the machine's load)
    must_fail(deep, "nested deeper than")
    assert time.process_time() - t0 < 5.0


def _nested_ifs(levels: int) -> str:
    """The entry body plus ``levels`` nested ifs: ``levels + 1`` region levels."""
    text = HEAD + "".join("  " * (i + 1) + "if %arg0 {\n" for i in range(levels))
    return text + "".join("  " * (i + 1) + "}\n" for i in reversed(range(levels))) + "  return\n}\n"


def test_nesting_within_the_limit_round_trips():
    from tileir_diff.ir.limits import MAX_REGION_DEPTH
    from tileir_diff.text import print_module
    m = parse_text(_nested_ifs(MAX_REGION_DEPTH - 1))
    assert parse_text(print_module(m)) is not None
    must_fail(_nested_ifs(MAX_REGION_DEPTH), f"nested deeper than {MAX_REGION_DEPTH}")


@pytest.mark.parametrize("cut", range(0, len(SAMPLE), 7))
def test_every_truncation_fails_cleanly(cut):
    try:
        parse_text(SAMPLE[:cut])
    except TileIRFormatError as e:
        assert ":" in str(e.offset)


_MUTATION = st.lists(st.tuples(st.integers(0, len(SAMPLE) - 1), st.sampled_from(
    ["", "%", "#", "@", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", "=", "x", "?", "0", "-1", '"',
     "\\", " ", "\n", "tile<", "->", "%0", "%arg0", "0x7F", "1.5e+00", "loc(", "i32", "\x00", "é"])),
    min_size=1, max_size=4)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_MUTATION, st.data())
def test_mutated_text_parses_or_fails_cleanly(mutations, data):
    text = SAMPLE
    for pos, ins in mutations:
        pos = min(pos, len(text))
        delete = data.draw(st.integers(0, 3))
        text = text[:pos] + ins + text[pos + delete:]
    t0 = time.process_time()  # a hang guard, in this process's CPU time (not the machine's load)
    try:
        parse_text(text)
    except TileIRFormatError as e:
        assert ":" in str(e.offset)
    assert time.process_time() - t0 < 5.0


def test_bytes_input_with_invalid_utf8():
    must_fail(b"entry @k() {\xff}", "not valid UTF-8", "1:1")
