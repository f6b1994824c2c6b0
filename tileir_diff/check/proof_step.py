"""Check 8, the proof step: where the mapping alone does not show two mapped ops the same (a label
or operand violation), ask ``smt.ConeEncoder`` whether their values are equal anyway, and drop
the violations the proofs account for.

Its own module because it is a job of its own beside checks 1-7 (which read only the mapping):
it poses queries, keeps what they established (``records.Proven``) and, at the end, decides
which violations that covers (``Discharge``). Where a pair's own query fails it asks elsewhere
(``lifted.py``: at the pairs that read it, or under a memory op's mask); a proof that reads
memory is vetted by ``ReadPairing``. Nothing the matcher or the classifier says enters a query:
the cones are read from the two functions and the mapping.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Set, Tuple

from ..dialect import OPS_BY_NAME
from ..errors import TimeLimitExceeded
from ..ir import Operation, Value
from .index import FunctionIndex, encodable, traits_of
from .lifted import Lift, MaskedIndex
from .records import Proof, ProofOptions, Proven, Violation

if TYPE_CHECKING:
    from . import smt
    from .checker import FunctionCheck

#: A query of a mapped pair: (operand slot, or None for its results; left value; right value).
Query = Tuple[Optional[int], Value, Value]


class ProofStep:
    """The proof step of one function pair: poses the queries at its violating mapped pairs,
    lifts the refuted ones, proves masked pointer indices, and discharges what was proven.
    Every query it poses is recorded in ``check.proofs`` in the order posed."""

    def __init__(self, check: "FunctionCheck", opts: ProofOptions):
        self.check = check
        self.opts = opts
        self.L, self.R = check.L, check.R
        self.l2r, self.r2l = check.l2r, check.r2l
        self.proofs = check.proofs
        self.reads = ReadPairing(check)

    def run(self) -> None:
        by_pair = self._violations_by_pair()
        if not by_pair:
            return
        enc = self._encoder()
        try:
            self._run(enc, by_pair)
        finally:
            enc.close()  # its z3 context's memory now, not at the cycle collector's next full pass

    def _run(self, enc: "smt.ConeEncoder", by_pair: Dict[Tuple[str, str], List[Violation]]) -> None:
        L, R = self.L, self.R
        blocked = {(v.left, v.right) for v in self.check.violations
                   if v.kind not in ("label", "operand", "unmapped")}
        flag_only = {(l, r) for (l, r), vs in by_pair.items()
                     if l in L.ops and r in R.ops and _only_flags_differ(L.ops[l], R.ops[r], vs)}
        # elsewhere, such a pair is read without its flags: the flag is a root of its own (a
        # specialization, which the run without assumptions re-proves the kernels without)
        unflagged = (frozenset(l for l, _ in flag_only), frozenset(r for _, r in flag_only))
        proven = Proven()
        refuted = self._prove_pairs(enc, by_pair, blocked, flag_only, unflagged, proven)
        enc.unflagged = unflagged
        if refuted:
            Lift(self, enc, proven, blocked).run(refuted)
        MaskedIndex(self, enc, proven, by_pair).run()
        if proven.pairs:
            Discharge(self.check, proven).run()

    def _violations_by_pair(self) -> Dict[Tuple[str, str], List[Violation]]:
        """The label and operand violations at each mapped pair."""
        by_pair: Dict[Tuple[str, str], List[Violation]] = {}
        for v in self.check.violations:
            if v.left is not None and v.right is not None and v.kind in ("label", "operand"):
                by_pair.setdefault((v.left, v.right), []).append(v)
        return by_pair

    def _prove_pairs(self, enc: "smt.ConeEncoder", by_pair: Dict[Tuple[str, str], List[Violation]], blocked: set,
                     flag_only: Set[Tuple[str, str]], unflagged: Tuple[frozenset, frozenset],
                     proven: Proven) -> List[Tuple[str, str]]:
        """Pose each violating pair's own queries (``_queries``); the proven join ``proven``.
        Returns the pairs whose results were asked and not proven equal (to lift)."""
        L, R = self.L, self.R
        refuted: List[Tuple[str, str]] = []
        for (l, r), vs in by_pair.items():
            if (l, r) in blocked or l not in L.ops or r not in R.ops:
                continue
            a, b = L.ops[l], R.ops[r]
            if "assume" in (a.name, b.name):
                continue  # a changed predicate is the specialization itself, never proven away
            queries = _queries(a, b, vs)
            enc.unflagged = (frozenset(), frozenset()) if (l, r) in flag_only else unflagged
            if queries and self.prove_pair(enc, l, r, queries, proven):
                proven.pairs.add((l, r))  # (a flag-only pair with its flags: the flag excludes nothing)
            elif queries and queries[0][0] is None and (l, r) not in flag_only:
                refuted.append((l, r))  # (a flag-only pair is never lifted: the flag is its root)
        return refuted

    def _encoder(self) -> "smt.ConeEncoder":
        """The proof step's encoder for this function pair (with its own z3 context: see
        smt.new_context), sharing leaves by the mapping (``FunctionCheck.shared``)."""
        from . import smt  # (imported with the first query, not with the checker: smt_common.py)
        L, R, opts = self.L, self.R, self.opts
        facts = tuple(f if f is not None else g for f, g in zip(opts.entry_facts, (L.f, R.f)))
        l2r = self.l2r
        right_of = {i: R.arg_index[r] for l, i in L.arg_index.items()  # (the arguments, not the whole mapping)
                    if (r := l2r.get(l)) is not None and r in R.arg_index}
        return smt.ConeEncoder(L, R, lambda nid, res: self.check.shared(nid, res, True),
                               lambda nid, res: self.check.shared(nid, res, False),
                               entry_facts=facts, launch=opts.launch, timeout_s=opts.timeout_s, rlimit=opts.rlimit,
                               right_argument=right_of.get)

    def prove_pair(self, enc: "smt.ConeEncoder", l: str, r: str, queries: List[Query], proven: Proven) -> bool:
        """Pose the pair's queries in turn (stopping at the first that is not ``equal``), record
        each as a Proof; True when all are equal (their cones and slots then join ``proven``)."""
        results = []
        for slot, x, y in queries:
            out = enc.prove(x, y)
            if out.status == "equal" and self._one_sided_assume(out):
                # an assume on one side only is a specialization fact, reported as such:
                # a proof through it would hide it
                out.status, out.note = "unsupported", "the cones hold an assume that is on one side only"
            self.reads.vet(out)
            self.proofs.append(Proof(l, r, slot, out))
            results.append(out)
            if out.time_limit:  # an answer that depends on the machine's speed: no verdict rests on it
                raise TimeLimitExceeded(f"{out.note} (the proof at {l} ~ {r})")
            if out.status != "equal":
                return False
        for o in results:
            proven.cone_l |= o.cone_left
            proven.cone_r |= o.cone_right
            self.reads.note(o, proven)
        if queries[0][0] is not None:
            proven.slots_l |= {(l, slot) for slot, _, _ in queries}
            proven.slots_r |= {(r, slot) for slot, _, _ in queries}
        return True

    def _one_sided_assume(self, out: "smt.Outcome") -> bool:
        return any(x not in self.l2r and self.L.ops[x].name == "assume" for x in out.cone_left if x in self.L.ops) \
            or any(x not in self.r2l and self.R.ops[x].name == "assume" for x in out.cone_right if x in self.R.ops)


def _queries(a: Operation, b: Operation, vs: List[Violation]) -> List[Query]:
    """What to prove at a mapped pair with label/operand violations ``vs``: its results, when
    both ops are encodable, else the operands at the violating slots (operand violations only)."""
    if encodable(a) and encodable(b) and len(a.results) == len(b.results) and a.results:
        return [(None, x, y) for x, y in zip(a.results, b.results)]
    if all(v.kind == "operand" for v in vs) and len(a.operands) == len(b.operands):
        return [(i, a.operands[i], b.operands[j]) for v in vs for i, j in v.slots]
    return []


def _only_flags_differ(a: Operation, b: Operation, vs: List[Violation]) -> bool:
    """Whether a mapped pair's violations are only a label one where the two ops differ in
    nothing but overflow flags (attributes of the op table's ``IntegerOverflow`` enum)."""
    if a.name != b.name or any(v.kind != "label" for v in vs) or tuple(a.segments) != tuple(b.segments) \
            or [x.type for x in a.results] != [x.type for x in b.results]:
        return False
    d = OPS_BY_NAME.get(a.name)
    flags = {x.name for x in d.attrs if x.enum == "IntegerOverflow"} if d is not None else set()
    keys = set(a.attributes) | set(b.attributes)
    differing = {k for k in keys if a.attributes.get(k) != b.attributes.get(k)}
    return bool(differing) and differing <= flags


class ReadPairing:
    """Whether an ``equal`` proof that reads memory holds: the encoding pairs the left's read
    with the right's (one per array and element type on each side, ``Outcome.reads``) and reads
    both from one memory; that is sound only when the two reads see memory in the same state.
    Its own object because the question is about token order (check 7), not about values."""

    def __init__(self, check: "FunctionCheck"):
        self.check = check

    def vet(self, out: "smt.Outcome") -> None:
        """An ``equal`` proof that reads memory holds only if each read it pairs sees memory in
        the same state on both sides: unpaired ops of one region of mapped parents, ordered by
        the tokens as read alike against every mapped access (check 7 with the pair added).
        Else unsupported."""
        if out.status != "equal":
            return
        why = next((w for _, (l, r) in out.reads.items() if l is not None and r is not None
                    for w in (self._agree(l, r),) if w), None)
        if why:
            out.status, out.note = "unsupported", why

    @staticmethod
    def note(out: "smt.Outcome", proven: Proven) -> None:
        """The unpaired reads a proof expanded join ``proven`` (``Discharge`` frees them)."""
        for l, r in out.reads.values():
            if l is not None:
                proven.reads_l.add(l)
            if r is not None:
                proven.reads_r.add(r)

    def _agree(self, l: str, r: str) -> Optional[str]:
        """Why the read ``l`` (left) and ``r`` (right) may see memory in different states (None:
        they see it in the same one)."""
        check = self.check
        L, R = check.L, check.R
        if l in check.l2r or r in check.r2l or l not in L.ops or r not in R.ops:
            return f"the reads {l} and {r} are not both unpaired"
        (pl, region_l, blk_l), (pr, region_r, blk_r) = L.where[l], R.where[r]
        if (pl is None) != (pr is None) or (pl is not None and check.l2r.get(pl) != pr) \
                or (region_l, blk_l) != (region_r, blk_r):
            return f"the reads {l} and {r} sit in different regions"
        base = check.memory_order_problems(check.l2r)
        if base is None:
            return f"the reads {l} and {r}: the token order of the kernels as read is not modelled"
        extra = check.memory_order_problems({**check.l2r, l: r})
        if extra is None or set(extra) - set(base):
            return f"the reads {l} and {r} are ordered differently against the other accesses"
        return None


class Discharge:
    """Drops the violations the proofs of one function pair account for: those of the proven
    pairs, of the refuted pairs every use of which lies inside a proof, and the unpaired ops of
    the proven cones whose every use lies inside a proof. Its own object because it is the one
    place where a proof removes a violation: what it keeps is what the verdict rests on."""

    def __init__(self, check: "FunctionCheck", proven: Proven):
        self.check = check
        self.proven = proven

    def run(self) -> None:
        check, proven = self.check, self.proven
        inner_l, inner_r = self._inner()
        free_l = {x for x in inner_l if x not in check.l2r}
        free_r = {x for x in inner_r if x not in check.r2l}
        # a pair whose results differ, every use of which (both sides) lies inside a proof
        unseen = {(l, r) for l, r in proven.refuted if l in inner_l and r in inner_r}
        self._note_unseen(unseen)
        check.discharged_left = {l for l, _ in proven.pairs | unseen} | free_l
        check.discharged_right = {r for _, r in proven.pairs | unseen} | free_r
        gone = proven.pairs | unseen
        check.violations = [v for v in check.violations if not self._accounted(v, gone, free_l, free_r)]

    def _inner(self) -> Tuple[set, set]:
        """Per side, the ops the proofs expanded whose every use lies inside a proof (a refuted
        pair counts only where a proof expanded it: as a leaf it would have been read as equal
        on both sides)."""
        check, proven = self.check, self.proven
        L, R = check.L, check.R
        whole_l = {l for l, _ in proven.pairs if l in L.ops and encodable(L.ops[l])} | {l for l, _ in proven.blind}
        whole_r = {r for _, r in proven.pairs if r in R.ops and encodable(R.ops[r])} | {r for _, r in proven.blind}
        return (_free(L, set(proven.cone_l), whole_l, proven.slots_l, proven.reads_l),
                _free(R, set(proven.cone_r), whole_r, proven.slots_r, proven.reads_r))

    def _note_unseen(self, unseen: Set[Tuple[str, str]]) -> None:
        for p in self.check.proofs:
            if (p.left, p.right) in unseen and p.outcome.status != "equal":
                p.outcome.note = "; ".join(x for x in (p.outcome.note, "not observed: every use of this pair "
                                                       "lies inside a proof at a pair that reads it") if x)

    @staticmethod
    def _accounted(v: Violation, gone: Set[Tuple[str, str]], free_l: set, free_r: set) -> bool:
        if v.kind in ("label", "operand") and (v.left, v.right) in gone:
            return True
        return v.kind == "unmapped" and ((v.left in free_l and v.right is None) or
                                         (v.right in free_r and v.left is None))


def _free(ix: FunctionIndex, candidates: set, whole: set, slots: set, reads: Iterable[str] = ()) -> set:
    """The unpaired pure ops of a proven cone every use of which lies inside a proof (and
    the unpaired memory reads a proof expanded, whose results, the token included, are
    read only there)."""
    reads = set(reads)
    users = ix.users()
    free = {x for x in candidates if x in ix.ops and ("pure" in traits_of(ix.ops[x]) or x in reads)}
    changed = True
    while changed:
        changed = False
        for x in list(free):
            for u, k in users.get(x, ()):
                if u in free or u in whole or (u, k) in slots:
                    continue
                free.discard(x)
                changed = True
                break
    return free
