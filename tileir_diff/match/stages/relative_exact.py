"""exact-relative: exact matching again with *relative* keys, where every paired node stands for
its pair. Nodes downstream of a change (whose Merkle hashes all moved) pair again when they sit
on paired inputs."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List

from ...graph import FunctionGraph
from ...normalize.keys import SET_OPERAND_OPS, commutative_positions, digest
from ..mapping import MatchContext
from ..scoring import neighbour_agreement
from ..stage import Stage


class RelativeExact(Stage):
    name = "exact-relative"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        """A node's relative key hashes its label with its operands' pair ids (or relative keys
        when unpaired). An unpaired left node pairs with the one unpaired right op of its key,
        or, when it is the one left node of its key, with the best-placed of several."""
        L, R, m = ctx.left, ctx.right, ctx.mapping
        l2r, r2l = m.l2r, m.r2l
        lfree, rfree = list(ctx.lfree), list(ctx.rfree)
        if not lfree or not rfree:
            return 0
        lk = _rel_keys(L, _PairedSelf(l2r), lfree)
        rk = _rel_keys(R, r2l, rfree)
        by_key: Dict[str, List[str]] = defaultdict(list)
        for nid in rfree:
            if R.nodes[nid].kind == "op":
                by_key[rk[nid]].append(nid)
        # unpaired left nodes per key, counted once (a node with several right candidates pairs
        # only when it is the one left node with its key)
        left_count: Dict[str, int] = defaultdict(int)
        for nid in lfree:
            left_count[lk[nid]] += 1
        # unpaired right nodes per key: a key with several on both sides pairs nothing, and is
        # skipped without listing its candidates (listing them for each of n left nodes made a
        # group of n identical ops quadratic)
        right_count = {key: len(group) for key, group in by_key.items()}
        added = 0
        for i, nid in enumerate(lfree):
            if i % 1024 == 1023:
                ctx.charge(1024, "relative exact matching")
            key = lk[nid]
            if L.nodes[nid].kind != "op" or not right_count.get(key) or (
                    right_count[key] > 1 and left_count[key] != 1):
                continue
            cands = by_key[key] = [x for x in by_key[key] if x not in r2l]
            best = max(cands, key=lambda x: neighbour_agreement(ctx, nid, x))
            if ctx.add(nid, best, self.name):
                added += 1
                left_count[key] -= 1
                right_count[key] -= 1
        return added


def _rel_keys(g: FunctionGraph, own, unpaired: List[str]) -> Dict[str, str]:
    """Relative keys of the unpaired nodes, in program order. A paired node's key is its pair's
    left id (``own``; a node id contains "/", so it never equals a hex digest)."""
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
        keys[nid] = digest(n.compare_key, parent, *ops)
    return keys


class _PairedSelf:
    """``{l: l for l in l2r}`` without building it: a paired left node stands for itself."""
    __slots__ = ("l2r",)

    def __init__(self, l2r: Dict[str, str]):
        self.l2r = l2r

    def get(self, nid: str, default=None):
        return nid if nid in self.l2r else default
