"""Invariance transformations: rewrites that must NOT change a diff's verdict from
identical/equivalent. Enumerated per module like the mutation operators (``TRANSFORMS``:
kind -> fn(module) -> Iterable[Transformation]).

Each is meaning-preserving by construction; the engine also runs the interpreter on it and
drops one that diverges (a bug here, not in the diff).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from tileir_diff.dialect import OPS_BY_NAME, SUPPORTED_VERSIONS
from tileir_diff.ir import Block, Function, Module, Operation, Region, TileType, Value
from tileir_diff.ir.types import ScalarType

from .ir_tools import (MEMORY_OPS, READS, TERMINATORS, Fresh, block_at, free_values, is_effect, is_pure, memory_root,
                       op_at, op_id, producers, uses, walk_sites, with_op, with_ops)
from .operators import const_op


@dataclass
class Transformation:
    kind: str
    site: str
    variant: str
    cls: str
    desc: str
    build: Callable[[], Module]
    version: Optional[Tuple[int, int]] = None   # write at this bytecode version (reencode)

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.site}|{self.variant}"

    @property
    def klass(self) -> str:
        return f"{self.kind}:{self.cls}"


def _rng(*parts) -> random.Random:
    import zlib
    return random.Random(zlib.crc32("/".join(map(str, parts)).encode()))


# --- renaming -------------------------------------------------------------------------------------

def renumber(module: Module, rng: random.Random) -> Module:
    def per_function(f: Function) -> Function:
        vids = [a.vid for a in f.arguments]
        for op in f.walk():
            vids.extend(r.vid for r in op.results)
            for reg in op.regions:
                for b in reg.blocks:
                    vids.extend(a.vid for a in b.arguments)
        new_ids = list(range(5000, 5000 + len(vids)))
        rng.shuffle(new_ids)
        table = dict(zip(vids, new_ids))

        def v(x: Value) -> Value:
            return Value(table.get(x.vid, x.vid), x.type)

        def block(b: Block) -> Block:
            return Block(tuple(map(v, b.arguments)), tuple(
                op.replace(operands=tuple(map(v, op.operands)), results=tuple(map(v, op.results)),
                           regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions))
                for op in b.operations))
        return replace(f, arguments=tuple(map(v, f.arguments)), body=block(f.body))
    return replace(module, functions=tuple(per_function(f) for f in module.functions))


def enumerate_rename(module: Module, seeds: int = 3) -> Iterator[Transformation]:
    for s in range(seeds):
        yield Transformation("rename", "module", f"seed{s}", "renumber",
                             f"every value renumbered (shuffled ids, seed {s})",
                             lambda s=s: renumber(module, _rng("rename", s)))


# --- reordering -------------------------------------------------------------------------------------

def _roots(module: Module) -> Dict[int, Optional[int]]:
    out = {}
    for f in module.functions:
        prod = producers(f)
        for op in f.walk():
            for inner in op.walk():
                if inner.name in MEMORY_OPS:
                    out[id(inner)] = memory_root(inner, prod, f)
    return out


def _effects(op: Operation) -> List[Operation]:
    return [x for x in op.walk() if x.name in MEMORY_OPS or (is_effect(x) and not x.regions
                                                             and x.name not in TERMINATORS)]


def _must_keep_order(a: Operation, b: Operation, roots) -> bool:
    """Two ops of one block whose relative order must stay: any effect other than memory
    accesses (print, assert, fences, terminators), or two accesses (possibly nested in
    regions) of which one writes and whose arrays may be the same."""
    ea, eb = _effects(a), _effects(b)
    if not ea or not eb:
        return False
    for x in ea:
        for y in eb:
            if x.name not in MEMORY_OPS or y.name not in MEMORY_OPS:
                return True
            if x.name in READS and y.name in READS:
                continue
            rx, ry = roots.get(id(x)), roots.get(id(y))
            if rx is None or ry is None or rx == ry:
                return True
    return False


def _deps(ops: List[Operation], roots) -> List[set]:
    defined = {}
    for i, op in enumerate(ops):
        for r in op.results:
            defined[r.vid] = i
    with_effects = [i for i, op in enumerate(ops) if _effects(op)]
    deps = []
    for i, op in enumerate(ops):
        d = {defined[v] for v in free_values(op) if v in defined and defined[v] != i}
        if i in with_effects:
            for j in with_effects:
                if j >= i:
                    break
                if j not in d and _must_keep_order(ops[j], op, roots):
                    d.add(j)
        deps.append(d)
    return deps


def reorder(module: Module, rng: random.Random) -> Module:
    """A random topological order of every block: data and token dependencies kept, and the
    relative order of effects that may touch the same memory (or print/assert/fence)."""
    roots = _roots(module)

    def block(b: Block) -> Block:
        ops = [op.replace(regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions))
               if op.regions else op for op in b.operations]
        # roots are keyed by the original op objects: compute dependencies on the originals
        orig = list(b.operations)
        if len(orig) < 3:
            return Block(b.arguments, tuple(ops))
        n = len(orig) - (1 if orig[-1].name in TERMINATORS else 0)
        deps = _deps(orig[:n], roots)
        done, order = set(), []
        while len(order) < n:
            ready = [i for i in range(n) if i not in done and deps[i] <= done]
            i = rng.choice(ready)
            done.add(i)
            order.append(i)
        return Block(b.arguments, tuple(ops[i] for i in order) + tuple(ops[n:]))
    return replace(module, functions=tuple(replace(f, body=block(f.body)) for f in module.functions))


def enumerate_reorder(module: Module, seeds: int = 4) -> Iterator[Transformation]:
    for s in range(seeds):
        yield Transformation("reorder", "module", f"seed{s}", "random-topological",
                             f"every block in a random dependency-respecting order (seed {s})",
                             lambda s=s: reorder(module, _rng("reorder", s)))
    # every adjacent independent pair of one block swapped
    roots = _roots(module)
    for s in walk_sites(module):
        blk = block_at(module, s.bpath)
        i = s.index
        if i + 1 >= len(blk.operations):
            continue
        a, b = blk.operations[i], blk.operations[i + 1]
        if b.name in TERMINATORS:
            continue
        if any(r.vid in free_values(b) for r in a.results) or _must_keep_order(a, b, roots):
            continue
        effect = bool(_effects(a)) and bool(_effects(b))

        def build(bp=s.bpath, i=i):
            ops = list(block_at(module, bp).operations)
            ops[i], ops[i + 1] = ops[i + 1], ops[i]
            return with_ops(module, bp, ops)
        yield Transformation("reorder", op_id(s.path), "swap-next", "independent-effects" if effect else "adjacent",
                             f"{a.name} at {op_id(s.path)} and the following {b.name} swapped (independent)", build)


# --- duplication (CSE must absorb) ---------------------------------------------------------------------

def _use_sites(f: Function, vid: int) -> List[Tuple[int, int]]:
    """(op index in walk order, operand index) of each use of ``vid``."""
    out = []
    for n, op in enumerate(f.walk()):
        for k, v in enumerate(op.operands):
            if v.vid == vid:
                out.append((n, k))
    return out


def _redirect_use(module: Module, fi: int, old: Value, new: Value, which: int) -> Module:
    """Only the ``which``-th use (walk order) of ``old`` becomes ``new``."""
    from .ir_tools import map_operands
    count = [0]

    def fn(op, k, v):
        if v.vid == old.vid:
            c = count[0]
            count[0] += 1
            if c == which:
                return new
        return v
    return map_operands(module, fi, fn)


def enumerate_duplicate(module: Module) -> Iterator[Transformation]:
    """Each pure op (constants included) duplicated right after itself; its first use (or, for
    constants, every use but the first) moved to the copy."""
    for s in walk_sites(module):
        op = s.op
        if not is_pure(op) or not op.results or s.in_combiner:
            continue
        f = module.functions[s.path[0]]
        uc = uses(f)
        n_uses = uc.get(op.results[0].vid, 0)
        if n_uses == 0:
            continue
        for variant in (["first-use"] + (["last-use"] if n_uses > 1 else [])):
            def build(path=s.path, variant=variant, n_uses=n_uses):
                fresh = Fresh(module)
                o = op_at(module, path)
                copy = o.replace(results=tuple(fresh.value(r.type) for r in o.results))
                m = with_op(module, path, [o, copy])
                which = 0 if variant == "first-use" else n_uses - 1
                for r, c in zip(o.results, copy.results):
                    if r is o.results[0]:
                        m = _redirect_use(m, path[0], r, c, which)
                return m
            yield Transformation("duplicate", op_id(s.path), variant,
                                 f"{op.name}/{'region' if s.enclosing else 'top'}",
                                 f"{op.name} at {op_id(s.path)} duplicated, its {variant.replace('-', ' ')} "
                                 f"uses the copy", build)


# --- commuting --------------------------------------------------------------------------------------------

def _commutative_pair(op: Operation) -> Optional[Tuple[int, int]]:
    d = OPS_BY_NAME.get(op.name)
    if d is None:
        return None
    if "commutative" in d.traits and len(op.operands) == 2:
        return (0, 1)
    if "commutative2" in d.traits:
        return (0, 1)
    if op.name in ("cmpf", "cmpi") and op.attributes["comparison_predicate"].name in ("equal", "not_equal"):
        return (0, 1)
    return None


def enumerate_commute(module: Module) -> Iterator[Transformation]:
    sites = []
    for s in walk_sites(module):
        p = _commutative_pair(s.op)
        if p is None or s.op.operands[p[0]].vid == s.op.operands[p[1]].vid:
            continue
        if s.op.name not in ("cmpf", "cmpi"):
            sites.append(s.path)  # "all" commutes the ops the commutative-operands rule names

        def build(path=s.path, p=p):
            o = op_at(module, path)
            ops = list(o.operands)
            ops[p[0]], ops[p[1]] = ops[p[1]], ops[p[0]]
            return with_op(module, path, [o.replace(operands=tuple(ops))])
        cls = "cmp-eq" if s.op.name in ("cmpf", "cmpi") else ("combiner" if s.in_combiner else s.op.name)
        yield Transformation("commute", op_id(s.path), "swap", cls,
                             f"operands of {s.op.name} at {op_id(s.path)} commuted", build)
    if len(sites) > 1:
        def build_all(sites=tuple(sites)):
            m = module
            for path in sites:
                o = op_at(m, path)
                p = _commutative_pair(o)
                ops = list(o.operands)
                ops[p[0]], ops[p[1]] = ops[p[1]], ops[p[0]]
                m = with_op(m, path, [o.replace(operands=tuple(ops))])
            return m
        yield Transformation("commute", "module", "all", "all", f"all {len(sites)} commutative ops commuted",
                             build_all)


# --- re-encoding -------------------------------------------------------------------------------------------

def enumerate_reencode(module: Module) -> Iterator[Transformation]:
    for v in SUPPORTED_VERSIONS:
        yield Transformation("reencode", "module", f"v{v[0]}.{v[1]}", f"from-{module.version[0]}.{module.version[1]}"
                             f"-to-{v[0]}.{v[1]}" if tuple(v) != tuple(module.version) else "same-version",
                             f"written with the project's writer at bytecode {v[0]}.{v[1]} and read back",
                             lambda: module, version=tuple(v))


# --- dead code -----------------------------------------------------------------------------------------------

def _dead_op(v: Value, fresh: Fresh) -> Optional[List[Operation]]:
    t = v.type
    if not isinstance(t, TileType) or not isinstance(t.element, ScalarType):
        return None
    e = t.element
    if e.name in ("f32", "f16", "bf16", "f64"):
        return [Operation("negf", (v,), (1,), (fresh.value(t),), {})]
    if e.name in ("i8", "i16", "i32", "i64"):
        return [Operation("absi", (v,), (1,), (fresh.value(t),), {})]
    if e.name == "i1":
        return [Operation("xori", (v, v), (1, 1), (fresh.value(t),), {})]
    return None


def enumerate_dead_code(module: Module) -> Iterator[Transformation]:
    """An unused constant at the start of every block, and an unused pure op on every value
    (inserted right after its definition)."""
    seen_blocks = set()
    for s in walk_sites(module):
        if s.in_combiner:
            continue
        if s.bpath not in seen_blocks:
            seen_blocks.add(s.bpath)

            def build_c(bp=s.bpath):
                fresh = Fresh(module)
                b = block_at(module, bp)
                c = const_op(fresh, TileType((), ScalarType("i32")), 7)
                return with_ops(module, bp, (c,) + b.operations)
            yield Transformation("dead-code", op_id(s.path), "constant", "constant",
                                 f"an unused constant before {op_id(s.path)}", build_c)
        op = s.op
        if op.name in TERMINATORS or not op.results:
            continue
        r = op.results[0]
        if _dead_op(r, Fresh(module)) is None:
            continue

        def build(path=s.path, r=r):
            fresh = Fresh(module)
            return with_op(module, path, [op_at(module, path)] + _dead_op(r, fresh))
        yield Transformation("dead-code", op_id(s.path), "unused-op", f"unused-op-on/{op.name}",
                             f"an unused op on the result of {op.name} at {op_id(s.path)}", build)


TRANSFORMS: Dict[str, Callable[[Module], Iterable[Transformation]]] = {
    "rename": enumerate_rename,
    "reorder": enumerate_reorder,
    "duplicate": enumerate_duplicate,
    "commute": enumerate_commute,
    "reencode": enumerate_reencode,
    "dead-code": enumerate_dead_code,
}


def find_transformation(module: Module, key: str) -> Optional[Transformation]:
    kind = key.split("|", 1)[0]
    for t in TRANSFORMS[kind](module):
        if t.key == key:
            return t
    return None
