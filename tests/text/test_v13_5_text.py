"""13.5 text without the oracle: tileirdisasm 13.5.37 output (multimem ops, a multicast pointer
attribute, entry argument attributes) parses, prints back byte-identical, survives a trip through
13.5 bytes, and malformed variants fail with a line:col error.

The text below is tileirdisasm's output for a module tests/bytecode/test_v13_5.py builds
(``_Kernel`` with the four multimem ops and ``cuda_tile.x`` on %arg0, element type i32).
"""
from __future__ import annotations

import pytest

from tileir_diff import load
from tileir_diff.bytecode.writer import write_bytecode
from tileir_diff.errors import TileIRFormatError
from tileir_diff.ir import types as T
from tileir_diff.ir.attributes import DictAttr, IntegerAttr
from tileir_diff.ir.compare import module_mismatches
from tileir_diff.text import parse_text
from tileir_diff.text.printer import print_module, print_type

V13_5 = (13, 5)

ORACLE_TEXT = """\
entry @view_atomic_reduce_float(%arg0: tile<ptr<i32, <multicast>>> {cuda_tile.x = 1 : i32}, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_0 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_1 = assume bounded<0, ?>, %arg3 : tile<i32>
  %assume_2 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview = make_tensor_view %arg0, shape = [%assume, %assume_0], strides = [%assume_1, %assume_2] : tile<ptr<i32, <multicast>>>, tile<i32> -> tensor_view<?x?xi32, strides=[?,?], #cuda_tile.ptr_attr<multicast>>
  %assume_3 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg8 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg9 : tile<i32>
  %tview_7 = make_tensor_view %arg5, shape = [%assume_3, %assume_4], strides = [%assume_5, %assume_6] : tile<i32> -> tensor_view<?x?xi32, strides=[?,?]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview_7 : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?]>>, tile<i32> -> tile<8x16xi32>, token
  %cst_0_i32_8 = constant <i32: 0> : tile<i32>
  %pview_9 = make_partition_view %tview : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?], #cuda_tile.ptr_attr<multicast>>>
  %reduced_values, %result_token_10 = multimem_load_reduce_view_tko relaxed device %pview_9[%blockId_x, %cst_0_i32_8] token = %0 inbounds = [true, false] attributes {reduction = #cuda_tile.multimem_reduction_kind<min>} : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?], #cuda_tile.ptr_attr<multicast>>>, tile<i32>, token -> tile<8x16xi32>, token
  %1 = multimem_reduce_view_tko release sys %pview_9, %tile[%blockId_x, %cst_0_i32_8]  attributes {reduction = #cuda_tile.multimem_reduction_kind<xor>} : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?], #cuda_tile.ptr_attr<multicast>>>, tile<8x16xi32>, tile<i32> -> token
  %2 = multimem_store_view_tko weak %pview_9, %tile[%blockId_x, %cst_0_i32_8] token = %0 inbounds = [false, true] : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?], #cuda_tile.ptr_attr<multicast>>>, tile<8x16xi32>, tile<i32>, token -> token
  %reduced_values_11, %result_token_12 = multimem_load_reduce_view_tko weak %pview_9[%blockId_x, %cst_0_i32_8]  : partition_view<tile=(8x16), tensor_view<?x?xi32, strides=[?,?], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<8x16xi32>, token
  return
}
"""


def _multimem_ops(module):
    return [op for op in module.walk() if op.name.startswith("multimem_")]


def test_oracle_text_parses_and_prints_back_identically():
    module = parse_text(ORACLE_TEXT, version=V13_5)
    assert print_module(module) == ORACLE_TEXT
    load_reduce, reduce, store, plain_load = _multimem_ops(module)
    assert load_reduce.attributes["reduction"].name == "min"
    assert load_reduce.attributes["inbounds"] == (True, False)
    assert load_reduce.attributes["memory_scope"].name == "device"
    assert reduce.attributes["reduction"].name == "xor"
    assert reduce.segments == (1, 1, 2, 0)  # view, tile, two indices, no token
    assert store.attributes["inbounds"] == (False, True)
    assert "memory_scope" not in store.attributes and store.segments == (1, 1, 2, 1)
    assert plain_load.attributes["reduction"].name == "add"  # not printed: the default
    assert plain_load.attributes["inbounds"] == (False, False)
    f = module.functions[0]
    assert f.arguments[0].type == T.TileType((), T.PointerType(T.ScalarType("i32"), 2))
    assert f.arg_attrs[0] == DictAttr((("cuda_tile.x", IntegerAttr(1, T.ScalarType("i32"))),))
    assert len(f.arg_attrs) == len(f.arguments) and not any(d.items for d in f.arg_attrs[1:])


def test_oracle_text_survives_13_5_bytes():
    module = parse_text(ORACLE_TEXT, version=V13_5)
    again = load(write_bytecode(module, V13_5))
    assert module_mismatches(module, again) == []
    assert again.functions[0].arg_attrs == module.functions[0].arg_attrs
    assert print_module(again) == ORACLE_TEXT


@pytest.mark.parametrize("ty,text", [
    (T.PointerType(T.ScalarType("f32"), 0), "ptr<f32, <none>>"),
    (T.TileType((), T.PointerType(T.ScalarType("f32"), 1)), "tile<ptr<f32, <unicast>>>"),
    (T.TensorViewType(T.ScalarType("f32"), (None, 4096), (4096, 1), 1),
     "tensor_view<?x4096xf32, strides=[4096,1], #cuda_tile.ptr_attr<unicast>>"),
    (T.TensorViewType(T.ScalarType("f32"), (), (), 1), "tensor_view<f32, #cuda_tile.ptr_attr<unicast>>"),
])
def test_pointer_attribute_types_print_as_tileirdisasm(ty, text):
    """Forms seen in tileirdisasm 13.5.37 output (the 0-d view included)."""
    assert print_type(ty) == text
    module = parse_text(f"entry @k(%a: {text}) {{\n  return\n}}\n", version=V13_5)
    assert module.functions[0].arguments[0].type == ty


def _must_fail(text, fragment, version=V13_5):
    with pytest.raises(TileIRFormatError) as info:
        parse_text(text, path="bad.mlir", version=version)
    assert isinstance(info.value.offset, str) and ":" in info.value.offset
    assert fragment in info.value.message, info.value.message


@pytest.mark.parametrize("old,new,fragment", [
    ("multimem_reduction_kind<min>", "multimem_reduction_kind<mul>", "expected a multimem reduction kind"),
    ("multimem_reduce_view_tko release sys %pview_9", "multimem_reduce_view_tko release %pview_9",
     "expected a memory scope"),
    ("token = %0 inbounds = [true, false]", "token = %0 inbounds = [true]", "1 inbounds flags for 2 indices"),
    ("tile<ptr<i32, <multicast>>> {", "tile<ptr<i32, <broadcast>>> {", "unknown pointer attribute 'broadcast'"),
    ("attributes {reduction =", "attributes {kind =", "unexpected attribute 'kind'"),
])
def test_malformed_13_5_text_is_refused_with_a_position(old, new, fragment):
    assert old in ORACLE_TEXT
    _must_fail(ORACLE_TEXT.replace(old, new, 1), fragment)


def test_argument_attributes_are_read_at_the_default_version_but_need_13_5_bytes():
    """Text carries no version and the loader parses with the default (13.4): the attributes are
    kept, and only writing them below 13.5 is refused."""
    from tileir_diff.bytecode.writer import EncodeError
    module = parse_text(ORACLE_TEXT)
    assert module.functions[0].arg_attrs[0].items[0][0] == "cuda_tile.x"
    with pytest.raises(EncodeError, match="argument attributes need bytecode 13.5"):
        write_bytecode(module, (13, 4))
