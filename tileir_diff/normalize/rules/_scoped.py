"""Dominance-scoped rewriting: the walk assume-chains, constant-dedup and cse-pure-ops share."""
from __future__ import annotations

from dataclasses import replace
from typing import AbstractSet, Callable, Dict, Hashable, Iterable, List, Optional, Tuple

from ...ir import Block, Function, Operation, Region, Value
from ..util import op_lists, substitute, substitute_run


#: Visitor of scoped_rewrite: (op, scope table, substitution) -> None to keep the op, or the ops
#: to put in its place ([] drops it; it may map the dropped results in the substitution).
ScopedVisit = Callable[[Operation, Dict[Hashable, object], Dict[int, Value]], Optional[List[Operation]]]


def scoped_rewrite(f: Function, visit: ScopedVisit, only: Optional[AbstractSet[str]] = None) -> Function:
    """Rebuild ``f`` walking each block in order with a scope table: ``visit`` sees every op with
    its operands substituted and its regions already rewritten. A nested block starts from a copy
    of the enclosing table, so what it adds is not seen after it (an op dominates the rest of its
    block and the regions nested there). ``only``: the op names ``visit`` can act on (it returns
    None for any other op without reading or writing the table); other ops are kept (operands
    substituted, regions rewritten) without a call."""
    subst: Dict[int, Value] = {}

    def block(b: Block, table: Dict[Hashable, object]) -> Block:
        table = dict(table)  # a nested scope sees the enclosing entries written before it
        ops = b.operations
        if only is None:
            to_visit: Iterable[int] = range(len(ops))
        else:  # the ops ``visit`` may act on and those with regions; the others are only substituted
            to_visit = [i for i, op in enumerate(ops) if op.regions or op.name in only]
            if not to_visit and not subst:
                return b
        out: Optional[List[Operation]] = None  # the new ops, from the first change on
        done = 0  # ops[:done] are handled (and in ``out`` once it exists)
        for i in to_visit:
            if i > done:
                if subst:
                    out = substitute_run(ops, done, i, subst, out)
                elif out is not None:
                    out.extend(ops[done:i])  # (no substitution can start between two visits)
            done = i + 1
            op = ops[i]
            new = substitute(op, subst) if subst else op
            if new.regions:
                regions = tuple(Region(tuple(block(x, table) for x in r.blocks)) for r in new.regions)
                if any(a is not c for r1, r2 in zip(regions, new.regions) for a, c in zip(r1.blocks, r2.blocks)):
                    new = new.replace(regions=regions)
            replacement = visit(new, table, subst) if only is None or new.name in only else None
            if replacement is None:
                if out is not None:
                    out.append(new)
                elif new is not op:
                    out = list(ops[:i])
                    out.append(new)
            else:
                if out is None:
                    out = list(ops[:i])
                out.extend(replacement)
        if done < len(ops):
            if subst:
                out = substitute_run(ops, done, len(ops), subst, out)
            elif out is not None:
                out.extend(ops[done:])
        return b if out is None else Block(b.arguments, tuple(out))

    body = block(f.body, {})
    return f if body is f.body else replace(f, body=body)


def scoped_dedup(f: Function, key: Callable[[Operation], Optional[Hashable]],
                 only: Optional[AbstractSet[str]] = None,
                 prekeys: Optional[Callable[[List[Operation]], List[Hashable]]] = None) -> Tuple[Function, int]:
    """Drop each op whose ``key`` equals that of an earlier dominating op; its results are
    replaced by the earlier op's. ``only``: the op names that can have a key (see scoped_rewrite).
    ``prekeys``: ops -> a coarser key of each op that can have a key, cheaper to compute (two
    ops with equal keys have equal prekeys): the function is first searched for two ops with one
    prekey instead of one key."""
    removed = 0
    if only is not None:
        # Nothing merges unless two ops of ``f`` as written have one key (the first merge compares
        # two of them; a substitution comes only after a merge): then ``f`` stays as it is, and a
        # function of distinct ops (most, on one side of a diff) costs one pass over the ops.
        candidates = [op for ops in op_lists(f.body) for op in ops if op.name in only]
        keys = [k for k in map(key, candidates) if k is not None] if prekeys is None else prekeys(candidates)
        if len(set(keys)) == len(keys):
            return f, 0

    def visit(op: Operation, table, subst):
        nonlocal removed
        k = key(op)
        if k is None:
            return None
        first = table.get(k)
        if first is None:
            table[k] = op
            return None
        for old_v, keep_v in zip(op.results, first.results):
            subst[old_v.vid] = keep_v
        removed += 1
        return []

    return scoped_rewrite(f, visit, only), removed


def hoist_invariant(f: Function, movable: Callable[[Operation], bool]) -> Tuple[Function, int]:
    """Move each ``movable`` op (pure, no regions) whose operands are all defined outside the
    region it sits in to just before the region's op, repeatedly outward (loop-invariant code
    motion). Where a pure op is written, inside or before a loop, then no longer matters, and
    dedup can merge it with an equal op written at the outer level."""
    if not [op for op in f.body.operations if op.regions]:
        return f, 0  # no region, nothing to move out of one
    moved = 0

    def process(b: Block, is_region: bool) -> Tuple[Block, List[Operation]]:
        nonlocal moved
        inside = {a.vid for a in b.arguments}
        out: List[Operation] = []
        hoisted: List[Operation] = []
        changed = False

        def place(op: Operation) -> None:
            nonlocal changed
            if not is_region:  # the function body: nothing moves out of it
                out.append(op)
                return
            if movable(op) and not op.regions and all(v.vid not in inside for v in op.operands):
                hoisted.append(op)
                changed = True
                return
            out.append(op)
            for r in op.results:
                inside.add(r.vid)

        for op in b.operations:
            if op.regions:
                pulled: List[Operation] = []
                regions = []
                rebuilt = False
                for r in op.regions:
                    blocks = []
                    for x in r.blocks:
                        nb, h = process(x, True)
                        blocks.append(nb)
                        pulled.extend(h)
                        rebuilt |= nb is not x
                    regions.append(Region(tuple(blocks)))
                # a block may change with nothing leaving this op: ops hoisted out of an if
                # nested in it stop in its body (the op must still take the rebuilt regions)
                if rebuilt:
                    op = op.replace(regions=tuple(regions))
                    changed = True
                moved += len(pulled)
                for p in pulled:
                    place(p)
            place(op)
        return (Block(b.arguments, tuple(out)) if changed else b), hoisted

    body, _ = process(f.body, False)
    return (f if body is f.body else replace(f, body=body)), moved


def hoist_then_dedup(f: Function, movable, key, only: Optional[AbstractSet[str]] = None,
                     prekeys=None) -> Tuple[Function, int]:
    f, moved = hoist_invariant(f, movable)
    f, removed = scoped_dedup(f, key, only, prekeys)
    return f, moved + removed
