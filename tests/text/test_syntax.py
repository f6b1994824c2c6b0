"""Unit tests of the text pieces: MLIR float spelling, SSA naming, wrappers and prefixes,
attribute defaults filled by version, dense constants."""
from __future__ import annotations

import struct

import pytest

from tileir_diff.ir import EnumValue, IntegerAttr, ScalarType
from tileir_diff.ir.compare import module_mismatches
from tileir_diff.text import parse_text, print_module
from tileir_diff.text.floatfmt import float_from_text, format_float
from tileir_diff.text.lexer import escape_string, tokenize


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


@pytest.mark.parametrize("value,text", [
    (0.0, "0.000000e+00"), (-0.0, "-0.000000e+00"), (1.0, "1.000000e+00"), (0.1, "1.000000e-01"),
    (3.14159, "3.141590e+00"), (1024.0, "1.024000e+03"), (-1e30, "-1.000000e+30"),
    (1e38, "9.99999968E+37"),          # 6 digits do not round-trip: APFloat's default form
    (2.0 ** -149, "1.401300e-45"),     # APFloat truncates before rounding: not 1.401298e-45
    (16777216.0, "0x4B800000"),        # default form has no '.', so hex
    (float("inf"), "0x7F800000"), (float("-inf"), "0xFF800000"), (float("nan"), "0x7FC00000"),
])
def test_f32_spelling_matches_mlir(value, text):
    assert format_float(f32(value), "f32")[0] == text
    assert float_from_text(text, "f32") == f32(value)


@pytest.mark.parametrize("bits,name,text", [
    (0x7C00, "f16", "0x7C00"), (0xFC00, "f16", "0xFC00"), (0x7BFF, "f16", "6.550400e+04"),
    (0x3F80, "bf16", "1.000000e+00"), (0x3E9A, "bf16", "3.007810e-01"),
    (0x3FB999999999999A, "f64", "1.000000e-01"),
])
def test_other_float_types(bits, name, text):
    assert format_float(bits, name)[0] == text
    assert float_from_text(text, name) == bits


def test_string_escapes_follow_llvm():
    assert escape_string('a"b\\c\n') == '"a\\22b\\\\c\\0A"'
    tok = tokenize('"a\\22b\\\\c\\0A"')[0]
    assert tok.value == 'a"b\\c\n'


NAMING = """\
entry @names(%arg0: tile<i32>, %arg1: tile<ptr<f32>>) optimization_hints=<default = {}> {
  %assume = assume bounded<0, ?>, %arg0 : tile<i32>
  %assume_assume = assume div_by<16>, %assume : tile<i32>
  %cst_-1_i32 = constant <i32: -1> : tile<i32>
  %cst_-1_i32_0 = constant <i32: -1> : tile<i32>
  %cst_f32 = constant <f32: 5.000000e-01> : tile<f32>
  %cst_NaN_f32 = constant <f32: 0x7FC00000> : tile<f32>
  %cst_i32 = constant <i32: [1, 2, 3, 4]> : tile<4xi32>
  %cst_7_i64 = constant <i64: 7> : tile<2x2xi64>
  %true = constant <i1: true> : tile<i1>
  %cst_i1 = constant <i1: [true, false]> : tile<2xi1>
  %0 = addi %assume_assume, %cst_-1_i32 : tile<i32>
  %1 = make_token : token
  %result, %result_token = load_ptr_tko weak %arg1 token=%1 : tile<ptr<f32>> -> tile<f32>, token
  %reduce = reduce %cst_i32 dim=0 identities=[0 : i32] : tile<4xi32> -> tile<i32> 
  (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
    %4 = addi %reduce_lhs, %reduce_rhs : tile<i32>
    yield %4 : tile<i32>
  }
  %2 = scan %cst_i32 dim=0 reverse=true identities=[0 : i32] : tile<4xi32> -> tile<4xi32> 
  (%arg2: tile<i32>, %arg3: tile<i32>) {
    %4 = addi %arg2, %arg3 : tile<i32>
    yield %4 : tile<i32>
  }
  %for:2 = for %loopIdx in (%0 to %0, step %0) : tile<i32> iter_values(%iterArg0 = %0, %iterArg1 = %1) -> (tile<i32>, token) {
    %assume_1 = assume bounded<0, ?>, %loopIdx : tile<i32>
    %4 = addi %iterArg0, %assume_1 : tile<i32>
    continue %4, %iterArg1 : tile<i32>, token
  }
  %3 = addi %for#0, %0 : tile<i32>
  return
}
"""


def test_ssa_names_round_trip_byte_for_byte():
    """Nested regions number after the whole parent block (%4 after the outer %3) and share the
    conflict counter saved after it (the outer used _0, the loop's assume gets _1)."""
    m = parse_text(NAMING)
    assert print_module(m) == NAMING


def test_uniform_full_constants_parse_as_splats():
    text = NAMING.replace("<i64: 7>", "<i64: [[7, 7], [7, 7]]>")
    assert print_module(parse_text(text)) == NAMING


def test_constants_store_splats_as_one_element():
    ops = {op.results[0].vid: op for op in parse_text(NAMING).walk() if op.name == "constant"}
    values = [op.attributes["value"] for op in ops.values()]
    splat64 = next(v for v in values if v.element.name == "i64")
    assert splat64.data == (7).to_bytes(8, "little") and splat64.is_splat
    full = next(v for v in values if v.type.shape == (4,))
    assert full.to_numpy().tolist() == [1, 2, 3, 4]
    assert next(v for v in values if v.element.name == "i1").data == b"\xff"


def test_wrapper_prefixes_comments_and_locations():
    wrapped = """// a comment
cuda_tile.module @kernels {
  cuda_tile.entry @k(%arg0: !cuda_tile.tile<f32>) {
    %0 = cuda_tile.negf %arg0 : tile<f32> loc(#loc1)  // trailing comment
    cuda_tile.return loc(unknown)
  } loc(#loc1)
}
#loc = loc("/src/k.py":3:4)
#loc1 = loc(callsite(#loc at "/src/caller.py":9:1))
"""
    m = parse_text(wrapped)
    assert m.name == "kernels"
    op = next(m.walk())
    assert (op.location.file, op.location.line, op.location.col) == ("/src/k.py", 3, 4)
    assert op.location.caller.file == "/src/caller.py"
    plain = parse_text("entry @k(%arg0: tile<f32>) {\n  %0 = negf %arg0 : tile<f32>\n  return\n}\n")
    assert module_mismatches(m, plain) == []


def test_elided_defaults_are_filled_for_the_version():
    text = ("entry @k(%arg0: tile<f32>, %arg1: tile<i32>) {\n  %0 = tanh %arg0  : tile<f32>\n"
            "  %1 = negi %arg1 : tile<i32>\n  %2 = addf %arg0, %arg0  : tile<f32>\n  return\n}\n")
    new = {op.name: op for op in parse_text(text, version=(13, 4)).walk()}
    old = {op.name: op for op in parse_text(text, version=(13, 1)).walk()}
    assert new["tanh"].attributes["rounding_mode"] == EnumValue("RoundingMode", "full")
    assert "rounding_mode" not in old["tanh"].attributes  # tanh rounding exists from 13.2
    assert new["negi"].attributes["overflow"] == EnumValue("IntegerOverflow", "none")
    assert "overflow" not in old["negi"].attributes
    assert old["addf"].attributes == {"rounding_mode": EnumValue("RoundingMode", "nearest_even")}
    assert print_module(parse_text(text, version=(13, 1))) == text


def test_hint_values_are_i32_integers():
    text = ("entry @k() optimization_hints=<default = {num_cta_in_cga = 2}, sm_90 = {occupancy = 1}> {\n"
            "  return\n}\n")
    f = parse_text(text).functions[0]
    assert f.hints.by_arch[0] == ("default", f.hints.by_arch[0][1])
    assert f.hints.by_arch[0][1].items == (("num_cta_in_cga", IntegerAttr(2, ScalarType("i32"))),)
    assert print_module(parse_text(text)) == text
