"""Helpers the rules share: origin tags, operand groups, use counts and a block rewriter.

Rules never mutate: they rebuild the blocks they change and return new Function/Module objects.
Each op carries its original op id in ``Operation.origin`` (set by ``tag_origins``) so later
stages can point differences at the op as printed from the input file, whatever the rules did.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import AbstractSet, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.ops import OPS_BY_TRAIT, op_def
from ..ir.core import copy_label, make_operation as new_operation  # Operation(...) without the frozen-dataclass __init__ cost
from ..ir import Block, Function, Module, Operation, Region, Value



def is_private(key: str) -> bool:
    return key[:1] == "_"


def public_attributes(op: Operation) -> Dict[str, object]:
    return {k: v for k, v in op.attributes.items() if k[:1] != "_"}


def origin(op: Operation) -> Optional[str]:
    return op.origin


def with_fields(op: Operation, *, operands=None, segments=None, attributes=None, regions=None) -> Operation:
    """A copy of ``op`` with some fields replaced (dataclasses.replace is several times slower).
    New operands or regions keep the op's memoized label (normalize/keys.py), which reads neither."""
    new = new_operation(op.name, op.operands if operands is None else operands,
                        op.segments if segments is None else segments, op.results,
                        op.attributes if attributes is None else attributes,
                        op.regions if regions is None else regions, op.location, op.origin)
    if segments is None and attributes is None:
        copy_label(op, new)
    return new


def _tag_block(block: Block, prefix: str) -> Block:
    ops: List[Operation] = []
    append = ops.append
    prefix += "/o"
    for j, op in enumerate(block.operations):
        oid = prefix + str(j)
        regions = tuple(Region(tuple(_tag_block(b, f"{oid}/r{k}") for b in r.blocks))
                        for k, r in enumerate(op.regions)) if op.regions else ()
        append(new_operation(op.name, op.operands, op.segments, op.results, op.attributes, regions,
                             op.location, oid))
    return Block(block.arguments, tuple(ops))


def tag_origins(module: Module) -> Module:
    """Return ``module`` with every op tagged with its op id (``f<i>/o<j>[/r<k>/o<j>...]``).

    Regions of Tile IR ops hold one block each, so a block needs no index in the path."""
    funcs = tuple(replace(f, body=_tag_block(f.body, f"f{i}")) for i, f in enumerate(module.functions))
    return replace(module, functions=funcs)


def origins(module: Module) -> set:
    """The origin tags of every op in ``module``, nested regions included."""
    out = set()
    stack = [f.body for f in module.functions]
    while stack:
        ops = stack.pop().operations
        out.update([op.origin for op in ops])
        stack.extend([b for op in ops if op.regions for r in op.regions for b in r.blocks])
    out.discard(None)
    return out


def names_and_origins(module: Module) -> Tuple[set, set]:
    """``op_names(module)`` and ``origins(module)`` in one walk."""
    names: set = set()
    tags: set = set()
    stack = [f.body for f in module.functions]
    while stack:
        ops = stack.pop().operations
        names.update([op.name for op in ops])
        tags.update([op.origin for op in ops])
        stack.extend([b for op in ops if op.regions for r in op.regions for b in r.blocks])
    tags.discard(None)
    return names, tags


def op_ids(function: Function, index: int) -> Iterator[Tuple[str, Operation]]:
    """(op id, op) pairs in pre-order, ids as ``tag_origins`` assigns them."""
    def walk(block: Block, prefix: str):
        for j, op in enumerate(block.operations):
            oid = f"{prefix}/o{j}"
            yield oid, op
            for k, r in enumerate(op.regions):
                for b in r.blocks:
                    yield from walk(b, f"{oid}/r{k}")
    yield from walk(function.body, f"f{index}")


# --- operand groups ------------------------------------------------------------------------

_GROUP_NAMES: Dict[Tuple[str, Tuple[int, ...]], Tuple[str, ...]] = {}


def group_names(op: Operation, version) -> Tuple[str, ...]:
    """Names of the operand groups ``op.segments`` counts, for the module's bytecode version."""
    key = (op.name, tuple(version))
    names = _GROUP_NAMES.get(key)
    if names is None:
        d = OPS_BY_NAME.get(op.name)
        names = () if d is None else tuple(o.name for o in d.layout(key[1]).operands)
        _GROUP_NAMES[key] = names  # bounded: op names x versions
    return names


def group_span(op: Operation, name: str, version) -> Optional[Tuple[int, int]]:
    """(start, size) of the named operand group in ``op.operands``; None if the op lacks it."""
    names = group_names(op, version)
    if name not in names or len(op.segments) != len(names):
        return None
    i = names.index(name)
    return sum(op.segments[:i]), op.segments[i]


def _words(name: str) -> str:
    """A schema name as words: ``upperBound`` -> ``upper bound``, ``dynamicStrides`` -> ``dynamic strides``."""
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: " " + m.group(1).lower(), name)


def operand_role(op: Operation, k: int, version) -> str:
    """The schema name of operand ``k`` in words ("index[1]", "lhs", "upper bound", "dynamic
    strides[0]", ...) for messages."""
    names = group_names(op, version)
    if len(op.segments) == len(names):
        start = 0
        for name, size in zip(names, op.segments):
            if start <= k < start + size:
                d = OPS_BY_NAME[op.name]
                arity = next(o.arity for o in d.operands if o.name == name)
                return f"{_words(name)}[{k - start}]" if arity == "variadic" else _words(name)
            start += size
    return f"operand {k}"


#: trait -> the op table's names with it (implied traits included): one set lookup per question.
_OPS_WITH_TRAIT: Mapping[str, frozenset] = OPS_BY_TRAIT
_NO_OPS: frozenset = frozenset()


def has_trait(op: Operation, trait: str) -> bool:
    return op.name in _OPS_WITH_TRAIT.get(trait, _NO_OPS)


# --- uses and fresh ids ---------------------------------------------------------------------

def ops_of(*bodies: Block) -> Iterator[Operation]:
    """Every op in the given blocks, nested regions included (parents before their bodies).
    One generator with an explicit stack: Function.walk() nests a generator per region level,
    which costs a frame per level per op."""
    stack = [b.operations for b in bodies]
    while stack:
        for op in stack.pop():
            yield op
            if op.regions:
                stack.extend(b.operations for r in op.regions for b in r.blocks)


def preorder(function: Function) -> Iterator[Operation]:
    """Every op of ``function`` in pre-order (an op, then the ops of its regions, then the next
    op): the order ``Function.walk()`` gives, in one generator with a stack of iterators instead
    of a generator per nesting level."""
    stack = [iter(function.body.operations)]
    while stack:
        for op in stack[-1]:
            yield op
            if op.regions:
                stack.append(iter([inner for r in op.regions for b in r.blocks for inner in b.operations]))
                break  # the region's ops first; this level's iterator goes on after them
        else:
            stack.pop()


def op_lists(*bodies: Block) -> List[Sequence[Operation]]:
    """The op tuples of the given blocks and of every block nested in their ops' regions, in the
    order ``ops_of`` reaches them (concatenated, they are ``ops_of(*bodies)``). A walk that runs
    one comprehension per block costs a fraction of one that resumes a generator per op."""
    out: List[Sequence[Operation]] = []
    stack = [b.operations for b in bodies]
    while stack:
        ops = stack.pop()
        out.append(ops)
        stack.extend([b.operations for op in ops if op.regions for r in op.regions for b in r.blocks])
    return out


def names_in(function: Function) -> set:
    """The op names used in ``function``, regions included."""
    names: set = set()
    for ops in op_lists(function.body):
        names.update({op.name for op in ops})
    return names


def producers_of(function: Function) -> Dict[int, Operation]:
    """value id -> the op defining it, for every op result in ``function`` (value ids are unique
    in a function, so the order of the walk does not matter)."""
    out: Dict[int, Operation] = {}
    for ops in op_lists(function.body):
        out.update({r.vid: op for op in ops for r in op.results})
    return out


def use_counts(function: Function, lists: Optional[List[Sequence[Operation]]] = None) -> Counter:
    """vid -> number of operand uses anywhere in the function (regions included). ``lists``:
    ``op_lists(function.body)`` when the caller has it."""
    vids: List[int] = []
    for ops in op_lists(function.body) if lists is None else lists:
        vids.extend([v.vid for op in ops for v in op.operands])
    return Counter(vids)  # counted in C


def use_counts_and(function: Function, pick: Callable[[Operation], bool],
                   select: Optional[Callable[[Sequence[Operation]], List[Operation]]] = None
                   ) -> Tuple[Counter, List[Operation]]:
    """``use_counts(function)`` and the ops ``pick`` accepts (pre-order by blocks), in one walk.
    ``select``: a block's ops -> those ``pick`` accepts, when it can say so without a call per op."""
    vids: List[int] = []
    picked: List[Operation] = []
    for ops in op_lists(function.body):
        vids.extend([v.vid for op in ops for v in op.operands])
        picked.extend(select(ops) if select is not None else filter(pick, ops))
    return Counter(vids), picked


#: What dead-code may remove when none of its results is used: the pure ops of the op table but
#: ``assume`` (a fact, compared even when unused), when they have results.
REMOVABLE_WHEN_UNUSED = frozenset(d.name for d in OPS_BY_NAME.values() if "pure" in d.traits and d.name != "assume")


def live_users(function: Function) -> Dict[int, List[Operation]]:
    """value id -> the ops that read it, leaving out the readers dead-code will remove (pure ops
    none of whose results is used, transitively). A rule that asks "is every reader of this value
    an X" asks it of these: an unused op on a value must not decide whether the value is rewritten,
    or adding dead code to one side of a pair would change what the rules make of it. A rule
    that replaces the value keeps it defined for the dead readers (dead-code removes both)."""
    lists = op_lists(function.body)
    counts = use_counts(function, lists)
    candidates = [op for ops in lists for op in ops if op.results and op.name in REMOVABLE_WHEN_UNUSED]
    dead = unused_cascade(candidates, counts) if candidates else set()
    out: Dict[int, List[Operation]] = {}
    for ops in lists:
        for op in ops:
            if op in dead:
                continue
            for v in op.operands:
                out.setdefault(v.vid, []).append(op)
    return out


def count_ops(module: Module) -> int:
    """Number of ops in ``module``, regions included (a block's ops counted at once)."""
    count = 0
    stack = [f.body for f in module.functions]
    while stack:
        ops = stack.pop().operations
        count += len(ops)
        stack.extend([b for op in ops if op.regions for r in op.regions for b in r.blocks])
    return count


def op_names(module: Module) -> set:
    """The set of op names used in ``module``, regions included."""
    return names_and_origins(module)[0]


def drop_unused(function: Function, droppable: Callable[[Operation], bool],
                names: Optional[AbstractSet[str]] = None) -> Function:
    """Remove ``droppable`` ops none of whose results is used, until none is left (removing one
    can leave its operands' producers unused): the clean-up a rule does after itself, so that it
    does not depend on dead-code being enabled. One count of the uses and one rebuild: removing
    an op can only leave its own operands' producers unused, so a work list finds the same ops
    as sweeping again until nothing changes. ``names``: when given, ``droppable`` accepts only
    ops with these names (the others are not asked)."""
    select = None if names is None else (lambda ops: [op for op in ops if op.name in names and droppable(op)])
    return _drop_unused(function, droppable, select)


def drop_unused_ids(function: Function, ids: AbstractSet[int]) -> Function:
    """``drop_unused(function, lambda op: id(op) in ids)``, the ops picked without a call each."""
    return _drop_unused(function, lambda op: id(op) in ids, lambda ops: [op for op in ops if id(op) in ids])


def _drop_unused(function: Function, droppable: Callable[[Operation], bool],
                 select: Optional[Callable[[Sequence[Operation]], List[Operation]]]) -> Function:
    uses, candidates = use_counts_and(function, droppable, select)
    if any(op.regions for op in candidates):  # a region op: its copies differ from it after a sweep
        return _drop_unused_sweeps(function, droppable, uses)  # (id-based predicates)
    dropped = unused_cascade(candidates, uses)
    if not dropped:
        return function
    return without_ops(function, dropped)


def without_ops(function: Function, gone: AbstractSet[Operation]) -> Function:
    """``function`` without the ops in ``gone``, none of which has regions (an op holding a
    block that lost ops is copied with the new block); ``function`` itself when none is there.
    What ``rewrite_function`` does with a rewrite that drops those ops, in one comprehension
    per block. (An Operation hashes by identity: a set of ops is a set of ids without a call of
    ``id`` per look-up.)"""
    body = _without_ops(function.body, gone)
    return function if body is function.body else replace(function, body=body)


def _without_ops(block: Block, gone: AbstractSet[Operation]) -> Block:
    ops = block.operations
    kept = [op for op in ops if op not in gone]
    changed = len(kept) != len(ops)
    holders = [op for op in kept if op.regions]
    for op in holders:
        regions = tuple(Region(tuple(_without_ops(b, gone) for b in r.blocks)) for r in op.regions)
        if any(nb is not ob for nr, orr in zip(regions, op.regions) for nb, ob in zip(nr.blocks, orr.blocks)):
            kept[kept.index(op)] = with_fields(op, regions=regions)  # (index: by identity, ops never compare equal)
            changed = True
    return Block(block.arguments, tuple(kept)) if changed else block


def unused_cascade(candidates: List[Operation], uses: Dict[int, int]) -> AbstractSet[Operation]:
    """The ``candidates`` none of whose results is used once the others among them that are
    unused are gone (transitively), by a work list: removing an op can only leave its own
    operands' producers unused. ``uses`` (value id -> use count) is decremented for every use
    by a removed op, so it ends as the counts of what remains."""
    # (the first result is looked at before the generator: most ops have one, and most are used)
    work = [op for op in candidates
            if not (op.results and uses[op.results[0].vid]) and all(uses[r.vid] == 0 for r in op.results)]
    gone: set = set()
    producer: Optional[Dict[int, Operation]] = None  # made when a use count first drops to 0
    while work:
        op = work.pop()
        if op in gone:
            continue
        gone.add(op)
        for v in op.operands:
            uses[v.vid] -= 1
            if uses[v.vid] == 0:
                if producer is None:
                    producer = {r.vid: c for c in candidates for r in c.results}
                p = producer.get(v.vid)
                if p is not None and p not in gone and all(uses[r.vid] == 0 for r in p.results):
                    work.append(p)
    return gone


def _drop_unused_sweeps(function: Function, droppable: Callable[[Operation], bool], uses: Counter) -> Function:
    """``drop_unused`` by whole sweeps, each on the function the last one left (``uses``: the
    function's use counts)."""
    while True:
        removed = [0]

        def fn(op, subst):
            if droppable(op) and all(uses[r.vid] == 0 for r in op.results):  # noqa: B023
                removed[0] += 1  # noqa: B023
                return []
            return None
        function = rewrite_function(function, fn)
        if not removed[0]:
            return function
        uses = use_counts(function)


def max_vid(function: Function) -> int:
    """The largest value id in ``function`` (arguments, block arguments and results; -1 if none)."""
    vids = [a.vid for a in function.arguments]
    stack = [function.body]
    while stack:
        block = stack.pop()
        if block.arguments:
            vids.extend([a.vid for a in block.arguments])
        for op in block.operations:
            if op.results:
                vids.extend([r.vid for r in op.results])
            if op.regions:
                stack.extend([b for r in op.regions for b in r.blocks])
    return max(vids, default=-1)


class FreshVids:
    """``[max_vid(function)]`` for rules that count new value ids up from it (``fresh[0] += 1``),
    with the walk that finds the largest id done on the first read: most functions get no new
    value."""
    __slots__ = ("_function", "_last")

    def __init__(self, function: Function):
        self._function = function
        self._last: Optional[int] = None

    def __getitem__(self, index: int) -> int:
        if index != 0:
            raise IndexError(index)
        if self._last is None:
            self._last = max_vid(self._function)
        return self._last

    def __setitem__(self, index: int, value: int) -> None:
        if index != 0:
            raise IndexError(index)
        self._last = value


# --- rewriting --------------------------------------------------------------------------------

#: Callback: (op with operands already substituted, substitution map) -> replacement ops
#: (None = keep the op as is). It may add entries to the map (old vid -> new Value).
OpRewrite = Callable[[Operation, Dict[int, Value]], Optional[Sequence[Operation]]]


def substitute(op: Operation, subst: Dict[int, Value]) -> Operation:
    if not subst:
        return op
    for v in op.operands:
        if v.vid in subst:
            return with_fields(op, operands=tuple([subst.get(v.vid, v) for v in op.operands]))
    return op


def rewrite_block(block: Block, fn: OpRewrite, subst: Dict[int, Value],
                  only: Optional[AbstractSet[str]] = None) -> Block:
    """Rebuild ``block``: operands substituted, ``fn`` applied to each op (pre-order on the op,
    after its regions were rewritten). ``only``: the op names ``fn`` can rewrite (a rule's
    ``acts_on``, from the op table); ``fn`` is not called on other ops, which are kept as they
    are (operands substituted, regions rewritten). The block itself is returned when nothing in
    it changed (most rules change nothing in most blocks: the new op list starts at the first
    change)."""
    ops = block.operations
    # The ops to visit: those ``fn`` may rewrite and those with regions (every op without
    # ``only``). The runs of ops between them are only substituted: copied as a slice while no
    # substitution is pending (none can start between two visits: only ``fn`` adds one).
    if only is None:
        visit: Sequence[int] = range(len(ops))
    else:
        visit = [i for i, op in enumerate(ops) if op.regions or op.name in only]
        if not visit and not subst:
            return block
    out: Optional[List[Operation]] = None  # the new ops, from the first change on
    done = 0  # ops[:done] are handled (and in ``out`` once it exists)
    for i in visit:
        if i > done:
            if subst:  # substitute_run(), inlined (runs are often one op long)
                for k in range(done, i):
                    op = ops[k]
                    for v in op.operands:
                        if v.vid in subst:
                            op = with_fields(op, operands=tuple([subst.get(w.vid, w) for w in op.operands]))
                            if out is None:
                                out = list(ops[:k])
                            break
                    if out is not None:
                        out.append(op)
            elif out is not None:
                out.extend(ops[done:i])
        done = i + 1
        original = ops[i]
        op = original
        if subst:  # substitute(), inlined
            for v in op.operands:
                if v.vid in subst:
                    op = with_fields(op, operands=tuple([subst.get(w.vid, w) for w in op.operands]))
                    break
        if op.regions:
            regions = tuple(Region(tuple(rewrite_block(b, fn, subst, only) for b in r.blocks)) for r in op.regions)
            if any(nb is not ob for nr, orr in zip(regions, op.regions) for nb, ob in zip(nr.blocks, orr.blocks)):
                op = with_fields(op, regions=regions)
        new = fn(op, subst) if only is None or op.name in only else None
        if new is None:
            if out is not None:
                out.append(op)
            elif op is not original:
                out = list(ops[:i])
                out.append(op)
            continue
        if not isinstance(new, (list, tuple)):
            new = list(new)
        if out is None:
            if len(new) == 1 and new[0] is original:
                continue
            out = list(ops[:i])
        out.extend(new)
    if done < len(ops):
        if subst:
            out = substitute_run(ops, done, len(ops), subst, out)
        elif out is not None:
            out.extend(ops[done:])
    if out is None:
        return block
    return Block(block.arguments, tuple(out))


def substitute_run(ops: Sequence[Operation], start: int, stop: int, subst: Dict[int, Value],
                    out: Optional[List[Operation]]) -> Optional[List[Operation]]:
    """``out`` (None: nothing changed before ``start``) with ``ops[start:stop]`` appended, their
    operands substituted (ops without regions that ``fn`` is not called on)."""
    for i in range(start, stop):
        op = ops[i]
        for v in op.operands:
            if v.vid in subst:
                op = with_fields(op, operands=tuple([subst.get(w.vid, w) for w in op.operands]))
                if out is None:
                    out = list(ops[:i])
                break
        if out is not None:
            out.append(op)
    return out


def replace_ops(function: Function, fn: Callable[[Operation], Optional[Operation]],
                only: AbstractSet[str]) -> Function:
    """``rewrite_function`` for a rewrite that puts one op in the place of one op and adds no
    substitution: ``fn(op)`` -> the op to put in its place, or None to keep it; it is called on
    the ops named in ``only`` (after their regions were rewritten), in no given order. Each block
    is one comprehension, without the bookkeeping a rewrite that adds or drops ops needs."""
    body = _replace_ops(function.body, fn, only)
    return function if body is function.body else replace(function, body=body)


def _replace_ops(block: Block, fn: Callable[[Operation], Optional[Operation]], only: AbstractSet[str]) -> Block:
    ops = block.operations
    if [op for op in ops if op.regions]:
        ops = tuple([_with_replaced_regions(op, fn, only) if op.regions else op for op in ops])
    new = tuple([op if op.name not in only or (n := fn(op)) is None else n for op in ops])
    return block if new == block.operations else Block(block.arguments, new)  # (ops compare by identity)


def _with_replaced_regions(op: Operation, fn: Callable[[Operation], Optional[Operation]],
                           only: AbstractSet[str]) -> Operation:
    regions = tuple(Region(tuple(_replace_ops(b, fn, only) for b in r.blocks)) for r in op.regions)
    if any(nb is not ob for nr, orr in zip(regions, op.regions) for nb, ob in zip(nr.blocks, orr.blocks)):
        return with_fields(op, regions=regions)
    return op


def first_to_visit(ops: Sequence[Operation], only: AbstractSet[str]) -> int:
    """The index of the first op with regions or named in ``only`` (``len(ops)`` if none)."""
    for i, op in enumerate(ops):
        if op.regions or op.name in only:
            return i
    return len(ops)


def rewrite_function(function: Function, fn: OpRewrite, only: Optional[AbstractSet[str]] = None) -> Function:
    """``rewrite_block`` on the function's body (``only``: see there)."""
    body = rewrite_block(function.body, fn, {}, only)
    return function if body is function.body else replace(function, body=body)


def map_functions(module: Module, fn: Callable[[Function], Tuple[Function, int]]) -> Tuple[Module, int]:
    total = 0
    funcs = []
    for f in module.functions:
        nf, n = fn(f)
        funcs.append(nf)
        total += n
    if all(a is b for a, b in zip(funcs, module.functions)):
        return module, total
    return replace(module, functions=tuple(funcs)), total


def rewrite_ops(module: Module, rewrite_for: Callable[[Function, set], Optional[OpRewrite]],
                drop_bypassed: bool = False, only: Optional[AbstractSet[str]] = None) -> Tuple[Module, int]:
    """Rewrite each function with the op rewrite ``rewrite_for(function, bypassed)`` returns;
    the count is the ops it rewrote (the calls that returned a replacement). With
    ``drop_bypassed``, the ops whose ids the rewrite added to ``bypassed`` (what the replacements
    no longer read) are dropped where they became unused, once anything was rewritten.
    ``only``: the op names the rewrite can replace (see ``rewrite_block``).
    ``rewrite_for`` may return None: nothing in that function to rewrite (it stays as it is)."""
    def per_function(f):
        bypassed: set = set()
        fn = rewrite_for(f, bypassed)
        if fn is None:
            return f, 0
        count = 0

        def counted(op, subst):
            nonlocal count
            out = fn(op, subst)
            if out is not None:
                count += 1
            return out

        nf = rewrite_function(f, counted, only)
        if drop_bypassed and count and bypassed:  # (nothing bypassed: nothing to drop)
            nf = drop_unused_ids(nf, bypassed)
        return nf, count
    return map_functions(module, per_function)


def forward_operand(op: Operation, subst: Dict[int, Value]) -> List[Operation]:
    """Drop ``op``: its one result becomes its operand 0 wherever used."""
    subst[op.results[0].vid] = op.operands[0]
    return []


def enum_name(value) -> object:
    """An enum attribute's name whether stored as EnumValue or as a plain string."""
    return getattr(value, "name", value)


__all__ = ["is_private", "public_attributes", "origin", "tag_origins", "op_ids", "group_names",
           "group_span", "operand_role", "has_trait", "preorder", "use_counts", "use_counts_and", "live_users", "REMOVABLE_WHEN_UNUSED", "count_ops", "op_names", "names_and_origins", "ops_of", "op_lists", "names_in", "producers_of", "drop_unused", "drop_unused_ids", "without_ops", "max_vid", "FreshVids", "substitute", "substitute_run", "first_to_visit", "rewrite_block", "replace_ops",
           "rewrite_function", "map_functions", "rewrite_ops", "forward_operand", "enum_name", "op_def"]
