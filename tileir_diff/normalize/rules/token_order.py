"""token-order: memory-token chains compared as the happens-before order they impose."""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Set

from ...ir import Function, Operation, TokenType, Value
from ...ir.types import TokenType as _TokenType
from ..rule import Rule, register
from ...dialect import OPS_BY_NAME
from ..util import (drop_unused, enum_name, group_names, group_span, has_trait, map_functions, FreshVids, op_lists,
                    origin, preorder, rewrite_function)

_FENCING_ORDERS = frozenset({"acquire", "release", "acq_rel"})

#: The token-only ops the rewrite can leave unused (its clean-up drops them).
_TOKEN_OPS = frozenset({"make_token", "join_tokens"})

#: Ops with a ``token`` operand group in some version (the op table's rows): only these can be
#: tracked, so the others are never looked up by version.
_TOKEN_GROUP_OPS = frozenset(d.name for d in OPS_BY_NAME.values() if any(o.name == "token" for o in d.operands))

#: The ops whose results the token graph looks up: tracked ones and the token-only ops.
_TOKEN_PRODUCERS = _TOKEN_GROUP_OPS | _TOKEN_OPS


def _is_token(v: Value) -> bool:
    return isinstance(v.type, _TokenType)


class _FunctionTokens:
    """Happens-before facts of one function's token graph."""

    def __init__(self, f: Function, version, tables: bool = True):
        """``tables=False``: only ``ok`` is wanted (``declines``): producers and tracked ops are
        not recorded."""
        self.f = f
        self.version = version
        self.producer: Dict[int, Operation] = {}
        self.tracked: List[Operation] = []          # ops with a token operand group, pre-order
        self.index: Dict[int, int] = {}             # id(op) -> position in tracked
        self.ok = self._scan(tables)

    def token_span(self, op: Operation):
        return group_span(op, "token", self.version) if op.name in _TOKEN_GROUP_OPS else None

    def _scan(self, tables: bool) -> bool:
        """Collect tracked ops; False when tokens cross region boundaries (not handled)."""
        if any(_is_token(a) for a in self.f.arguments):
            return False
        version = self.version
        lists = op_lists(self.f.body)
        for ops in lists:
            for holder in [op for op in ops if op.regions]:
                for reg in holder.regions:
                    for b in reg.blocks:
                        if any(_is_token(a) for a in b.arguments):
                            return False
                if any(_is_token(r) for r in holder.results):
                    return False
            # an op reading a token that is neither join_tokens nor tracked: a token reaches a
            # terminator or an op we do not model (an op is listed once per token it reads)
            for reader in [op for op in ops for v in op.operands if isinstance(v.type, _TokenType)]:
                if reader.name != "join_tokens" and self.token_span(reader) is None:
                    return False
        if tables:
            # (the producers the graph reads: tracked ops, make_token and join_tokens; any other
            # producer of a token answers as no producer does, a token with nothing before it)
            self.producer = {r.vid: op for ops in lists for op in ops if op.name in _TOKEN_PRODUCERS for r in op.results}
            # (pre-order: the order rewrite_function calls ``fn`` on them in apply)
            ops = lists[0] if len(lists) == 1 else list(preorder(self.f))
            self.tracked = [op for op in ops if op.name in _TOKEN_GROUP_OPS and group_span(op, "token", version)
                            is not None]
            self.index = {id(op): m for m, op in enumerate(self.tracked)}
        return True

    def token_operand(self, op: Operation) -> Optional[Value]:
        start, size = self.token_span(op)
        return op.operands[start] if size else None

    def flatten(self, v: Optional[Value]) -> FrozenSet[int]:
        """Tracked ops whose result tokens ``v`` joins directly (through join_tokens only)."""
        if v is None:
            return frozenset()
        p = self.producer.get(v.vid)
        if p is None or p.name == "make_token":
            return frozenset()
        if p.name == "join_tokens":
            return frozenset().union(*(self.flatten(x) for x in p.operands))
        return frozenset({self.index[id(p)]}) if id(p) in self.index else frozenset()

    def kind(self, op: Operation) -> str:
        order = enum_name(op.attributes.get("memory_ordering_semantics"))
        if not has_trait(op, "memory") or order in _FENCING_ORDERS:
            return "barrier"  # print_tko, gdc, fences, acquire/release atomics order everything
        return "write" if has_trait(op, "writes") else "read"


def canonical_order(ft: _FunctionTokens):
    """Per tracked op: the transitive reduction of the happens-before pairs that matter."""
    kinds = [ft.kind(op) for op in ft.tracked]

    def conflict(a: int, b: int) -> bool:
        # Only two plain reads commute. Accesses through different entry arguments are kept in
        # order too: Tile IR carries no fact that two arguments are disjoint, and a frontend
        # that may see them alias (cuTile Python's alias groups) chains them on purpose.
        return "barrier" in (kinds[a], kinds[b]) or not kinds[a] == kinds[b] == "read"

    carried: Dict[int, FrozenSet[int]] = {}   # token vid -> all tracked ops before it

    def carried_of(v: Optional[Value]) -> FrozenSet[int]:
        if v is None:
            return frozenset()
        if v.vid in carried:
            return carried[v.vid]
        p = ft.producer.get(v.vid)
        out: FrozenSet[int] = frozenset()
        if p is not None and p.name == "join_tokens":
            out = frozenset().union(*(carried_of(x) for x in p.operands))
        elif p is not None and id(p) in ft.index:
            i = ft.index[id(p)]
            out = carried_of(ft.token_operand(p)) | {i}
        carried[v.vid] = out
        return out

    reduced: List[FrozenSet[int]] = []
    closure: List[Set[int]] = []
    for m, op in enumerate(ft.tracked):
        before = carried_of(ft.token_operand(op))
        kept = [p for p in before if conflict(p, m)]
        red = frozenset(p for p in kept if not any(q != p and p in closure[q] for q in kept))
        reduced.append(red)
        cl: Set[int] = set(red)
        for q in red:
            cl |= closure[q]
        closure.append(cl)
    return reduced


@register
class TokenOrder(Rule):
    """Absorbs: how memory-token chains are spelled, keeping the ordering they impose between
    accesses that can observe it. For each op with a token operand (loads, stores, atomics,
    print/gdc/fence ops) the set of ops that happen before it is taken from its token; pairs
    of two plain loads are dropped (two reads commute); what is left is transitively reduced
    and written back as ``token = %t`` / ``join_tokens`` / no token. So independent loads may
    be reordered, and ``make_token`` vs no token, one ``make_token`` per array vs a shared one,
    nested vs flat ``join_tokens`` all become one form.

    Why meaning is kept: tokens only order memory effects, and an order between two reads is
    not observable.

    Never touches: the order of a store (or atomic) against any other access, whichever arrays
    they go through -- no fact in Tile IR proves two entry arguments disjoint, and cuTile Python
    orders accesses to arrays of one alias group on purpose; anything involving ``print_tko``,
    gdc ops, fences or acquire/release atomics; functions where tokens cross region boundaries
    (loop-carried tokens) are left exactly as written.
    """
    name = "token-order"
    mutant = ("a load no longer ordered after a store, to the same array or another one (or two stores "
              "swapped)")

    #: loop-carried store tokens that disjoint-loop-stores drops first are no reason to decline
    declines_after = ("disjoint-loop-stores",)

    def declines(self, function, version) -> bool:
        # tokens through loop-carried values or region results: left as written
        return not _FunctionTokens(function, version, tables=False).ok

    def apply(self, module):
        version = module.version

        def per_function(f):
            ft = _FunctionTokens(f, version)
            if not ft.ok or not ft.tracked:
                return f, 0
            reduced = canonical_order(ft)
            token_of = [next(r for r in op.results if _is_token(r)) for op in ft.tracked]
            fresh = FreshVids(f)  # the largest id found on the first new value
            count = 0
            # rewrite_function visits ops in the same pre-order as ft.tracked.
            counter = iter(range(len(ft.tracked)))

            def fn(op, subst):
                nonlocal count
                span = ft.token_span(op)
                if span is None:
                    return None
                m = next(counter)
                start, size = span
                current = op.operands[start] if size else None
                tokens = [token_of[p] for p in sorted(reduced[m])]
                if _already_canonical(ft, current, tokens, _token_required(op)):
                    return None
                count += 1
                extra: List[Operation] = []
                tag = origin(op)
                if len(tokens) > 1:
                    fresh[0] += 1
                    new_tok: Optional[Value] = Value(fresh[0], TokenType())
                    extra.append(Operation("join_tokens", tuple(tokens), (len(tokens),), (new_tok,), {},
                                           origin=f"{tag}~join" if tag else None))
                elif tokens:
                    new_tok = tokens[0]
                elif _token_required(op):
                    fresh[0] += 1
                    new_tok = Value(fresh[0], TokenType())
                    extra.append(Operation("make_token", (), (), (new_tok,), {},
                                           origin=f"{tag}~token" if tag else None))
                else:
                    new_tok = None
                operands = list(op.operands)
                segments = list(op.segments)
                seg_i = group_names(op, version).index("token")
                if new_tok is None:
                    del operands[start:start + size]
                    segments[seg_i] = 0
                elif size:
                    operands[start] = new_tok
                else:
                    operands.insert(start, new_tok)
                    segments[seg_i] = 1
                return extra + [op.replace(operands=tuple(operands), segments=tuple(segments))]

            nf = rewrite_function(f, fn, only=_TOKEN_GROUP_OPS)  # fn rewrites tracked ops only
            if count:
                nf = _drop_dead_tokens(nf)
            return nf, count

        return map_functions(module, per_function)


def _already_canonical(ft: _FunctionTokens, current: Optional[Value], tokens: List[Value], required: bool) -> bool:
    if not tokens:
        if current is None:
            return True
        p = ft.producer.get(current.vid)  # a required token with nothing before it: a bare make_token
        return required and p is not None and p.name == "make_token"
    if current is None:
        return False
    if len(tokens) == 1:
        return current.vid == tokens[0].vid
    p = ft.producer.get(current.vid)
    return (p is not None and p.name == "join_tokens" and len(p.operands) == len(tokens)
            and {v.vid for v in p.operands} == {v.vid for v in tokens})


def _token_required(op: Operation) -> bool:
    d = OPS_BY_NAME.get(op.name)
    return d is not None and any(o.name == "token" and o.arity == "single" for o in d.operands)


def _drop_dead_tokens(f: Function) -> Function:
    """Remove make_token/join_tokens left unused by the rewrite (this rule cleans up after itself
    so that it does not depend on dead-code being enabled)."""
    return drop_unused(f, lambda op: op.name in _TOKEN_OPS, _TOKEN_OPS)
