"""The proof step's second questions: where a mapped pair's own query is refuted, a question
posed elsewhere may still show the difference unobservable.

* ``Lift``: at the mapped pairs that read the refuted pair (an inner step of a reassociated
  expression: ``b*T - off`` against ``b*T``, equal only once ``+ off`` is added back);
* ``MaskedIndex``: a pointer index compared only where the mask of the memory ops that use the
  pointer holds (masked-off elements are not accessed).

Their own module because neither asks the question the violation raises: each can only
discharge (a refuted pair stays the root when they fail), and each is bounded on its own
(``_LIFT_LEVELS``/``_LIFT_QUERIES``, ``_PEEL_STEPS``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Set, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.access import POINTER_ACCESS
from ..ir import Operation, Value
from .index import FunctionIndex, encodable, traits_of
from .records import Proof, Proven, Violation

if TYPE_CHECKING:
    from . import smt
    from .proof_step import ProofStep, Query

#: How far up (mapped user pairs) a refuted pair's query is lifted, and how many lifted queries
#: one function pair may pose (each within the proof's time budget): bounded work.
_LIFT_LEVELS = 4
_LIFT_QUERIES = 8
#: A lifted query gets this fraction of a proof's work budget: lifting can only discharge a
#: refuted pair, never refute anything, so a query that runs out leaves the root where it was;
#: without the cut, eight float queries at the full budget made one diff spend ~9 s.
_LIFT_WORK_SHARE = 8
#: How many mapped elementwise pairs ``MaskedIndex`` peels down a refuted index lineage.
_PEEL_STEPS = 8

Users = Dict[str, List[Tuple[str, int]]]


class Lift:
    """Where a pair's results are not equal (an inner step of a reassociated or rewritten
    expression: ``b*T - off`` against ``b*T``), pose the query at the mapped pairs that read
    them instead, level by level (at most ``_LIFT_LEVELS`` up, ``_LIFT_QUERIES`` queries), with
    both cones expanded through the refuted pair. A proven user pair joins ``proven.pairs``; the
    refuted pair is discharged only when every use of it, on both sides, lies inside such a
    proof (``Discharge``): its values are then observed nowhere else."""

    def __init__(self, step: "ProofStep", enc: "smt.ConeEncoder", proven: Proven, blocked: set):
        self.step, self.enc, self.proven, self.blocked = step, enc, proven, blocked
        self.L, self.R = step.L, step.R

    def run(self, refuted: List[Tuple[str, str]]) -> None:
        if not refuted:
            return  # nothing to lift (and no users map to build)
        enc, proven = self.enc, self.proven
        users_l, users_r = self.L.users(), self.R.users()
        tried = set(proven.pairs) | set(refuted)
        proven.refuted.update(refuted)
        full = enc.rlimit
        enc.rlimit = max(1, full // _LIFT_WORK_SHARE)  # a lifted query may only absorb: a smaller budget is conservative
        try:
            self._levels(list(refuted), tried, users_l, users_r)
        finally:
            enc.rlimit = full

    def _levels(self, frontier: List[Tuple[str, str]], tried: set, users_l: Users, users_r: Users) -> None:
        """The mapped user pairs of ``frontier``, then theirs, ..."""
        L, R, l2r = self.L, self.R, self.step.l2r
        budget = _LIFT_QUERIES
        for _ in range(_LIFT_LEVELS):
            nxt: List[Tuple[str, str]] = []
            for l, r in frontier:
                for ul, _k in users_l.get(l, ()):
                    ur = l2r.get(ul)
                    if ur is None or ur not in R.ops or (ul, ur) in tried or (ul, ur) in self.blocked:
                        continue
                    if not any(u == ur for u, _ in users_r.get(r, ())) and not self._reads_cone(R, ur, r):
                        continue
                    tried.add((ul, ur))
                    a, b = L.ops[ul], R.ops[ur]
                    blind = _same_zero_sign_blind(a, b)
                    if "assume" in (a.name, b.name) or not (blind or (encodable(a) and encodable(b))) \
                            or len(a.results) != len(b.results) or budget <= 0:
                        continue
                    budget -= 1
                    if self._lift_to(ul, ur, blind):
                        nxt.append((ul, ur))
            if not nxt:
                return
            frontier = nxt

    def _lift_to(self, ul: str, ur: str, blind: bool) -> bool:
        """Pose the query at the user pair (ul, ur); True when it is refuted and decided, so
        that the lift goes on above it."""
        proven = self.proven
        if blind:  # exp(x) = exp(y) where x and y are equal up to the sign of a zero
            if self._prove_blind(ul, ur):
                return False
            proven.refuted.add((ul, ur))
            return True
        a, b = self.L.ops[ul], self.R.ops[ur]
        queries: List["Query"] = [(None, x, y) for x, y in zip(a.results, b.results)]
        if self.step.prove_pair(self.enc, ul, ur, queries, proven):
            proven.pairs.add((ul, ur))
            return False
        proven.refuted.add((ul, ur))
        # a query that spent its budget is not lifted on: the cones above it hold this one, so
        # they cost more and are no more likely decided
        return self.step.proofs[-1].outcome.status != "undecided"

    def _prove_blind(self, ul: str, ur: str) -> bool:
        """A mapped pair of one op that maps both zeros to the same value (``exp``), same
        attributes: its results are equal where its inputs are equal up to the sign of a zero."""
        step, proven = self.step, self.proven
        x, y = self.L.ops[ul].operands[0], self.R.ops[ur].operands[0]
        out = self.enc.prove(x, y, zero_sign_free=True)
        step.reads.vet(out)
        step.proofs.append(Proof(ul, ur, 0, out))
        if out.status != "equal":
            return False
        step.reads.note(out, proven)
        proven.pairs.add((ul, ur))
        proven.blind.add((ul, ur))
        proven.cone_l |= out.cone_left
        proven.cone_r |= out.cone_right
        return True

    def _reads_cone(self, ix: FunctionIndex, user: str, src: str, depth: int = 6) -> bool:
        """Whether ``user`` reads ``src`` through at most ``depth`` unpaired pure ops (the other
        side wrote a step the mapping left unpaired between them)."""
        other = self.step.r2l if ix is self.R else self.step.l2r
        seen: Set[str] = set()
        todo = [(user, 0)]
        while todo:
            nid, d = todo.pop()
            for v in ix.ops[nid].operands:
                p = ix.producer.get(v.vid)
                if p is None or p[0] in seen:
                    continue
                if p[0] == src:
                    return True
                seen.add(p[0])
                if d < depth and p[0] in ix.ops and p[0] not in other and "pure" in traits_of(ix.ops[p[0]]):
                    todo.append((p[0], d + 1))
        return False


def _same_zero_sign_blind(a: Operation, b: Operation) -> bool:
    """Two ops of one kind that gives the same result for -0.0 and +0.0, with the same
    attributes and one operand each (``smt.zero_sign_blind``)."""
    from . import smt  # (imported where a query is posed, not with the checker: smt_common.py)
    return a.name == b.name and smt.zero_sign_blind(a) and a.attributes == b.attributes \
        and len(a.operands) == len(b.operands) == 1 and len(a.results) == len(b.results) == 1


class MaskedIndex:
    """A pointer ``offset`` pair whose index differs (a refuted pair, or unpaired ops) where
    every use of the pointer is a masked memory access under one mask: the index is proven
    equal only where that mask holds (``smt.ConeEncoder.prove``'s premise), since a masked-off
    element is neither read nor written (a load gives the padding operand there). The offset
    pair then counts as proven at its index slot."""

    def __init__(self, step: "ProofStep", enc: "smt.ConeEncoder", proven: Proven,
                 by_pair: Dict[Tuple[str, str], List[Violation]]):
        self.step, self.enc, self.proven, self.by_pair = step, enc, proven, by_pair
        self.L, self.R = step.L, step.R

    def run(self) -> None:
        L, R, l2r = self.L, self.R, self.step.l2r
        for ol in L.order:
            orr = l2r.get(ol)
            a = L.ops[ol]
            if a.name != "offset" or orr is None or orr not in R.ops or R.ops[orr].name != "offset" \
                    or len(a.operands) != 2 or len(R.ops[orr].operands) != 2:
                continue
            mask = self._mask_of(ol, orr)
            if mask is not None:
                self._prove_under(ol, orr, mask)

    def _mask_of(self, ol: str, orr: str) -> Optional[Value]:
        """The one mask under which the offset pair (ol, orr) is asked, when its index differs
        and nothing else does; None otherwise."""
        L, R, step = self.L, self.R, self.step
        a, b = L.ops[ol], R.ops[orr]
        vs = self.by_pair.get((ol, orr), [])
        src_l, src_r = L.producer.get(a.operands[1].vid), R.producer.get(b.operands[1].vid)
        if src_l is None or src_r is None:
            return None
        pair = (src_l[0], step.l2r.get(src_l[0]))
        if not all(v.kind == "operand" and v.slots == ((1, 1),) for v in vs):
            return None  # the pair differs otherwise too (its type, its base): not proven here
        if not ((pair[1] == src_r[0] and pair in self.proven.refuted) or vs):
            return None
        if step.check.mapped(L.producer[a.operands[0].vid]) != R.producer.get(b.operands[0].vid):
            return None  # the base pointers are not the mapped pair
        # (the users maps are built on first use: most offset pairs are left before this point)
        return self._one_mask(L.users().get(ol, ()), R.users().get(orr, ()))

    def _prove_under(self, ol: str, orr: str, mask: Value) -> None:
        step, proven = self.step, self.proven
        xl, xr, peeled_l, peeled_r = self._peel(self.L.ops[ol].operands[1], self.R.ops[orr].operands[1])
        out = self.enc.prove(xl, xr, premise=mask)
        step.reads.vet(out)
        step.proofs.append(Proof(ol, orr, 1, out))
        if out.status != "equal":
            return
        step.reads.note(out, proven)
        proven.pairs.add((ol, orr))
        proven.cone_l |= out.cone_left | peeled_l
        proven.cone_r |= out.cone_right | peeled_r
        proven.slots_l.add((ol, 1))
        proven.slots_r.add((orr, 1))

    def _peel(self, vl: Value, vr: Value) -> Tuple[Value, Value, set, set]:
        """Down a refuted lineage through mapped pairs of one elementwise op with no violation of
        their own (``muli(exti(q_l), s)`` against ``muli(exti(q_r), s)``), to the pair where the
        difference starts: equal there at an element makes the results equal at that element
        (the same op of the same other operands). Returns that pair and the ops peeled per side."""
        L, R, l2r, proven = self.L, self.R, self.step.l2r, self.proven
        peeled_l: set = set()
        peeled_r: set = set()
        for _ in range(_PEEL_STEPS):
            pl, pr = L.producer.get(vl.vid), R.producer.get(vr.vid)
            if pl is None or pr is None or l2r.get(pl[0]) != pr[0] or (pl[0], pr[0]) not in proven.refuted \
                    or (pl[0], pr[0]) in self.by_pair or pl[1] != pr[1]:
                break
            a, b = L.ops[pl[0]], R.ops[pr[0]]
            if a.name != b.name or len(a.operands) != len(b.operands) or not encodable(a) \
                    or any(getattr(x.type, "shape", None) != getattr(vl.type, "shape", None) for x in a.operands):
                break
            differing = self._differing_operands(a, b)
            if len(differing) != 1:
                break
            peeled_l.add(pl[0])
            peeled_r.add(pr[0])
            vl, vr = a.operands[differing[0]], b.operands[differing[0]]
        return vl, vr, peeled_l, peeled_r

    def _differing_operands(self, a: Operation, b: Operation) -> List[int]:
        """The operand positions of a mapped pair produced by a refuted pair; none when an
        operand pair is not a mapped pair at all."""
        L, R, l2r = self.L, self.R, self.step.l2r
        differing: List[int] = []
        for k, (x, y) in enumerate(zip(a.operands, b.operands)):
            sx, sy = L.producer.get(x.vid), R.producer.get(y.vid)
            if sx is None or sy is None or l2r.get(sx[0]) != sy[0] or sx[1] != sy[1]:
                return []
            if (sx[0], sy[0]) in self.proven.refuted:
                differing.append(k)
        return differing

    def _one_mask(self, users_l: Iterable[Tuple[str, int]], users_r: Iterable[Tuple[str, int]]) -> Optional[Value]:
        """The left mask when every use of a pointer, on both sides, is the pointer operand of a
        masked memory op whose mapped partner reads the mapped pointer and the mapped mask, and
        all of them use one mask value; None otherwise."""
        L, R, step = self.L, self.R, self.step
        users_l, users_r = list(users_l), list(users_r)
        masks = set()
        mask_value = None
        if not users_l or len(users_l) != len(users_r):
            return None
        for u, k in users_l:
            op, partner = L.ops[u], step.l2r.get(u)
            if partner is None or partner not in R.ops or (partner, k) not in users_r:
                return None
            m_l, m_r = _mask_operand(op, k), _mask_operand(R.ops[partner], k)
            if m_l is None or m_r is None or step.check.mapped(L.producer[m_l.vid]) != R.producer.get(m_r.vid):
                return None
            masks.add(m_l.vid)
            mask_value = m_l
        return mask_value if len(masks) == 1 else None


def _mask_operand(op: Operation, k: int) -> Optional[Value]:
    """The mask operand of ``op`` when operand ``k`` is its pointer tile (dialect/access.py) and
    its row has an operand group ``mask`` that this op carries (each group one operand); None
    otherwise."""
    access = POINTER_ACCESS.get(op.name)
    d = OPS_BY_NAME.get(op.name)
    if access is None or d is None:
        return None
    names = [o.name for o in d.operands]
    if "mask" not in names or len(op.segments) != len(names) or any(n != 1 for n in
                                                                    (op.segments[access.address_index],
                                                                     op.segments[names.index("mask")])):
        return None
    start = [sum(op.segments[:i]) for i in range(len(names))]
    if k != start[access.address_index]:
        return None
    return op.operands[start[names.index("mask")]]
