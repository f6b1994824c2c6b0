"""Synthetic Tile IR kernels of any size, built as IR and encoded by our table-driven writer.

``synth_module(n_ops, constant=0.5)``: one entry that loads a 128-wide f32 tile, runs a long
elementwise dataflow (add/mul/max/sub/fma with periodic constants and cross-links), and stores
it. Changing ``constant`` changes exactly one constant op (the pair used by the diff benchmark).
"""
from __future__ import annotations

import struct

from tileir_diff.ir import (Block, Bounded, DenseElements, DivBy, EnumValue, Function, Module, Operation,
                            OptimizationHints, PartitionViewType, PointerType, ScalarType, TensorViewType,
                            TileType, TokenType, Value)

F32 = ScalarType("f32")
I32 = TileType((), ScalarType("i32"))
TILE = TileType((128,), F32)


def synth_module(n_ops: int, constant: float = 0.5, *, version=(13, 3)) -> Module:
    vid = iter(range(10**9))

    def val(t):
        return Value(next(vid), t)

    ptr, n = val(TileType((), PointerType(F32))), val(I32)
    args = (ptr, n)
    ops = []

    def emit(name, operands=(), results=(), attrs=None, segments=None):
        ops.append(Operation(name, tuple(operands), tuple(segments if segments is not None else [1] * len(operands)),
                             tuple(results), attrs or {}))
        return results[0] if len(results) == 1 else results

    rn = {"rounding_mode": EnumValue("RoundingMode", "nearest_even")}
    tok = emit("make_token", results=[val(TokenType())])
    p = emit("assume", [ptr], [val(ptr.type)], {"predicate": DivBy(16)})
    nn = emit("assume", [n], [val(I32)], {"predicate": Bounded(0, None)})
    tv_t = TensorViewType(F32, (None,), (1,))
    tv = emit("make_tensor_view", [p, nn], [val(tv_t)], segments=[1, 1, 0])
    pv_t = PartitionViewType((128,), tv_t, (0,), "zero")
    bid = emit("get_tile_block_id", results=[val(I32), val(I32), val(I32)])[0]
    pv = emit("make_partition_view", [tv], [val(pv_t)])
    ordering = {"memory_ordering_semantics": EnumValue("MemoryOrderingSemantics", "weak")}
    x, _ = emit("load_view_tko", [pv, bid, tok], [val(TILE), val(TokenType())], dict(ordering), [1, 1, 1])
    live = [x]
    kinds = ("addf", "mulf", "maxf", "subf", "fma")
    made = len(ops)
    i = 0
    while len(ops) - made < n_ops - 3:
        kind = kinds[i % len(kinds)]
        a = live[-1]
        b = live[-1 - (i * 7) % len(live)]
        if i % 10 == 0:
            value = constant if i == 0 else 1.0 + i / 1000.0
            data = struct.pack("<f", value)
            b = emit("constant", results=[val(TILE)], attrs={"value": DenseElements(TILE, data)})
        if kind == "fma":
            r = emit("fma", [a, b, live[0]], [val(TILE)], dict(rn))
        elif kind == "maxf":
            r = emit("maxf", [a, b], [val(TILE)])
        else:
            r = emit(kind, [a, b], [val(TILE)], dict(rn))
        live.append(r)
        i += 1
    emit("store_view_tko", [live[-1], pv, bid, tok], [val(TokenType())], dict(ordering), [1, 1, 1, 1])
    emit("return", segments=[0])
    fn = Function("synth", args, (), Block(args, tuple(ops)),
                  hints=OptimizationHints((("default", __import__("tileir_diff").ir.DictAttr(())),)))
    return Module(version, (fn,))


def synth_bytes(n_ops: int, constant: float = 0.5) -> bytes:
    from tileir_diff.bytecode.writer import write_bytecode
    return write_bytecode(synth_module(n_ops, constant))
