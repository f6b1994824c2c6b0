"""The matcher stages. Each takes the context (both graphs + mapping), adds pairs only where both
nodes are unpaired, and tags each pair with its stage name.

anchors      entry arguments by position (type-aligned when counts differ), memory ops by the
             entry argument their address derives from, the function's terminator
exact        equal Merkle hashes, largest subgraph first, operand cones paired in lock step
top-down     from paired users to their operands (same operand slot, same op name)
bottom-up    from paired operands to their users (same slot; several candidates: similarity)
same-io      leftovers with identical paired inputs or a paired user at the same slot (op kind
             changed, e.g. mulf -> divf)
vf2          small leftover components, labelled isomorphism under a time cap
"""
from __future__ import annotations

import difflib
import time
from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from ..graph import FunctionGraph
from ..normalize.canon import fmt_type
from ..normalize.keys import commutative_positions
from .mapping import LimitExceeded, MatchContext

_ADDRESS_PRESERVING = frozenset({"make_partition_view", "make_strided_view", "make_gather_scatter_view",
                                 "make_tensor_view", "assume", "broadcast", "reshape", "offset", "permute",
                                 "ptr_to_ptr"})
_MEMORY_OPS = frozenset({"load_view_tko", "store_view_tko", "load_ptr_tko", "store_ptr_tko", "atomic_cas_tko",
                         "atomic_rmw_tko", "atomic_red_view_tko"})


def address_root(g: FunctionGraph, nid: str) -> Optional[str]:
    """The entry-argument node a memory op's address (view or pointer operand) derives from."""
    n = g.nodes[nid]
    if not n.operands:
        return None
    k = 1 if n.name == "store_view_tko" else 0
    src = n.operands[k][0] if k < len(n.operands) else None
    for _ in range(64):
        if src is None:
            return None
        s = g.nodes[src]
        if s.kind == "arg":
            return src
        if s.kind != "op" or s.name not in _ADDRESS_PRESERVING or not s.operands:
            return None
        src = s.operands[0][0]
    return None


# --- anchors ----------------------------------------------------------------------------------

def anchors(ctx: MatchContext) -> None:
    L, R = ctx.left, ctx.right
    largs, lmem, lterm = _anchor_candidates(L)
    rargs, rmem, rterm = _anchor_candidates(R)
    if len(largs) == len(rargs):
        pairs = list(zip(largs, rargs))
    else:  # align on the type sequence so an inserted/removed argument does not shift the rest
        lt = [fmt_type(L.nodes[n].value.type) for n in largs]
        rt = [fmt_type(R.nodes[n].value.type) for n in rargs]
        pairs = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, lt, rt, autojunk=False).get_opcodes():
            if tag in ("equal", "replace"):
                pairs.extend(zip(largs[i1:i2], rargs[j1:j2]))
    for a, b in pairs:
        ctx.add(a, b, "anchors")

    def by_root(g: FunctionGraph, memory_ops: List[str], to_left) -> Dict[Tuple[str, str], List[str]]:
        out: Dict[Tuple[str, str], List[str]] = defaultdict(list)
        for nid in memory_ops:
            root = address_root(g, nid)
            if root is not None:
                out[(to_left(root), g.nodes[nid].name)].append(nid)
        return out

    lroots = by_root(L, lmem, lambda x: x)
    rroots = by_root(R, rmem, lambda x: ctx.mapping.r2l.get(x, "?"))
    for key, lops in lroots.items():
        rops = rroots.get(key, [])
        if len(lops) == 1 and len(rops) == 1:
            ctx.add(lops[0], rops[0], "anchors")
    # the entry's terminator
    if lterm is not None and rterm is not None and L.nodes[lterm].name == R.nodes[rterm].name == "return":
        ctx.add(lterm, rterm, "anchors")


def _anchor_candidates(g: FunctionGraph) -> Tuple[List[str], List[str], Optional[str]]:
    """In one pass over the graph: entry arguments, memory ops (program order) and the last
    top-level op (the entry's terminator when the function is well formed)."""
    args, memory, last = [], [], None
    for n in g.node_list:
        if n.kind == "op":
            if n.name in _MEMORY_OPS:
                memory.append(n.nid)
            if n.parent is None:
                last = n.nid
        elif n.kind == "arg":
            args.append(n.nid)
    return args, memory, last


# --- exact subgraphs --------------------------------------------------------------------------

def _consistent(ctx: MatchContext, l: str, r: str, budget: int, seen: set) -> bool:
    """Whether pairing l<->r and their operand cones in lock step contradicts no existing pair
    (visiting at most ``budget`` pairs). ``seen`` receives the pairs visited."""
    l2r, r2l = ctx.mapping.l2r, ctx.mapping.r2l
    lnodes, rnodes = ctx.left.nodes, ctx.right.nodes
    stack = [(l, r)]
    while stack:
        pair = stack.pop()
        before = len(seen)
        seen.add(pair)
        if len(seen) == before:
            continue
        budget -= 1
        if budget < 0:
            return False
        a, b = pair
        ma, mb = l2r.get(a), r2l.get(b)
        if ma is not None or mb is not None:
            if ma != b or mb != a:
                return False
            continue
        na, nb = lnodes[a], rnodes[b]
        if na.kind != nb.kind or na.hash != nb.hash or len(na.operands) != len(nb.operands):
            return False
        for (sa, ra, _), (sb, rb, _) in zip(na.operands, nb.operands):
            if (sa is None) != (sb is None) or ra != rb:
                return False
            if sa is not None:
                stack.append((sa, sb))
    return True


def _pair_cone(ctx: MatchContext, pairs) -> None:
    td_open = ctx.td_open
    for a, b in pairs:
        if ctx.add(a, b, "exact"):
            na, nb = ctx.left.nodes[a], ctx.right.nodes[b]
            if not na.children:
                # every operand is in the cone (or was paired before): top-down has nothing to add
                del td_open[a]
                continue
            # block arguments of equal region ops pair by position
            la = [c for c in na.children if ctx.left.nodes[c].kind == "barg"]
            ra = [c for c in nb.children if ctx.right.nodes[c].kind == "barg"]
            if len(la) == len(ra):
                for x, y in zip(la, ra):
                    ctx.add(x, y, "exact")


def exact(ctx: MatchContext) -> None:
    """Equal Merkle hashes, largest subgraphs first. Within a hash group every left/right pair
    is scored (paired neighbours, then nearness of relative position) and pairs are taken best
    first, so that when one side has fewer copies the best-placed copy gets the match."""
    L, R = ctx.left, ctx.right
    l2r, r2l = ctx.mapping.l2r, ctx.mapping.r2l
    lnodes = L.nodes
    by_hash_r = R.by_hash
    # groups in order: largest subgraph first, then tallest, then first in program order (the
    # group lists ride in the sort keys: the position makes every key unique, so the lists are
    # never compared, and the loop below needs no lookups by hash). Paired nodes are skipped
    # where the lists are used.
    groups: List[tuple] = []
    for h, lg in L.by_hash.items():
        rg = by_hash_r.get(h)
        if rg is not None:
            n = lnodes[lg[0]]
            groups.append((-n.size, -n.height, n.seq, lg, rg))
    groups.sort()
    lorder, rorder = ctx.positions()
    cap = ctx.limits.max_candidates
    budget = ctx.limits.consistency_budget
    for step, (_, _, _, lg, rg) in enumerate(groups):
        if step % 128 == 0:
            ctx.check_time("exact matching")
        if len(lg) == 1 and len(rg) == 1:  # one copy on each side (the common case): no scoring
            l, r = lg[0], rg[0]
            if l in l2r or r in r2l:
                continue
            seen: set = set()
            if _consistent(ctx, l, r, budget, seen):
                _pair_cone(ctx, sorted(seen, key=lambda p: lorder[p[0]]))
            continue
        lefts = [x for x in lg if x not in l2r]
        rights = [x for x in rg if x not in r2l]
        if not lefts or not rights:
            continue
        if len(lefts) * len(rights) > cap * cap:  # huge groups: nearest positions only
            rights.sort()
            pairs = []
            for l in lefts:
                near = sorted(rights, key=lambda r: abs(rorder[r] - lorder[l]))[:cap]
                pairs.extend((l, r) for r in near)
        else:
            pairs = [(l, r) for l in lefts for r in rights]
        scored = sorted(((_neighbour_agreement(ctx, l, r), -abs(lorder[l] - rorder[r]), l, r) for l, r in pairs),
                        key=lambda t: (-t[0], -t[1], t[2], t[3]))
        for _, _, l, r in scored:
            if l in l2r or r in r2l:
                continue
            seen = set()
            if _consistent(ctx, l, r, budget, seen):
                _pair_cone(ctx, sorted(seen, key=lambda p: lorder[p[0]]))


def relative_exact(ctx: MatchContext) -> int:
    """Exact matching again, with every paired node standing for its pair: a node's relative key
    hashes its label with its operands' pair ids (or relative keys when unpaired). Nodes below
    a change (whose Merkle hashes all moved) pair up again when they sit on paired inputs."""
    from ..normalize.keys import SET_OPERAND_OPS, digest
    L, R, m = ctx.left, ctx.right, ctx.mapping

    def rel_keys(g: FunctionGraph, own: dict, unpaired: List[str]) -> Dict[str, str]:
        # a paired node's key is its pair's left id (a node id contains "/", so it never equals
        # a hex digest); only unpaired nodes need one computed, in program order
        keys: Dict[str, str] = {}
        for nid in unpaired:
            n = g.nodes[nid]
            ops = [(keys.get(s_) or own.get(s_, "?")) + f"#{res}" if s_ else "?" for s_, res, _ in n.operands]
            if n.op is not None:
                if n.op.name in SET_OPERAND_OPS:
                    ops = sorted(ops)
                else:
                    pos = commutative_positions(n.op)
                    if pos is not None and ops[pos[1]] < ops[pos[0]]:
                        ops[pos[0]], ops[pos[1]] = ops[pos[1]], ops[pos[0]]
            parent = own.get(n.parent, "") if n.parent else ""
            keys[nid] = digest(n.label, parent, *ops)
        return keys

    l2r, r2l = m.l2r, m.r2l
    lfree, rfree = list(ctx.lfree), list(ctx.rfree)
    if not lfree or not rfree:
        return 0
    lk = rel_keys(L, _PairedSelf(l2r), lfree)
    rk = rel_keys(R, r2l, rfree)
    by_key: Dict[str, List[str]] = defaultdict(list)
    for nid in rfree:
        if R.nodes[nid].kind == "op":
            by_key[rk[nid]].append(nid)
    # unpaired left nodes per key, counted once (a node with several right candidates pairs only
    # when it is the one left node with its key)
    left_count: Dict[str, int] = defaultdict(int)
    for nid in lfree:
        left_count[lk[nid]] += 1
    added = 0
    for nid in lfree:
        if L.nodes[nid].kind != "op":
            continue
        cands = [x for x in by_key.get(lk[nid], ()) if x not in m.r2l]
        if len(cands) == 1 or (cands and left_count[lk[nid]] == 1):
            best = max(cands, key=lambda x: _neighbour_agreement(ctx, nid, x))
            if ctx.add(nid, best, "exact-relative"):
                added += 1
                left_count[lk[nid]] -= 1
    return added


class _PairedSelf:
    """``{l: l for l in l2r}`` without building it: a paired left node stands for itself."""
    __slots__ = ("l2r",)

    def __init__(self, l2r: Dict[str, str]):
        self.l2r = l2r

    def get(self, nid: str, default=None):
        return nid if nid in self.l2r else default


def _neighbour_agreement(ctx: MatchContext, l: str, r: str) -> int:
    """Paired users (same slot) and paired region parents the two nodes share."""
    L, R, m = ctx.left, ctx.right, ctx.mapping
    score = 0
    ru = {(u, k, res) for u, k, res in R.nodes[r].users}
    for u, k, res in L.nodes[l].users:
        mu = m.l2r.get(u)
        if mu is not None and (mu, k, res) in ru:
            score += 2
    lp, rp = L.nodes[l].parent, R.nodes[r].parent
    if (lp is None and rp is None) or (lp is not None and m.l2r.get(lp) == rp):
        score += 1
    return score


# --- propagation ------------------------------------------------------------------------------

_SAME_SLOTS: List[Tuple[Tuple[int, int], ...]] = []


def _same_slots(n: int) -> Tuple[Tuple[int, int], ...]:
    """((0, 0), (1, 1), ...) of length n, shared (asked for once per node pair, every stage)."""
    while len(_SAME_SLOTS) <= n:
        k = len(_SAME_SLOTS)
        _SAME_SLOTS.append(tuple((i, i) for i in range(k)))
    return _SAME_SLOTS[n]


def _operand_pairs(a, b):
    """Operand positions to pair between two ops: by index when the operand groups agree, else
    group by group (an optional token present on one side only does not shift the rest)."""
    if len(a.operands) == len(b.operands) and (a.op is None or a.op.segments == b.op.segments):
        return _same_slots(len(a.operands))
    if a.op is None or b.op is None or len(a.op.segments) != len(b.op.segments):
        return _same_slots(min(len(a.operands), len(b.operands)))
    out, sa, sb = [], 0, 0
    for na, nb in zip(a.op.segments, b.op.segments):
        out.extend((sa + i, sb + i) for i in range(min(na, nb)))
        sa, sb = sa + na, sb + nb
    return out


def aligned_operand_pairs(a, b, l2r: Dict[str, str], commutative: bool = True):
    """Operand positions to compare between a left op ``a`` and a right op ``b`` given the pairs
    made so far: ``_operand_pairs``, with the two commutative positions crossed when more of them
    agree crossed (same paired producer and result). Canonical operand order follows the
    operands' keys, so one changed operand can flip it: ``mulf(x, c)`` vs ``mulf(c', x)`` must
    compare ``x`` with ``x`` and ``c`` with ``c'``, not ``x`` with ``c'``."""
    pairs = _operand_pairs(a, b)
    if not commutative or a.op is None or b.op is None or a.name != b.name:
        return pairs
    pos = commutative_positions(a.op)
    if pos is None or len(a.operands) <= pos[1] or len(b.operands) <= pos[1]:
        return pairs
    i, j = pos

    def agree(x: int, y: int) -> int:
        sa, ra, _ = a.operands[x]
        sb, rb, _ = b.operands[y]
        return int(sa is not None and sb is not None and ra == rb and l2r.get(sa) == sb)
    if agree(i, j) + agree(j, i) > agree(i, i) + agree(j, j):
        return sorted([(x, y) for x, y in pairs if x not in pos] + [(i, j), (j, i)])
    return pairs


def _td_pairs(ctx: MatchContext, a, b, strict: bool = False):
    """Operand slots to pair top-down; for commutative ops the crossed order when it fits better
    (the two sides may have sorted their operands differently after an upstream change).
    ``strict``: when both orders fit equally well and either could pair (e.g. ``xori(cmpf(x),
    cmpf(y))`` where both cmpf moved with an upstream change), leave the commutative slots out:
    bottom-up matching from their operands decides, or a later non-strict pass."""
    pairs = _operand_pairs(a, b)
    if a.op is None or b.op is None or a.name != b.name:
        return pairs
    pos = commutative_positions(a.op)
    if pos is None or len(a.operands) <= pos[1] or len(b.operands) <= pos[1]:
        return pairs
    i, j = pos
    m = ctx.mapping

    def fit(x, y):
        sa, ra, _ = a.operands[x]
        sb, rb, _ = b.operands[y]
        if sa is None or sb is None or ra != rb:
            return 0
        if m.l2r.get(sa) == sb:
            return 3
        if sa in m.l2r or sb in m.r2l:
            return -3
        na, nb = ctx.left.nodes[sa], ctx.right.nodes[sb]
        if na.hash == nb.hash:
            return 3
        if na.label != nb.label:
            return 0
        # same op, moved hashes: how many of their own operands are already paired together
        agree = sum(1 for (p, rp, _), (q, rq, _) in zip(na.operands, nb.operands)
                    if p is not None and rp == rq and m.l2r.get(p) == q)
        return 1 + 0.5 * agree / max(1, len(na.operands))
    straight, crossed = fit(i, i) + fit(j, j), fit(i, j) + fit(j, i)
    if crossed > straight:
        return [(x, y) for x, y in pairs if x not in pos] + [(i, j), (j, i)]
    if strict and crossed == straight and crossed > 0 and a.operands[i][:2] != a.operands[j][:2] \
            and b.operands[i][:2] != b.operands[j][:2]:
        ctx.deferred.append((a.nid, b.nid))
        return [(x, y) for x, y in pairs if x not in pos]
    return pairs


def top_down(ctx: MatchContext, seeds=None, strict: bool = False) -> int:
    """From paired users to their operands and region contents. Returns pairs added.
    ``strict``: commutative operands that fit either way wait (see _td_pairs)."""
    L, R, m = ctx.left, ctx.right, ctx.mapping
    work = list(seeds if seeds is not None else ctx.td_open.items())
    added = 0
    l2r, r2l = m.l2r, m.r2l
    lnodes, rnodes = L.nodes, R.nodes
    td_open = ctx.td_open
    while work:
        l, r = work.pop()
        a, b = lnodes[l], rnodes[r]
        aops, bops = a.operands, b.operands
        # (once exact matching ran, every operand is usually paired already: nothing to do)
        if not aops or all(s_ is None or s_ in l2r for s_, _, _ in aops):
            done = True
        else:
            done = False
            for i, j in _td_pairs(ctx, a, b, strict):
                sa, ra, _ = aops[i]
                if sa is None or sa in l2r:  # (the usual case once exact matching ran)
                    continue
                sb, rb, _ = bops[j]
                if sb is None or ra != rb:
                    continue
                if sb not in r2l and ctx.compatible(sa, sb):
                    if ctx.add(sa, sb, "top-down"):
                        added += 1
                        work.append((sa, sb))
        if a.children and b.children and a.name == b.name:
            la = [c for c in a.children if L.nodes[c].kind == "barg"]
            ra_ = [c for c in b.children if R.nodes[c].kind == "barg"]
            for x, y in zip(la, ra_):
                if ctx.add(x, y, "top-down"):
                    added += 1
                    work.append((x, y))
            lterm = [c for c in a.children if L.nodes[c].kind == "op" and L.nodes[c].op.name in
                     ("yield", "continue", "break", "return")]
            rterm = [c for c in b.children if R.nodes[c].kind == "op" and R.nodes[c].op.name in
                     ("yield", "continue", "break", "return")]
            if len(lterm) == len(rterm):
                for x, y in zip(lterm, rterm):
                    if ctx.compatible(x, y) and ctx.add(x, y, "top-down"):
                        added += 1
                        work.append((x, y))
        if done:  # (region contents were just handled; doing it again adds nothing)
            td_open.pop(l, None)
    return added


def _similarity(ctx: MatchContext, l: str, r: str) -> float:
    """Operands paired with each other (commutative pairs in either order), paired users at the
    same slot, equal label, equal hash, same region parent."""
    a, b = ctx.left.nodes[l], ctx.right.nodes[r]
    m = ctx.mapping
    agree = 0
    lsrc = [(m.l2r.get(s_), res) for s_, res, _ in a.operands]
    rsrc = [(s_, res) for s_, res, _ in b.operands]
    pos = commutative_positions(a.op) if a.op is not None and a.name == b.name else None
    for i, j in _operand_pairs(a, b):
        if lsrc[i][0] is not None and lsrc[i] == rsrc[j]:
            agree += 1
        elif pos is not None and i in pos and j in pos:
            other = pos[1] if j == pos[0] else pos[0]
            if other < len(rsrc) and lsrc[i][0] is not None and lsrc[i] == rsrc[other]:
                agree += 1
    n = max(len(a.operands), len(b.operands), 1)
    ru = {(u, _slot(b, u, k, ctx.right), res) for u, k, res in b.users}
    uagree = sum(1 for u, k, res in a.users
                 if m.l2r.get(u) is not None and (m.l2r[u], _slot(a, u, k, ctx.left), res) in ru)
    score = agree / n + (uagree / max(len(a.users), len(b.users)) if a.users or b.users else 0.0)
    score += (1.0 if a.label == b.label else 0.0) + (0.5 if a.hash == b.hash else 0.0)
    lp, rp = a.parent, b.parent
    if (lp is None and rp is None) or (lp is not None and m.l2r.get(lp) == rp):
        score += 0.25
    return score


def _slot(producer, user: str, k: int, g: FunctionGraph):
    """The operand slot of a use, with both commutative positions folded into one."""
    u = g.nodes[user]
    if u.op is not None:
        pos = commutative_positions(u.op)
        if pos is not None and k in pos:
            return "c"
    return k


def bottom_up(ctx: MatchContext, seeds=None, strict: bool = True) -> int:
    """From paired operands to their users at the same slot (same op name). ``strict``: add a
    pair only when each is the other's unique best candidate (ties wait for more evidence)."""
    L, R, m = ctx.left, ctx.right, ctx.mapping
    lpos, rpos = ctx.positions()
    work = list(seeds) if seeds is not None else ctx.bottom_up_candidates()
    added = 0
    steps = 0
    while work:
        steps += 1
        if steps % 512 == 0:
            ctx.check_time("bottom-up matching")
        l, r = work.pop()
        lu: Dict[tuple, List[str]] = defaultdict(list)
        for u, k, res in L.nodes[l].users:
            if u not in m.l2r:
                lu[(_slot(None, u, k, L), res)].append(u)
        if not lu:
            continue
        ru: Dict[tuple, List[str]] = defaultdict(list)
        for u, k, res in R.nodes[r].users:
            if u not in m.r2l:
                ru[(_slot(None, u, k, R), res)].append(u)
        for key, lcands in lu.items():
            rcands = ru.get(key)
            if not rcands:
                continue
            scored = []
            for x in lcands[: ctx.limits.max_candidates]:
                for y in rcands[: ctx.limits.max_candidates]:
                    if ctx.compatible(x, y):
                        scored.append((_similarity(ctx, x, y), x, y))
            # best first; among equal scores the nearest relative position in program order
            scored.sort(key=lambda t: (-t[0], abs(lpos[t[1]] - rpos[t[2]])))
            best_l: Dict[str, List[float]] = defaultdict(list)
            best_r: Dict[str, List[float]] = defaultdict(list)
            for sc, x, y in scored:
                best_l[x].append(sc)
                best_r[y].append(sc)
            for sc, x, y in scored:
                if sc < 0.5 or x in m.l2r or y in m.r2l:
                    continue
                if strict and not (_unique_best(best_l[x], sc) and _unique_best(best_r[y], sc)):
                    continue  # not each other's unique best: wait for more evidence
                if ctx.add(x, y, "bottom-up"):
                    added += 1
                    work.append((x, y))
    return added


def _unique_best(scores: List[float], score: float) -> bool:
    """Whether ``score`` is the highest of ``scores`` (sorted, highest first) and no other ties it."""
    return scores[0] == score and (len(scores) == 1 or scores[1] < score)


def propagate(ctx: MatchContext, seeds=None) -> None:
    """Alternate strict top-down and strict bottom-up until neither adds a pair (ambiguous
    choices wait for their neighbours to be paired); then let ties be broken (bottom-up best
    first, then top-down in operand order) and continue."""
    while True:
        ctx.check_time("propagation")
        before = len(ctx.mapping)
        top_down(ctx, strict=True)
        bottom_up(ctx)
        if len(ctx.mapping) == before:
            if bottom_up(ctx, strict=False):
                continue
            deferred, ctx.deferred = ctx.deferred, []
            if not top_down(ctx, seeds=deferred):
                return


# --- leftovers --------------------------------------------------------------------------------

def same_io(ctx: MatchContext) -> int:
    """Pair leftovers that sit in the same place: identical paired inputs, or the same operand
    slot of a paired user. This is how a changed op kind (mulf -> divf) becomes one changed pair."""
    L, R, m = ctx.left, ctx.right, ctx.mapping
    added = 0
    # same inputs
    rsig: Dict[tuple, List[str]] = defaultdict(list)
    for nid in ctx.rfree:
        n = R.nodes[nid]
        if n.kind == "op" and n.operands:
            rsig[(n.parent, n.region, tuple((s, res) for s, res, _ in n.operands))].append(nid)
    for nid in list(ctx.lfree):
        n = L.nodes[nid]
        if n.kind != "op" or nid in m.l2r or not n.operands:
            continue
        if any(s is None or s not in m.l2r for s, _, _ in n.operands):
            continue
        parent = m.l2r.get(n.parent) if n.parent is not None else None
        if n.parent is not None and parent is None:
            continue
        key = (parent, n.region, tuple((m.l2r[s], res) for s, res, _ in n.operands))
        cands = [x for x in rsig.get(key, ()) if x not in m.r2l]
        if len(cands) == 1 and ctx.add(nid, cands[0], "same-io"):
            added += 1
    # same user slot
    for nid in list(ctx.lfree):
        n = L.nodes[nid]
        if n.kind != "op" or nid in m.l2r:
            continue
        found = set()
        for u, k, res in n.users:
            ru = m.l2r.get(u)
            if ru is None:
                continue
            rn = R.nodes[ru]
            un = L.nodes[u]
            for i, j in _operand_pairs(un, rn):
                if i == k:
                    src, rres, _ = rn.operands[j]
                    if (src is not None and src not in m.r2l and rres == res and R.nodes[src].kind == "op"
                            and R.nodes[src].name == n.name):
                        found.add(src)
        if len(found) == 1 and ctx.add(nid, found.pop(), "same-io"):
            added += 1
    return added


def vf2(ctx: MatchContext) -> None:
    """Labelled isomorphism between small leftover components (never on whole kernels)."""
    L, R, m = ctx.left, ctx.right, ctx.mapping
    lleft, rleft = list(ctx.lfree), list(ctx.rfree)
    if not lleft or not rleft:
        return
    lcomps = _components(L, set(lleft))
    rcomps = _components(R, set(rleft))
    rsig = {tuple(sorted(R.nodes[x].label for x in c)) for c in rcomps if len(c) <= ctx.limits.vf2_max_nodes}
    if not any(len(c) <= ctx.limits.vf2_max_nodes and tuple(sorted(L.nodes[x].label for x in c)) in rsig
               for c in lcomps):
        ctx.stats["vf2_components_skipped"] = sum(1 for c in lcomps if len(c) > ctx.limits.vf2_max_nodes)
        return  # no leftover component has a same-labelled counterpart: nothing VF2 could pair
    import networkx as nx  # only now: importing networkx costs more than matching a small kernel
    from networkx.algorithms.isomorphism import DiGraphMatcher
    lsub = L.nx.subgraph(lleft)
    rsub = R.nx.subgraph(rleft)
    budget_end = time.perf_counter() + ctx.limits.vf2_timeout_s

    class _Timeout(Exception):
        pass

    def node_match(a, b):
        if time.perf_counter() > budget_end:
            raise _Timeout()
        return a["label"] == b["label"]

    used = set()
    skipped = 0
    for lc in lcomps:
        if len(lc) > ctx.limits.vf2_max_nodes:
            skipped += 1
            continue
        lnames = sorted(L.nodes[x].label for x in lc)
        for ri, rc in enumerate(rcomps):
            if ri in used or len(rc) != len(lc) or sorted(R.nodes[x].label for x in rc) != lnames:
                continue
            gm = DiGraphMatcher(nx.DiGraph(lsub.subgraph(lc)), nx.DiGraph(rsub.subgraph(rc)),
                                node_match=node_match)
            try:
                ok = gm.is_isomorphic()
            except _Timeout:
                ctx.limits_hit.append(f"vf2_timeout_s={ctx.limits.vf2_timeout_s:g} "
                                      f"(leftover component of {len(lc)} nodes)")
                return
            if ok:
                used.add(ri)
                for a, b in gm.mapping.items():
                    ctx.add(a, b, "vf2")
                break
    ctx.stats["vf2_components_skipped"] = skipped


def _components(g: FunctionGraph, nodes: set) -> List[List[str]]:
    """Weakly connected components of ``nodes`` over operand and region edges."""
    seen: set = set()
    out = []
    for start in g.order:
        if start not in nodes or start in seen:
            continue
        comp, stack = [], [start]
        seen.add(start)
        while stack:
            x = stack.pop()
            comp.append(x)
            n = g.nodes[x]
            for y in [s_ for s_, _, _ in n.operands if s_] + [u for u, _, _ in n.users] + n.children + \
                    ([n.parent] if n.parent else []):
                if y in nodes and y not in seen:
                    seen.add(y)
                    stack.append(y)
        out.append(sorted(comp))
    return out


DEFAULT_STAGES = ("anchors", "exact", "propagate", "same-io", "vf2")
