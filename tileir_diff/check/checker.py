"""The trusted checker: does a proposed op mapping prove two normalized functions the same?

The matcher is a heuristic; nothing it says is trusted. Before any ``identical``/``equivalent``
verdict the engine hands this module the two normalized functions and the matcher's node
mapping, and this module decides, by its own walk of the IR, whether the mapping is an
isomorphism that preserves meaning:

1. every entry argument maps to the argument at the same position, with the same type;
2. every op on both sides is mapped, one to one;
3. mapped ops have equal labels: name, attributes (bit-exact), operand groups, result types,
   region and block counts, block argument types; ``reduce``/``scan`` combiner bodies compared
   op by op;
4. mapped ops sit at the same region path: their parents are mapped to each other (or both are
   at the top level) and they are in the same region and block;
5. every operand is produced by the mapped producer (same result index), except that the two
   operands of an op the op table calls commutative may cross and ``join_tokens`` operands
   compare as a set;
6. effects that no token orders (``assert``, ``alloca``, terminators, region ops whose bodies
   have effects) keep their relative order in each block;
7. on the functions as they were read (before normalization), every pair of mapped memory
   accesses that may overlap (all pairs but two plain reads) is ordered by the token graph on
   the left exactly when the mapped pair is ordered on the right. No two entry arguments are
   assumed disjoint: Tile IR 13.1-13.5 records aliasing only through the token chains the
   frontend writes, so an ordering one side writes and the other omits is a difference.

With a ``ProofOptions`` (the optional rule ``smt-equivalence``), a label or operand violation
at a mapped pair of integer/boolean (or small float) ops is discharged when this module, through
its own encoding (``check/smt.py``), proves the two values equal for every input satisfying the
facts: the pair's results (an attribute such as a division's rounding differs) or the operands at
the violating slots (an operand is produced by unpaired ops). Unpaired pure ops are discharged
only when every use of their results lies inside such a proof. A pair whose results differ is
asked again at the mapped pairs that read it (``_lift``) and discharged under the same rule:
every use, on both sides, inside a proof. A pointer index is compared only where the mask of
the memory ops that use it holds (``_masked``): masked-off elements are not accessed. Nothing the matcher or the
classifier says enters the query: the cones are read from the two functions and the mapping.

It imports only the IR, the op table and ``smt.py``: no graph, matcher, key or classifier code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.access import POINTER_ACCESS
from ..errors import TimeLimitExceeded
from ..dialect.traits import COMBINER, COMPARE, LOOP, ops_with
from ..ir import Block, Function, Module, Operation, TokenType, Value
from . import smt

#: Ops whose regions are combiners, compared op by op inside the op's label (not mapped).
_COMBINER_OPS = ops_with(COMBINER)
_COMPARES = ops_with(COMPARE)
_LOOPS = ops_with(LOOP)
_FENCING = frozenset({"acquire", "release", "acq_rel"})


@dataclass(frozen=True)
class Violation:
    """One way the mapping fails to prove the two functions the same.

    ``kind``: ``signature``, ``function``, ``unmapped``, ``label``, ``placement``, ``operand``,
    ``order``, ``memory-order``, ``unverifiable``. ``left``/``right`` are node ids (op ids,
    ``f0/a3`` for entry arguments). ``cascade``: the violation may be explained by a difference
    upstream (an unmapped producer, a result type following changed inputs) and is covered when
    its op is listed under any root; otherwise only a root at this very op covers it.
    """
    kind: str
    left: Optional[str]
    right: Optional[str]
    message: str
    slots: Tuple[Tuple[int, int], ...] = ()
    cascade: bool = False


@dataclass(frozen=True)
class ProofOptions:
    """Switches the proof step on. ``timeout_s``: the wall-clock safety net of one proof (past
    it the diff is ``unknown``); ``rlimit``: its work budget in z3's resource units (past it:
    undecided). ``entry_facts``: the (left, right) functions whose top-level ``assume``s on entry
    arguments are facts (default: the functions checked). ``launch``: caller-stated facts,
    (name, encoder -> z3 bool)."""
    timeout_s: float = smt.DEFAULT_TIMEOUT_S
    entry_facts: Tuple[Optional[Function], Optional[Function]] = (None, None)
    launch: Tuple[Tuple[str, Callable[..., Any]], ...] = ()
    rlimit: int = smt.DEFAULT_RLIMIT


@dataclass
class Proof:
    """One query the checker posed: at the mapped pair (left, right), of its results
    (``slot`` None) or of operand ``slot``. ``outcome``: smt.Outcome."""
    left: str
    right: str
    slot: Optional[int]
    outcome: "smt.Outcome"


class _Index:
    """One function's ops by node id, with where each sits and who produces each value."""

    def __init__(self, f: Function, index: int):
        self.f = f
        self.prefix = f"f{index}"
        self.ops: Dict[str, Operation] = {}
        self.order: List[str] = []
        self.where: Dict[str, Tuple[Optional[str], int, int]] = {}   # id -> (parent id, region, block)
        self.blocks: Dict[Tuple[Optional[str], int, int], List[str]] = {}
        self.producer: Dict[int, Tuple[str, int]] = {}               # vid -> (node id, result index)
        self.problems: List[str] = []
        self.arg_index: Dict[str, int] = {}                          # entry argument node id -> k
        for k, a in enumerate(f.arguments):
            self.producer[a.vid] = (f"{self.prefix}/a{k}", 0)
            self.arg_index[f"{self.prefix}/a{k}"] = k
        self._block(f.body, self.prefix, None, 0, 0)

    def _block(self, block: Block, prefix: str, parent: Optional[str], region: int, blk: int) -> None:
        ids = self.blocks.setdefault((parent, region, blk), [])
        for j, op in enumerate(block.operations):
            nid = op.origin or f"{prefix}/o{j}"
            if nid in self.ops:  # the graph's convention for a duplicated origin tag
                k = 1
                while f"{nid}~{k}" in self.ops:
                    k += 1
                nid = f"{nid}~{k}"
            self.ops[nid] = op
            self.order.append(nid)
            self.where[nid] = (parent, region, blk)
            ids.append(nid)
            for v in op.operands:
                if v.vid not in self.producer:
                    self.problems.append(f"{nid}: operand %v{v.vid} has no producer before it")
            for i, r in enumerate(op.results):
                self.producer[r.vid] = (nid, i)
            if op.name in _COMBINER_OPS:
                continue
            for k, reg in enumerate(op.regions):
                for b_i, b in enumerate(reg.blocks):
                    for i, a in enumerate(b.arguments):
                        self.producer[a.vid] = (f"{nid}/r{k}/a{i}", 0)
                    self._block(b, f"{nid}/r{k}", nid, k, b_i)


def _traits(op: Operation) -> frozenset:
    d = OPS_BY_NAME.get(op.name)
    return d.traits if d is not None else frozenset()


def _has_token_group(op: Operation) -> bool:
    d = OPS_BY_NAME.get(op.name)
    return d is not None and any(o.name == "token" for o in d.operands)


def _has_effect(op: Operation) -> bool:
    """Whether running the op can be observed besides its results and tokens: effect ops
    without a token (``assert``, ``alloca``), and region ops whose bodies hold an effect or leave
    the body early (``break``, ``return``, a ``continue`` below the loop's own body)."""
    t = _traits(op)
    if "pure" in t or "terminator" in t:
        return False
    if op.regions and op.name not in _COMBINER_OPS:
        return _body_has_effect(op, top=True)
    return True


def _body_has_effect(op: Operation, top: bool) -> bool:
    for reg in op.regions:
        for b in reg.blocks:
            for k, x in enumerate(b.operations):
                t = _traits(x)
                if x.name in ("break", "return"):
                    return True
                if x.name == "continue" and not (top and op.name in _LOOPS and k == len(b.operations) - 1):
                    return True
                if "terminator" in t or "pure" in t:
                    continue
                if x.regions and x.name not in _COMBINER_OPS:
                    if _body_has_effect(x, top=False):
                        return True
                    continue
                return True
    return False


def _unordered_effect(op: Operation) -> bool:
    """An effect whose order only its position in the block gives (no token orders it)."""
    return _has_effect(op) and not _has_token_group(op)


def _commutative(op: Operation) -> bool:
    """Whether operands 0 and 1 may cross: the op table's commutative traits, or a compare for
    (in)equality (``a == b`` is ``b == a``)."""
    t = _traits(op)
    if op.name in _COMPARES and len(op.operands) == 2:
        pred = op.attributes.get("comparison_predicate")
        return getattr(pred, "name", pred) in ("equal", "not_equal")
    return len(op.operands) >= 2 and (("commutative" in t and len(op.operands) == 2) or "commutative2" in t)


def _label_problems(a: Operation, b: Operation, amap, bmap) -> List[str]:
    """What differs between two ops apart from their operands and placement."""
    out = []
    if a.name != b.name:
        return [f"op {a.name} -> {b.name}"]
    if dict(a.attributes) != dict(b.attributes):
        keys = [k for k in a.attributes if a.attributes.get(k) != b.attributes.get(k)]
        keys += [k for k in b.attributes if k not in a.attributes]
        out.append(f"{a.name} attributes differ: {', '.join(keys)}")
    if tuple(a.segments) != tuple(b.segments) or len(a.operands) != len(b.operands):
        out.append(f"{a.name} operand groups {list(a.segments)} -> {list(b.segments)}")
    if len(a.regions) != len(b.regions) or any(len(x.blocks) != len(y.blocks) for x, y in zip(a.regions, b.regions)):
        out.append(f"{a.name} regions differ in number")
    else:
        for x, y in zip(a.regions, b.regions):
            for bx, by in zip(x.blocks, y.blocks):
                if [v.type for v in bx.arguments] != [v.type for v in by.arguments]:
                    out.append(f"{a.name} region argument types differ")
        if a.name in _COMBINER_OPS and not _same_combiners(a, b, amap, bmap):
            out.append(f"{a.name} combiner bodies differ")
    return out


def _type_problem(a: Operation, b: Operation) -> Optional[str]:
    if len(a.results) != len(b.results):
        return f"{a.name} result count {len(a.results)} -> {len(b.results)}"
    if any(x.type != y.type for x, y in zip(a.results, b.results)):
        return f"{a.name} result types differ"
    return None


def _same_combiners(a: Operation, b: Operation, amap, bmap) -> bool:
    """reduce/scan bodies as the expressions their terminators yield (the order of independent
    ops in a body means nothing): block arguments by position, a value from outside the body by
    its mapped producer (amap/bmap: vid -> outer node id)."""
    for ra, rb in zip(a.regions, b.regions):
        for ba, bb in zip(ra.blocks, rb.blocks):
            table: Dict[tuple, int] = {}  # hash-consed expressions, shared by both sides
            ea, eb = _yielded(ba, amap, table), _yielded(bb, bmap, table)
            if ea is None or ea != eb:
                return False
    return True


def _yielded(block: Block, outer, table: Dict[tuple, int]):
    """The terminator's operands as expression numbers (equal numbers: equal expressions), or
    None. Hash-consing keeps this linear: nested tuples would compare in exponential time on a
    body that reuses values."""
    if not block.operations or "terminator" not in _traits(block.operations[-1]):
        return None
    expr: Dict[int, tuple] = {x.vid: ("arg", i) for i, x in enumerate(block.arguments)}
    for op in block.operations[:-1]:
        if op.regions:
            return None
        key = (op.name, tuple(sorted((k, repr(v)) for k, v in op.attributes.items())), tuple(op.segments),
               tuple(repr(r.type) for r in op.results),
               tuple(expr[v.vid] if v.vid in expr else ("outer", outer(v.vid)) for v in op.operands))
        num = table.setdefault(key, len(table))
        for i, r in enumerate(op.results):
            expr[r.vid] = ("op", num, i)
    term = block.operations[-1]
    return term.name, tuple(expr[v.vid] if v.vid in expr else ("outer", outer(v.vid)) for v in term.operands)


@dataclass
class _Proven:
    """What the proofs of one function pair established: the proven pairs, the node ids of the
    ops their cones expanded per side, and the (user, operand index) slots proven per side."""
    pairs: Set[Tuple[str, str]] = field(default_factory=set)
    cone_l: Set[str] = field(default_factory=set)
    cone_r: Set[str] = field(default_factory=set)
    slots_l: Set[Tuple[str, Optional[int]]] = field(default_factory=set)
    slots_r: Set[Tuple[str, Optional[int]]] = field(default_factory=set)
    #: pairs whose results differ, proven unobservable only if every use lies inside a proof
    refuted: Set[Tuple[str, str]] = field(default_factory=set)
    #: pairs of a zero-sign-blind op (exp) proven through their inputs: whole, like results
    blind: Set[Tuple[str, str]] = field(default_factory=set)
    #: unpaired memory reads a proof expanded (its pairing of reads checked: ``_reads_agree``)
    reads_l: Set[str] = field(default_factory=set)
    reads_r: Set[str] = field(default_factory=set)


def _queries(a: Operation, b: Operation, vs: List[Violation]) -> List[Tuple[Optional[int], Value, Value]]:
    """What to prove at a mapped pair with label/operand violations ``vs``: its results, when
    both ops are encodable, else the operands at the violating slots (operand violations only)."""
    if _encodable(a) and _encodable(b) and len(a.results) == len(b.results) and a.results:
        return [(None, x, y) for x, y in zip(a.results, b.results)]
    if all(v.kind == "operand" for v in vs) and len(a.operands) == len(b.operands):
        return [(i, a.operands[i], b.operands[j]) for v in vs for i, j in v.slots]
    return []


class FunctionCheck:
    """Checks 1-6 (and 7 when the raw functions are given) for one pair of functions."""

    def __init__(self, left: Function, li: int, right: Function, ri: int, l2r: Mapping[str, str],
                 raw_left: Optional[Function] = None, raw_right: Optional[Function] = None,
                 proof: Optional[ProofOptions] = None):
        self.L, self.R = _Index(left, li), _Index(right, ri)
        self.l2r = dict(l2r)
        self.raw = (raw_left, raw_right)
        self.violations: List[Violation] = []
        self.proof = proof
        self.proofs: List[Proof] = []
        #: node ids whose violations a proof discharged (mapped pairs and unpaired pure ops)
        self.discharged_left: set = set()
        self.discharged_right: set = set()
        self.proof_skipped: Optional[str] = None
        self._order_cache: Dict[str, Any] = {}

    def _v(self, kind, left, right, message, slots=(), cascade=False):
        self.violations.append(Violation(kind, left, right, message, tuple(slots), cascade))

    def run(self) -> List[Violation]:
        L, R, l2r = self.L, self.R, self.l2r
        for p in L.problems + R.problems:
            self._v("unverifiable", None, None, p)
        if self.violations:
            return self.violations
        self._signature()
        r2l: Dict[str, str] = {}
        for l, r in l2r.items():
            if r in r2l:
                self._v("unverifiable", l, r, f"mapping not one to one: {r} paired twice")
            r2l[r] = l
        self.r2l = r2l
        violating = set()
        for l in L.order:
            partner = l2r.get(l)
            if partner is None or partner not in R.ops:
                self._v("unmapped", l, None, f"{L.ops[l].name} {l} has no counterpart on the right", cascade=True)
                violating.add(l)
        for r in R.order:
            if r2l.get(r) not in L.ops:
                self._v("unmapped", None, r, f"{R.ops[r].name} {r} has no counterpart on the left", cascade=True)
        for l in L.order:
            partner = l2r.get(l)
            if partner is None or partner not in R.ops:
                continue
            r = partner
            if self._pair(l, r):
                violating.add(l)
        self._types(violating)
        self._order()
        if self.raw[0] is not None and self.raw[1] is not None:
            self._memory_order()
        if self.proof is not None and self.violations:
            self._prove()
        return self.violations

    # --- 8. proofs where the mapping alone does not show equality ---------------------------
    def _shared(self, nid: str, res: int, is_left: bool) -> Optional[str]:
        """The leaf name both sides share for a value produced by node ``nid`` (None: fresh)."""
        _, _, tail = nid.partition("/")
        if tail.startswith("a") and tail[1:].isdigit():
            # entry argument k of the left and the right argument the mapping pairs with it
            # (check 1 reports every pairing other than k with k as a signature violation,
            # which a calling-convention root must cover; the proof holds under that pairing)
            if is_left:
                return f"arg{tail[1:]}"
            left_arg = self.r2l.get(nid)
            if left_arg is None or left_arg not in self.L.arg_index:
                return None
            return f"arg{self.L.arg_index[left_arg]}"
        op_id, sep, result_suffix = nid.rpartition("/r")
        suffix: Optional[str] = result_suffix
        if not (sep and "/a" in result_suffix):
            op_id, suffix = nid, None
        if is_left:
            left_id = op_id if op_id in self.l2r else None
        else:
            left_id = self.r2l.get(op_id)
        if left_id is None:
            return None
        return f"m:{left_id}{'' if suffix is None else '/r' + suffix}#{res}"

    def _prove(self) -> None:
        if not smt.available():
            self.proof_skipped = smt.skipped_reason()
            return
        opts = self.proof
        if opts is None or any(v.kind == "unverifiable" for v in self.violations):
            return
        by_pair: Dict[Tuple[str, str], List[Violation]] = {}
        for v in self.violations:
            if v.left is not None and v.right is not None and v.kind in ("label", "operand"):
                by_pair.setdefault((v.left, v.right), []).append(v)
        if not by_pair:
            return
        enc = self._encoder(opts)
        L, R = self.L, self.R
        blocked = {(v.left, v.right) for v in self.violations if v.kind not in ("label", "operand", "unmapped")}
        flag_only = {(l, r) for (l, r), vs in by_pair.items()
                     if l in L.ops and r in R.ops and _only_flags_differ(L.ops[l], R.ops[r], vs)}
        # elsewhere, such a pair is read without its flags: the flag is a root of its own (a
        # specialization, which the run without assumptions re-proves the kernels without)
        unflagged = (frozenset(l for l, _ in flag_only), frozenset(r for _, r in flag_only))
        proven = _Proven()
        refuted: List[Tuple[str, str]] = []
        for (l, r), vs in by_pair.items():
            if (l, r) in blocked or l not in L.ops or r not in R.ops:
                continue
            a, b = L.ops[l], R.ops[r]
            if "assume" in (a.name, b.name):
                continue  # a changed predicate is the specialization itself, never proven away
            queries = _queries(a, b, vs)
            enc.unflagged = (frozenset(), frozenset()) if (l, r) in flag_only else unflagged
            if queries and self._prove_pair(enc, l, r, queries, proven):
                proven.pairs.add((l, r))  # (a flag-only pair with its flags: the flag excludes nothing)
            elif queries and queries[0][0] is None and (l, r) not in flag_only:
                refuted.append((l, r))  # (a flag-only pair is never lifted: the flag is its root)
        enc.unflagged = unflagged
        if refuted:
            self._lift(enc, refuted, proven, blocked)
        self._masked(enc, proven, by_pair)
        if proven.pairs:
            self._discharge(proven)

    def _masked(self, enc: "smt.ConeEncoder", proven: "_Proven", by_pair: Dict[Tuple[str, str], List[Violation]]) -> None:
        """A pointer ``offset`` pair whose index differs (a refuted pair, or unpaired ops)
        where every use of the pointer is a masked memory access under one mask: the index is
        proven equal only where that mask holds (``smt.ConeEncoder.prove``'s premise), since a
        masked-off element is neither read nor written (a load gives the padding operand there).
        The offset pair then counts as proven at its index slot."""
        L, R = self.L, self.R
        users_l, users_r = _users(L), _users(R)
        for ol in L.order:
            orr = self.l2r.get(ol)
            a = L.ops[ol]
            if a.name != "offset" or orr is None or orr not in R.ops or R.ops[orr].name != "offset" \
                    or len(a.operands) != 2 or len(R.ops[orr].operands) != 2:
                continue
            vs = by_pair.get((ol, orr), [])
            src_l, src_r = L.producer.get(a.operands[1].vid), R.producer.get(R.ops[orr].operands[1].vid)
            if src_l is None or src_r is None:
                continue
            pair = (src_l[0], self.l2r.get(src_l[0]))
            if not all(v.kind == "operand" and v.slots == ((1, 1),) for v in vs):
                continue  # the pair differs otherwise too (its type, its base): not proven here
            if not ((pair[1] == src_r[0] and pair in proven.refuted) or vs):
                continue
            if self._mapped(L.producer[a.operands[0].vid]) != R.producer.get(R.ops[orr].operands[0].vid):
                continue  # the base pointers are not the mapped pair
            mask = self._one_mask(L, users_l.get(ol, ()), R, users_r.get(orr, ()))
            if mask is None:
                continue
            xl, xr, peeled_l, peeled_r = self._peel(a.operands[1], R.ops[orr].operands[1], proven, by_pair)
            out = enc.prove(xl, xr, premise=mask)
            self._check_reads(out)
            self.proofs.append(Proof(ol, orr, 1, out))
            if out.status != "equal":
                continue
            self._note_reads(out, proven)
            proven.pairs.add((ol, orr))
            proven.cone_l |= out.cone_left | peeled_l
            proven.cone_r |= out.cone_right | peeled_r
            proven.slots_l.add((ol, 1))
            proven.slots_r.add((orr, 1))

    def _peel(self, vl: Value, vr: Value, proven: "_Proven", by_pair) -> Tuple[Value, Value, set, set]:
        """Down a refuted lineage through mapped pairs of one elementwise op with no violation of
        their own (``muli(exti(q_l), s)`` against ``muli(exti(q_r), s)``), to the pair where the
        difference starts: equal there at an element makes the results equal at that element
        (the same op of the same other operands). Returns that pair and the ops peeled per side."""
        L, R = self.L, self.R
        peeled_l: set = set()
        peeled_r: set = set()
        for _ in range(8):
            pl, pr = L.producer.get(vl.vid), R.producer.get(vr.vid)
            if pl is None or pr is None or self.l2r.get(pl[0]) != pr[0] or (pl[0], pr[0]) not in proven.refuted \
                    or (pl[0], pr[0]) in by_pair or pl[1] != pr[1]:
                break
            a, b = L.ops[pl[0]], R.ops[pr[0]]
            if a.name != b.name or len(a.operands) != len(b.operands) or not _encodable(a) \
                    or any(getattr(x.type, "shape", None) != getattr(vl.type, "shape", None) for x in a.operands):
                break
            differing: List[int] = []
            for k, (x, y) in enumerate(zip(a.operands, b.operands)):
                sx, sy = L.producer.get(x.vid), R.producer.get(y.vid)
                if sx is None or sy is None or self.l2r.get(sx[0]) != sy[0] or sx[1] != sy[1]:
                    differing = []
                    break
                if (sx[0], sy[0]) in proven.refuted:
                    differing.append(k)
            if len(differing) != 1:
                break
            peeled_l.add(pl[0])
            peeled_r.add(pr[0])
            vl, vr = a.operands[differing[0]], b.operands[differing[0]]
        return vl, vr, peeled_l, peeled_r

    def _one_mask(self, L: "_Index", users_l, R: "_Index", users_r) -> Optional[Value]:
        """The left mask when every use of a pointer, on both sides, is the pointer operand of a
        masked memory op whose mapped partner reads the mapped pointer and the mapped mask, and
        all of them use one mask value; None otherwise."""
        masks = set()
        mask_value = None
        if not users_l or len(users_l) != len(users_r):
            return None
        for u, k in users_l:
            op, partner = L.ops[u], self.l2r.get(u)
            if partner is None or partner not in R.ops or (partner, k) not in users_r:
                return None
            m_l, m_r = _mask_operand(op, k), _mask_operand(R.ops[partner], k)
            if m_l is None or m_r is None or self._mapped(L.producer[m_l.vid]) != R.producer.get(m_r.vid):
                return None
            masks.add(m_l.vid)
            mask_value = m_l
        return mask_value if len(masks) == 1 else None

    def _lift(self, enc: "smt.ConeEncoder", refuted: List[Tuple[str, str]], proven: "_Proven", blocked: set) -> None:
        """Where a pair's results are not equal (an inner step of a reassociated or rewritten
        expression: ``b*T - off`` against ``b*T``), pose the query at the mapped pairs that read
        them instead, level by level (at most ``_LIFT_LEVELS`` up, ``_LIFT_QUERIES`` queries),
        with both cones expanded through the refuted pair. A proven user pair joins
        ``proven.pairs``; the refuted pair is discharged only when every use of it, on both
        sides, lies inside such a proof (``_discharge``): its values are then observed nowhere
        else."""
        users_l, users_r = _users(self.L), _users(self.R)
        tried = set(proven.pairs) | set(refuted)
        proven.refuted.update(refuted)
        frontier = list(refuted)
        budget = _LIFT_QUERIES
        full = enc.rlimit
        enc.rlimit = max(1, full // _LIFT_WORK_SHARE)  # a lifted query may only absorb: a smaller budget is conservative
        try:
            self._lift_levels(enc, frontier, tried, users_l, users_r, proven, blocked, budget)
        finally:
            enc.rlimit = full

    def _lift_levels(self, enc: "smt.ConeEncoder", frontier: List[Tuple[str, str]], tried: set, users_l, users_r,
                     proven: "_Proven", blocked: set, budget: int) -> None:
        """``_lift``'s levels: the mapped user pairs of ``frontier``, then theirs, ..."""
        L, R = self.L, self.R
        for _ in range(_LIFT_LEVELS):
            nxt: List[Tuple[str, str]] = []
            for l, r in frontier:
                for ul, _k in users_l.get(l, ()):
                    ur = self.l2r.get(ul)
                    if ur is None or ur not in R.ops or (ul, ur) in tried or (ul, ur) in blocked:
                        continue
                    if not any(u == ur for u, _ in users_r.get(r, ())) and not self._reads_cone(R, ur, r):
                        continue
                    tried.add((ul, ur))
                    a, b = L.ops[ul], R.ops[ur]
                    blind = _same_zero_sign_blind(a, b)
                    if "assume" in (a.name, b.name) or not (blind or (_encodable(a) and _encodable(b))) \
                            or len(a.results) != len(b.results) or budget <= 0:
                        continue
                    budget -= 1
                    if blind:  # exp(x) = exp(y) where x and y are equal up to the sign of a zero
                        if self._prove_blind(enc, ul, ur, proven):
                            continue
                        proven.refuted.add((ul, ur))
                        nxt.append((ul, ur))
                        continue
                    queries: List[Tuple[Optional[int], Value, Value]] = [
                        (None, x, y) for x, y in zip(a.results, b.results)]
                    if self._prove_pair(enc, ul, ur, queries, proven):
                        proven.pairs.add((ul, ur))
                    else:
                        proven.refuted.add((ul, ur))
                        if self.proofs[-1].outcome.status != "undecided":
                            # a query that spent its budget is not lifted on: the cones above it
                            # hold this one, so they cost more and are no more likely decided
                            nxt.append((ul, ur))
            if not nxt:
                return
            frontier = nxt

    def _prove_blind(self, enc: "smt.ConeEncoder", ul: str, ur: str, proven: "_Proven") -> bool:
        """A mapped pair of one op that maps both zeros to the same value (``exp``), same
        attributes: its results are equal where its inputs are equal up to the sign of a zero."""
        x, y = self.L.ops[ul].operands[0], self.R.ops[ur].operands[0]
        out = enc.prove(x, y, zero_sign_free=True)
        self._check_reads(out)
        self.proofs.append(Proof(ul, ur, 0, out))
        if out.status != "equal":
            return False
        self._note_reads(out, proven)
        proven.pairs.add((ul, ur))
        proven.blind.add((ul, ur))
        proven.cone_l |= out.cone_left
        proven.cone_r |= out.cone_right
        return True

    def _reads_cone(self, ix: "_Index", user: str, src: str, depth: int = 6) -> bool:
        """Whether ``user`` reads ``src`` through at most ``depth`` unpaired pure ops (the other
        side wrote a step the mapping left unpaired between them)."""
        other = self.r2l if ix is self.R else self.l2r
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
                if d < depth and p[0] in ix.ops and p[0] not in other and "pure" in _traits(ix.ops[p[0]]):
                    todo.append((p[0], d + 1))
        return False

    def _encoder(self, opts: ProofOptions) -> "smt.ConeEncoder":
        """The proof step's encoder for this function pair (with its own z3 context: see
        smt.new_context), sharing leaves by the mapping (``_shared``)."""
        L, R = self.L, self.R
        facts = tuple(f if f is not None else g for f, g in zip(opts.entry_facts, (L.f, R.f)))
        right_of = {L.arg_index[l]: R.arg_index[r] for l, r in self.l2r.items()
                    if l in L.arg_index and r in R.arg_index}
        return smt.ConeEncoder(L, R, lambda nid, res: self._shared(nid, res, True),
                               lambda nid, res: self._shared(nid, res, False),
                               entry_facts=facts, launch=opts.launch, timeout_s=opts.timeout_s, rlimit=opts.rlimit,
                               right_argument=right_of.get)

    def _prove_pair(self, enc: "smt.ConeEncoder", l: str, r: str, queries: List[Tuple[Optional[int], Value, Value]],
                    proven: "_Proven") -> bool:
        """Pose the pair's queries in turn (stopping at the first that is not ``equal``), record
        each as a Proof; True when all are equal (their cones and slots then join ``proven``)."""
        results = []
        for slot, x, y in queries:
            out = enc.prove(x, y)
            if out.status == "equal" and self._one_sided_assume(out):
                # an assume on one side only is a specialization fact, reported as such:
                # a proof through it would hide it
                out.status, out.note = "unsupported", "the cones hold an assume that is on one side only"
            self._check_reads(out)
            self.proofs.append(Proof(l, r, slot, out))
            results.append(out)
            if out.time_limit:  # an answer that depends on the machine's speed: no verdict rests on it
                raise TimeLimitExceeded(f"{out.note} (the proof at {l} ~ {r})")
            if out.status != "equal":
                return False
        for o in results:
            proven.cone_l |= o.cone_left
            proven.cone_r |= o.cone_right
            self._note_reads(o, proven)
        if queries[0][0] is not None:
            proven.slots_l |= {(l, slot) for slot, _, _ in queries}
            proven.slots_r |= {(r, slot) for slot, _, _ in queries}
        return True

    def _discharge(self, proven: "_Proven") -> None:
        """Drop the violations the proofs account for: those of the proven pairs, and the
        unpaired pure ops of their cones whose every use lies inside a proof."""
        L, R, l2r, r2l = self.L, self.R, self.l2r, self.r2l
        whole_l = {l for l, _ in proven.pairs if l in L.ops and _encodable(L.ops[l])} | {l for l, _ in proven.blind}
        whole_r = {r for _, r in proven.pairs if r in R.ops and _encodable(R.ops[r])} | {r for _, r in proven.blind}
        # the ops the proofs expanded (a refuted pair counts only where a proof expanded it: as a
        # leaf it would have been read as equal on both sides)
        inner_l = self._free(L, set(proven.cone_l), whole_l, proven.slots_l, proven.reads_l)
        inner_r = self._free(R, set(proven.cone_r), whole_r, proven.slots_r, proven.reads_r)
        free_l = {x for x in inner_l if x not in l2r}
        free_r = {x for x in inner_r if x not in r2l}
        # a pair whose results differ, every use of which (both sides) lies inside a proof
        unseen = {(l, r) for l, r in proven.refuted if l in inner_l and r in inner_r}
        for p in self.proofs:
            if (p.left, p.right) in unseen and p.outcome.status != "equal":
                p.outcome.note = "; ".join(x for x in (p.outcome.note, "not observed: every use of this pair "
                                                       "lies inside a proof at a pair that reads it") if x)
        self.discharged_left = {l for l, _ in proven.pairs | unseen} | free_l
        self.discharged_right = {r for _, r in proven.pairs | unseen} | free_r
        kept = []
        for v in self.violations:
            if v.kind in ("label", "operand") and (v.left, v.right) in proven.pairs | unseen:
                continue
            if v.kind == "unmapped" and ((v.left in free_l and v.right is None) or (v.right in free_r and v.left is None)):
                continue
            kept.append(v)
        self.violations = kept

    def _check_reads(self, out: "smt.Outcome") -> None:
        """An ``equal`` proof that reads memory holds only if each read it pairs (one per array
        and element type on each side, ``Outcome.reads``) sees memory in the same state on
        both sides: unpaired ops of one region of mapped parents, ordered by the tokens as read
        alike against every mapped access (check 7 with the pair added). Else unsupported."""
        if out.status != "equal":
            return
        why = next((w for _, (l, r) in out.reads.items() if l is not None and r is not None
                    for w in (self._reads_agree(l, r),) if w), None)
        if why:
            out.status, out.note = "unsupported", why

    def _note_reads(self, out: "smt.Outcome", proven: "_Proven") -> None:
        for l, r in out.reads.values():
            if l is not None:
                proven.reads_l.add(l)
            if r is not None:
                proven.reads_r.add(r)

    def _reads_agree(self, l: str, r: str) -> Optional[str]:
        """Why the read ``l`` (left) and ``r`` (right) may see memory in different states (None:
        they see it in the same one)."""
        L, R = self.L, self.R
        if l in self.l2r or r in self.r2l or l not in L.ops or r not in R.ops:
            return f"the reads {l} and {r} are not both unpaired"
        (pl, region_l, blk_l), (pr, region_r, blk_r) = L.where[l], R.where[r]
        if (pl is None) != (pr is None) or (pl is not None and self.l2r.get(pl) != pr) \
                or (region_l, blk_l) != (region_r, blk_r):
            return f"the reads {l} and {r} sit in different regions"
        base = self._memory_order_problems(self.l2r)
        if base is None:
            return f"the reads {l} and {r}: the token order of the kernels as read is not modelled"
        extra = self._memory_order_problems({**self.l2r, l: r})
        if extra is None or set(extra) - set(base):
            return f"the reads {l} and {r} are ordered differently against the other accesses"
        return None

    def _one_sided_assume(self, out) -> bool:
        return any(x not in self.l2r and self.L.ops[x].name == "assume" for x in out.cone_left if x in self.L.ops) \
            or any(x not in self.r2l and self.R.ops[x].name == "assume" for x in out.cone_right if x in self.R.ops)

    def _free(self, ix: _Index, candidates: set, whole: set, slots: set, reads: Iterable[str] = ()) -> set:
        """The unpaired pure ops of a proven cone every use of which lies inside a proof (and
        the unpaired memory reads a proof expanded, whose results, the token included, are
        read only there)."""
        reads = set(reads)
        users = _users(ix)
        free = {x for x in candidates if x in ix.ops and ("pure" in _traits(ix.ops[x]) or x in reads)}
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

    # --- 1. signature ------------------------------------------------------------------------
    def _signature(self) -> None:
        la, ra = self.L.f.arguments, self.R.f.arguments
        if len(la) != len(ra):
            self._v("signature", None, None, f"{len(la)} entry arguments -> {len(ra)}")
        for k, a in enumerate(la):
            lid, rid = f"{self.L.prefix}/a{k}", f"{self.R.prefix}/a{k}"
            if self.l2r.get(lid) != rid:
                self._v("signature", lid, self.l2r.get(lid), f"entry argument {k} is paired with "
                        f"{self.l2r.get(lid) or 'nothing'}, not with argument {k}")
            elif k < len(ra) and a.type != ra[k].type:
                self._v("signature", lid, rid, f"entry argument {k} type differs")
        for k in range(len(la), len(ra)):
            self._v("signature", None, f"{self.R.prefix}/a{k}", f"entry argument {k} only on the right")

    # --- 2-5. one mapped pair ------------------------------------------------------------
    def _mapped(self, src_l: Tuple[str, int]) -> Tuple[Optional[str], int]:
        nid, res = src_l
        return self.l2r.get(nid), res

    def _pair(self, l: str, r: str) -> bool:
        L, R = self.L, self.R
        a, b = L.ops[l], R.ops[r]
        bad = False
        for msg in _label_problems(a, b, lambda v: self._mapped(L.producer[v]) if v in L.producer else None,
                                   lambda v: R.producer.get(v)):
            self._v("label", l, r, msg)
            bad = True
        pl, region_l, blk_l = L.where[l]
        pr, region_r, blk_r = R.where[r]
        if (pl is None) != (pr is None) or (pl is not None and self.l2r.get(pl) != pr) \
                or region_l != region_r or blk_l != blk_r:
            self._v("placement", l, r, f"{a.name} {l} sits {_path(pl, region_l)} on the left, "
                                       f"{_path(pr, region_r)} on the right")
            bad = True
        if a.name != b.name or len(a.operands) != len(b.operands):
            return True
        got = [(L.producer[v.vid], R.producer[w.vid]) for v, w in zip(a.operands, b.operands)]
        agree = [self._mapped(x) == y for x, y in got]
        if all(agree):
            return bad
        slots = [(k, k) for k, ok in enumerate(agree) if not ok]
        if a.name == "join_tokens":
            if sorted(map(str, (self._mapped(x) for x, _ in got))) == sorted(map(str, (y for _, y in got))):
                return bad
        elif _commutative(a) and agree[2:] == [True] * len(agree[2:]):
            (x0, y0), (x1, y1) = got[0], got[1]
            if self._mapped(x0) == y1 and self._mapped(x1) == y0:
                return bad
        cascade = all(self.l2r.get(got[i][0][0]) is None or self.r2l.get(got[j][1][0]) is None for i, j in slots)
        self._v("operand", l, r, f"{a.name} {l}: operand(s) {', '.join(str(i) for i, _ in slots)} "
                                 f"produced by unpaired values", slots, cascade=cascade)
        return True

    def _types(self, violating: set) -> None:
        """A result type that differs is explained when an input of the op already differs."""
        L, R = self.L, self.R
        for l in L.order:
            r = self.l2r.get(l)
            if r is None or r not in R.ops:
                continue
            a, b = L.ops[l], R.ops[r]
            if a.name != b.name:
                continue
            msg = _type_problem(a, b)
            if msg is None:
                continue
            upstream = any(L.producer[v.vid][0] in violating for v in a.operands)
            self._v("label", l, r, msg, cascade=upstream)
            violating.add(l)

    # --- 6. unordered effects keep their order -------------------------------------------
    def _order(self) -> None:
        L, R = self.L, self.R
        for (parent, region, blk), ids in L.blocks.items():
            rparent = None if parent is None else self.l2r.get(parent)
            if parent is not None and rparent is None:
                continue  # an unmapped region op is a violation of its own
            right_ids = R.blocks.get((rparent, region, blk), [])
            left_seq = [self.l2r[x] for x in ids if x in self.l2r and _unordered_effect(L.ops[x])]
            right_seq = [x for x in right_ids if x in self.r2l and _unordered_effect(R.ops[x])]
            both = set(left_seq) & set(right_seq)
            left_seq = [x for x in left_seq if x in both]
            right_seq = [x for x in right_seq if x in both]
            for x, y in zip(left_seq, right_seq):
                if x != y:
                    self._v("order", self.r2l[x], x, f"{R.ops[x].name}: the effects {_path(parent, region)} "
                                                     f"run in another order")
                    break

    # --- 7. memory order on the functions as read -----------------------------------------
    def _memory_order(self) -> None:
        for lpos, nid, msg in self._memory_order_problems(self.l2r) or ():
            self._v("memory-order", lpos, nid, msg)

    def _memory_order_problems(self, l2r: Mapping[str, str]) -> Optional[List[Tuple[str, str, str]]]:
        """(left id, right id, message) of each mapped access (under ``l2r``) the tokens of the
        functions as read order differently on the two sides; None when the raw functions are
        missing or their token order is not modelled (tokens across regions)."""
        raw_left, raw_right = self.raw
        if raw_left is None or raw_right is None:
            return None
        key = tuple(sorted(l2r.items()))
        if self._order_cache.get("key") == key:
            return self._order_cache["problems"]
        left, right = _TokenOrder(raw_left), _TokenOrder(raw_right)
        if not (left.ok and right.ok):
            return None  # tokens cross regions: token-order leaves these as written and check 5 holds them
        out: List[Tuple[str, str, str]] = []
        # index the right's tracked ops by the left index of their (normalized) counterpart, so
        # both happens-before relations are bit sets over the same positions
        shared: Dict[str, int] = {}
        for i, nid in enumerate(left.ids):
            r = l2r.get(nid)
            if r is not None and r in right.pos:
                shared[r] = i
        extra = len(left.ids)
        rindex = []
        for nid in right.ids:
            if nid in shared:
                rindex.append(shared[nid])
            else:
                rindex.append(extra)
                extra += 1
        lhb = left.before(list(range(len(left.ids))))
        rhb = right.before(rindex)
        mapped_mask = 0
        for i in shared.values():
            mapped_mask |= 1 << i
        reads_l = left.read_mask(list(range(len(left.ids))))
        for nid, _ri in zip(right.ids, rindex):
            if nid not in shared:
                continue
            li = shared[nid]
            lpos = left.ids[li]
            rpos = right.pos[nid]
            conflicts = mapped_mask if left.kinds[li] != "read" else mapped_mask & ~reads_l
            lb, rb = lhb[li] & conflicts, rhb[rpos] & conflicts
            if lb != rb:
                only_l = _bits(lb & ~rb)
                only_r = _bits(rb & ~lb)
                parts = []
                if only_l:
                    parts.append("left orders it after " + ", ".join(left.ids[i] for i in only_l[:3]))
                if only_r:
                    parts.append("right orders it after the counterparts of " +
                                 ", ".join(left.ids[i] for i in only_r[:3]))
                out.append((lpos, nid, f"{left.ops[li].name} {lpos}: " + "; ".join(parts)))
        self._order_cache = {"key": key, "problems": out}
        return out


def _bits(x: int) -> List[int]:
    out, i = [], 0
    while x:
        if x & 1:
            out.append(i)
        x >>= 1
        i += 1
    return out


def _path(parent: Optional[str], region: int) -> str:
    return "at the top level" if parent is None else f"in region {region} of {parent}"


class _TokenOrder:
    """Happens-before between the token-tracked ops of a function as written."""

    def __init__(self, f: Function):
        self.ids: List[str] = []
        self.ops: List[Operation] = []
        self.pos: Dict[str, int] = {}
        self.kinds: List[str] = []
        self.ok = True
        self._producer: Dict[int, Operation] = {}
        self._tracked: Dict[int, int] = {}   # id(op) -> position
        if any(isinstance(a.type, TokenType) for a in f.arguments):
            self.ok = False
            return
        for op in _walk(f):
            for r in op.results:
                self._producer[r.vid] = op
            if op.regions and op.name not in _COMBINER_OPS:
                if any(isinstance(r.type, TokenType) for r in op.results) or any(
                        isinstance(a.type, TokenType) for reg in op.regions for b in reg.blocks for a in b.arguments):
                    self.ok = False
            if _has_token_group(op):
                self._tracked[id(op)] = len(self.ops)
                self.pos[op.origin or f"?{len(self.ops)}"] = len(self.ops)
                self.ids.append(op.origin or f"?{len(self.ops)}")
                self.ops.append(op)
                t = _traits(op)
                order = getattr(op.attributes.get("memory_ordering_semantics"), "name",
                                op.attributes.get("memory_ordering_semantics"))
                self.kinds.append("barrier" if "memory" not in t or order in _FENCING else
                                  "write" if "writes" in t else "read")
            elif op.name != "join_tokens" and any(isinstance(v.type, TokenType) for v in op.operands):
                self.ok = False  # a token reaches a terminator or an op we do not model

    def _token_operand(self, op: Operation):
        d = OPS_BY_NAME[op.name]
        names = [o.name for o in d.operands]
        if len(op.segments) != len(names):
            # without segment sizes, the token is the operand of token type
            toks = [v for v in op.operands if isinstance(v.type, TokenType)]
            return toks[0] if toks else None
        i = names.index("token")
        start, size = sum(op.segments[:i]), op.segments[i]
        return op.operands[start] if size else None

    def before(self, index: Sequence[int]) -> List[int]:
        """Per tracked op (in this function's order): the bit set, over ``index`` positions, of
        the tracked ops its token makes it wait for (transitively)."""
        carried: Dict[int, int] = {}

        def of(v) -> int:
            if v is None:
                return 0
            stack = [v]
            while stack:
                x = stack[-1]
                if x.vid in carried:
                    stack.pop()
                    continue
                p = self._producer.get(x.vid)
                if p is None or p.name == "make_token":
                    carried[x.vid] = 0
                    stack.pop()
                    continue
                if p.name == "join_tokens":
                    deps = [u for u in p.operands if u.vid not in carried]
                    if deps:
                        stack.extend(deps)
                        continue
                    m = 0
                    for u in p.operands:
                        m |= carried[u.vid]
                    carried[x.vid] = m
                    stack.pop()
                    continue
                if id(p) in self._tracked:
                    t = self._token_operand(p)
                    if t is not None and t.vid not in carried:
                        stack.append(t)
                        continue
                    carried[x.vid] = (carried[t.vid] if t is not None else 0) | (1 << index[self._tracked[id(p)]])
                else:
                    carried[x.vid] = 0
                stack.pop()
            return carried[v.vid]

        return [of(self._token_operand(op)) for op in self.ops]

    def read_mask(self, index: Sequence[int]) -> int:
        m = 0
        for i, k in enumerate(self.kinds):
            if k == "read":
                m |= 1 << index[i]
        return m


def _walk(f: Function):
    stack = [iter(f.body.operations)]
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.regions and op.name not in _COMBINER_OPS:
            for reg in reversed(op.regions):
                for b in reversed(reg.blocks):
                    stack.append(iter(b.operations))


def check_module_level(left: Module, right: Module, pairs: Sequence[Tuple[int, int]]) -> List[Violation]:
    """What a function mapping cannot show: unpaired functions, entry attributes, globals."""
    out = []
    paired_l = {i for i, _ in pairs}
    paired_r = {j for _, j in pairs}
    for i, f in enumerate(left.functions):
        if i not in paired_l:
            out.append(Violation("function", f"f{i}", None, f"entry @{f.name} has no counterpart"))
    for j, f in enumerate(right.functions):
        if j not in paired_r:
            out.append(Violation("function", None, f"f{j}", f"entry @{f.name} has no counterpart"))
    for i, j in pairs:
        a, b = left.functions[i], right.functions[j]
        for what in ("result_types", "is_entry", "hints", "arg_attrs"):
            if getattr(a, what) != getattr(b, what):
                out.append(Violation("function", f"f{i}", f"f{j}", f"entry @{a.name}: {what} differ"))
    gl = sorted((g.name, g.value, g.alignment, g.visibility, g.constant) for g in left.globals) \
        if all(g.name is not None for g in left.globals) else None
    gr = sorted((g.name, g.value, g.alignment, g.visibility, g.constant) for g in right.globals) \
        if all(g.name is not None for g in right.globals) else None
    if gl != gr or gl is None:
        if left.globals or right.globals:
            out.append(Violation("function", None, None, "module globals differ"))
    return out


def check_functions(left: Function, li: int, right: Function, ri: int, l2r: Mapping[str, str],
                    raw_left: Optional[Function] = None, raw_right: Optional[Function] = None,
                    proof: Optional[ProofOptions] = None) -> List[Violation]:
    """All violations of checks 1-7 for one function pair (empty: the mapping proves them the
    same), less those check 8 discharged by a proof when ``proof`` is given. Raises
    ``errors.TimeLimitExceeded`` when a proof ran past its wall-clock safety net (no answer may
    then rest on it: the engine makes the verdict ``unknown``)."""
    return FunctionCheck(left, li, right, ri, l2r, raw_left, raw_right, proof).run()


#: How far up (mapped user pairs) a refuted pair's query is lifted, and how many lifted queries
#: one function pair may pose (each within the proof's time budget): bounded work.
_LIFT_LEVELS = 4
_LIFT_QUERIES = 8
#: A lifted query gets this fraction of a proof's work budget: lifting can only discharge a
#: refuted pair, never refute anything, so a query that runs out leaves the root where it was;
#: without the cut, eight float queries at the full budget made one diff spend ~9 s.
_LIFT_WORK_SHARE = 8


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


def _same_zero_sign_blind(a: Operation, b: Operation) -> bool:
    """Two ops of one kind that gives the same result for -0.0 and +0.0, with the same
    attributes and one operand each (``smt.zero_sign_blind``)."""
    return a.name == b.name and smt.zero_sign_blind(a) and a.attributes == b.attributes \
        and len(a.operands) == len(b.operands) == 1 and len(a.results) == len(b.results) == 1


def _users(ix: "_Index") -> Dict[str, List[Tuple[str, int]]]:
    """node id -> [(user node id, operand index)], over the whole function."""
    users: Dict[str, List[Tuple[str, int]]] = {}
    for nid in ix.order:
        for k, v in enumerate(ix.ops[nid].operands):
            src = ix.producer.get(v.vid)
            if src is not None:
                users.setdefault(src[0], []).append((nid, k))
    return users


def _encodable(op: Operation) -> bool:
    """An op the proof step encodes (not a leaf): its row has ``semantics`` and it is pure."""
    d = OPS_BY_NAME.get(op.name)
    return d is not None and d.semantics is not None and "pure" in d.traits and not op.regions


def covered(violations: Iterable[Violation], own_left: set, own_right: set, listed_left: set,
            listed_right: set) -> List[Violation]:
    """The violations no reported root accounts for. A root covers its own ops (``own_*``) and
    lists the ops it explains (``listed_*``, own ops included); a violation that is not a
    cascade is covered only by a root at its own op."""
    out = []
    for v in violations:
        if v.kind == "unverifiable":
            out.append(v)
            continue
        if v.left in own_left or v.right in own_right:
            continue
        if v.cascade and (v.left in listed_left or v.right in listed_right):
            continue
        out.append(v)
    return out
