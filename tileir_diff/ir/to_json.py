"""The IR as JSON-ready data (``tileir-diff dump --format json``): every op with its operands,
results, attributes with real values, regions and locations. Values are named ``%v<vid>``."""
from __future__ import annotations

from typing import Any, Dict

from . import types as T
from .attributes import (Bounded, DenseElements, DictAttr, DivBy, EnumValue, FloatAttr, IntegerAttr,
                         OptimizationHints, SameElements)
from .core import Block, Function, Module, Operation


def type_to_json(t: T.Type) -> Any:
    if isinstance(t, T.ScalarType):
        return t.name
    if isinstance(t, T.TokenType):
        return {"kind": "token"}
    if isinstance(t, T.PointerType):
        return {"kind": "ptr", "pointee": type_to_json(t.pointee)}
    if isinstance(t, T.TileType):
        return {"kind": "tile", "shape": list(t.shape), "element": type_to_json(t.element)}
    if isinstance(t, T.TensorViewType):
        return {"kind": "tensor_view", "element": type_to_json(t.element), "shape": list(t.shape),
                "strides": list(t.strides)}
    if isinstance(t, T.PartitionViewType):
        return {"kind": "partition_view", "tile_shape": list(t.tile_shape), "dim_map": list(t.dim_map),
                "padding": t.padding, "tensor_view": type_to_json(t.tensor_view)}
    if isinstance(t, T.StridedViewType):
        return {"kind": "strided_view", "tile_shape": list(t.tile_shape),
                "traversal_strides": list(t.traversal_strides), "dim_map": list(t.dim_map),
                "padding": t.padding, "tensor_view": type_to_json(t.tensor_view)}
    if isinstance(t, T.GatherScatterViewType):
        return {"kind": "gather_scatter_view", "tile_shape": list(t.tile_shape), "sparse_dim": t.sparse_dim,
                "padding": t.padding, "tensor_view": type_to_json(t.tensor_view)}
    if isinstance(t, T.FunctionType):
        return {"kind": "function", "inputs": [type_to_json(x) for x in t.inputs],
                "results": [type_to_json(x) for x in t.results]}
    return str(t)


def attr_to_json(a: Any) -> Any:
    if isinstance(a, EnumValue):
        return a.name
    if isinstance(a, (bool, int, str)) or a is None:
        return a
    if isinstance(a, IntegerAttr):
        return {"int": a.value, "type": type_to_json(a.type)}
    if isinstance(a, FloatAttr):
        v = a.value
        return {"float": v if v == v and abs(v) != float("inf") else repr(v), "bits": hex(a.bits),
                "type": type_to_json(a.type)}
    if isinstance(a, DenseElements):
        # Only the stored elements (one for a splat), at most 4096: never the declared shape.
        from .attributes import decode_elements
        out = {"dense": type_to_json(a.type), "splat": a.is_splat}
        vals = decode_elements(a.data, a.element)[:1 if a.is_splat else 4096]
        out["values"] = [x if x == x else repr(x) for x in vals.tolist()]
        return out
    if isinstance(a, DictAttr):
        return {k: attr_to_json(v) for k, v in a.items}
    if isinstance(a, OptimizationHints):
        return {"hints": {k: attr_to_json(v) for k, v in a.by_arch}}
    if isinstance(a, DivBy):
        return {"div_by": a.divisor, "every": a.every, "along": a.along}
    if isinstance(a, Bounded):
        return {"bounded": [a.lb, a.ub]}
    if isinstance(a, SameElements):
        return {"same_elements": [attr_to_json(x) for x in a.values]}
    if isinstance(a, tuple):
        return [attr_to_json(x) for x in a]
    if isinstance(a, T.Type):
        return {"type": type_to_json(a)}
    return repr(a)


def _op(op: Operation) -> Dict[str, Any]:
    d: Dict[str, Any] = {"op": op.name,
                         "operands": [f"%v{v.vid}" for v in op.operands],
                         "results": [{"id": f"%v{v.vid}", "type": type_to_json(v.type)} for v in op.results]}
    if op.segments and len(op.segments) > 1:
        d["segments"] = list(op.segments)
    if op.attributes:
        d["attributes"] = {k: attr_to_json(v) for k, v in op.attributes.items()}
    if op.regions:
        d["regions"] = [[_block(b) for b in r.blocks] for r in op.regions]
    if op.location:
        d["location"] = str(op.location)
    return d


def _block(b: Block) -> Dict[str, Any]:
    return {"arguments": [{"id": f"%v{v.vid}", "type": type_to_json(v.type)} for v in b.arguments],
            "ops": [_op(o) for o in b.operations]}


def _function(f: Function) -> Dict[str, Any]:
    d = {"name": f.name, "entry": f.is_entry,
         "arguments": [{"id": f"%v{v.vid}", "type": type_to_json(v.type)} for v in f.arguments],
         "results": [type_to_json(t) for t in f.result_types],
         "hints": attr_to_json(f.hints) if f.hints is not None else None,
         "body": _block(f.body)["ops"]}
    if f.location:
        d["location"] = str(f.location)
    return d


def module_to_json(m: Module) -> Dict[str, Any]:
    return {"format": "tileir_diff.ir", "format_version": 1, "bytecode_version": m.version_str,
            "source": m.source, "producer": m.producer,
            "globals": [{"name": g.name, "value": attr_to_json(g.value), "alignment": g.alignment,
                         "visibility": g.visibility, "constant": g.constant} for g in m.globals],
            "functions": [_function(f) for f in m.functions]}
