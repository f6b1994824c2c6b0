"""Structural equality of two modules, value names aside: same ops in order, same attributes,
types and dataflow. Returns human-readable mismatches (empty list = equal)."""
from __future__ import annotations

from typing import Dict, List

from .core import Block, Function, Module, Operation


def module_mismatches(left: Module, right: Module, *, limit: int = 20,
                      compare_locations: bool = False) -> List[str]:
    out: List[str] = []
    if len(left.functions) != len(right.functions):
        out.append(f"function count {len(left.functions)} != {len(right.functions)}")
    for lf, rf in zip(left.functions, right.functions):
        _function(lf, rf, out, limit, compare_locations)
        if len(out) >= limit:
            break
    if left.globals != right.globals:
        out.append("globals differ")
    return out[:limit]


def _function(lf: Function, rf: Function, out: List[str], limit: int, locs: bool) -> None:
    where = f"@{lf.name}"
    if lf.name != rf.name:
        out.append(f"{where}: name {lf.name!r} != {rf.name!r}")
    if lf.type != rf.type:
        out.append(f"{where}: signature {lf.type} != {rf.type}")
    if lf.is_entry != rf.is_entry:
        out.append(f"{where}: entry flag differs")
    if lf.hints != rf.hints:
        out.append(f"{where}: hints {lf.hints} != {rf.hints}")
    vmap: Dict[int, int] = {}
    for a, b in zip(lf.arguments, rf.arguments):
        vmap[a.vid] = b.vid
    _block(lf.body, rf.body, vmap, out, where, limit, locs)


def _block(lb: Block, rb: Block, vmap: Dict[int, int], out: List[str], where: str, limit: int,
           locs: bool) -> None:
    _pair_values("block argument", lb.arguments, rb.arguments, vmap, out, where)
    if len(lb.operations) != len(rb.operations):
        out.append(f"{where}: op count {len(lb.operations)} != {len(rb.operations)}")
    for i, (lo, ro) in enumerate(zip(lb.operations, rb.operations)):
        if len(out) >= limit:
            return
        _op(lo, ro, vmap, out, f"{where}/op{i}({lo.name})", limit, locs)


def _pair_values(what: str, left, right, vmap: Dict[int, int], out: List[str], where: str) -> None:
    """Values defined at the same place on both sides (block arguments, results): same count and
    types; each left value maps to its right one."""
    if len(left) != len(right):
        out.append(f"{where}: {what} count {len(left)} != {len(right)}")
    for a, b in zip(left, right):
        if a.type != b.type:
            out.append(f"{where}: {what} type {a.type} != {b.type}")
        vmap[a.vid] = b.vid


def _op(lo: Operation, ro: Operation, vmap: Dict[int, int], out: List[str], where: str, limit: int,
        locs: bool) -> None:
    if lo.name != ro.name:
        out.append(f"{where}: op {lo.name} != {ro.name}")
        return
    if dict(lo.attributes) != dict(ro.attributes):
        keys = sorted(set(lo.attributes) | set(ro.attributes))
        diffs = [f"{k}: {lo.attributes.get(k)!r} != {ro.attributes.get(k)!r}" for k in keys
                 if lo.attributes.get(k) != ro.attributes.get(k)]
        out.append(f"{where}: attributes differ: {'; '.join(diffs)}")
    if lo.segments != ro.segments:
        out.append(f"{where}: operand segments {lo.segments} != {ro.segments}")
    if len(lo.operands) != len(ro.operands):
        out.append(f"{where}: operand count {len(lo.operands)} != {len(ro.operands)}")
    for k, (a, b) in enumerate(zip(lo.operands, ro.operands)):
        if vmap.get(a.vid) != b.vid:
            out.append(f"{where}: operand {k} comes from a different value")
        if a.type != b.type:
            out.append(f"{where}: operand {k} type {a.type} != {b.type}")
    _pair_values("result", lo.results, ro.results, vmap, out, where)
    if locs and lo.location != ro.location:
        out.append(f"{where}: location {lo.location} != {ro.location}")
    if len(lo.regions) != len(ro.regions):
        out.append(f"{where}: region count differs")
    for r, (lr, rr) in enumerate(zip(lo.regions, ro.regions)):
        for lb, rb in zip(lr.blocks, rr.blocks):
            _block(lb, rb, vmap, out, f"{where}/r{r}", limit, locs)
