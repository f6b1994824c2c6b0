"""Mutation operators, enumerated at every applicable site of a module.

Each operator kind is a function ``enumerate_<kind>(module) -> Iterable[Mutation]`` listing every
mutant it can make of ``module`` (exhaustively, in a deterministic order); building a mutant is
deferred to ``Mutation.build()``. A mutant is meant to change what the kernel computes; whether
it is valid Tile IR is decided afterwards (engine.py: our bytecode writer, then tileirdisasm's
verifier) and whether it really computes something different by the interpreter.

``Mutation.key`` (``kind|site|variant``) names a mutant of a kernel stably across runs, so a
mutant can be rebuilt from its key (``find_mutation``). ``cls`` groups mutants of one kind into
classes (``swap-operands:subf``, ``enum-attr:load_view_tko.memory_scope``): the unit that
tests/mutation/known.py lists as a known false "same".
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from tileir_diff.dialect import OPS_BY_NAME
from tileir_diff.dialect.enums import ENUM_VALUE_SINCE, ENUMS, PADDING_VALUES
from tileir_diff.ir import (Block, DenseElements, EnumValue, FloatAttr, IntegerAttr, Module, Operation, Region,
                            TileType, TokenType, Value)
from tileir_diff.ir.types import ScalarType, VIEW_TYPES

from .ir_tools import (EFFECT_OPS, MEMORY_OPS, READS, TERMINATORS, WRITES, Fresh, Path, Site, block_at, cone_in_block,
                       free_values, int_bytes, is_effect, is_pure, memory_root, op_at, op_id,
                       remove_op, operand_names, producers, replace_uses, retype_value, set_operand,
                       token_operand_index, token_result, uses, walk_sites, with_op, with_ops)


@dataclass
class Mutation:
    kind: str
    site: str
    variant: str
    cls: str
    desc: str
    build: Callable[[], Module]
    #: how a mutant's change is shown: "interp" (the interpreter), "token" (the token model:
    #: tokens only order, the interpreter runs in program order and cannot see them), "blind"
    #: (a change the interpreter does not model at all: memory ordering / scope)
    oracle: str = "interp"

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.site}|{self.variant}"

    @property
    def klass(self) -> str:
        return f"{self.kind}:{self.cls}"


def _ctx(site: Site) -> str:
    names = [o.name for o in site.enclosing]
    if not names:
        return "top"
    if any(n in ("for", "loop") for n in names):
        return "loop"
    return "branch"


# --- constants ----------------------------------------------------------------------------------

def const_op(fresh: Fresh, t: TileType, value) -> Operation:
    """A constant ``value`` of tile type ``t`` (a splat when ``t`` has several elements)."""
    e = t.element
    if e.is_float:
        data = float_bytes(float(value), e)
    else:
        data = int_bytes(int(value), e)
    return Operation("constant", (), (), (fresh.value(t),), {"value": DenseElements(t, data)})


def float_bytes(x: float, e: ScalarType) -> bytes:
    if e.name == "f32" or e.name == "tf32":
        return struct.pack("<f", x)
    if e.name == "f64":
        return struct.pack("<d", x)
    if e.name == "f16":
        return struct.pack("<e", x)
    if e.name == "bf16":
        return (struct.unpack("<I", struct.pack("<f", x))[0] >> 16).to_bytes(2, "little")
    raise ValueError(f"no encoder for {e.name}")


def _decode_float(data: bytes, e: ScalarType) -> Optional[float]:
    try:
        if e.name in ("f32", "tf32"):
            return struct.unpack("<f", data[:4])[0]
        if e.name == "f64":
            return struct.unpack("<d", data[:8])[0]
        if e.name == "f16":
            return struct.unpack("<e", data[:2])[0]
        if e.name == "bf16":
            return struct.unpack("<f", (int.from_bytes(data[:2], "little") << 16).to_bytes(4, "little"))[0]
    except struct.error:
        return None
    return None


def _elem_size(e: ScalarType) -> int:
    return 1 if e.name == "i1" else max(1, e.width // 8)


def _int_add(t: TileType, fresh: Fresh, v: Value, delta: int) -> List[Operation]:
    """Ops computing ``v + delta`` for an integer tile ``v``."""
    c = const_op(fresh, TileType(t.shape, t.element), abs(delta))
    name = "addi" if delta > 0 else "subi"
    a = Operation(name, (v, c.results[0]), (1, 1), (fresh.value(t),),
                  {"overflow": EnumValue("IntegerOverflow", "none")})
    return [c, a]


# --- operators ------------------------------------------------------------------------------------

def enumerate_swap_regions(module: Module) -> Iterator[Mutation]:
    for s in walk_sites(module):
        op = s.op
        if op.name == "if" and len(op.regions) == 2:
            def build(p=s.path, op=op):
                return with_op(module, p, [op.replace(regions=(op.regions[1], op.regions[0]))])
            yield Mutation("swap-regions", op_id(s.path), "then<->else", f"if/{_ctx(s)}",
                           f"then and else regions of the if at {op_id(s.path)} swapped", build)


def _clone_cone(ops: Sequence[Operation], idxs: Sequence[int], fresh: Fresh) -> Tuple[List[Operation], Dict[int, Value]]:
    mapping: Dict[int, Value] = {}
    out = []
    for i in idxs:
        op = ops[i]
        new_results = tuple(fresh.value(r.type) for r in op.results)
        for r, n in zip(op.results, new_results):
            mapping[r.vid] = n
        out.append(op.replace(operands=tuple(mapping.get(v.vid, v) for v in op.operands), results=new_results))
    return out, mapping


def _movable_effect(op: Operation, use_count: Dict[int, int]) -> bool:
    return (op.name in EFFECT_OPS and op.name not in ("alloca",) and not op.regions
            and not any(use_count.get(r.vid) for r in op.results))


def _cone_or_none(ops: Sequence[Operation], idx: int, local_vids: set) -> Optional[List[int]]:
    """The pure ops of ``ops`` before ``idx`` that ``ops[idx]`` needs; None when one of them is not
    pure or when the op needs a block argument / non-clonable local value."""
    op = ops[idx]
    roots = [v for v in free_values(op)]
    cone = cone_in_block(ops, idx, roots)
    if any(not is_pure(ops[i]) for i in cone):
        return None
    produced = {r.vid for i in cone for r in ops[i].results}
    for i in cone + [idx]:
        for v in free_values(ops[i]):
            if v in local_vids and v not in produced:
                return None
    return cone


def enumerate_move_region(module: Module) -> Iterator[Mutation]:
    """An effect op moved into a sibling region (the other branch of its if), out of its
    region (after the if/for), or into the then-branch of the if that follows it."""
    for s in walk_sites(module):
        op = s.op
        if op.name not in ("if", "for", "loop") or s.in_combiner:
            continue
        f = module.functions[s.path[0]]
        uc = uses(f)
        for r, reg in enumerate(op.regions):
            blk = reg.blocks[0]
            local = {a.vid for a in blk.arguments} | {x.vid for o in blk.operations for x in o.results}
            for i, inner in enumerate(blk.operations):
                if not _movable_effect(inner, uc):
                    continue
                cone = _cone_or_none(blk.operations, i, local)
                if cone is None:
                    continue
                bp = s.path + (r, 0)
                if op.name == "if" and len(op.regions) == 2:
                    def to_other(bp=bp, i=i, cone=cone, r=r, s=s, op=op):
                        fresh = Fresh(module)
                        src = block_at(module, bp)
                        clones, _ = _clone_cone(src.operations, cone + [i], fresh)
                        m = with_ops(module, bp, [o for k, o in enumerate(src.operations) if k != i])
                        obp = s.path + (1 - r, 0)
                        other = block_at(m, obp)
                        ops = list(other.operations)
                        at = len(ops) - 1 if ops and ops[-1].name in TERMINATORS else len(ops)
                        ops[at:at] = clones
                        return with_ops(m, obp, ops)
                    yield Mutation("move-region", op_id(bp + (i,)), "to-other-branch", f"{inner.name}/to-other-branch",
                                   f"{inner.name} at {op_id(bp + (i,))} moved from the "
                                   f"{'then' if r == 0 else 'else'} branch into the other branch", to_other)

                def hoist(bp=bp, i=i, cone=cone, s=s):
                    fresh = Fresh(module)
                    src = block_at(module, bp)
                    clones, _ = _clone_cone(src.operations, cone + [i], fresh)
                    m = with_ops(module, bp, [o for k, o in enumerate(src.operations) if k != i])
                    outer = block_at(m, s.bpath)
                    ops = list(outer.operations)
                    ops[s.index + 1:s.index + 1] = clones
                    return with_ops(m, s.bpath, ops)
                yield Mutation("move-region", op_id(bp + (i,)), "hoist-out", f"{inner.name}/out-of-{op.name}",
                               f"{inner.name} at {op_id(bp + (i,))} moved out of its {op.name} (after it)", hoist)
    # sink: an effect op followed (in its block, with only pure ops in between) by an if
    for s in walk_sites(module):
        if s.in_combiner or not _movable_effect(s.op, uses(module.functions[s.path[0]])):
            continue
        blk = block_at(module, s.bpath)
        j = s.index + 1
        while j < len(blk.operations) and is_pure(blk.operations[j]):
            j += 1
        if j >= len(blk.operations) or blk.operations[j].name != "if":
            continue
        target = blk.operations[j]
        # the op's own operands are all visible at the if: it is moved, not cloned
        for r in range(len(target.regions)):
            def sink(s=s, j=j, r=r):
                b = block_at(module, s.bpath)
                ops = list(b.operations)
                moved = ops[s.index]
                iff = ops[j]
                regions = list(iff.regions)
                inner = regions[r].blocks[0]
                regions[r] = Region((Block(inner.arguments, (moved,) + inner.operations),) + regions[r].blocks[1:])
                ops[j] = iff.replace(regions=tuple(regions))
                del ops[s.index]
                return with_ops(module, s.bpath, ops)
            yield Mutation("move-region", op_id(s.path), f"into-{'then' if r == 0 else 'else'}",
                           f"{s.op.name}/into-if", f"{s.op.name} at {op_id(s.path)} moved into the "
                           f"{'then' if r == 0 else 'else'} branch of the following if", sink)


# --- moving a memory op above another ---------------------------------------------------------------

def _token_ancestry(ops: Sequence[Operation], idx: int, tok: Optional[Value]) -> set:
    """Indices of the ops of the same block (before ``idx``) whose token result ``tok`` derives
    from, through join_tokens and token-threading ops."""
    if tok is None:
        return set()
    by_vid = {}
    for i, o in enumerate(ops[:idx]):
        for r in o.results:
            by_vid[r.vid] = i
    out, stack = set(), [tok.vid]
    while stack:
        v = stack.pop()
        i = by_vid.get(v)
        if i is None or i in out:
            continue
        out.add(i)
        for x in ops[i].operands:
            if isinstance(x.type, TokenType):
                stack.append(x.vid)
    return out


def move_above(module: Module, bpath: Path, a: int, b: int) -> Optional[Module]:
    """Move op ``b`` of the block above op ``a`` (a < b), together with the pure ops between
    them that ``b`` needs. When ``b``'s token is ordered after ``a`` the token wiring is swapped
    so the IR states the new order: ``b`` takes ``a``'s input token, ``a`` takes ``b``'s result,
    and later users of ``b``'s result take what ``b`` was ordered after. None when ``b`` depends
    on ``a`` by data, or needs a non-pure op in between."""
    blk = block_at(module, bpath)
    ops = list(blk.operations)
    A, B = ops[a], ops[b]
    tb_k = token_operand_index(B)
    ta_k = token_operand_index(A)
    ordered = tb_k is not None and a in _token_ancestry(ops, b, B.operands[tb_k])
    # data operands of B (the token is rewired when ordered)
    data_roots = [v for k, v in enumerate(B.operands) if not (ordered and k == tb_k)]
    a_defs = {r.vid for r in A.results}
    cone = [i for i in cone_in_block(ops, b, [v.vid for v in data_roots]) if i >= a]
    if a in cone:
        return None
    for i in cone:
        # pure ops move along; so may a load that is not ordered after A (two reads commute)
        if is_pure(ops[i]):
            continue
        k = token_operand_index(ops[i])
        if ops[i].name in READS and not (k is not None and a in _token_ancestry(ops, i, ops[i].operands[k])):
            continue
        return None
    for i in cone:
        if any(v.vid in a_defs for v in ops[i].operands):
            return None
    if any(v.vid in a_defs for v in data_roots):
        return None
    fi = bpath[0]
    rb = token_result(B)
    tb_old = B.operands[tb_k] if tb_k is not None else None
    if ordered:
        if ta_k is None:
            return None
        newB = set_operand(B, tb_k, A.operands[ta_k])
        newA = set_operand(A, ta_k, rb)
    else:
        newB, newA = B, A
    moved = [ops[i] for i in cone] + [newB]
    rest = [newA] + [ops[i] for i in range(a + 1, b) if i not in cone]
    new_ops = ops[:a] + moved + rest + ops[b + 1:]
    m = with_ops(module, bpath, new_ops)
    if ordered and rb is not None:
        newA_id = id(newA)
        m = replace_uses(m, fi, rb, tb_old, skip=lambda o: o is newA or id(o) == newA_id)
    return m


def _roots(module: Module):
    out = {}
    for _fi, f in enumerate(module.functions):
        prod = producers(f)
        for op in f.walk():
            if op.name in MEMORY_OPS:
                out[id(op)] = memory_root(op, prod, f)
    return out


def enumerate_swap_memory(module: Module) -> Iterator[Mutation]:
    """Two accesses to the same array, ordered by tokens, swapped (their positions and tokens)."""
    roots = _roots(module)
    for s in walk_sites(module):
        if s.op.name not in MEMORY_OPS or s.in_combiner:
            continue
        B = s.op
        rb_root = roots.get(id(B))
        if rb_root is None:
            continue
        blk = block_at(module, s.bpath)
        ops = blk.operations
        tb_k = token_operand_index(B)
        if tb_k is None:
            continue
        anc = _token_ancestry(ops, s.index, B.operands[tb_k])
        for a in sorted(anc, reverse=True):
            A = ops[a]
            if A.name not in MEMORY_OPS or roots.get(id(A)) != rb_root:
                continue
            if A.name in READS and B.name in READS:
                continue
            earlier = any(roots.get(id(o)) == rb_root and o.name in MEMORY_OPS for o in ops[:a])
            pair = f"{_kind(A)}-{_kind(B)}"
            cls = f"{pair}/{_ctx(s)}" + ("/after-earlier-access" if earlier else "")

            def build(bp=s.bpath, a=a, b=s.index):
                m = move_above(module, bp, a, b)
                if m is None:
                    raise MutationNotApplicable("data dependency")
                return m
            yield Mutation("swap-memory", op_id(s.path), f"above:{op_id(s.bpath + (a,))}", cls,
                           f"{B.name} at {op_id(s.path)} swapped with the {A.name} at {op_id(s.bpath + (a,))} "
                           f"(same array, token order swapped)", build)


def _kind(op: Operation) -> str:
    return "load" if op.name in READS else ("atomic" if op.name.startswith("atomic") else "store")


class MutationNotApplicable(Exception):
    pass


def enumerate_token(module: Module) -> Iterator[Mutation]:
    """Token rewiring: an op's token operand replaced by the function's first make_token
    ('unorder'), one operand dropped from the join_tokens it waits on, or the op moved above
    the preceding effect op of its block ('hoist')."""
    roots = _roots(module)
    for s in walk_sites(module):
        op = s.op
        k = token_operand_index(op)
        if k is None or s.in_combiner or op.name == "join_tokens":
            continue
        f = module.functions[s.path[0]]
        prod = producers(f)
        tok = op.operands[k]
        p = prod.get(tok.vid)
        visible = s.visible_values()
        base = next((v for v in visible if isinstance(v.type, TokenType) and prod.get(v.vid) is not None
                     and prod[v.vid].name == "make_token"), None)
        if p is not None and p.name != "make_token" and base is not None and base.vid != tok.vid:
            def unorder(path=s.path, k=k, base=base):
                o = op_at(module, path)
                return with_op(module, path, [set_operand(o, k, base)])
            yield Mutation("token", op_id(s.path), "unorder", f"{op.name}/unorder",
                           f"{op.name} at {op_id(s.path)} no longer ordered after {p.name} (token from make_token)",
                           unorder, oracle="token")
        if p is not None and p.name == "join_tokens" and len(p.operands) >= 2:
            for j in range(len(p.operands)):
                def drop(path=s.path, k=k, j=j, p=p):
                    fresh = Fresh(module)
                    rest = tuple(x for n, x in enumerate(p.operands) if n != j)
                    o = op_at(module, path)
                    if len(rest) == 1:
                        return with_op(module, path, [set_operand(o, k, rest[0])])
                    jn = Operation("join_tokens", rest, (len(rest),), (fresh.value(TokenType()),), {})
                    return with_op(module, path, [jn, set_operand(o, k, jn.results[0])])
                src = prod.get(p.operands[j].vid)
                yield Mutation("token", op_id(s.path), f"drop-join:{j}", f"{op.name}/drop-join",
                               f"{op.name} at {op_id(s.path)} no longer waits on the {src.name if src else 'argument'} "
                               f"token (operand {j} of its join_tokens)", drop, oracle="token")
        # hoist above the preceding effect op of the block (another array, or unordered)
        if op.name in MEMORY_OPS:
            blk = block_at(module, s.bpath)
            a = s.index - 1
            while a >= 0 and not is_effect(blk.operations[a]):
                a -= 1
            if a < 0 or blk.operations[a].name in TERMINATORS:
                continue
            A = blk.operations[a]
            a_effects = [x.name for x in A.walk() if x.name in EFFECT_OPS]
            if not a_effects or (op.name in READS and all(n in READS for n in a_effects)):
                continue  # nothing to reorder against, or two reads: an invariance, not a mutation
            same = A.name in MEMORY_OPS and roots.get(id(A)) is not None and roots.get(id(A)) == roots.get(id(op))
            if same:
                continue  # that is swap-memory
            def hoist(bp=s.bpath, a=a, b=s.index):
                m = move_above(module, bp, a, b)
                if m is None:
                    raise MutationNotApplicable("data dependency")
                return m
            yield Mutation("token", op_id(s.path), f"hoist-above:{op_id(s.bpath + (a,))}",
                           f"{op.name}/hoist-above-{_kind(A) if A.name in MEMORY_OPS else A.name}",
                           f"{op.name} at {op_id(s.path)} moved above the {A.name} at {op_id(s.bpath + (a,))}", hoist)


# --- pure chains and operands ------------------------------------------------------------------------

def enumerate_swap_chain(module: Module) -> Iterator[Mutation]:
    """f(g(x)) -> g(f(x)) for two pure ops where every type involved is the same."""
    prods = [producers(f) for f in module.functions]
    if True:
        for s in walk_sites(module):
            prod = prods[s.path[0]]
            F = s.op
            if not is_pure(F) or len(F.results) != 1 or F.name in ("constant", "assume"):
                continue
            for k, v in enumerate(F.operands):
                G = prod.get(v.vid)
                if (G is None or not is_pure(G) or len(G.results) != 1 or G.name in ("constant", "assume")
                        or G.results[0].vid != v.vid):
                    continue
                T = G.results[0].type
                if F.results[0].type != T:
                    continue
                for j, x in enumerate(G.operands):
                    if x.type != T:
                        continue
                    if F.name == G.name and _same_attrs(F, G) and len(F.operands) == 1:
                        continue  # f(f(x)) swapped is itself

                    def build(path=s.path, k=k, j=j, G=G, x=x, T=T):
                        fresh = Fresh(module)
                        Fo = op_at(module, path)
                        f1 = Fo.replace(operands=tuple(x if n == k else o for n, o in enumerate(Fo.operands)),
                                        results=(fresh.value(T),))
                        g1 = G.replace(operands=tuple(f1.results[0] if n == j else o
                                                      for n, o in enumerate(G.operands)),
                                       results=(Value(Fo.results[0].vid, T),))
                        m = with_op(module, path, [f1, g1])
                        if uses(module.functions[path[0]]).get(G.results[0].vid) == 1:
                            m = remove_op(m, path[0], G)  # g(x) is used by f only: not left behind dead
                        return m
                    yield Mutation("swap-chain", op_id(s.path), f"{F.name}.{k}<->{G.name}.{j}", f"{G.name}->{F.name}",
                                   f"{F.name}({G.name}(x)) at {op_id(s.path)} became {G.name}({F.name}(x))", build)


def _same_attrs(a: Operation, b: Operation) -> bool:
    return dict(a.attributes) == dict(b.attributes)


NONCOMMUTATIVE_PAIRS = {
    "subf": [(0, 1)], "divf": [(0, 1)], "subi": [(0, 1)], "remf": [(0, 1)], "remi": [(0, 1)], "divi": [(0, 1)],
    "shli": [(0, 1)], "shri": [(0, 1)], "atan2": [(0, 1)], "fpowf": [(0, 1)], "cmpf": [(0, 1)], "cmpi": [(0, 1)],
    "select": [(1, 2)], "fma": [(0, 2), (1, 2)], "mmaf": [(0, 1)], "mmai": [(0, 1)], "cat": [(0, 1)],
}


def enumerate_swap_operands(module: Module) -> Iterator[Mutation]:
    for s in walk_sites(module):
        op = s.op
        for i, j in NONCOMMUTATIVE_PAIRS.get(op.name, ()):
            if j >= len(op.operands):
                continue
            a, b = op.operands[i], op.operands[j]
            if a.type != b.type or a.vid == b.vid:
                continue
            if op.name in ("cmpf", "cmpi") and op.attributes["comparison_predicate"].name in ("equal", "not_equal"):
                continue  # commutative

            def build(path=s.path, i=i, j=j):
                o = op_at(module, path)
                ops = list(o.operands)
                ops[i], ops[j] = ops[j], ops[i]
                return with_op(module, path, [o.replace(operands=tuple(ops))])
            yield Mutation("swap-operands", op_id(s.path), f"{i}<->{j}", op.name,
                           f"operands {i} and {j} of {op.name} at {op_id(s.path)} swapped", build)


def _enum_values(enum: str, version) -> List[str]:
    return [v for v in ENUMS[enum] if ENUM_VALUE_SINCE.get((enum, v), (13, 1)) <= tuple(version)]


#: attributes the interpreter does not model (it runs one block at a time, in program order)
BLIND_ATTRS = frozenset(("memory_ordering_semantics", "memory_scope"))


def enumerate_enum_attr(module: Module) -> Iterator[Mutation]:
    """Every enum attribute (except compare predicates: cmp-predicate) set to every other value."""
    for s in walk_sites(module):
        op = s.op
        d = OPS_BY_NAME.get(op.name)
        if d is None:
            continue
        for a in d.attrs:
            if a.kind != "enum" or a.since > tuple(module.version) or a.name == "comparison_predicate":
                continue
            cur = op.attributes.get(a.name)
            cur_name = cur.name if isinstance(cur, EnumValue) else (a.default if cur is None else None)
            values = [v for v in _enum_values(a.enum, module.version) if v != cur_name]
            if a.optional and cur is not None:
                values.append(None)
            for v in values:
                def build(path=s.path, name=a.name, v=v, enum=a.enum):
                    o = op_at(module, path)
                    attrs = dict(o.attributes)
                    if v is None:
                        attrs.pop(name, None)
                    else:
                        attrs[name] = EnumValue(enum, v)
                    return with_op(module, path, [o.replace(attributes=attrs)])
                yield Mutation("enum-attr", op_id(s.path), f"{a.name}={v or 'absent'}", f"{op.name}.{a.name}",
                               f"{op.name} at {op_id(s.path)}: {a.name} {cur_name or 'absent'} -> {v or 'absent'}",
                               build, oracle="blind" if a.name in BLIND_ATTRS else "interp")


def enumerate_flag(module: Module) -> Iterator[Mutation]:
    """Every unit attribute (flush_to_zero, propagate_nan, fast_acc, unsignedCmp, saturating) flipped."""
    for s in walk_sites(module):
        op = s.op
        d = OPS_BY_NAME.get(op.name)
        if d is None:
            continue
        for a in d.attrs:
            if a.kind != "unit" or a.since > tuple(module.version) or op.name in ("global", "alloca"):
                continue
            on = bool(op.attributes.get(a.name))

            def build(path=s.path, name=a.name, on=on):
                o = op_at(module, path)
                attrs = dict(o.attributes)
                if on:
                    attrs.pop(name, None)
                else:
                    attrs[name] = True
                return with_op(module, path, [o.replace(attributes=attrs)])
            yield Mutation("flag", op_id(s.path), f"{a.name}={'off' if on else 'on'}", f"{op.name}.{a.name}",
                           f"{op.name} at {op_id(s.path)}: {a.name} {'removed' if on else 'added'}", build)


_FLIP = {"equal": "not_equal", "not_equal": "equal", "less_than": "greater_than_or_equal",
         "greater_than_or_equal": "less_than", "less_than_or_equal": "greater_than",
         "greater_than": "less_than_or_equal"}
_MIRROR = {"less_than": "greater_than", "greater_than": "less_than", "less_than_or_equal": "greater_than_or_equal",
           "greater_than_or_equal": "less_than_or_equal"}


def enumerate_cmp_predicate(module: Module) -> Iterator[Mutation]:
    for s in walk_sites(module):
        op = s.op
        if op.name not in ("cmpf", "cmpi"):
            continue
        cur = op.attributes["comparison_predicate"].name
        for v in ENUMS["ComparisonPredicate"]:
            if v == cur:
                continue
            how = "flip" if _FLIP[cur] == v else ("mirror" if _MIRROR.get(cur) == v else "other")

            def build(path=s.path, v=v):
                o = op_at(module, path)
                attrs = dict(o.attributes)
                attrs["comparison_predicate"] = EnumValue("ComparisonPredicate", v)
                return with_op(module, path, [o.replace(attributes=attrs)])
            yield Mutation("cmp-predicate", op_id(s.path), f"{how}:{v}", f"{op.name}/{how}",
                           f"{op.name} at {op_id(s.path)}: {cur} -> {v} ({how})", build)


def _shape(value) -> Optional[tuple]:
    return tuple(value.type.shape) if isinstance(value.type, TileType) else None


def keeps_result_type(op, name: str, v) -> bool:
    """Whether ``op`` with attribute ``name`` set to ``v`` still yields its result types. A mutant
    that does not is invalid IR, which the validity oracle (tileirdisasm) discards anyway: most
    reduce dims change the result shape, so a sample of such mutants can be all discarded."""
    srcs = [_shape(v_) for v_ in op.operands]
    out = _shape(op.results[0]) if op.results else None
    if out is None or any(x is None for x in srcs):
        return False
    if op.name == "reduce" and name == "dim":  # the operand's shape without dimension v
        return all(s[:v] + s[v + 1:] == out for s in srcs[:len(op.results)])
    if op.name == "cat" and name == "dim":  # the operands stacked along dimension v
        return all(len(s) == len(out) for s in srcs) and all(
            sum(s[k] for s in srcs) == out[k] if k == v else all(s[k] == out[k] for s in srcs)
            for k in range(len(out)))
    if op.name == "permute" and name == "permutation":
        return tuple(srcs[0][k] for k in v) == out
    return True  # scan dim and reverse keep the shape


def int_attr_candidates(op) -> List[Tuple[str, object]]:
    """Every (attribute, value) the int-attr kind could set on ``op``, type-valid or not."""
    variants: List[Tuple[str, object]] = []
    if op.name in ("reduce", "scan", "cat") and "dim" in op.attributes:
        rank = len(op.operands[0].type.shape) if isinstance(op.operands[0].type, TileType) else 0
        variants += [("dim", d) for d in range(rank) if d != op.attributes["dim"]]
    if op.name == "scan" and "reverse" in op.attributes:
        variants.append(("reverse", not op.attributes["reverse"]))
    if op.name == "permute":
        p = tuple(op.attributes["permutation"])
        for i in range(len(p) - 1):
            q = list(p)
            q[i], q[i + 1] = q[i + 1], q[i]
            variants.append(("permutation", tuple(q)))
    return variants


def int_attr_mutant(module: Module, path, name: str, v) -> Callable[[], Module]:
    def build():
        o = op_at(module, path)
        return with_op(module, path, [o.replace(attributes={**o.attributes, name: v})])
    return build


def enumerate_int_attr(module: Module) -> Iterator[Mutation]:
    """reduce/scan dim, scan reverse, cat dim, permute permutation; only those that keep the op's
    result types (keeps_result_type: the others are invalid IR)."""
    for s in walk_sites(module):
        op = s.op
        for name, v in int_attr_candidates(op):
            if keeps_result_type(op, name, v):
                yield Mutation("int-attr", op_id(s.path), f"{name}={v}", f"{op.name}.{name}",
                               f"{op.name} at {op_id(s.path)}: {name} {op.attributes.get(name)} -> {v}",
                               int_attr_mutant(module, s.path, name, v))


def enumerate_constant(module: Module) -> Iterator[Mutation]:
    """Each constant changed (+1 / -1 for integers, +1.0 / negated for floats, i1 flipped; element 0
    of a dense constant), and each reduce/scan identity changed."""
    for s in walk_sites(module):
        op = s.op
        if op.name == "constant":
            val: DenseElements = op.attributes["value"]
            e = val.type.element
            n = _elem_size(e)
            first = val.data[:n]
            variants = []
            if e.name == "i1":
                variants.append(("flip", bytes([first[0] ^ 1]) + val.data[n:]))
            elif e.is_int:
                x = int.from_bytes(first, "little", signed=True)
                variants.append(("plus-one", int_bytes(x + 1, e) + val.data[n:]))
                variants.append(("minus-one", int_bytes(x - 1, e) + val.data[n:]))
            elif e.is_float:
                x = _decode_float(first, e)
                if x is not None and x == x and abs(x) != float("inf"):
                    try:
                        variants.append(("plus-one", float_bytes(x + 1.0, e) + val.data[n:]))
                    except (OverflowError, ValueError):
                        pass
                b = bytearray(first)
                b[-1] ^= 0x80
                variants.append(("negate", bytes(b) + val.data[n:]))
            for name, data in variants:
                def build(path=s.path, data=data):
                    o = op_at(module, path)
                    v = o.attributes["value"]
                    return with_op(module, path, [o.replace(attributes={**o.attributes,
                                                                         "value": DenseElements(v.type, data)})])
                yield Mutation("constant", op_id(s.path), name, f"{e.name}/{_ctx(s)}",
                               f"constant <{e.name}> at {op_id(s.path)} {name}", build)
        if op.name in ("reduce", "scan"):
            ids = op.attributes.get("identities", ())
            for i, ident in enumerate(ids):
                new = None
                if isinstance(ident, IntegerAttr):
                    new = [("plus-one", IntegerAttr(ident.value + 1, ident.type))]
                elif isinstance(ident, FloatAttr):
                    w = ident.type.width
                    new = [("negate", FloatAttr(ident.bits ^ (1 << (w - 1)), ident.type))]
                    try:
                        x = ident.value
                        if x == x and abs(x) != float("inf"):
                            nb = int.from_bytes(float_bytes(x + 1.0, ident.type), "little")
                            new.append(("plus-one", FloatAttr(nb, ident.type)))
                    except (ValueError, OverflowError):
                        pass
                for name, v in new or ():
                    def build(path=s.path, i=i, v=v):
                        o = op_at(module, path)
                        ids2 = list(o.attributes["identities"])
                        ids2[i] = v
                        return with_op(module, path, [o.replace(attributes={**o.attributes, "identities": tuple(ids2)})])
                    yield Mutation("constant", op_id(s.path), f"identity{i}:{name}", f"{op.name}-identity",
                                   f"{op.name} at {op_id(s.path)}: identity {i} {name}", build)


INDEX_NAMES = {"index", "indices", "offset"}


def enumerate_index(module: Module) -> Iterator[Mutation]:
    """Each index operand (view loads/stores/atomics, extract/insert, offset) +1 or rewired to
    another visible value of its type."""
    for s in walk_sites(module):
        op = s.op
        if op.name not in MEMORY_OPS and op.name not in ("extract", "insert", "offset"):
            continue
        names = operand_names(op, module.version)
        for k, (v, nm) in enumerate(zip(op.operands, names)):
            if nm not in INDEX_NAMES:
                continue
            t = v.type
            if isinstance(t, TileType) and t.element.is_int:
                def plus(path=s.path, k=k, t=t):
                    fresh = Fresh(module)
                    o = op_at(module, path)
                    pre = _int_add(t, fresh, o.operands[k], 1)
                    return with_op(module, path, pre + [set_operand(o, k, pre[-1].results[0])])
                yield Mutation("index", op_id(s.path), f"{k}:plus-one", f"{op.name}/plus-one",
                               f"index operand {k} of {op.name} at {op_id(s.path)} + 1", plus)
            for c in _candidates(s, v):
                def rew(path=s.path, k=k, c=c):
                    return with_op(module, path, [set_operand(op_at(module, path), k, c)])
                yield Mutation("index", op_id(s.path), f"{k}:rewire:%{c.vid}", f"{op.name}/rewire",
                               f"index operand {k} of {op.name} at {op_id(s.path)} rewired to another {t}", rew)


def _candidates(s: Site, v: Value) -> List[Value]:
    seen = set()
    out = []
    for c in s.visible_values():
        if c.type == v.type and c.vid != v.vid and c.vid not in seen:
            seen.add(c.vid)
            out.append(c)
    return out


def enumerate_rewire(module: Module) -> Iterator[Mutation]:
    """Each data operand (not a token, not an index) rewired to each other visible value of its type."""
    for s in walk_sites(module):
        op = s.op
        names = operand_names(op, module.version) if op.name in OPS_BY_NAME else ["?"] * len(op.operands)
        for k, v in enumerate(op.operands):
            if isinstance(v.type, TokenType):
                continue
            if op.name in MEMORY_OPS | {"extract", "insert", "offset"} and names[k] in INDEX_NAMES:
                continue
            for c in _candidates(s, v):
                def build(path=s.path, k=k, c=c):
                    return with_op(module, path, [set_operand(op_at(module, path), k, c)])
                yield Mutation("rewire", op_id(s.path), f"{k}:%{c.vid}", f"{op.name}/{_ctx(s)}",
                               f"operand {k} ({names[k]}) of {op.name} at {op_id(s.path)} rewired to another "
                               f"value of type {v.type}", build)


def _token_for(module: Module, path: Path, fresh: Fresh, op: Operation) -> Tuple[List[Operation], Value]:
    k = token_operand_index(op)
    if k is not None:
        return [], op.operands[k]
    mt = Operation("make_token", (), (), (fresh.value(TokenType()),), {})
    return [mt], mt.results[0]


def enumerate_drop_store(module: Module) -> Iterator[Mutation]:
    for s in walk_sites(module):
        op = s.op
        if op.name not in WRITES or s.in_combiner:
            continue
        f = module.functions[s.path[0]]
        uc = uses(f)
        tr = token_result(op)
        if any(uc.get(r.vid) for r in op.results if r is not tr):
            continue  # the old value of an atomic is used

        def build(path=s.path, tr=tr):
            fresh = Fresh(module)
            o = op_at(module, path)
            pre, tok = _token_for(module, path, fresh, o)
            m = with_op(module, path, pre)
            if tr is not None:
                m = replace_uses(m, path[0], tr, tok)
            return m
        yield Mutation("drop-store", op_id(s.path), "drop", f"{op.name}/{_ctx(s)}",
                       f"{op.name} at {op_id(s.path)} removed", build)


def enumerate_dup_store(module: Module) -> Iterator[Mutation]:
    roots = _roots(module)
    for s in walk_sites(module):
        op = s.op
        if op.name not in WRITES or s.in_combiner:
            continue
        tr = token_result(op)
        k = token_operand_index(op)

        def adjacent(path=s.path, tr=tr, k=k):
            fresh = Fresh(module)
            o = op_at(module, path)
            copy = o.replace(results=tuple(fresh.value(r.type) for r in o.results))
            if k is not None and tr is not None:
                copy = set_operand(copy, k, tr)
            m = with_op(module, path, [o, copy])
            if tr is not None:
                ctr = token_result(copy)
                m = replace_uses(m, path[0], tr, ctr, skip=lambda x: x is copy)
            return m
        yield Mutation("dup-store", op_id(s.path), "adjacent", f"{op.name}/adjacent",
                       f"{op.name} at {op_id(s.path)} duplicated right after itself", adjacent)
        blk = block_at(module, s.bpath)
        later = [i for i in range(s.index + 1, len(blk.operations))
                 if blk.operations[i].name in MEMORY_OPS and roots.get(id(blk.operations[i])) == roots.get(id(op))
                 and blk.operations[i].name in WRITES]
        if later and blk.operations[-1].name in TERMINATORS:
            last = later[-1]

            def at_end(bp=s.bpath, i=s.index, last=last, k=k):
                fresh = Fresh(module)
                b = block_at(module, bp)
                o = b.operations[i]
                copy = o.replace(results=tuple(fresh.value(r.type) for r in o.results))
                ltr = token_result(b.operations[last])
                if k is not None and ltr is not None:
                    copy = set_operand(copy, k, ltr)
                ops = list(b.operations)
                ops.insert(len(ops) - 1, copy)
                return with_ops(module, bp, ops)
            yield Mutation("dup-store", op_id(s.path), "after-later-store", f"{op.name}/after-later-store",
                           f"{op.name} at {op_id(s.path)} repeated at the end of its block, after a later "
                           f"store to the same array", at_end)


def enumerate_loop(module: Module) -> Iterator[Mutation]:
    for s in walk_sites(module):
        op = s.op
        if op.name != "for":
            continue
        for k, name, delta in ((0, "lb+1", 1), (1, "ub+1", 1), (1, "ub-1", -1), (2, "step+1", 1)):
            t = op.operands[k].type

            def build(path=s.path, k=k, delta=delta, t=t):
                fresh = Fresh(module)
                o = op_at(module, path)
                pre = _int_add(t, fresh, o.operands[k], delta)
                return with_op(module, path, pre + [set_operand(o, k, pre[-1].results[0])])
            yield Mutation("loop", op_id(s.path), name, f"for/{name.rstrip('+-1')}",
                           f"for at {op_id(s.path)}: {name}", build)


def enumerate_padding(module: Module) -> Iterator[Mutation]:
    for s in walk_sites(module):
        op = s.op
        if not op.results or not isinstance(op.results[0].type, VIEW_TYPES):
            continue
        t = op.results[0].type
        for v in list(PADDING_VALUES) + [None]:
            if v == t.padding:
                continue

            def build(fi=s.path[0], vid=op.results[0].vid, t=t, v=v):
                return retype_value(module, fi, vid, replace(t, padding=v))
            yield Mutation("padding", op_id(s.path), f"padding={v or 'none'}", f"{op.name}",
                           f"{op.name} at {op_id(s.path)}: padding {t.padding or 'none'} -> {v or 'none'}", build)


OPERATORS: Dict[str, Callable[[Module], Iterable[Mutation]]] = {
    "swap-regions": enumerate_swap_regions,
    "move-region": enumerate_move_region,
    "swap-memory": enumerate_swap_memory,
    "swap-chain": enumerate_swap_chain,
    "swap-operands": enumerate_swap_operands,
    "enum-attr": enumerate_enum_attr,
    "flag": enumerate_flag,
    "cmp-predicate": enumerate_cmp_predicate,
    "int-attr": enumerate_int_attr,
    "constant": enumerate_constant,
    "index": enumerate_index,
    "rewire": enumerate_rewire,
    "drop-store": enumerate_drop_store,
    "dup-store": enumerate_dup_store,
    "token": enumerate_token,
    "loop": enumerate_loop,
    "padding": enumerate_padding,
}

def enumerate_all(module: Module, kinds: Optional[Sequence[str]] = None) -> Iterator[Mutation]:
    for k in kinds or OPERATORS:
        yield from OPERATORS[k](module)


def find_mutation(module: Module, key: str) -> Optional[Mutation]:
    kind = key.split("|", 1)[0]
    for m in OPERATORS[kind](module):
        if m.key == key:
            return m
    return None
