"""IR-level transformers for the invariance and mutation catalogs.

Invariances (``INVARIANCES``: name -> fn(module, rng) -> module) must leave a diff against the
original ``identical`` or ``equivalent``. Mutations (``MUTATIONS``: name -> (category, fn(module,
rng) -> module or None)) must be ``different`` with exactly one root difference of that category;
``None`` means the kernel offers no place for that mutation.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Callable, Dict, List, Optional, Tuple

from tileir_diff.dialect import OPS_BY_NAME
from tileir_diff.ir import (Block, Bounded, DenseElements, DivBy, EnumValue, FloatAttr, Function, Module,
                            Operation, Region, TileType, Value)
from tileir_diff.ir.types import ScalarType
from tileir_diff.normalize.keys import commutative_positions
from tileir_diff.normalize.util import has_trait, max_vid, use_counts

TERMINATORS = ("yield", "continue", "break", "return")
MEMORY_WRITES = ("store_view_tko", "store_ptr_tko")


# --- plumbing ------------------------------------------------------------------------------------

def _map_blocks(block: Block, fn: Callable[[Block, int], Block], depth: int = 0) -> Block:
    ops = []
    for op in block.operations:
        if op.regions:
            op = op.replace(regions=tuple(Region(tuple(_map_blocks(b, fn, depth + 1) for b in r.blocks))
                                          for r in op.regions))
        ops.append(op)
    return fn(Block(block.arguments, tuple(ops)), depth)


def map_blocks(module: Module, fn: Callable[[Block, int], Block]) -> Module:
    return replace(module, functions=tuple(replace(f, body=_map_blocks(f.body, fn)) for f in module.functions))


def _ops(module: Module) -> List[Operation]:
    return list(module.walk())


def replace_op(module: Module, target: Operation, new: Optional[List[Operation]]) -> Module:
    """Replace ``target`` (by identity) with ``new`` ops (empty list: delete)."""
    def fn(block, depth):
        out = []
        for op in block.operations:
            if op is target or (op.regions and _contains(op, target)):
                if op is target:
                    out.extend(new)
                    continue
            out.append(op)
        return Block(block.arguments, tuple(out))
    return _rebuild_with(module, target, new)


def _contains(op: Operation, target: Operation) -> bool:
    return any(x is target for x in op.walk())


def _rebuild_with(module: Module, target: Operation, new: List[Operation]) -> Module:
    def block(b: Block) -> Block:
        out = []
        for op in b.operations:
            if op is target:
                out.extend(new)
                continue
            if op.regions and _contains(op, target):
                op = op.replace(regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions))
            out.append(op)
        return Block(b.arguments, tuple(out))
    return replace(module, functions=tuple(replace(f, body=block(f.body)) for f in module.functions))


def _function_of(module: Module, target: Operation) -> Function:
    for f in module.functions:
        if any(op is target for op in f.walk()):
            return f
    raise KeyError(target)


def _substitute_uses(module: Module, old: Value, new: Value, only: Optional[int] = None,
                     function: Optional[Function] = None) -> Module:
    """Replace uses of ``old`` by ``new`` (only the ``only``-th use when given) in the function
    that defines ``new`` (value ids are unique per function only)."""
    seen = [0]

    def block(b: Block) -> Block:
        out = []
        for op in b.operations:
            if op.regions:
                op = op.replace(regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions))
            if any(v.vid == old.vid for v in op.operands):
                ops = []
                for v in op.operands:
                    if v.vid == old.vid:
                        if only is None or seen[0] == only:
                            v = new
                        seen[0] += 1
                    ops.append(v)
                op = op.replace(operands=tuple(ops))
            out.append(op)
        return Block(b.arguments, tuple(out))
    return replace(module, functions=tuple(replace(f, body=block(f.body)) if _defines(f, new) else f
                                           for f in module.functions))


def _defines(f: Function, v: Value) -> bool:
    return any(r.vid == v.vid and r is v for op in f.walk() for r in op.results)


def _fresh(module: Module) -> int:
    return max(max_vid(f) for f in module.functions) + 1


# --- invariances -------------------------------------------------------------------------------

def renumber_values(module: Module, rng: random.Random) -> Module:
    """SSA renaming: every value gets a new, shuffled id."""
    def per_function(f: Function) -> Function:
        vids = [a.vid for a in f.arguments]
        for op in f.walk():
            vids.extend(r.vid for r in op.results)
            for reg in op.regions:
                for b in reg.blocks:
                    vids.extend(a.vid for a in b.arguments)
        new_ids = list(range(1000, 1000 + len(vids)))
        rng.shuffle(new_ids)
        table = dict(zip(vids, new_ids))

        def v(x: Value) -> Value:
            return Value(table.get(x.vid, x.vid), x.type)

        def block(b: Block) -> Block:
            ops = []
            for op in b.operations:
                ops.append(op.replace(operands=tuple(map(v, op.operands)), results=tuple(map(v, op.results)),
                                      regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions)))
            return Block(tuple(map(v, b.arguments)), tuple(ops))
        return replace(f, arguments=tuple(map(v, f.arguments)), body=block(f.body))
    return replace(module, functions=tuple(per_function(f) for f in module.functions))


def reorder_independent(module: Module, rng: random.Random) -> Module:
    """A random topological order of each block: data dependencies kept, ops with effects
    (memory, print, assert, control flow) kept in their relative order, terminator last."""
    def fn(block: Block, depth: int) -> Block:
        ops = list(block.operations)
        if len(ops) < 3:
            return block
        body, term = (ops[:-1], ops[-1:]) if ops[-1].name in TERMINATORS else (ops, [])
        defined_here = {}
        for i, op in enumerate(body):
            for r in op.results:
                defined_here[r.vid] = i
        deps = []
        last_effect = None
        for i, op in enumerate(body):
            d = set()
            for inner in op.walk():
                for v in inner.operands:
                    if v.vid in defined_here and defined_here[v.vid] != i:
                        d.add(defined_here[v.vid])
            if not has_trait(op, "pure") or op.regions:
                if last_effect is not None:
                    d.add(last_effect)
                last_effect = i
            deps.append(d)
        done, order = set(), []
        while len(order) < len(body):
            ready = [i for i in range(len(body)) if i not in done and deps[i] <= done]
            i = rng.choice(ready)
            done.add(i)
            order.append(i)
        return Block(block.arguments, tuple(body[i] for i in order) + tuple(term))
    return map_blocks(module, fn)


def duplicate_constants(module: Module, rng: random.Random) -> Module:
    """Give one use of each multiply-used constant its own copy (as cuTile Python does)."""
    fresh = [_fresh(module)]
    for f in module.functions:
        uses = use_counts(f)
        for op in [o for o in f.walk() if o.name == "constant" and uses[o.results[0].vid] > 1]:
            r = op.results[0]
            nv = Value(fresh[0], r.type)
            fresh[0] += 1
            copy = op.replace(results=(nv,))
            module = _rebuild_with(module, op, [op, copy])
            module = _substitute_uses(module, r, nv, only=rng.randrange(uses[r.vid]))
    return module


def duplicate_pure_ops(module: Module, rng: random.Random) -> Module:
    """Duplicate get_tile_block_id / make_partition_view / other pure ops and move some uses."""
    fresh = [_fresh(module)]
    for f in module.functions:
        uses = use_counts(f)
        cands = [o for o in f.walk() if has_trait(o, "pure") and not o.regions and o.name != "constant"
                 and o.results and uses[o.results[0].vid] > 1]
        for op in rng.sample(cands, min(len(cands), 3)):
            new_results = []
            for r in op.results:
                new_results.append(Value(fresh[0], r.type))
                fresh[0] += 1
            copy = op.replace(results=tuple(new_results))
            module = _rebuild_with(module, op, [op, copy])
            r0 = op.results[0]
            module = _substitute_uses(module, r0, new_results[0], only=rng.randrange(uses[r0.vid]))
    return module


def commute_operands(module: Module, rng: random.Random) -> Module:
    """Swap the operands of commutative ops (fma: its two multiplicands), at random."""
    def fn(block: Block, depth: int) -> Block:
        ops = []
        for op in block.operations:
            pos = commutative_positions(op)
            if pos is not None and rng.random() < 0.7:
                o = list(op.operands)
                o[pos[0]], o[pos[1]] = o[pos[1]], o[pos[0]]
                op = op.replace(operands=tuple(o))
            ops.append(op)
        return Block(block.arguments, tuple(ops))
    return map_blocks(module, fn)


def add_dead_ops(module: Module, rng: random.Random) -> Module:
    """Insert unused constants and an unused pure op on an existing value."""
    fresh = [_fresh(module)]
    t = TileType((), ScalarType("i32"))

    def fn(block: Block, depth: int) -> Block:
        if depth:
            return block
        ops = list(block.operations)
        c = Operation("constant", (), (), (Value(fresh[0], t),),
                      {"value": DenseElements(t, (7).to_bytes(4, "little"))})
        fresh[0] += 1
        at = rng.randrange(0, max(1, len(ops) - 1))
        ops.insert(at, c)
        for i, op in enumerate(ops[:-1]):
            if op.name == "get_tile_block_id":
                dead = Operation("addi", (op.results[0], c.results[0]), (1, 1), (Value(fresh[0], op.results[0].type),),
                                 {"overflow": EnumValue("IntegerOverflow", "none")})
                fresh[0] += 1
                ops.insert(max(i + 1, at + 1), dead)
                break
        return Block(block.arguments, tuple(ops))
    return map_blocks(module, fn)


def reencode(module: Module, rng: random.Random) -> Module:
    """Write the module at another bytecode version with the project's writer and read it back."""
    from tileir_diff.bytecode import read_bytecode
    from tileir_diff.bytecode.writer import write_bytecode
    other = (13, 4) if tuple(module.version) == (13, 3) else (13, 3)
    return read_bytecode(write_bytecode(module, other), "<reencoded>")


INVARIANCES: Dict[str, Callable[[Module, random.Random], Module]] = {
    "renumber-values": renumber_values,
    "reorder-independent": reorder_independent,
    "duplicate-constants": duplicate_constants,
    "duplicate-pure-ops": duplicate_pure_ops,
    "commute-operands": commute_operands,
    "add-dead-ops": add_dead_ops,
}


# --- mutations ---------------------------------------------------------------------------------

def _pick(rng: random.Random, items):
    items = list(items)
    return rng.choice(items) if items else None


def _live(module: Module):
    uses = {}
    for f in module.functions:
        uses.update(use_counts(f))
    return uses


def mut_tile_shape(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "make_partition_view"))
    if op is None:
        return None
    t = op.results[0].type
    shape = tuple(d * 2 for d in t.tile_shape)
    nt = replace(t, tile_shape=shape)
    return replace_op(module, op, [op.replace(results=(Value(op.results[0].vid, nt),))])


def mut_padding(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "make_partition_view"))
    if op is None:
        return None
    t = op.results[0].type
    nt = replace(t, padding="nan" if t.padding != "nan" else "zero")
    return replace_op(module, op, [op.replace(results=(Value(op.results[0].vid, nt),))])


def _index_span(op):
    d = OPS_BY_NAME[op.name]
    names = [o.name for o in d.operands if o.since <= (13, 4)][: len(op.segments)]
    i = names.index("index")
    return sum(op.segments[:i]), op.segments[i]


def mut_view_index(module, rng):
    for op in rng.sample(_ops(module), len(_ops(module))):
        if op.name not in ("load_view_tko", "store_view_tko"):
            continue
        start, n = _index_span(op)
        if n == 0:
            continue
        k = start + rng.randrange(n)
        cur = op.operands[k]
        f = _function_of(module, op)
        # another value of the same type defined at top level before the op: a block id or an argument
        same_axis = set()
        for o in f.walk():  # a block id of the same axis from a duplicate op is the same value
            if o.name == "get_tile_block_id" and any(r.vid == cur.vid for r in o.results):
                k_axis = [r.vid for r in o.results].index(cur.vid)
                same_axis = {x.results[k_axis].vid for x in f.walk() if x.name == "get_tile_block_id"}
        walk = list(f.walk())
        here = next(i for i, o in enumerate(walk) if o is op)
        before = {id(o) for o in walk[:here]}  # only values that dominate the op (valid IR)
        cands = [r for o in f.body.operations if o.name == "get_tile_block_id" and id(o) in before
                 for r in o.results if r.vid not in same_axis]
        cands += [a for a in f.arguments]
        cands = [v for v in cands if v.type == cur.type and v.vid != cur.vid]
        if not cands:
            continue
        ops = list(op.operands)
        ops[k] = rng.choice(cands)
        return replace_op(module, op, [op.replace(operands=tuple(ops))])
    return None


def mut_ordering(module, rng):
    # weak -> relaxed: a different ordering that does not turn the op into a fence (token-order
    # treats acquire/release as barriers, which would legitimately change the token structure too)
    op = _pick(rng, (o for o in _ops(module) if o.name in ("load_view_tko", "store_view_tko", "load_ptr_tko",
                                                           "store_ptr_tko")
                     and getattr(o.attributes.get("memory_ordering_semantics"), "name", None) == "weak"))
    if op is None:
        return None
    attrs = dict(op.attributes)
    attrs["memory_ordering_semantics"] = EnumValue("MemoryOrderingSemantics", "relaxed")
    attrs["memory_scope"] = EnumValue("MemoryScope", "device")
    return replace_op(module, op, [op.replace(attributes=attrs)])


def mut_reduce_dim(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name in ("reduce", "scan")))
    if op is None:
        return None
    attrs = dict(op.attributes)
    attrs["dim"] = attrs["dim"] + 1
    return replace_op(module, op, [op.replace(attributes=attrs)])


def mut_reduce_identity(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name in ("reduce", "scan")
                     and isinstance(o.attributes["identities"][0], FloatAttr)))
    if op is None:
        return None
    attrs = dict(op.attributes)
    ids = list(attrs["identities"])
    ids[0] = FloatAttr(ids[0].bits ^ 0x1, ids[0].type)
    attrs["identities"] = tuple(ids)
    return replace_op(module, op, [op.replace(attributes=attrs)])


_COMBINER_SWAP = {"addf": "maxf", "maxf": "minf", "minf": "maxf", "mulf": "addf", "addi": "maxi", "maxi": "mini",
                  "mini": "maxi", "muli": "addi"}


def mut_reduce_combiner(module, rng):
    for op in rng.sample(_ops(module), len(_ops(module))):
        if op.name not in ("reduce", "scan"):
            continue
        body = op.regions[0].blocks[0]
        for inner in body.operations:
            if inner.name in _COMBINER_SWAP:
                new_name = _COMBINER_SWAP[inner.name]
                d = OPS_BY_NAME[new_name]
                attrs = {k: v for k, v in inner.attributes.items() if k in {a.name for a in d.attrs}}
                if new_name in ("maxi", "mini") and "signedness" not in attrs:
                    attrs["signedness"] = EnumValue("Signedness", "signed")
                ni = inner.replace(name=new_name, attributes=attrs)
                return replace_op(module, inner, [ni])
    return None


_NONCOMM = ("subf", "divf", "subi", "remf", "shli", "shri", "atan2", "fpowf")


def mut_swap_noncommutative(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name in _NONCOMM and o.operands[0].vid != o.operands[1].vid
                     and o.operands[0].type == o.operands[1].type))
    if op is None:
        return None
    o = list(op.operands)
    o[0], o[1] = o[1], o[0]
    return replace_op(module, op, [op.replace(operands=tuple(o))])


def _outside_combiners(module):
    inner = {id(x) for o in _ops(module) if o.name in ("reduce", "scan") for x in o.walk() if x is not o}
    return [o for o in _ops(module) if id(o) not in inner]


def mut_op_kind(module, rng):
    op = _pick(rng, (o for o in _outside_combiners(module) if o.name == "mulf"))
    if op is None:
        return None
    return replace_op(module, op, [op.replace(name="divf")])


def mut_constant(module, rng):
    live = _live(module)
    # a float constant used by arithmetic (not only as loop bounds or view indices)
    op = _pick(rng, (o for o in _ops(module) if o.name == "constant" and live.get(o.results[0].vid)
                     and o.results[0].type.element.is_float))
    if op is None:
        return None
    v = op.attributes["value"]
    data = bytearray(v.data)
    data[0] ^= 0x1
    return replace_op(module, op, [op.replace(attributes={**op.attributes,
                                                           "value": DenseElements(v.type, bytes(data))})])


def mut_mma_dtype(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "mmaf"))
    if op is None:
        return None
    t = op.results[0].type
    nt = TileType(t.shape, ScalarType("f16" if t.element.name == "f32" else "f32"))
    return replace_op(module, op, [op.replace(results=(Value(op.results[0].vid, nt),))])


def mut_loop_bound(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "for"))
    if op is None:
        return None
    f = _function_of(module, op)
    cur = op.operands[1]
    cands = [a for a in f.arguments if a.type == cur.type and a.vid != cur.vid]
    if not cands:
        return None
    o = list(op.operands)
    o[1] = rng.choice(cands)
    return replace_op(module, op, [op.replace(operands=tuple(o))])


def mut_loop_step(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "for"))
    if op is None:
        return None
    step = op.operands[2]
    t = step.type
    nv = Value(_fresh(module), t)
    c = Operation("constant", (), (), (nv,), {"value": DenseElements(t, (2).to_bytes(t.element.width // 8, "little"))})
    o = list(op.operands)
    o[2] = nv
    return replace_op(module, op, [c, op.replace(operands=tuple(o))])


def mut_drop_store(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name in MEMORY_WRITES))
    if op is None:
        return None
    live = _live(module)
    if any(live.get(r.vid) for r in op.results):
        return None  # its token orders something: dropping it would also rewire that
    return replace_op(module, op, [])


def mut_add_store(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "store_view_tko"))
    if op is None:
        return None
    copy = op.replace(results=tuple(Value(_fresh(module) + i, r.type) for i, r in enumerate(op.results)),
                      attributes={k: v for k, v in op.attributes.items() if not k.startswith("_")})
    return replace_op(module, op, [op, copy])


def mut_signature(module, rng):
    f = module.functions[0]
    t = TileType((), ScalarType("f32"))
    nf = replace(f, arguments=f.arguments + (Value(_fresh(module), t),))
    return replace(module, functions=(nf,) + module.functions[1:])


def mut_arg_type(module, rng):
    f = module.functions[0]
    cands = [i for i, a in enumerate(f.arguments) if isinstance(a.type, TileType) and a.type.element == ScalarType("i32")]
    if not cands:
        return None
    i = rng.choice(cands)
    args = list(f.arguments)
    args[i] = Value(args[i].vid, TileType((), ScalarType("i64")))
    return replace(module, functions=(replace(f, arguments=tuple(args)),) + module.functions[1:])


def mut_assumption(module, rng):
    op = _pick(rng, (o for o in _ops(module) if o.name == "assume"))
    if op is None:
        return None
    p = op.attributes["predicate"]
    if isinstance(p, DivBy):
        q = DivBy(p.divisor * 2, p.every, p.along)
    elif isinstance(p, Bounded):
        q = Bounded((p.lb or 0) + 1, p.ub)
    else:
        return None
    return replace_op(module, op, [op.replace(attributes={**op.attributes, "predicate": q})])


MUTATIONS: Dict[str, Tuple[str, Callable]] = {
    "tile-shape": ("tile_shape", mut_tile_shape),
    "view-index": ("memory", mut_view_index),
    "padding": ("memory", mut_padding),
    "ordering": ("memory", mut_ordering),
    "reduce-dim": ("reduction", mut_reduce_dim),
    "reduce-identity": ("reduction", mut_reduce_identity),
    "reduce-combiner": ("reduction", mut_reduce_combiner),
    "swap-noncommutative": ("arith", mut_swap_noncommutative),
    "op-kind": ("arith", mut_op_kind),
    "constant": ("constant", mut_constant),
    "mma-dtype": ("mma", mut_mma_dtype),
    "loop-bound": ("control_flow", mut_loop_bound),
    "loop-step": ("control_flow", mut_loop_step),
    "drop-store": ("memory", mut_drop_store),
    "add-store": ("memory", mut_add_store),
    "signature-extra-arg": ("signature", mut_signature),
    "signature-arg-type": ("signature", mut_arg_type),
    "assumption": ("specialization", mut_assumption),
}
