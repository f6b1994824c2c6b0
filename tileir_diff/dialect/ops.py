"""The op table: every Tile IR op of bytecode 13.1-13.5, one row each.

Template notation (interpreted by text/template.py for both printing and parsing):
``$x`` operand group / attribute / region, ``$x:style`` attribute with a printing style,
``type($x)`` the types of an operand or result group, ``{?x|...}`` printed only when ``x`` is
present (an attribute equal to its default counts as absent), ``@name($a,...)`` a directive
from text/template.py; all other characters are literal text (whitespace is free when parsing).
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Tuple

from .traits import (COMBINER, COMMUTATIVE, COMMUTATIVE2, COMPARE, CONTROL_FLOW, DERIVES_ADDRESS, EFFECT,
                     GRID_QUERY, LOOP, MAKES_VIEW, MMA, NAMES_RESULTS, OPTIONAL_LAST_REGION, PURE as PURE_T,
                     READS, SHAPE_QUERY, TERMINATOR, THROUGH_IF, TOP_LEVEL, WRITES, ZERO_SIGN_BLIND)
from .spec import (AttrDef, OpDef, OperandDef, ResultDef, V13_1, V13_2, V13_3, V13_4, V13_5,
                   Version)


# --- row helpers -------------------------------------------------------------------------
def enum(name, enum_name, *, optional=False, since=V13_1, default=None):
    return AttrDef(name, "enum", enum=enum_name, optional=optional, since=since, default=default)


def unit(name, since=V13_1):
    return AttrDef(name, "unit", since=since, default=False)


def attr(name, kind, *, optional=False, since=V13_1, default=None):
    return AttrDef(name, kind, optional=optional, since=since, default=default)


def _split(spec: str) -> Tuple[str, str]:
    name, _, ty = spec.partition(":")
    return name, ty or "any"


def opnds(*specs) -> Tuple[OperandDef, ...]:
    """"x" single, "x?" optional, "x*" variadic, each with an optional ":type" constraint
    (``spec.py``: "lhs:tile<int>"); a (spec, since) pair for later additions."""
    out = []
    for s, since, ty in map(_spec, specs):
        arity = {"?": "optional", "*": "variadic"}.get(s[-1], "single")
        out.append(OperandDef(s.rstrip("?*"), arity, since, ty))
    return tuple(out)


def res(*specs) -> Tuple[ResultDef, ...]:
    """"x" or "x*" (variadic) with an optional ":type" constraint."""
    return tuple(ResultDef(s.rstrip("*"), s.endswith("*"), since, ty) for s, since, ty in map(_spec, specs))


def _spec(s):
    """An operand or result spec, "x:type" or ("x:type", since): (name with its arity mark, since, type)."""
    since = V13_1
    if isinstance(s, tuple):
        s, since = s
    s, ty = _split(s)
    return s, since, ty


OVERFLOW = enum("overflow", "IntegerOverflow", default="none")
SIGNED = enum("signedness", "Signedness")
FTZ = unit("flush_to_zero")
ORDERING = enum("memory_ordering_semantics", "MemoryOrderingSemantics")
SCOPE_OPT = enum("memory_scope", "MemoryScope", optional=True)
SCOPE = enum("memory_scope", "MemoryScope")
HINTS_OPT = attr("optimization_hints", "hints", optional=True)

PURE = frozenset({PURE_T})
COMM = frozenset({PURE_T, COMMUTATIVE})
# derives_address: the memory the result addresses derives from operand 0's (views of a view or
# pointer, casts and reshapes of pointer tiles, pointer offsets, assumptions); the matcher
# follows these ops from a memory op's address back to the entry argument it comes from.
ADDR = frozenset({PURE_T, DERIVES_ADDRESS})

# Type constraints (spec.py) used by many rows.
INT, FLOAT, ANYFLOAT, NUMBER, TILE = "tile<int>", "tile<float>", "tile<anyfloat>", "tile<number>", "tile<*>"
PTR, I1, INDEX = "tile<ptr>", "tile<i1>", "scalar<int>"
SAME_BIN = ("same_type(lhs,rhs,result)",)
SAME_UN = ("same_type(source,result)",)

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


def _unary(name, opcode, since=V13_1, traits=PURE, ty=FLOAT, semantics=None):
    return OpDef(name, opcode, " $source" + _T, since=since, results=res("result:" + ty),
                 operands=opnds("source:" + ty), traits=traits, constraints=SAME_UN, semantics=semantics)


def _binary(name, opcode, syntax=_PLAIN_BIN, attrs=(), traits=PURE, since=V13_1, operands=("lhs", "rhs"),
            ty=INT, constraints=None, semantics=None):
    same = (f"same_type({','.join(operands)},result)",)
    return OpDef(name, opcode, syntax, since=since, results=res("result:" + ty), attrs=tuple(attrs),
                 operands=opnds(*(f"{o}:{ty}" for o in operands)), traits=traits,
                 constraints=same if constraints is None else constraints, semantics=semantics)


def _cast(name, opcode, source, result, since=V13_1, names=(), constraints=("same_shape(source,result)",),
          traits=PURE, semantics=None):
    return OpDef(name, opcode, " $source" + _CAST, since=since, results=res("result:" + result),
                 operands=opnds("source:" + source), traits=traits, result_names=names, constraints=constraints,
                 semantics=semantics)


def _terminator(name, opcode, parents, check=None, through_if=True):
    """``through_if``: may end a region of ``if``s nested in the parent (an early exit)."""
    return OpDef(name, opcode, _TERMINATOR, results=(), operands=opnds("operands*"),
                 counted_results=True, total_operand_count=True,
                 traits=frozenset({THROUGH_IF} if through_if else {TERMINATOR}),
                 parents=parents, constraints=(f"check:{check}(operands)",) if check else ())


_LOAD_VIEW = (" $memory_ordering_semantics{?memory_scope| $memory_scope} $view[$index]"
              "{?token| token = $token}{?optimization_hints| optimization_hints = $optimization_hints}"
              "@inbounds($inbounds) : type($view), @itype($index) -> type($tile), type($result_token)")
_STORE_VIEW = (" $memory_ordering_semantics{?memory_scope| $memory_scope} $tile, $view[$index]"
               "{?token| token = $token}{?optimization_hints| optimization_hints = $optimization_hints}"
               "@inbounds($inbounds) : type($tile), type($view), @itype($index) -> type($result_token)")

OPS: Tuple[OpDef, ...] = (
    _unary("absf", 0x00),
    _unary("absi", 0x01, ty=INT, semantics="int.abs"),
    _binary("addf", 0x02, _FLOAT_BIN, [_rounding(), FTZ], COMM, ty=FLOAT, semantics="float.add"),
    _binary("addi", 0x03, _INT_OVF, [OVERFLOW], COMM, semantics="int.add"),
    _binary("andi", 0x04, traits=COMM, semantics="int.and"),
    OpDef("assert", 0x05, " $condition, $message : type($condition)", attrs=(attr("message", "str"),),
          operands=opnds("condition:" + I1), traits=frozenset({EFFECT})),
    OpDef("assume", 0x06, " $predicate, $value : type($value)@same($result,$value)", results=res("result"),
          attrs=(attr("predicate", "predicate"),), operands=opnds("value"), traits=ADDR | {NAMES_RESULTS},
          result_names=("assume",), constraints=("same_type(value,result)", "check:assume(value)"), semantics="assume"),
    OpDef("atomic_cas_tko", 0x07,
          " $memory_ordering_semantics $memory_scope $pointers, $cmp, $val{?mask|, $mask}{?token| token=$token}"
          " : type($pointers), type($val){?mask|, type($mask)} -> type($result), type($result_token)",
          results=res("result:" + TILE, "result_token:token"), attrs=(ORDERING, SCOPE),
          operands=opnds("pointers:" + PTR, "cmp:" + TILE, "val:" + TILE, "mask?:" + I1, "token?:token"),
          traits=frozenset({WRITES, NAMES_RESULTS}), result_names=("result", "result_token"),
          constraints=("same_shape(pointers,cmp,val,result,mask)", "same_type(cmp,val,result)",
                       "check:pointee(pointers,val)")),
    OpDef("atomic_rmw_tko", 0x08,
          " $memory_ordering_semantics $memory_scope $pointers, $mode, $arg{?mask|, $mask}{?token| token=$token}"
          " : type($pointers), type($arg){?mask|, type($mask)} -> type($result), type($result_token)",
          results=res("result:" + TILE, "result_token:token"),
          attrs=(ORDERING, SCOPE, enum("mode", "AtomicRMWMode")),
          operands=opnds("pointers:" + PTR, "arg:" + TILE, "mask?:" + I1, "token?:token"),
          traits=frozenset({WRITES, NAMES_RESULTS}), result_names=("result", "result_token"),
          constraints=("same_shape(pointers,arg,result,mask)", "same_type(arg,result)",
                       "check:pointee(pointers,arg)")),
    _cast("bitcast", 0x09, NUMBER, NUMBER, constraints=("same_shape(source,result)", "check:same_width(source,result)")),
    _terminator("break", 0x0A, ("loop",), "break"),
    _cast("broadcast", 0x0B, TILE, TILE, names=("bcast",), traits=ADDR | {NAMES_RESULTS},
          constraints=("same_element(source,result)", "same_rank(source,result)", "check:broadcast(source,result)"), semantics="splat"),
    OpDef("cat", 0x0C, " $lhs, $rhs dim = $dim : type($lhs), type($rhs) -> type($result)",
          results=res("result:" + TILE), attrs=(attr("dim", "int"),), operands=opnds("lhs:" + TILE, "rhs:" + TILE),
          traits=PURE, constraints=("same_rank(lhs,rhs,result)", "same_element(lhs,rhs,result)",
                                    "check:cat(lhs,rhs,result)")),
    _unary("ceil", 0x0D),
    OpDef("cmpf", 0x0E, " $comparison_predicate $comparison_ordering $lhs, $rhs : type($lhs) -> type($result)",
          results=res("result:" + I1), attrs=(enum("comparison_predicate", "ComparisonPredicate"),
                                              enum("comparison_ordering", "ComparisonOrdering")),
          operands=opnds("lhs:" + FLOAT, "rhs:" + FLOAT), traits=PURE | {COMPARE},
          constraints=("same_type(lhs,rhs)", "same_shape(lhs,result)"), semantics="float.cmp"),
    OpDef("cmpi", 0x0F, " $comparison_predicate $lhs, $rhs, $signedness : type($lhs) -> type($result)",
          results=res("result:" + I1), attrs=(enum("comparison_predicate", "ComparisonPredicate"), SIGNED),
          operands=opnds("lhs:" + INT, "rhs:" + INT), traits=PURE | {COMPARE},
          constraints=("same_type(lhs,rhs)", "same_shape(lhs,result)"), semantics="int.cmp"),
    OpDef("constant", 0x10, " @dense($value,$result)", results=res("result:" + NUMBER),
          attrs=(attr("value", "dense"),), traits=PURE | {NAMES_RESULTS}, constraints=("check:constant(result)",), semantics="constant"),
    _terminator("continue", 0x11, ("for", "loop"), "continue"),
    _unary("cos", 0x12),
    _unary("cosh", 0x13),
    _binary("divf", 0x14, _FLOAT_BIN, [_rounding(), FTZ], ty=FLOAT, semantics="float.div"),
    _binary("divi", 0x15, " $lhs, $rhs $signedness{?rounding| rounding$rounding:angle}" + _T,
            [SIGNED, _rounding("zero", name="rounding")], semantics="int.div"),
    OpDef("entry", 0x16, None, attrs=(attr("sym_name", "str"), attr("function_type", "type"),
                                      attr("arg_attrs", "array", optional=True, since=V13_5),
                                      attr("res_attrs", "array", optional=True), HINTS_OPT), regions=1,
          traits=frozenset({TOP_LEVEL})),
    OpDef("exp", 0x17, " $source $rounding_mode:round" + _T, results=res("result:" + FLOAT),
          attrs=(_rounding("full", since=V13_3),), operands=opnds("source:" + FLOAT), traits=PURE | {ZERO_SIGN_BLIND},
          constraints=SAME_UN),
    OpDef("exp2", 0x18, " $source{?flush_to_zero| flush_to_zero}" + _T, results=res("result:" + FLOAT),
          attrs=(FTZ,), operands=opnds("source:" + FLOAT), traits=PURE | {ZERO_SIGN_BLIND}, constraints=SAME_UN),
    OpDef("exti", 0x25, " $from $signedness" + _CONV, results=res("to:tile<int4>"), attrs=(SIGNED,),
          operands=opnds("from:tile<int4>"), traits=PURE,
          constraints=("same_shape(from,to)", "check:wider(from,to)"), semantics="int.ext"),
    OpDef("extract", 0x26, " $source[$indices] : type($source) -> type($result)", results=res("result:" + TILE),
          operands=opnds("source:" + TILE, "indices*:scalar<i32>"), counted_results=True, total_operand_count=True,
          traits=PURE, constraints=("same_rank(source,result)", "same_element(source,result)",
                                    "check:extract(source,result,indices)")),
    _unary("floor", 0x27),
    OpDef("fma", 0x28, " $lhs, $rhs, $acc $rounding_mode:round{?flush_to_zero| flush_to_zero}" + _T,
          results=res("result:" + FLOAT), attrs=(_rounding(), FTZ),
          operands=opnds("lhs:" + FLOAT, "rhs:" + FLOAT, "acc:" + FLOAT),
          traits=frozenset({PURE_T, COMMUTATIVE2}), constraints=("same_type(lhs,rhs,acc,result)",)),
    OpDef("for", 0x29, None, results=res("results*"), attrs=(unit("unsignedCmp", since=V13_2),),
          operands=opnds("lowerBound:" + INDEX, "upperBound:" + INDEX, "step:" + INDEX, "initValues*"),
          counted_results=True, total_operand_count=True, regions=1, result_names=("for",),
          traits=frozenset({LOOP, NAMES_RESULTS}),
          region_arg_names=("loopIdx", "iterArg"),
          constraints=("same_type(lowerBound,upperBound,step)", "same_types(initValues,results)",
                       "check:for_region(lowerBound,initValues)")),
    OpDef("ftof", 0x2A, " $from $rounding_mode:round" + _CONV, results=res("to:" + ANYFLOAT), attrs=(_rounding(),),
          operands=opnds("from:" + ANYFLOAT), traits=PURE, constraints=("same_shape(from,to)",)),
    OpDef("ftoi", 0x2B, " $from $signedness $rounding_mode:round{?saturating| saturating}" + _CONV,
          results=res("to:" + INT), attrs=(unit("saturating", since=V13_4), SIGNED, _rounding("nearest_int_to_zero")),
          operands=opnds("from:" + ANYFLOAT), traits=PURE, constraints=("same_shape(from,to)",)),
    OpDef("get_global", 0x2C, " $name" + _T, results=res("result:scalar<ptr>"), attrs=(attr("name", "symbol"),),
          traits=PURE, constraints=("check:global(result)",)),
    OpDef("get_index_space_shape", 0x2D, " $src : type($src) -> @itype($result)", results=res("result*:" + INDEX),
          operands=opnds("src:view"), counted_results=True, traits=PURE | {SHAPE_QUERY},
          constraints=("check:index_space(src,result)",), semantics="index_space"),
    OpDef("get_num_tile_blocks", 0x2E, " : type($gridSize_x)@same($gridSize_y,$gridSize_x)@same($gridSize_z,$gridSize_x)",
          results=res("gridSize_x:scalar<i32>", "gridSize_y:scalar<i32>", "gridSize_z:scalar<i32>"),
          traits=PURE | {GRID_QUERY, NAMES_RESULTS}, result_names=("gridSize_x", "gridSize_y", "gridSize_z"), semantics="num_blocks"),
    OpDef("get_tensor_shape", 0x2F, " $src : type($src) -> @itype($result)", results=res("result*:" + INDEX),
          operands=opnds("src:tensor_view"), counted_results=True, traits=PURE | {SHAPE_QUERY},
          constraints=("check:tensor_shape(src,result)",)),
    OpDef("get_tile_block_id", 0x30, " : type($blockId_x)@same($blockId_y,$blockId_x)@same($blockId_z,$blockId_x)",
          results=res("blockId_x:scalar<i32>", "blockId_y:scalar<i32>", "blockId_z:scalar<i32>"),
          traits=PURE | {GRID_QUERY, NAMES_RESULTS}, result_names=("blockId_x", "blockId_y", "blockId_z"), semantics="block_id"),
    OpDef("global", 0x31, None, attrs=(unit("constant", since=V13_3), attr("sym_name", "str"),
                                       attr("value", "dense"), attr("alignment", "int"),
                                       enum("symbol_visibility", "SymbolVisibility", since=V13_3, default="public")),
          traits=frozenset({TOP_LEVEL})),
    # "optional_last_region": the else region may have no blocks (an if without else has no results).
    OpDef("if", 0x32, None, results=res("results*"), operands=opnds("condition:scalar<i1>"), counted_results=True,
          regions=2, traits=frozenset({OPTIONAL_LAST_REGION, CONTROL_FLOW, NAMES_RESULTS}), constraints=("check:if_regions(results)",)),
    _cast("int_to_ptr", 0x33, "tile<i64>", PTR),
    OpDef("iota", 0x3A, _T, results=res("result:" + INT), traits=PURE, constraints=("check:iota(result)",), semantics="iota"),
    OpDef("itof", 0x3B, " $from $signedness $rounding_mode:round" + _CONV, results=res("to:" + ANYFLOAT),
          attrs=(SIGNED, _rounding()), operands=opnds("from:" + INT), traits=PURE, constraints=("same_shape(from,to)",)),
    OpDef("join_tokens", 0x3C, " $tokens" + _T, results=res("result:token"), operands=opnds("tokens*:token"),
          counted_results=True, total_operand_count=True, traits=PURE),
    OpDef("load_ptr_tko", 0x3D,
          " $memory_ordering_semantics{?memory_scope| $memory_scope} $source{?mask|, $mask}{?paddingValue|, $paddingValue}"
          "{?token| token=$token}{?optimization_hints| optimization_hints = $optimization_hints}"
          " : type($source){?mask|, type($mask)}{?paddingValue|, type($paddingValue)} -> type($result), type($result_token)",
          results=res("result:" + TILE, "result_token:token"), attrs=(ORDERING, SCOPE_OPT, HINTS_OPT),
          operands=opnds("source:" + PTR, "mask?:" + I1, "paddingValue?:" + NUMBER, "token?:token"),
          traits=frozenset({READS, NAMES_RESULTS}), result_names=("result", "result_token"),
          constraints=("same_shape(source,result,mask)", "same_type(result,paddingValue)",
                       "check:pointee(source,result)"), semantics="memory.read"),
    OpDef("load_view_tko", 0x3E, _LOAD_VIEW, results=res("tile:" + TILE, "result_token:token"),
          attrs=(ORDERING, SCOPE_OPT, HINTS_OPT,
                 attr("inbounds", "bool_array", since=V13_4, default=())),
          operands=opnds("view:view", "index*:" + INT, "token?:token"), counted_results=True,
          traits=frozenset({READS, NAMES_RESULTS}), result_names=("tile", "result_token"),
          constraints=("check:view_access(view,index,tile)",), semantics="memory.read"),
    _unary("log", 0x3F),
    _unary("log2", 0x40),
    OpDef("loop", 0x41, None, results=res("results*"), operands=opnds("initValues*"), counted_results=True,
          total_operand_count=True, regions=1, traits=frozenset({LOOP, NAMES_RESULTS}),
          constraints=("check:loop_region(initValues)",)),
    OpDef("make_partition_view", 0x42, " $tensor_view" + _T, results=res("result:partition_view"),
          operands=opnds("tensor_view:tensor_view"), traits=ADDR | {MAKES_VIEW, NAMES_RESULTS}, result_names=("pview",),
          constraints=("check:view_of(tensor_view,result)",)),
    OpDef("make_tensor_view", 0x43,
          " $base, shape = @dynlist($dynamicShape,shape), strides = @dynlist($dynamicStrides,strides)"
          " : @tvtype($base,$dynamicShape,$dynamicStrides,$result)",
          results=res("result:tensor_view"),
          operands=opnds("base:scalar<ptr>", "dynamicShape*:" + INDEX, "dynamicStrides*:" + INDEX),
          counted_results=True, traits=ADDR | {NAMES_RESULTS}, result_names=("tview",),
          constraints=("same_type(dynamicShape,dynamicStrides)",
                       "check:make_tensor_view(base,dynamicShape,dynamicStrides,result)")),
    OpDef("make_token", 0x44, _T, results=res("result:token"), traits=PURE),
    _binary("maxf", 0x45, _MINMAXF, [unit("propagate_nan"), FTZ], COMM, ty=FLOAT),
    _binary("maxi", 0x46, _SIGNED_BIN, [SIGNED], COMM, semantics="int.max"),
    _binary("minf", 0x47, _MINMAXF, [unit("propagate_nan"), FTZ], COMM, ty=FLOAT),
    _binary("mini", 0x48, _SIGNED_BIN, [SIGNED], COMM, semantics="int.min"),
    OpDef("mmaf", 0x49, " $lhs, $rhs, $acc{?fast_acc| fast_acc} : type($lhs), type($rhs), type($acc)@same($result,$acc)",
          results=res("result:tile<f16|f32|f64>"), attrs=(unit("fast_acc", since=V13_3),),
          operands=opnds("lhs:tile<f16|bf16|f32|f64|tf32|f8E4M3FN|f8E5M2>",
                         "rhs:tile<f16|bf16|f32|f64|tf32|f8E4M3FN|f8E5M2>", "acc:tile<f16|f32|f64>"),
          traits=frozenset({PURE_T, MMA}),
          constraints=("same_type(acc,result)", "same_element(lhs,rhs)", "same_rank(lhs,rhs,acc)",
                       "check:mma(lhs,rhs,acc)")),
    OpDef("mmai", 0x4A, " $lhs, $rhs, $acc $signedness_lhs $signedness_rhs : type($lhs), type($rhs), type($acc)@same($result,$acc)",
          results=res("result:tile<i32>"), attrs=(enum("signedness_lhs", "Signedness"), enum("signedness_rhs", "Signedness")),
          operands=opnds("lhs:tile<i8>", "rhs:tile<i8>", "acc:tile<i32>"), traits=frozenset({PURE_T, MMA}),
          constraints=("same_type(acc,result)", "same_element(lhs,rhs)", "same_rank(lhs,rhs,acc)",
                       "check:mma(lhs,rhs,acc)")),
    OpDef("module", 0x4B, None, attrs=(attr("sym_name", "str"), attr("producer", "str", optional=True, since=V13_3)),
          regions=1, traits=frozenset({TOP_LEVEL})),
    _binary("mulf", 0x4C, _FLOAT_BIN, [_rounding(), FTZ], COMM, ty=FLOAT, semantics="float.mul"),
    _binary("mulhii", 0x4D, " $x, $y" + _T, traits=COMM, operands=("x", "y")),
    _binary("muli", 0x4E, _INT_OVF, [OVERFLOW], COMM, semantics="int.mul"),
    _unary("negf", 0x4F, semantics="float.neg"),
    OpDef("negi", 0x50, " $source{?overflow| overflow$overflow:angle}" + _T, results=res("result:" + INT),
          attrs=(enum("overflow", "IntegerOverflow", since=V13_2, default="none"),), operands=opnds("source:" + INT),
          traits=PURE, constraints=SAME_UN, semantics="int.neg"),
    OpDef("offset", 0x51, " $ptr, $offset : type($ptr), type($offset) -> type($result)", results=res("result:" + PTR),
          operands=opnds("ptr:" + PTR, "offset:" + INT), traits=ADDR,
          constraints=("same_type(ptr,result)", "same_shape(ptr,offset)"), semantics="ptr.offset"),
    _binary("ori", 0x52, traits=COMM, semantics="int.or"),
    OpDef("permute", 0x53, " $source $permutation" + _CAST, results=res("result:" + TILE),
          attrs=(attr("permutation", "i32_array"),), operands=opnds("source:" + TILE), traits=ADDR,
          constraints=("same_element(source,result)", "same_rank(source,result)", "check:permute(source,result)")),
    _binary("fpowf", 0x54, " $source, $exponent" + _T, operands=("source", "exponent"), ty=FLOAT),
    OpDef("print_tko", 0x55,
          " $str{?args|, $args}{?token| token=$token}{?args| : type($args)} -> type($result_token)",
          results=res(("result_token:token", V13_2)), attrs=(attr("str", "str"),),
          operands=opnds("args*:" + TILE, ("token?:token", V13_2)), counted_results=True, traits=frozenset({EFFECT})),
    _cast("ptr_to_int", 0x56, PTR, "tile<i64>"),
    _cast("ptr_to_ptr", 0x57, PTR, PTR, traits=ADDR),
    OpDef("reduce", 0x58, " $operands dim=$dim identities=$identities : type($operands) -> type($results) @argregion($body)",
          results=res("results*:" + TILE), attrs=(attr("dim", "int"), attr("identities", "array")),
          operands=opnds("operands*:" + TILE), counted_results=True, total_operand_count=True, regions=1,
          traits=PURE | {COMBINER, NAMES_RESULTS}, result_names=("reduce",), region_arg_names=("reduce_lhs", "reduce_rhs"),
          constraints=("same_shape(operands)", "check:aggregate(operands,results)", "check:reduced(operands,results)")),
    _binary("remf", 0x59, ty=FLOAT),
    _binary("remi", 0x5A, _SIGNED_BIN, [SIGNED], semantics="int.rem"),
    OpDef("reshape", 0x5B, " $source" + _CAST, results=res("result:" + TILE), operands=opnds("source:" + TILE),
          traits=ADDR | {NAMES_RESULTS}, result_names=("reshape",),
          constraints=("same_element(source,result)", "check:same_size(source,result)"), semantics="splat"),
    _terminator("return", 0x5C, ("entry",), "return"),
    OpDef("rsqrt", 0x5D, " $source{?flush_to_zero| flush_to_zero}" + _T, results=res("result:" + FLOAT),
          attrs=(FTZ,), operands=opnds("source:" + FLOAT), traits=PURE, constraints=SAME_UN),
    OpDef("scan", 0x5E,
          " $operands dim=$dim reverse=$reverse identities=$identities : type($operands) -> type($results) @argregion($body)",
          results=res("results*:" + TILE), attrs=(attr("dim", "int"), attr("reverse", "bool"), attr("identities", "array")),
          operands=opnds("operands*:" + TILE), counted_results=True, total_operand_count=True, regions=1,
          traits=PURE | {COMBINER, NAMES_RESULTS}, constraints=("same_shape(operands)", "same_types(operands,results)", "check:aggregate(operands,results)")),
    OpDef("select", 0x5F, " $cond, $val_if_true, $val_if_false : type($cond), type($result)", results=res("result:" + TILE),
          operands=opnds("cond:" + I1, "val_if_true:" + TILE, "val_if_false:" + TILE), traits=PURE,
          constraints=("same_type(val_if_true,val_if_false,result)", "same_shape(cond,result)"), semantics="select"),
    _binary("shli", 0x60, _INT_OVF, [OVERFLOW], semantics="int.shl"),
    _binary("shri", 0x61, _SIGNED_BIN, [SIGNED], semantics="int.shr"),
    _unary("sin", 0x62),
    _unary("sinh", 0x63),
    OpDef("sqrt", 0x64, " $source $rounding_mode:round{?flush_to_zero| flush_to_zero}" + _T, results=res("result:" + FLOAT),
          attrs=(_rounding(), FTZ), operands=opnds("source:" + FLOAT), traits=PURE, constraints=SAME_UN),
    OpDef("store_ptr_tko", 0x65,
          " $memory_ordering_semantics{?memory_scope| $memory_scope} $destination, $value{?mask|, $mask}"
          "{?token| token=$token}{?optimization_hints| optimization_hints = $optimization_hints}"
          " : type($destination), type($value){?mask|, type($mask)} -> type($result_token)",
          results=res("result_token:token"), attrs=(ORDERING, SCOPE_OPT, HINTS_OPT),
          operands=opnds("destination:" + PTR, "value:" + TILE, "mask?:" + I1, "token?:token"),
          traits=frozenset({WRITES}),
          constraints=("same_shape(destination,value,mask)", "check:pointee(destination,value)")),
    OpDef("store_view_tko", 0x66, _STORE_VIEW, results=res("result_token:token"),
          attrs=(ORDERING, SCOPE_OPT, HINTS_OPT, attr("inbounds", "bool_array", since=V13_4, default=())),
          operands=opnds("tile:" + TILE, "view:view", "index*:" + INT, "token?:token"), counted_results=True,
          traits=frozenset({WRITES}), constraints=("check:view_access(view,index,tile)",)),
    _binary("subf", 0x67, _FLOAT_BIN, [_rounding(), FTZ], ty=FLOAT, semantics="float.sub"),
    _binary("subi", 0x68, _INT_OVF, [OVERFLOW], semantics="int.sub"),
    _unary("tan", 0x69),
    OpDef("tanh", 0x6A, " $source $rounding_mode:round" + _T, results=res("result:" + FLOAT),
          attrs=(_rounding("full", since=V13_2),), operands=opnds("source:" + FLOAT), traits=PURE,
          constraints=SAME_UN),
    OpDef("trunci", 0x6B, " $from{?overflow| overflow$overflow:angle}" + _CONV, results=res("to:tile<int4>"),
          attrs=(OVERFLOW,), operands=opnds("from:tile<int4>"), traits=PURE,
          constraints=("same_shape(from,to)", "check:wider(to,from)"), semantics="int.trunc"),
    _binary("xori", 0x6C, traits=COMM, semantics="int.xor"),
    # yield's operands are checked by its parent's rule (if_regions, aggregate)
    _terminator("yield", 0x6D, ("if", "reduce", "scan"), through_if=False),
    _binary("atan2", 0x6E, " $x, $y" + _T, since=V13_2, operands=("x", "y"), ty=FLOAT),
    _cast("pack", 0x6F, "tile<number|i4>", "tile<i8>", since=V13_3, constraints=("same_rank(source,result)",)),
    _cast("unpack", 0x70, "tile<i8>", "tile<number|i4>", since=V13_3, constraints=("same_rank(source,result)",)),
    OpDef("alloca", 0x71, " num_elem = $num_elem, alignment = $alignment{?global| global}" + _T, since=V13_3,
          results=res("result:scalar<ptr>"), attrs=(unit("global"), attr("num_elem", "int"), attr("alignment", "int")),
          traits=frozenset({EFFECT})),
    OpDef("mmaf_scaled", 0x72,
          " $lhs, $rhs, $acc, $lhs_scale, $rhs_scale : type($lhs), type($rhs), type($acc), type($lhs_scale), type($rhs_scale)"
          "@same($result,$acc)",
          since=V13_3, results=res("result:tile<f32>"),
          operands=opnds("lhs:tile<f8E4M3FN|f8E5M2|f4E2M1FN>", "rhs:tile<f8E4M3FN|f8E5M2|f4E2M1FN>", "acc:tile<f32>",
                         "lhs_scale:tile<f8E4M3FN|f8E8M0FNU>", "rhs_scale:tile<f8E4M3FN|f8E8M0FNU>"),
          traits=frozenset({PURE_T, MMA}),
          constraints=("same_type(acc,result)", "same_element(lhs,rhs)", "same_element(lhs_scale,rhs_scale)",
                       "same_rank(lhs,rhs,acc,lhs_scale,rhs_scale)", "check:mma(lhs,rhs,acc)")),
    OpDef("make_gather_scatter_view", 0x73, " $tensor_view" + _T, since=V13_3, results=res("result:gather_scatter_view"),
          operands=opnds("tensor_view:tensor_view"), traits=ADDR | {MAKES_VIEW, NAMES_RESULTS}, result_names=("gsview",),
          constraints=("check:view_of(tensor_view,result)",)),
    OpDef("make_strided_view", 0x74, " $tensor_view" + _T, since=V13_3, results=res("result:strided_view"),
          operands=opnds("tensor_view:tensor_view"), traits=ADDR | {MAKES_VIEW, NAMES_RESULTS}, result_names=("sview",),
          constraints=("check:view_of(tensor_view,result)",)),
    OpDef("atomic_red_view_tko", 0x75,
          " $memory_ordering_semantics $memory_scope $view[$index], $mode, $value{?token| token = $token}"
          "@inbounds($inbounds) : type($value), type($view), @itype($index) -> type($result_token)",
          since=V13_3, results=res("result_token:token"),
          attrs=(ORDERING, SCOPE, enum("mode", "AtomicRMWMode"), attr("inbounds", "bool_array", since=V13_5, default=())),
          operands=opnds("view:view", "index*:" + INT, "value:" + TILE, "token?:token"), counted_results=True,
          traits=frozenset({WRITES}), constraints=("check:view_access(view,index,value)",)),
    OpDef("insert", 0x76, " $source, $destination[$indices] : type($source), type($destination)@same($result,$destination)",
          since=V13_4,
          results=res("result:" + TILE), operands=opnds("source:" + TILE, "destination:" + TILE, "indices*:scalar<i32>"),
          counted_results=True, total_operand_count=True, traits=PURE,
          constraints=("same_type(destination,result)", "same_rank(source,destination)",
                       "same_element(source,destination)", "check:extract(destination,source,indices)")),
    OpDef("gdc_launch_dependents_tko", 0x77, "{?token| token = $token} -> type($result_token)", since=V13_4,
          results=res("result_token:token"), operands=opnds("token?:token"), traits=frozenset({EFFECT})),
    OpDef("gdc_wait_tko", 0x78, "{?token| token = $token} -> type($result_token)", since=V13_4,
          results=res("result_token:token"), operands=opnds("token?:token"), traits=frozenset({EFFECT})),
    OpDef("fpowi", 0x79, " $source, $exponent : type($source), type($exponent)@same($result,$source)", since=V13_4,
          results=res("result:" + FLOAT), operands=opnds("source:" + FLOAT, "exponent:" + INT), traits=PURE,
          constraints=("same_type(source,result)", "same_shape(source,exponent)")),
    OpDef("memory_fence_alias_tko", 0x7A, " $token -> type($result_token)", since=V13_4,
          results=res("result_token:token"), operands=opnds("token:token"), traits=frozenset({EFFECT})),
    OpDef("multimem_load_reduce_view_tko", 0x7B, None, since=V13_5,
          results=res("reduced_values:" + TILE, "result_token:token"),
          attrs=(ORDERING, SCOPE_OPT, enum("reduction", "MultimemReductionKind", default="add"), attr("inbounds", "bool_array")),
          operands=opnds("view:view", "index*:" + INT, "token?:token"), counted_results=True,
          traits=frozenset({READS}), result_names=("reduced_values", "result_token"),
          constraints=("check:view_access(view,index,reduced_values)",)),
    OpDef("multimem_reduce_view_tko", 0x7C, None, since=V13_5, results=res("result_token:token"),
          attrs=(ORDERING, SCOPE, enum("reduction", "MultimemReductionKind", default="add"), attr("inbounds", "bool_array")),
          operands=opnds("view:view", "tile:" + TILE, "index*:" + INT, "token?:token"), counted_results=True,
          traits=frozenset({WRITES}), constraints=("check:view_access(view,index,tile)",)),
    OpDef("multimem_store_view_tko", 0x7D, None, since=V13_5, results=res("result_token:token"),
          attrs=(ORDERING, SCOPE_OPT, attr("inbounds", "bool_array")),
          operands=opnds("view:view", "tile:" + TILE, "index*:" + INT, "token?:token"), counted_results=True,
          traits=frozenset({WRITES}), constraints=("check:view_access(view,index,tile)",)),
)

OPS_BY_NAME: Dict[str, OpDef] = {o.name: o for o in OPS}
OPS_BY_OPCODE: Dict[int, OpDef] = {o.opcode: o for o in OPS}


def _names_by_trait() -> Dict[str, FrozenSet[str]]:
    by_trait: Dict[str, List[str]] = {}
    for o in OPS:
        for t in o.traits:
            by_trait.setdefault(t, []).append(o.name)
    return {t: frozenset(names) for t, names in by_trait.items()}


#: trait -> the names of the ops whose row has it (``traits.ops_with`` reads it: some twenty
#: modules derive their op sets at import, one walk of the table instead of one each).
OPS_BY_TRAIT: Dict[str, FrozenSet[str]] = _names_by_trait()
# Accepted spellings in text input (cuTile/MLIR older names).
ALIASES = {"pow": "fpowf", "print": "print_tko"}


def op_def(name: str) -> OpDef:
    name = name[len("cuda_tile."):] if name.startswith("cuda_tile.") else name
    return OPS_BY_NAME[ALIASES.get(name, name)]


def ops_for_version(version: Version) -> Dict[int, OpDef]:
    """Opcode -> op for the ops that exist in ``version``."""
    return {o.opcode: o for o in OPS if o.since <= version}
