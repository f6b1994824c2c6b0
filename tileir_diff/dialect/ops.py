"""The op table: every Tile IR op of bytecode 13.1-13.5, one row each.

Template notation (interpreted by text/template.py for both printing and parsing):
``$x`` operand group / attribute / region, ``$x:style`` attribute with a printing style,
``type($x)`` the types of an operand or result group, ``{?x|...}`` printed only when ``x`` is
present (an attribute equal to its default counts as absent), ``@name($a,...)`` a directive
from text/template.py; all other characters are literal text (whitespace is free when parsing).
"""
from __future__ import annotations

from typing import Dict, Tuple

from .spec import (AttrDef, OpDef, OperandDef, ResultDef, V13_1, V13_2, V13_3, V13_4, V13_5,
                   Version)


# --- row helpers -------------------------------------------------------------------------
def enum(name, enum_name, *, optional=False, since=V13_1, default=None):
    return AttrDef(name, "enum", enum=enum_name, optional=optional, since=since, default=default)


def unit(name, since=V13_1):
    return AttrDef(name, "unit", since=since, default=False)


def attr(name, kind, *, optional=False, since=V13_1, default=None):
    return AttrDef(name, kind, optional=optional, since=since, default=default)


def opnds(*specs) -> Tuple[OperandDef, ...]:
    """"x" single, "x?" optional, "x*" variadic; a (spec, since) pair for later additions."""
    out = []
    for s in specs:
        since = V13_1
        if isinstance(s, tuple):
            s, since = s
        arity = {"?": "optional", "*": "variadic"}.get(s[-1], "single")
        out.append(OperandDef(s.rstrip("?*"), arity, since))
    return tuple(out)


def res(*specs) -> Tuple[ResultDef, ...]:
    out = []
    for s in specs:
        since = V13_1
        if isinstance(s, tuple):
            s, since = s
        out.append(ResultDef(s.rstrip("*"), s.endswith("*"), since))
    return tuple(out)


OVERFLOW = enum("overflow", "IntegerOverflow", default="none")
SIGNED = enum("signedness", "Signedness")
FTZ = unit("flush_to_zero")
ORDERING = enum("memory_ordering_semantics", "MemoryOrderingSemantics")
SCOPE_OPT = enum("memory_scope", "MemoryScope", optional=True)
SCOPE = enum("memory_scope", "MemoryScope")
HINTS_OPT = attr("optimization_hints", "hints", optional=True)

PURE = frozenset({"pure"})
COMM = frozenset({"pure", "commutative"})
# derives_address: the memory the result addresses derives from operand 0's (views of a view or
# pointer, casts and reshapes of pointer tiles, pointer offsets, assumptions); the matcher
# follows these ops from a memory op's address back to the entry argument it comes from.
ADDR = frozenset({"pure", "derives_address"})

_T = " : type($result)"
_CAST = " : type($source) -> type($result)"
_CONV = " : type($from) -> type($to)"
_FLOAT_BIN = " $lhs, $rhs $rounding_mode:round{?flush_to_zero| flush_to_zero}" + _T
_INT_OVF = " $lhs, $rhs{?overflow| overflow$overflow:angle}" + _T
_PLAIN_BIN = " $lhs, $rhs" + _T
_SIGNED_BIN = " $lhs, $rhs $signedness" + _T
_MINMAXF = " $lhs, $rhs{?flush_to_zero| flush_to_zero}{?propagate_nan| propagate_nan}" + _T
_TERMINATOR = "{?operands| $operands : type($operands)}"


def _rounding(default="nearest_even", since=V13_1, name="rounding_mode"):
    return enum(name, "RoundingMode", since=since, default=default)


def _unary(name, opcode, since=V13_1, traits=PURE):
    return OpDef(name, opcode, " $source" + _T, since=since, results=res("result"),
                 operands=opnds("source"), traits=traits)


def _binary(name, opcode, syntax=_PLAIN_BIN, attrs=(), traits=PURE, since=V13_1, operands=("lhs", "rhs")):
    return OpDef(name, opcode, syntax, since=since, results=res("result"), attrs=tuple(attrs),
                 operands=opnds(*operands), traits=traits)


def _cast(name, opcode, since=V13_1, names=(), traits=PURE):
    return OpDef(name, opcode, " $source" + _CAST, since=since, results=res("result"),
                 operands=opnds("source"), traits=traits, result_names=names)


def _terminator(name, opcode):
    return OpDef(name, opcode, _TERMINATOR, results=(), operands=opnds("operands*"),
                 counted_results=True, total_operand_count=True, traits=frozenset({"terminator"}))


_LOAD_VIEW = (" $memory_ordering_semantics{?memory_scope| $memory_scope} $view[$index]"
              "{?token| token = $token}{?optimization_hints| optimization_hints = $optimization_hints}"
              "@inbounds($inbounds) : type($view), @itype($index) -> type($tile), type($result_token)")
_STORE_VIEW = (" $memory_ordering_semantics{?memory_scope| $memory_scope} $tile, $view[$index]"
               "{?token| token = $token}{?optimization_hints| optimization_hints = $optimization_hints}"
               "@inbounds($inbounds) : type($tile), type($view), @itype($index) -> type($result_token)")

OPS: Tuple[OpDef, ...] = (
    _unary("absf", 0x00),
    _unary("absi", 0x01),
    _binary("addf", 0x02, _FLOAT_BIN, [_rounding(), FTZ], COMM),
    _binary("addi", 0x03, _INT_OVF, [OVERFLOW], COMM),
    _binary("andi", 0x04, traits=COMM),
    OpDef("assert", 0x05, " $condition, $message : type($condition)", attrs=(attr("message", "str"),),
          operands=opnds("condition"), traits=frozenset({"effect"})),
    OpDef("assume", 0x06, " $predicate, $value : type($value)@same($result,$value)", results=res("result"),
          attrs=(attr("predicate", "predicate"),), operands=opnds("value"), traits=ADDR,
          result_names=("assume",)),
    OpDef("atomic_cas_tko", 0x07,
          " $memory_ordering_semantics $memory_scope $pointers, $cmp, $val{?mask|, $mask}{?token| token=$token}"
          " : type($pointers), type($val){?mask|, type($mask)} -> type($result), type($result_token)",
          results=res("result", "result_token"), attrs=(ORDERING, SCOPE),
          operands=opnds("pointers", "cmp", "val", "mask?", "token?"), traits=frozenset({"memory", "writes"}),
          result_names=("result", "result_token")),
    OpDef("atomic_rmw_tko", 0x08,
          " $memory_ordering_semantics $memory_scope $pointers, $mode, $arg{?mask|, $mask}{?token| token=$token}"
          " : type($pointers), type($arg){?mask|, type($mask)} -> type($result), type($result_token)",
          results=res("result", "result_token"),
          attrs=(ORDERING, SCOPE, enum("mode", "AtomicRMWMode")),
          operands=opnds("pointers", "arg", "mask?", "token?"), traits=frozenset({"memory", "writes"}),
          result_names=("result", "result_token")),
    _cast("bitcast", 0x09),
    _terminator("break", 0x0A),
    _cast("broadcast", 0x0B, names=("bcast",), traits=ADDR),
    OpDef("cat", 0x0C, " $lhs, $rhs dim = $dim : type($lhs), type($rhs) -> type($result)", results=res("result"),
          attrs=(attr("dim", "int"),), operands=opnds("lhs", "rhs"), traits=PURE),
    _unary("ceil", 0x0D),
    OpDef("cmpf", 0x0E, " $comparison_predicate $comparison_ordering $lhs, $rhs : type($lhs) -> type($result)",
          results=res("result"), attrs=(enum("comparison_predicate", "ComparisonPredicate"),
                                        enum("comparison_ordering", "ComparisonOrdering")),
          operands=opnds("lhs", "rhs"), traits=PURE),
    OpDef("cmpi", 0x0F, " $comparison_predicate $lhs, $rhs, $signedness : type($lhs) -> type($result)",
          results=res("result"), attrs=(enum("comparison_predicate", "ComparisonPredicate"), SIGNED),
          operands=opnds("lhs", "rhs"), traits=PURE),
    OpDef("constant", 0x10, " @dense($value,$result)", results=res("result"), attrs=(attr("value", "dense"),),
          traits=PURE),
    _terminator("continue", 0x11),
    _unary("cos", 0x12),
    _unary("cosh", 0x13),
    _binary("divf", 0x14, _FLOAT_BIN, [_rounding(), FTZ]),
    _binary("divi", 0x15, " $lhs, $rhs $signedness{?rounding| rounding$rounding:angle}" + _T,
            [SIGNED, _rounding("zero", name="rounding")]),
    OpDef("entry", 0x16, None, attrs=(attr("sym_name", "str"), attr("function_type", "type"),
                                      attr("arg_attrs", "array", optional=True, since=V13_5),
                                      attr("res_attrs", "array", optional=True), HINTS_OPT), regions=1),
    OpDef("exp", 0x17, " $source $rounding_mode:round" + _T, results=res("result"),
          attrs=(_rounding("full", since=V13_3),), operands=opnds("source"), traits=PURE),
    OpDef("exp2", 0x18, " $source{?flush_to_zero| flush_to_zero}" + _T, results=res("result"), attrs=(FTZ,),
          operands=opnds("source"), traits=PURE),
    OpDef("exti", 0x25, " $from $signedness" + _CONV, results=res("to"), attrs=(SIGNED,),
          operands=opnds("from"), traits=PURE),
    OpDef("extract", 0x26, " $source[$indices] : type($source) -> type($result)", results=res("result"),
          operands=opnds("source", "indices*"), counted_results=True, total_operand_count=True, traits=PURE),
    _unary("floor", 0x27),
    OpDef("fma", 0x28, " $lhs, $rhs, $acc $rounding_mode:round{?flush_to_zero| flush_to_zero}" + _T,
          results=res("result"), attrs=(_rounding(), FTZ), operands=opnds("lhs", "rhs", "acc"),
          traits=frozenset({"pure", "commutative2"})),
    OpDef("for", 0x29, None, results=res("results*"), attrs=(unit("unsignedCmp", since=V13_2),),
          operands=opnds("lowerBound", "upperBound", "step", "initValues*"), counted_results=True,
          total_operand_count=True, regions=1, result_names=("for",),
          region_arg_names=("loopIdx", "iterArg")),
    OpDef("ftof", 0x2A, " $from $rounding_mode:round" + _CONV, results=res("to"), attrs=(_rounding(),),
          operands=opnds("from"), traits=PURE),
    OpDef("ftoi", 0x2B, " $from $signedness $rounding_mode:round{?saturating| saturating}" + _CONV,
          results=res("to"), attrs=(unit("saturating", since=V13_4), SIGNED, _rounding("nearest_int_to_zero")),
          operands=opnds("from"), traits=PURE),
    OpDef("get_global", 0x2C, " $name" + _T, results=res("result"), attrs=(attr("name", "symbol"),),
          traits=PURE),
    OpDef("get_index_space_shape", 0x2D, " $src : type($src) -> @itype($result)", results=res("result*"),
          operands=opnds("src"), counted_results=True, traits=PURE),
    OpDef("get_num_tile_blocks", 0x2E, " : type($gridSize_x)@same($gridSize_y,$gridSize_x)@same($gridSize_z,$gridSize_x)", results=res("gridSize_x", "gridSize_y", "gridSize_z"),
          traits=PURE, result_names=("gridSize_x", "gridSize_y", "gridSize_z")),
    OpDef("get_tensor_shape", 0x2F, " $src : type($src) -> @itype($result)", results=res("result*"),
          operands=opnds("src"), counted_results=True, traits=PURE),
    OpDef("get_tile_block_id", 0x30, " : type($blockId_x)@same($blockId_y,$blockId_x)@same($blockId_z,$blockId_x)", results=res("blockId_x", "blockId_y", "blockId_z"),
          traits=PURE, result_names=("blockId_x", "blockId_y", "blockId_z")),
    OpDef("global", 0x31, None, attrs=(unit("constant", since=V13_3), attr("sym_name", "str"),
                                       attr("value", "dense"), attr("alignment", "int"),
                                       enum("symbol_visibility", "SymbolVisibility", since=V13_3, default="public"))),
    OpDef("if", 0x32, None, results=res("results*"), operands=opnds("condition"), counted_results=True, regions=2),
    _cast("int_to_ptr", 0x33),
    OpDef("iota", 0x3A, _T, results=res("result"), traits=PURE),
    OpDef("itof", 0x3B, " $from $signedness $rounding_mode:round" + _CONV, results=res("to"),
          attrs=(SIGNED, _rounding()), operands=opnds("from"), traits=PURE),
    OpDef("join_tokens", 0x3C, " $tokens" + _T, results=res("result"), operands=opnds("tokens*"),
          counted_results=True, total_operand_count=True, traits=PURE),
    OpDef("load_ptr_tko", 0x3D,
          " $memory_ordering_semantics{?memory_scope| $memory_scope} $source{?mask|, $mask}{?paddingValue|, $paddingValue}"
          "{?token| token=$token}{?optimization_hints| optimization_hints = $optimization_hints}"
          " : type($source){?mask|, type($mask)}{?paddingValue|, type($paddingValue)} -> type($result), type($result_token)",
          results=res("result", "result_token"), attrs=(ORDERING, SCOPE_OPT, HINTS_OPT),
          operands=opnds("source", "mask?", "paddingValue?", "token?"), traits=frozenset({"memory", "reads"}),
          result_names=("result", "result_token")),
    OpDef("load_view_tko", 0x3E, _LOAD_VIEW, results=res("tile", "result_token"),
          attrs=(ORDERING, SCOPE_OPT, HINTS_OPT,
                 attr("inbounds", "bool_array", since=V13_4, default=())),
          operands=opnds("view", "index*", "token?"), counted_results=True,
          traits=frozenset({"memory", "reads"}), result_names=("tile", "result_token")),
    _unary("log", 0x3F),
    _unary("log2", 0x40),
    OpDef("loop", 0x41, None, results=res("results*"), operands=opnds("initValues*"), counted_results=True,
          total_operand_count=True, regions=1),
    OpDef("make_partition_view", 0x42, " $tensor_view" + _T, results=res("result"), operands=opnds("tensor_view"),
          traits=ADDR, result_names=("pview",)),
    OpDef("make_tensor_view", 0x43,
          " $base, shape = @dynlist($dynamicShape,shape), strides = @dynlist($dynamicStrides,strides)"
          " : @tvtype($base,$dynamicShape,$dynamicStrides,$result)",
          results=res("result"), operands=opnds("base", "dynamicShape*", "dynamicStrides*"), counted_results=True,
          traits=ADDR, result_names=("tview",)),
    OpDef("make_token", 0x44, _T, results=res("result"), traits=PURE),
    _binary("maxf", 0x45, _MINMAXF, [unit("propagate_nan"), FTZ], COMM),
    _binary("maxi", 0x46, _SIGNED_BIN, [SIGNED], COMM),
    _binary("minf", 0x47, _MINMAXF, [unit("propagate_nan"), FTZ], COMM),
    _binary("mini", 0x48, _SIGNED_BIN, [SIGNED], COMM),
    OpDef("mmaf", 0x49, " $lhs, $rhs, $acc{?fast_acc| fast_acc} : type($lhs), type($rhs), type($acc)@same($result,$acc)",
          results=res("result"), attrs=(unit("fast_acc", since=V13_3),), operands=opnds("lhs", "rhs", "acc"),
          traits=frozenset({"pure", "mma"})),
    OpDef("mmai", 0x4A, " $lhs, $rhs, $acc $signedness_lhs $signedness_rhs : type($lhs), type($rhs), type($acc)@same($result,$acc)",
          results=res("result"), attrs=(enum("signedness_lhs", "Signedness"), enum("signedness_rhs", "Signedness")),
          operands=opnds("lhs", "rhs", "acc"), traits=frozenset({"pure", "mma"})),
    OpDef("module", 0x4B, None, attrs=(attr("sym_name", "str"), attr("producer", "str", optional=True, since=V13_3)),
          regions=1),
    _binary("mulf", 0x4C, _FLOAT_BIN, [_rounding(), FTZ], COMM),
    _binary("mulhii", 0x4D, " $x, $y" + _T, traits=COMM, operands=("x", "y")),
    _binary("muli", 0x4E, _INT_OVF, [OVERFLOW], COMM),
    _unary("negf", 0x4F),
    OpDef("negi", 0x50, " $source{?overflow| overflow$overflow:angle}" + _T, results=res("result"),
          attrs=(enum("overflow", "IntegerOverflow", since=V13_2, default="none"),), operands=opnds("source"),
          traits=PURE),
    OpDef("offset", 0x51, " $ptr, $offset : type($ptr), type($offset) -> type($result)", results=res("result"),
          operands=opnds("ptr", "offset"), traits=ADDR),
    _binary("ori", 0x52, traits=COMM),
    OpDef("permute", 0x53, " $source $permutation" + _CAST, results=res("result"),
          attrs=(attr("permutation", "i32_array"),), operands=opnds("source"), traits=ADDR),
    _binary("fpowf", 0x54, " $source, $exponent" + _T, operands=("source", "exponent")),
    OpDef("print_tko", 0x55,
          " $str{?args|, $args}{?token| token=$token}{?args| : type($args)} -> type($result_token)",
          results=res(("result_token", V13_2)), attrs=(attr("str", "str"),),
          operands=opnds("args*", ("token?", V13_2)), counted_results=True, traits=frozenset({"effect"})),
    _cast("ptr_to_int", 0x56),
    _cast("ptr_to_ptr", 0x57, traits=ADDR),
    OpDef("reduce", 0x58, " $operands dim=$dim identities=$identities : type($operands) -> type($results) @argregion($body)",
          results=res("results*"), attrs=(attr("dim", "int"), attr("identities", "array")),
          operands=opnds("operands*"), counted_results=True, total_operand_count=True, regions=1, traits=PURE,
          result_names=("reduce",), region_arg_names=("reduce_lhs", "reduce_rhs")),
    _binary("remf", 0x59),
    _binary("remi", 0x5A, _SIGNED_BIN, [SIGNED]),
    OpDef("reshape", 0x5B, " $source" + _CAST, results=res("result"), operands=opnds("source"), traits=ADDR,
          result_names=("reshape",)),
    _terminator("return", 0x5C),
    OpDef("rsqrt", 0x5D, " $source{?flush_to_zero| flush_to_zero}" + _T, results=res("result"), attrs=(FTZ,),
          operands=opnds("source"), traits=PURE),
    OpDef("scan", 0x5E,
          " $operands dim=$dim reverse=$reverse identities=$identities : type($operands) -> type($results) @argregion($body)",
          results=res("results*"), attrs=(attr("dim", "int"), attr("reverse", "bool"), attr("identities", "array")),
          operands=opnds("operands*"), counted_results=True, total_operand_count=True, regions=1, traits=PURE),
    OpDef("select", 0x5F, " $cond, $val_if_true, $val_if_false : type($cond), type($result)", results=res("result"),
          operands=opnds("cond", "val_if_true", "val_if_false"), traits=PURE),
    _binary("shli", 0x60, _INT_OVF, [OVERFLOW]),
    _binary("shri", 0x61, _SIGNED_BIN, [SIGNED]),
    _unary("sin", 0x62),
    _unary("sinh", 0x63),
    OpDef("sqrt", 0x64, " $source $rounding_mode:round{?flush_to_zero| flush_to_zero}" + _T, results=res("result"),
          attrs=(_rounding(), FTZ), operands=opnds("source"), traits=PURE),
    OpDef("store_ptr_tko", 0x65,
          " $memory_ordering_semantics{?memory_scope| $memory_scope} $destination, $value{?mask|, $mask}"
          "{?token| token=$token}{?optimization_hints| optimization_hints = $optimization_hints}"
          " : type($destination), type($value){?mask|, type($mask)} -> type($result_token)",
          results=res("result_token"), attrs=(ORDERING, SCOPE_OPT, HINTS_OPT),
          operands=opnds("destination", "value", "mask?", "token?"), traits=frozenset({"memory", "writes"})),
    OpDef("store_view_tko", 0x66, _STORE_VIEW, results=res("result_token"),
          attrs=(ORDERING, SCOPE_OPT, HINTS_OPT, attr("inbounds", "bool_array", since=V13_4, default=())),
          operands=opnds("tile", "view", "index*", "token?"), counted_results=True,
          traits=frozenset({"memory", "writes"})),
    _binary("subf", 0x67, _FLOAT_BIN, [_rounding(), FTZ]),
    _binary("subi", 0x68, _INT_OVF, [OVERFLOW]),
    _unary("tan", 0x69),
    OpDef("tanh", 0x6A, " $source $rounding_mode:round" + _T, results=res("result"),
          attrs=(_rounding("full", since=V13_2),), operands=opnds("source"), traits=PURE),
    OpDef("trunci", 0x6B, " $from{?overflow| overflow$overflow:angle}" + _CONV, results=res("to"),
          attrs=(OVERFLOW,), operands=opnds("from"), traits=PURE),
    _binary("xori", 0x6C, traits=COMM),
    _terminator("yield", 0x6D),
    _binary("atan2", 0x6E, " $x, $y" + _T, since=V13_2, operands=("x", "y")),
    _cast("pack", 0x6F, since=V13_3),
    _cast("unpack", 0x70, since=V13_3),
    OpDef("alloca", 0x71, " num_elem = $num_elem, alignment = $alignment{?global| global}" + _T, since=V13_3,
          results=res("result"), attrs=(unit("global"), attr("num_elem", "int"), attr("alignment", "int")),
          traits=frozenset({"effect"})),
    OpDef("mmaf_scaled", 0x72,
          " $lhs, $rhs, $acc, $lhs_scale, $rhs_scale : type($lhs), type($rhs), type($acc), type($lhs_scale), type($rhs_scale)"
          "@same($result,$acc)",
          since=V13_3, results=res("result"), operands=opnds("lhs", "rhs", "acc", "lhs_scale", "rhs_scale"),
          traits=frozenset({"pure", "mma"})),
    OpDef("make_gather_scatter_view", 0x73, " $tensor_view" + _T, since=V13_3, results=res("result"),
          operands=opnds("tensor_view"), traits=ADDR, result_names=("gsview",)),
    OpDef("make_strided_view", 0x74, " $tensor_view" + _T, since=V13_3, results=res("result"),
          operands=opnds("tensor_view"), traits=ADDR, result_names=("sview",)),
    OpDef("atomic_red_view_tko", 0x75,
          " $memory_ordering_semantics $memory_scope $view[$index], $mode, $value{?token| token = $token}"
          "@inbounds($inbounds) : type($value), type($view), @itype($index) -> type($result_token)",
          since=V13_3, results=res("result_token"),
          attrs=(ORDERING, SCOPE, enum("mode", "AtomicRMWMode"), attr("inbounds", "bool_array", since=V13_5, default=())),
          operands=opnds("view", "index*", "value", "token?"), counted_results=True,
          traits=frozenset({"memory", "writes"})),
    OpDef("insert", 0x76, " $source, $destination[$indices] : type($source), type($destination)@same($result,$destination)",
          since=V13_4,
          results=res("result"), operands=opnds("source", "destination", "indices*"), counted_results=True,
          total_operand_count=True, traits=PURE),
    OpDef("gdc_launch_dependents_tko", 0x77, "{?token| token = $token} -> type($result_token)", since=V13_4,
          results=res("result_token"), operands=opnds("token?"), traits=frozenset({"effect"})),
    OpDef("gdc_wait_tko", 0x78, "{?token| token = $token} -> type($result_token)", since=V13_4,
          results=res("result_token"), operands=opnds("token?"), traits=frozenset({"effect"})),
    _binary("fpowi", 0x79, " $source, $exponent : type($source), type($exponent)@same($result,$source)", since=V13_4,
            operands=("source", "exponent")),
    OpDef("memory_fence_alias_tko", 0x7A, " $token -> type($result_token)", since=V13_4,
          results=res("result_token"), operands=opnds("token"), traits=frozenset({"effect"})),
    OpDef("multimem_load_reduce_view_tko", 0x7B, None, since=V13_5, results=res("reduced_values", "result_token"),
          attrs=(ORDERING, SCOPE_OPT, enum("reduction", "MultimemReductionKind", default="add"), attr("inbounds", "bool_array")),
          operands=opnds("view", "index*", "token?"), counted_results=True, traits=frozenset({"memory", "reads"}),
          result_names=("reduced_values", "result_token")),
    OpDef("multimem_reduce_view_tko", 0x7C, None, since=V13_5, results=res("result_token"),
          attrs=(ORDERING, SCOPE, enum("reduction", "MultimemReductionKind", default="add"), attr("inbounds", "bool_array")),
          operands=opnds("view", "tile", "index*", "token?"), counted_results=True, traits=frozenset({"memory", "writes"})),
    OpDef("multimem_store_view_tko", 0x7D, None, since=V13_5, results=res("result_token"),
          attrs=(ORDERING, SCOPE_OPT, attr("inbounds", "bool_array")),
          operands=opnds("view", "tile", "index*", "token?"), counted_results=True, traits=frozenset({"memory", "writes"})),
)

OPS_BY_NAME: Dict[str, OpDef] = {o.name: o for o in OPS}
OPS_BY_OPCODE: Dict[int, OpDef] = {o.opcode: o for o in OPS}
# Accepted spellings in text input (cuTile/MLIR older names).
ALIASES = {"pow": "fpowf", "print": "print_tko"}


def op_def(name: str) -> OpDef:
    name = name[len("cuda_tile."):] if name.startswith("cuda_tile.") else name
    return OPS_BY_NAME[ALIASES.get(name, name)]


def ops_for_version(version: Version) -> Dict[int, OpDef]:
    """Opcode -> op for the ops that exist in ``version``."""
    return {o.opcode: o for o in OPS if o.since <= version}
