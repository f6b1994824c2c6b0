"""Summary of one kernel: what it computes, in plain JSON-ready dicts.

Every list item carries ``op_id`` (to link into a printed module) and ``text``, one line a
renderer can show without knowing the item's fields.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List

from ..dialect.access import MEMORY_ACCESS
from ..dialect.ops import op_def
from ..dialect.traits import COMBINER, CONTROL_FLOW, MMA, ops_with
from ..ir import Function, Module, Operation
from ..ir import types as T
from .format import attr_json, attr_text, hints_json, shape_text, type_text
from .walk import FunctionIndex, index_function, operand_named

# op sets from the op table's traits (dialect/traits.py, dialect/access.py)
MMA_OPS = ops_with(MMA)
COMBINER_OPS = ops_with(COMBINER)
CONTROL_FLOW_OPS = ops_with(CONTROL_FLOW)
_LOOP_OPS = CONTROL_FLOW_OPS | {"for"}  # what ``_loops`` lists
# Attributes that are the access itself, not a property worth listing again.
_ACCESS_ATTRS = {"memory_ordering_semantics", "memory_scope", "optimization_hints"}


def summarize_module(module: Module) -> Dict[str, Any]:
    """The summary of every function of a module (a "kernel" is usually its one entry)."""
    return {
        "version": module.version_str,
        "source": module.source,
        "producer": module.producer,
        "functions": [summarize_function(f, i) for i, f in enumerate(module.functions)],
        "globals": [{"name": g.name, "value": attr_text(g.value), "alignment": g.alignment}
                    for g in module.globals],
    }


def summarize_function(fn: Function, function_index: int = 0) -> Dict[str, Any]:
    idx = index_function(fn, function_index)
    histogram = Counter([op.name for _, op, _ in idx.ops])
    present = histogram.keys()
    return {
        "name": fn.name,
        "op_id": f"f{function_index}",
        "entry": fn.is_entry,
        "signature": _signature(fn),
        "hints": hints_json(fn.hints),
        "tile_shapes": _tile_shapes(idx),
        "memory": _memory(idx),
        # (a section whose ops the kernel lacks is empty: no walk over the ops for it)
        "reductions": _reductions(idx) if not present.isdisjoint(COMBINER_OPS) else [],
        "mma": _mma(idx) if not present.isdisjoint(MMA_OPS) else [],
        "loops": _loops(idx) if not present.isdisjoint(_LOOP_OPS) else [],
        "assumptions": _assumptions(idx) if "assume" in present else [],
        "op_histogram": dict(sorted(histogram.items())),
        "num_ops": sum(histogram.values()),
    }


def _signature(fn: Function) -> Dict[str, Any]:
    args = [type_text(a.type) for a in fn.arguments]
    results = [type_text(t) for t in fn.result_types]
    text = f"@{fn.name}({', '.join(args)})" + (f" -> ({', '.join(results)})" if results else "")
    return {"arguments": args, "results": results, "text": text}


def _tile_shapes(idx: FunctionIndex) -> List[str]:
    """Distinct non-scalar tile shapes any op produces or takes (``128x64xf16``)."""
    # Distinct type objects first (by identity: a kernel shares a few dozen), then their text.
    # (comprehensions: a loop statement per value cost twice as much)
    ops = [op for _, op, _ in idx.ops]
    types: Dict[int, Any] = {id(v.type): v.type for op in ops for v in op.results}
    types.update({id(v.type): v.type for op in ops for v in op.operands})
    types.update({id(a.type): a.type for op in ops if op.regions for region in op.regions
                  for block in region.blocks for a in block.arguments})
    shapes = {(t.shape, shape_text(t)) for t in types.values() if isinstance(t, T.TileType) and t.shape}
    return [text for _, text in sorted(shapes, key=lambda s: (len(s[0]), s[0], s[1]))]


def _token_source(idx: FunctionIndex, op: Operation) -> str:
    token = operand_named(op, "token")
    if not token:
        return "none"
    return _token_text(idx, token[0], 0)


def _token_text(idx: FunctionIndex, v, depth: int) -> str:
    producer = idx.producer(v)
    if producer is None:
        d = idx.definition(v)
        return idx.expr(v) if d is None or d.kind == "arg" else f"{d.op_id}.arg{d.index}"
    if producer.name == "make_token":
        return "entry"
    if producer.name == "join_tokens" and depth < 4:
        return "join(" + ", ".join(_token_text(idx, x, depth + 1) for x in producer.operands) + ")"
    return idx.op_id(producer)


def _view_info(t: Any) -> Dict[str, Any]:
    info: Dict[str, Any] = {"type": type_text(t)}
    if isinstance(t, (T.PartitionViewType, T.StridedViewType, T.GatherScatterViewType)):
        info["view_kind"] = {T.PartitionViewType: "partition_view", T.StridedViewType: "strided_view",
                             T.GatherScatterViewType: "gather_scatter_view"}[type(t)]
        info["tile_shape"] = list(t.tile_shape)
        info["padding"] = t.padding
        info["element"] = type_text(t.tensor_view.element)
        info["tensor_view"] = type_text(t.tensor_view)
        if hasattr(t, "dim_map"):
            info["dim_map"] = list(t.dim_map)
        if isinstance(t, T.StridedViewType):
            info["traversal_strides"] = list(t.traversal_strides)
        if isinstance(t, T.GatherScatterViewType):
            info["sparse_dim"] = t.sparse_dim
    return info


def _memory(idx: FunctionIndex) -> List[Dict[str, Any]]:
    """Memory ops grouped by the view (or pointer base) they touch, in program order."""
    groups: Dict[tuple, Dict[str, Any]] = {}
    order = 0
    for op_id, op, depth in [entry for entry in idx.ops if entry[1].name in MEMORY_ACCESS]:
        how = MEMORY_ACCESS[op.name]
        if how.through == "view":
            view = operand_named(op, how.address)
            if not view:
                continue
            label = idx.view_label(view[0])
            info = _view_info(view[0].type)
            key = ("view", label, info["type"])
            index = "[" + ", ".join(idx.expr(v) for v in operand_named(op, "index")) + "]"
            kind = how.kind
        else:
            ptr = operand_named(op, how.address)
            if not ptr:
                continue
            label = idx.pointer_base(ptr[0])
            info = {"type": type_text(ptr[0].type)}
            key = ("pointer", label, info["type"])
            index = idx.expr(ptr[0])
            kind = how.kind
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"view": label, "access": key[0], **info, "loads": 0, "stores": 0,
                                   "accesses": []}
        if kind.startswith("load") or kind == "multimem_load_reduce":
            group["loads"] += 1
        else:
            group["stores"] += 1
        ordering = op.attributes.get("memory_ordering_semantics")
        scope = op.attributes.get("memory_scope")
        hints = op.attributes.get("optimization_hints")
        tile = _access_tile(op, kind)
        other = {k: attr_json(v) for k, v in op.attributes.items()
                 if k not in _ACCESS_ATTRS and not _is_default(op, k, v)}
        access: Dict[str, Any] = {
            "op_id": op_id, "op": op.name, "kind": kind, "order": order, "loop_depth": depth,
            "index": index, "tile": tile, "ordering": attr_text(ordering) if ordering is not None else None,
            "scope": attr_text(scope) if scope is not None else None,
            "hints": hints_json(hints), "token": _token_source(idx, op), "attributes": other,
        }
        masks = operand_named(op, "mask")
        if masks:
            access["mask"] = idx.expr(masks[0])
        access["text"] = _access_text(access)
        group["accesses"].append(access)
        order += 1
    for group in groups.values():
        group["text"] = _group_text(group)
    return list(groups.values())


def _is_default(op: Operation, name: str, value: Any) -> bool:
    """True when an attribute says what its absence would (so 13.3 and 13.4 files read alike)."""
    if isinstance(value, (tuple, list)) and value and all(x is False for x in value):
        return True  # inbounds=[false, ...]: every dimension bounds-checked, as when absent
    try:
        default = op_def(op.name).attr(name).default
    except KeyError:
        return False
    return default is not None and (value == default or getattr(value, "name", None) == default)


def _access_tile(op: Operation, kind: str) -> str | None:
    access = MEMORY_ACCESS.get(op.name)
    if access is not None and access.returns_tile:
        v = op.results[0] if op.results else None
    else:
        named = (operand_named(op, "tile") or operand_named(op, "value"))
        v = named[0] if named else None
    return shape_text(v.type) if v is not None and isinstance(v.type, T.TileType) else None


def _access_text(a: Dict[str, Any]) -> str:
    parts = [a["kind"], a["index"]]
    if a.get("tile"):
        parts.append(a["tile"])
    sem = a["ordering"] or ""
    if a["scope"]:
        sem += f" {a['scope']}"
    if sem:
        parts.append(sem)
    if a["hints"]:
        parts.append(f"hints={_compact(a['hints'])}")
    extra = {k: v for k, v in a["attributes"].items() if v not in (None, (), [], False)}
    for k, v in extra.items():
        parts.append(f"{k}={_compact(v)}")
    if "mask" in a:
        parts.append(f"mask={a['mask']}")
    parts.append(f"token<-{a['token']}")
    if a["loop_depth"]:
        parts.append(f"in loop depth {a['loop_depth']}")
    return " ".join(parts)


def _group_text(g: Dict[str, Any]) -> str:
    if g["access"] == "pointer":
        return f"pointers from {g['view']} ({g['type']}): {g['loads']} loads, {g['stores']} stores"
    details = [f"tile=({'x'.join(map(str, g.get('tile_shape', [])))})"]
    if g.get("padding"):
        details.append(f"padding={g['padding']}")
    dim_map = g.get("dim_map")
    if dim_map is not None and dim_map != list(range(len(dim_map))):
        details.append(f"dim_map={dim_map}")
    if g.get("traversal_strides"):
        details.append(f"traversal_strides={g['traversal_strides']}")
    if g.get("sparse_dim") is not None:
        details.append(f"sparse_dim={g['sparse_dim']}")
    return (f"{g.get('view_kind', 'view')} of {g['view']} {g.get('element', '')} "
            f"{' '.join(details)}: {g['loads']} loads, {g['stores']} stores")


def _compact(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_compact(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_compact(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _reductions(idx: FunctionIndex) -> List[Dict[str, Any]]:
    out = []
    for op_id, op, _ in idx.ops:
        if op.name not in COMBINER_OPS:
            continue
        body = [o for r in op.regions for b in r.blocks for o in b.operations]
        combiner = [o.name for o in body if o.name != "yield"]
        item = {
            "op_id": op_id, "op": op.name,
            "dim": attr_json(op.attributes.get("dim")),
            "reverse": attr_json(op.attributes.get("reverse")) if op.name == "scan" else None,
            "identities": [attr_text(x) for x in _as_list(op.attributes.get("identities"))],
            "combiner": combiner,
            "inputs": [type_text(v.type) for v in op.operands],
            "results": [type_text(v.type) for v in op.results],
        }
        rev = f" reverse={attr_text(item['reverse'])}" if op.name == "scan" else ""
        item["text"] = (f"{op.name} dim={item['dim']}{rev} identities=[{', '.join(item['identities'])}] "
                        f"combiner={'+'.join(combiner) or 'none'}: "
                        f"{', '.join(_shape_of(v) for v in op.operands)} -> "
                        f"{', '.join(_shape_of(v) for v in op.results)}")
        out.append(item)
    return out


def _as_list(v) -> list:
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v]


def _shape_of(v) -> str:
    return shape_text(v.type) if isinstance(v.type, T.TileType) else type_text(v.type)


def _mma(idx: FunctionIndex) -> List[Dict[str, Any]]:
    out = []
    for op_id, op, depth in idx.ops:
        if op.name not in MMA_OPS or len(op.operands) < 3:
            continue
        lhs, rhs, acc = op.operands[:3]
        lt, rt, at = lhs.type, rhs.type, acc.type
        item: Dict[str, Any] = {"op_id": op_id, "op": op.name, "loop_depth": depth}
        if isinstance(lt, T.TileType) and isinstance(rt, T.TileType) and isinstance(at, T.TileType):
            batch = lt.shape[:-2] if len(lt.shape) > 2 else ()
            item.update({
                "m": lt.shape[-2], "k": lt.shape[-1], "n": rt.shape[-1], "batch": list(batch) or None,
                "lhs_dtype": type_text(lt.element), "rhs_dtype": type_text(rt.element),
                "acc_dtype": type_text(at.element),
            })
        item["accumulator"] = idx.expr(acc)
        item["attributes"] = {k: attr_json(v) for k, v in op.attributes.items()}
        if "m" in item:
            b = f"{'x'.join(map(str, item['batch']))}x" if item["batch"] else ""
            item["text"] = (f"{op.name} {b}{item['m']}x{item['k']}·{item['k']}x{item['n']} "
                            f"{item['lhs_dtype']}·{item['rhs_dtype']} -> {item['acc_dtype']} "
                            f"acc={item['accumulator']}")
        else:
            item["text"] = f"{op.name} {type_text(lt)}, {type_text(rt)}, {type_text(at)}"
        extra = {k: v for k, v in item["attributes"].items() if v not in (None, False)}
        if extra:
            item["text"] += " " + " ".join(f"{k}={_compact(v)}" for k, v in extra.items())
        out.append(item)
    return out


def _loops(idx: FunctionIndex) -> List[Dict[str, Any]]:
    out = []
    for op_id, op, depth in idx.ops:
        item: Dict[str, Any]
        if op.name == "for":
            lb, ub, step = (operand_named(op, n) for n in ("lowerBound", "upperBound", "step"))
            inits = operand_named(op, "initValues")
            n = idx.loop_ordinal.get(id(op), 0)
            item = {
                "op_id": op_id, "op": "for", "depth": depth, "induction": f"loopIdx{n or ''}",
                "lower": idx.expr(lb[0]) if lb else None, "upper": idx.expr(ub[0]) if ub else None,
                "step": idx.expr(step[0]) if step else None,
                "iter_values": [f"{idx.expr(v)} : {type_text(v.type)}" for v in inits],
                "unsigned_cmp": bool(op.attributes.get("unsignedCmp", False)),
                "body_ops": sum(1 for _ in op.walk()) - 1,
            }
            item["text"] = (f"for {item['induction']} in [{item['lower']}, {item['upper']}) step {item['step']}"
                            f"{' unsigned' if item['unsigned_cmp'] else ''}"
                            f" iter_values=[{', '.join(item['iter_values'])}] body={item['body_ops']} ops")
        elif op.name in CONTROL_FLOW_OPS:  # loop, if (for is above)
            item = {"op_id": op_id, "op": op.name, "depth": depth,
                    "iter_values": [f"{idx.expr(v)} : {type_text(v.type)}" for v in op.operands]
                    if op.name == "loop" else [],
                    "body_ops": sum(1 for _ in op.walk()) - 1}
            if op.name == "if":
                item["condition"] = idx.expr(op.operands[0]) if op.operands else None
                item["text"] = f"if {item['condition']} ({item['body_ops']} ops in branches)"
            else:
                item["text"] = (f"loop iter_values=[{', '.join(item['iter_values'])}] "
                                f"body={item['body_ops']} ops")
        else:
            continue
        out.append(item)
    return out


def _assumptions(idx: FunctionIndex) -> List[Dict[str, Any]]:
    out = []
    for op_id, op, _ in idx.ops:
        if op.name != "assume" or not op.operands:
            continue
        pred = attr_text(op.attributes.get("predicate"))
        value = idx.expr(op.operands[0])
        out.append({"op_id": op_id, "value": value, "predicate": pred, "text": f"{value}: {pred}"})
    return out
