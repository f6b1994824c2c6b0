"""IR plumbing for the mutation and invariance engines: op addressing by path, scoped walks with
the values visible at each op, block rebuilding, use rewriting, memory roots and fresh ids.

Only the public IR model (tileir_diff.ir) and the op table (tileir_diff.dialect) are used:
nothing from normalize/, match/ or compare/, which are the code under test.

A *path* names an op: ``(f, i0, r0, b0, i1, r1, b1, ..., ik)`` (function index, then op index in
the function body, then region / block / op index for each nesting level). A *block path* is
the same without the last op index: ``(f,)`` is the body of function ``f``. ``op_id(path)`` prints
it in the diff's op-id syntax, ``f0/o12/r0/o3`` (``/b1`` only for a block index other than 0).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from tileir_diff.dialect import OPS_BY_NAME
from tileir_diff.ir import Block, Function, Module, Operation, Region, TokenType, Value
from tileir_diff.ir.types import ScalarType

TERMINATORS = frozenset(("yield", "continue", "break", "return"))
REGION_OPS = frozenset(("if", "for", "loop", "reduce", "scan"))
COMBINER_OPS = frozenset(("reduce", "scan"))
VIEW_MEMORY_OPS = frozenset(("load_view_tko", "store_view_tko", "atomic_red_view_tko"))
PTR_MEMORY_OPS = frozenset(("load_ptr_tko", "store_ptr_tko", "atomic_rmw_tko", "atomic_cas_tko"))
MEMORY_OPS = VIEW_MEMORY_OPS | PTR_MEMORY_OPS
READS = frozenset(("load_view_tko", "load_ptr_tko"))
WRITES = frozenset(("store_view_tko", "store_ptr_tko", "atomic_rmw_tko", "atomic_cas_tko", "atomic_red_view_tko"))
EFFECT_OPS = MEMORY_OPS | frozenset(("print_tko", "assert", "gdc_wait_tko", "gdc_launch_dependents_tko",
                                     "memory_fence_alias_tko", "alloca"))

Path = Tuple[int, ...]


def op_id(path: Path) -> str:
    parts = [f"f{path[0]}", f"o{path[1]}"]
    rest = path[2:]
    while rest:
        r, b, i = rest[:3]
        parts.append(f"r{r}" + (f"/b{b}" if b else ""))
        parts.append(f"o{i}")
        rest = rest[3:]
    return "/".join(parts)


def parse_op_id(text: str) -> Path:
    out: List[int] = []
    for p in text.split("/"):
        if p[0] in "for":
            out.append(int(p[1:]))
            if p[0] == "r":
                out.append(0)
        elif p[0] == "b":
            out[-1] = int(p[1:])
    return tuple(out)


def is_pure(op: Operation) -> bool:
    d = OPS_BY_NAME.get(op.name)
    return bool(d) and "pure" in d.traits and not op.regions


def is_effect(op: Operation) -> bool:
    """An op whose position matters: memory, print, assert, fences, control flow with effects
    inside, terminators."""
    if op.name in TERMINATORS or op.name in EFFECT_OPS:
        return True
    if op.regions and op.name not in COMBINER_OPS:
        return True
    return not is_pure(op) and not op.regions


# --- addressing ------------------------------------------------------------------------------

def block_at(module: Module, bpath: Path) -> Block:
    b = module.functions[bpath[0]].body
    rest = bpath[1:]
    while rest:
        i, r, k = rest[:3]
        b = b.operations[i].regions[r].blocks[k]
        rest = rest[3:]
    return b


def op_at(module: Module, path: Path) -> Operation:
    return block_at(module, path[:-1]).operations[path[-1]]


def _set_block(b: Block, rest: Path, new: Block) -> Block:
    if not rest:
        return new
    i, r, k = rest[:3]
    ops = list(b.operations)
    op = ops[i]
    regions = list(op.regions)
    blocks = list(regions[r].blocks)
    blocks[k] = _set_block(blocks[k], rest[3:], new)
    regions[r] = Region(tuple(blocks))
    ops[i] = op.replace(regions=tuple(regions))
    return Block(b.arguments, tuple(ops))


def with_block(module: Module, bpath: Path, new: Block) -> Module:
    fs = list(module.functions)
    f = fs[bpath[0]]
    fs[bpath[0]] = replace(f, body=_set_block(f.body, bpath[1:], new))
    return replace(module, functions=tuple(fs))


def with_ops(module: Module, bpath: Path, ops: Sequence[Operation]) -> Module:
    b = block_at(module, bpath)
    return with_block(module, bpath, Block(b.arguments, tuple(ops)))


def with_op(module: Module, path: Path, new: Sequence[Operation]) -> Module:
    """Replace the op at ``path`` by the ops ``new`` (empty: delete it)."""
    b = block_at(module, path[:-1])
    ops = list(b.operations)
    ops[path[-1]:path[-1] + 1] = list(new)
    return with_block(module, path[:-1], Block(b.arguments, tuple(ops)))


# --- walks -------------------------------------------------------------------------------------

@dataclass
class Site:
    """One op in its context. ``visible`` is the list of values that dominate the op and are in
    scope (entry arguments, enclosing block arguments, results of earlier ops of enclosing
    blocks), outermost first; it is a shared, growing list: copy what you need while iterating
    (``visible[:n_visible]``). Combiner regions (reduce/scan) see only their own values."""
    path: Path
    op: Operation
    enclosing: Tuple[Operation, ...]
    visible: List[Value]
    n_visible: int

    @property
    def bpath(self) -> Path:
        return self.path[:-1]

    @property
    def index(self) -> int:
        return self.path[-1]

    @property
    def in_combiner(self) -> bool:
        return any(o.name in COMBINER_OPS for o in self.enclosing)

    @property
    def depth(self) -> int:
        return len(self.enclosing)

    def visible_values(self) -> List[Value]:
        return self.visible[:self.n_visible]


def walk_sites(module: Module) -> Iterator[Site]:
    for fi, f in enumerate(module.functions):
        visible: List[Value] = list(f.arguments)
        yield from _walk_block(f.body, (fi,), (), visible)


def _walk_block(block: Block, bpath: Path, enclosing, visible: List[Value]) -> Iterator[Site]:
    mark = len(visible)
    visible.extend(block.arguments)
    for i, op in enumerate(block.operations):
        path = bpath + (i,)
        yield Site(path, op, enclosing, visible, len(visible))
        for r, reg in enumerate(op.regions):
            for k, b in enumerate(reg.blocks):
                if op.name in COMBINER_OPS:
                    inner: List[Value] = []
                    yield from _walk_block(b, path + (r, k), enclosing + (op,), inner)
                else:
                    yield from _walk_block(b, path + (r, k), enclosing + (op,), visible)
        visible.extend(op.results)
    del visible[mark:]


def producers(f: Function) -> Dict[int, Operation]:
    out = {}
    for op in f.walk():
        for r in op.results:
            out[r.vid] = op
    return out


def uses(f: Function) -> Dict[int, int]:
    n: Dict[int, int] = {}
    for op in f.walk():
        for v in op.operands:
            n[v.vid] = n.get(v.vid, 0) + 1
    return n


def max_vid(module: Module) -> int:
    m = 0
    for f in module.functions:
        for a in f.arguments:
            m = max(m, a.vid)
        for op in f.walk():
            for r in op.results:
                m = max(m, r.vid)
            for reg in op.regions:
                for b in reg.blocks:
                    for a in b.arguments:
                        m = max(m, a.vid)
    return m


class Fresh:
    def __init__(self, module: Module):
        self.next = max_vid(module) + 1

    def value(self, t) -> Value:
        v = Value(self.next, t)
        self.next += 1
        return v


# --- rewriting values ------------------------------------------------------------------------------

def map_operands(module: Module, fi: int, fn: Callable[[Operation, int, Value], Value]) -> Module:
    """Rebuild function ``fi`` with every operand ``v`` at index ``k`` of ``op`` replaced by
    ``fn(op, k, v)``."""
    def block(b: Block) -> Block:
        out = []
        for op in b.operations:
            if op.regions:
                op = op.replace(regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions))
            new = tuple(fn(op, k, v) for k, v in enumerate(op.operands))
            if any(a is not b_ for a, b_ in zip(new, op.operands)):
                op = op.replace(operands=new)
            out.append(op)
        return Block(b.arguments, tuple(out))
    fs = list(module.functions)
    fs[fi] = replace(fs[fi], body=block(fs[fi].body))
    return replace(module, functions=tuple(fs))


def replace_uses(module: Module, fi: int, old: Value, new: Value, skip: Optional[Callable[[Operation], bool]] = None
                 ) -> Module:
    """Every use of ``old`` in function ``fi`` becomes ``new`` (except in ops where ``skip(op)``)."""
    def fn(op, k, v):
        if v.vid == old.vid and not (skip and skip(op)):
            return new
        return v
    return map_operands(module, fi, fn)


def retype_value(module: Module, fi: int, vid: int, new_type) -> Module:
    """Give value ``vid`` a new type everywhere in function ``fi`` (definition and uses)."""
    nv = Value(vid, new_type)

    def block(b: Block) -> Block:
        out = []
        for op in b.operations:
            regions = tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions)
            op = op.replace(operands=tuple(nv if v.vid == vid else v for v in op.operands),
                            results=tuple(nv if v.vid == vid else v for v in op.results), regions=regions)
            out.append(op)
        return Block(tuple(nv if a.vid == vid else a for a in b.arguments), tuple(out))
    fs = list(module.functions)
    fs[fi] = replace(fs[fi], body=block(fs[fi].body))
    return replace(module, functions=tuple(fs))


def set_operand(op: Operation, k: int, v: Value) -> Operation:
    ops = list(op.operands)
    ops[k] = v
    return op.replace(operands=tuple(ops))


# --- operand groups -----------------------------------------------------------------------------

def operand_names(op: Operation, version) -> List[str]:
    """The schema name of each flat operand of ``op`` (``index`` for every index operand)."""
    d = OPS_BY_NAME[op.name]
    defs = [o for o in d.operands if o.since <= tuple(version)]
    if len(op.segments) != len(defs):
        return ["?"] * len(op.operands)
    names = []
    for o, n in zip(defs, op.segments):
        names.extend([o.name] * n)
    return names


def token_operand_index(op: Operation) -> Optional[int]:
    for k, v in enumerate(op.operands):
        if isinstance(v.type, TokenType):
            return k
    return None


def token_result(op: Operation) -> Optional[Value]:
    for r in op.results:
        if isinstance(r.type, TokenType):
            return r
    return None


# --- memory roots -----------------------------------------------------------------------------------

def memory_root(op: Operation, prod: Dict[int, Operation], f: Function) -> Optional[int]:
    """The entry argument index the address of memory op ``op`` derives from, or None."""
    k = ADDRESS_OPERAND.get(op.name, 0)
    if len(op.operands) <= k:
        return None
    return value_root(op.operands[k], prod, f)


#: which operand of a memory op holds its view / pointer tile (others: operand 0)
ADDRESS_OPERAND = {"store_view_tko": 1}


def value_root(v: Value, prod: Dict[int, Operation], f: Function, depth: int = 0) -> Optional[int]:
    args = {a.vid: i for i, a in enumerate(f.arguments)}
    seen = 0
    while seen < 64:
        seen += 1
        if v.vid in args:
            return args[v.vid]
        p = prod.get(v.vid)
        if p is None or not p.operands:
            return None
        if p.name in ("make_partition_view", "make_strided_view", "make_gather_scatter_view", "make_tensor_view",
                      "assume", "offset", "broadcast", "reshape", "ptr_to_ptr", "permute"):
            v = p.operands[0]
            continue
        return None
    return None


# --- scalar constants ------------------------------------------------------------------------------

def int_bytes(value: int, t: ScalarType) -> bytes:
    w = max(1, t.width // 8)
    return (value % (1 << (8 * w))).to_bytes(w, "little")


def free_values(op: Operation) -> Set[int]:
    """Values ``op`` (and its regions) use but do not define."""
    used, defined = set(), set()
    for inner in op.walk():
        used.update(v.vid for v in inner.operands)
        defined.update(r.vid for r in inner.results)
        for reg in inner.regions:
            for b in reg.blocks:
                defined.update(a.vid for a in b.arguments)
    return used - defined


def cone_in_block(ops: Sequence[Operation], upto: int, roots: Iterable[int]) -> List[int]:
    """Indices (< upto, ascending) of the ops of ``ops`` that the values ``roots`` transitively
    depend on through data operands (region ops count with their free values)."""
    defined_at = {}
    for i, op in enumerate(ops[:upto]):
        for r in op.results:
            defined_at[r.vid] = i
    need: Set[int] = set()
    stack = [v for v in roots if v in defined_at]
    while stack:
        vid = stack.pop()
        i = defined_at[vid]
        if i in need:
            continue
        need.add(i)
        for u in free_values(ops[i]):
            if u in defined_at and defined_at[u] not in need:
                stack.append(u)
    return sorted(need)


def remove_op(module: Module, fi: int, target: Operation) -> Module:
    """Delete ``target`` (by identity) from function ``fi``."""
    def block(b: Block) -> Block:
        out = []
        for op in b.operations:
            if op is target:
                continue
            if op.regions:
                op = op.replace(regions=tuple(Region(tuple(block(x) for x in r.blocks)) for r in op.regions))
            out.append(op)
        return Block(b.arguments, tuple(out))
    fs = list(module.functions)
    fs[fi] = replace(fs[fi], body=block(fs[fi].body))
    return replace(module, functions=tuple(fs))


# --- the token model: which accesses a token chain orders ------------------------------------------

ORDERED_EFFECTS = MEMORY_OPS | frozenset(("print_tko",))


def token_orderings(module: Module) -> set:
    """The orderings the token chains of ``module`` impose that matter: pairs ``(a, b)`` of
    accesses (labelled ``(function, k)``, the k-th memory/print op in walk order) where ``a`` is
    ordered before ``b`` through tokens (join_tokens, loop-carried tokens, if results), both
    touch memory derived from the same entry argument (prints: the output stream) and at least
    one writes. Reads of two different arrays, or two reads, are never observable."""
    out = set()
    for fi, f in enumerate(module.functions):
        prod = producers(f)
        labels, roots, writes = {}, {}, {}
        for op in f.walk():
            if op.name in ORDERED_EFFECTS:
                k = len(labels)
                labels[id(op)] = (fi, k)
                roots[(fi, k)] = "print" if op.name == "print_tko" else memory_root(op, prod, f)
                writes[(fi, k)] = op.name in WRITES or op.name == "print_tko"
        before: Dict[int, frozenset] = {}
        preds: Dict[Tuple[int, int], frozenset] = {}

        def get(v: Value) -> frozenset:
            return before.get(v.vid, frozenset())  # noqa: B023

        def add(vid: int, s) -> bool:
            old = before.get(vid, frozenset())  # noqa: B023
            new = old | s
            if new != old:
                before[vid] = new  # noqa: B023
                return True
            return False

        def terminators(block: Block, names) -> List[Operation]:
            out = []
            for op in block.operations:
                if op.name in names:
                    out.append(op)
                for reg in op.regions:
                    if op.name in ("if",):  # an if inside a loop body may end in continue/break
                        for b in reg.blocks:
                            out.extend(terminators(b, names))
            return out

        def visit(block: Block) -> bool:
            changed = False
            for op in block.operations:
                tok_in = frozenset()
                for v in op.operands:
                    if isinstance(v.type, TokenType):
                        tok_in |= get(v)
                lab = labels.get(id(op))  # noqa: B023
                if lab is not None:
                    if preds.get(lab) != tok_in:  # noqa: B023
                        preds[lab] = tok_in  # noqa: B023
                        changed = True
                if op.name in ("for", "loop"):
                    body = op.regions[0].blocks[0]
                    inits = op.operands[3:] if op.name == "for" else op.operands
                    args = body.arguments[1:] if op.name == "for" else body.arguments
                    conts = terminators(body, ("continue", "yield"))
                    breaks = terminators(body, ("break",))
                    for i, a in enumerate(args):
                        if not isinstance(a.type, TokenType) or i >= len(inits):
                            continue
                        s = get(inits[i])
                        for c in conts:
                            if i < len(c.operands):
                                s |= get(c.operands[i])
                        changed |= add(a.vid, s)
                    changed |= visit(body)
                    for i, r in enumerate(op.results):
                        if isinstance(r.type, TokenType):
                            s = get(args[i]) if i < len(args) else frozenset()
                            for c in conts + breaks:
                                if i < len(c.operands):
                                    s |= get(c.operands[i])
                            changed |= add(r.vid, s)
                    continue
                if op.name == "if":
                    for reg in op.regions:
                        changed |= visit(reg.blocks[0])
                    for i, r in enumerate(op.results):
                        if isinstance(r.type, TokenType):
                            s = frozenset()
                            for reg in op.regions:
                                for y in terminators(reg.blocks[0], ("yield",)):
                                    if i < len(y.operands):
                                        s |= get(y.operands[i])
                            changed |= add(r.vid, s)
                    continue
                for reg in op.regions:
                    for b in reg.blocks:
                        changed |= visit(b)
                for r in op.results:
                    if isinstance(r.type, TokenType):
                        s = tok_in | ({lab} if lab is not None else frozenset())
                        changed |= add(r.vid, s)
            return changed

        for _ in range(8):
            if not visit(f.body):
                break
        for b, ps in preds.items():
            for a in ps:
                if a == b:
                    continue
                if roots.get(a) is None or roots.get(b) is None:
                    same = True  # unknown address: may alias
                else:
                    same = roots[a] == roots[b]
                if same and (writes[a] or writes[b]):
                    out.add((a, b))
    return out
