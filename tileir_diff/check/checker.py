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

With a ``ProofOptions`` (the optional rule ``smt-equivalence``), check 8 (``proof_step.py``)
discharges a label or operand violation at a mapped pair of integer/boolean (or small float) ops
when the checker, through its own encoding (``smt.py``), proves the two values equal for every
input satisfying the facts: the pair's results (an attribute such as a division's rounding
differs) or the operands at the violating slots (an operand is produced by unpaired ops).
Unpaired pure ops are discharged only when every use of their results lies inside such a proof.
A pair whose results differ is asked again at the mapped pairs that read it (``lifted.Lift``)
and discharged under the same rule: every use, on both sides, inside a proof. A pointer index is
compared only where the mask of the memory ops that use it holds (``lifted.MaskedIndex``):
masked-off elements are not accessed. Nothing the matcher or the classifier says enters the
query: the cones are read from the two functions and the mapping.

The package's parts: ``index.py`` (one function by node id), ``records.py`` (violations, proofs,
options), this module (checks 1-7), ``proof_step.py`` and ``lifted.py`` (check 8), ``smt.py``
(the encoding). They import only the IR, the op table, ``errors`` and each other: no graph,
matcher, key or classifier code.
"""
from __future__ import annotations

from dataclasses import fields as dataclass_fields
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.traits import COMPARE, LOOP, ops_with
from ..ir import Block, DenseElements, Function, Module, Operation, TokenType
from . import smt_common  # (not smt.py: a diff that poses no query never imports the encoder)
from .index import COMBINER_OPS, TOKEN_GROUP_OPS, FunctionIndex, has_token_group, traits_of
from .proof_step import ProofStep
from .records import Proof, ProofOptions, Violation

_COMPARES = ops_with(COMPARE)
_LOOPS = ops_with(LOOP)
_FENCING = frozenset({"acquire", "release", "acq_rel"})


def _has_effect(op: Operation) -> bool:
    """Whether running the op can be observed besides its results and tokens: effect ops
    without a token (``assert``, ``alloca``), and region ops whose bodies hold an effect or leave
    the body early (``break``, ``return``, a ``continue`` below the loop's own body)."""
    t = traits_of(op)
    if "pure" in t or "terminator" in t:
        return False
    if op.regions and op.name not in COMBINER_OPS:
        return _body_has_effect(op, top=True)
    return True


def _body_has_effect(op: Operation, top: bool) -> bool:
    for reg in op.regions:
        for b in reg.blocks:
            for k, x in enumerate(b.operations):
                t = traits_of(x)
                if x.name in ("break", "return"):
                    return True
                if x.name == "continue" and not (top and op.name in _LOOPS and k == len(b.operations) - 1):
                    return True
                if "terminator" in t or "pure" in t:
                    continue
                if x.regions and x.name not in COMBINER_OPS:
                    if _body_has_effect(x, top=False):
                        return True
                    continue
                return True
    return False


def _unordered_effect(op: Operation) -> bool:
    """An effect whose order only its position in the block gives (no token orders it).
    (``_has_effect`` and ``has_token_group``, with the name test first: check 6 asks it of every
    op, and most are pure.)"""
    if op.name in _PURE_OR_TERMINATOR:
        return False
    return _has_effect(op) and not has_token_group(op)


#: The ops whose row says ``pure`` or ``terminator``: no effect of their own, whatever they hold
#: (``_has_effect``'s first test), read from the op table once.
_PURE_OR_TERMINATOR = frozenset(n for n, d in OPS_BY_NAME.items() if "pure" in d.traits or "terminator" in d.traits)


def _commutative(op: Operation) -> bool:
    """Whether operands 0 and 1 may cross: the op table's commutative traits, or a compare for
    (in)equality (``a == b`` is ``b == a``)."""
    t = traits_of(op)
    if op.name in _COMPARES and len(op.operands) == 2:
        pred = op.attributes.get("comparison_predicate")
        return getattr(pred, "name", pred) in ("equal", "not_equal")
    return len(op.operands) >= 2 and (("commutative" in t and len(op.operands) == 2) or "commutative2" in t)


def _label_problems(a: Operation, b: Operation, amap, bmap) -> List[str]:
    """What differs between two ops apart from their operands and placement. ``amap``/``bmap``
    (vid -> outer node id) are called for combiner bodies only."""
    out = []
    if a.name != b.name:
        return [f"op {a.name} -> {b.name}"]
    if not _same_attributes(a.attributes, b.attributes):
        keys = [k for k in a.attributes if a.attributes.get(k) != b.attributes.get(k)]
        keys += [k for k in b.attributes if k not in a.attributes]
        out.append(f"{a.name} attributes differ: {', '.join(keys)}")
    if tuple(a.segments) != tuple(b.segments) or len(a.operands) != len(b.operands):
        out.append(f"{a.name} operand groups {list(a.segments)} -> {list(b.segments)}")
    if not a.regions and not b.regions:  # (most ops: nothing below to compare)
        return out
    if len(a.regions) != len(b.regions) or any(len(x.blocks) != len(y.blocks) for x, y in zip(a.regions, b.regions)):
        out.append(f"{a.name} regions differ in number")
    else:
        for x, y in zip(a.regions, b.regions):
            for bx, by in zip(x.blocks, y.blocks):
                if [v.type for v in bx.arguments] != [v.type for v in by.arguments]:
                    out.append(f"{a.name} region argument types differ")
        if a.name in COMBINER_OPS and not _same_combiners(a, b, amap, bmap):
            out.append(f"{a.name} combiner bodies differ")
    return out


def _same_attributes(x: Mapping[str, Any], y: Mapping[str, Any]) -> bool:
    """The two ops' attribute mappings compared as dicts (``dict(x) == dict(y)``), without the
    copies when both already are dicts (as the reader and the rules make them)."""
    if type(x) is dict and type(y) is dict:
        return x == y
    return dict(x) == dict(y)


def _same_attribute_dicts(x: Mapping[str, Any], y: Mapping[str, Any], same_type: Any) -> bool:
    """``x == y`` for two ops' attribute dicts, where a constant's one attribute, its dense
    value, is compared field by field as its ``__eq__`` would (``_DENSE_FIELDS``), its tile type
    through ``same_type`` (remembered per pair of type objects): comparing that type record by
    record is most of the cost of comparing two constants, half the ops of a large kernel."""
    if len(x) == 1 and len(y) == 1 and _DENSE_FIELDS:
        u, w = x.get("value"), y.get("value")
        if type(u) is DenseElements and type(w) is DenseElements:
            return u.data == w.data and same_type(u.type, w.type)
    return x == y


#: Whether ``DenseElements`` compares exactly the fields ``type`` and ``data`` (its record
#: equality), as ``_same_attribute_dicts`` does; were that to change, the dicts would be compared
#: with ``==`` alone. (tests/check/test_checker_walk.py holds the two comparisons equal.)
_DENSE_FIELDS = tuple(f.name for f in dataclass_fields(DenseElements) if f.compare) == ("type", "data")


def _type_problem(a: Operation, b: Operation, same_type: Any) -> Optional[str]:
    if len(a.results) != len(b.results):
        return f"{a.name} result count {len(a.results)} -> {len(b.results)}"
    for x, y in zip(a.results, b.results):
        if not same_type(x.type, y.type):
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
    if not block.operations or "terminator" not in traits_of(block.operations[-1]):
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


class FunctionCheck:
    """Checks 1-6 (and 7 when the raw functions are given) for one pair of functions, then, with
    ``ProofOptions``, check 8 (``proof_step.ProofStep``) on the violations they leave."""

    def __init__(self, left: Function, li: int, right: Function, ri: int, l2r: Mapping[str, str],
                 raw_left: Optional[Function] = None, raw_right: Optional[Function] = None,
                 proof: Optional[ProofOptions] = None):
        self.L, self.R = FunctionIndex(left, li), FunctionIndex(right, ri)
        self.l2r = dict(l2r)
        self.r2l: Dict[str, str] = {}
        self.raw = (raw_left, raw_right)
        self.violations: List[Violation] = []
        self.proof = proof
        self.proofs: List[Proof] = []
        #: node ids whose violations a proof discharged (mapped pairs and unpaired pure ops)
        self.discharged_left: set = set()
        self.discharged_right: set = set()
        self.proof_skipped: Optional[str] = None
        self._order_cache: Dict[str, Any] = {}
        self._token_orders: Optional[Tuple[_TokenOrder, _TokenOrder]] = None
        self._type_equal: Dict[Tuple[int, int], bool] = {}

    def _same_type(self, x, y) -> bool:
        """``x == y`` for two types, remembered per pair of type objects: each side's file
        shares a few dozen type objects among all its values, and comparing two records field by
        field is most of check 3's work on result types. The key is the objects' ids, which stay
        theirs: the functions under check hold every type object, and types never change."""
        key = (id(x), id(y))
        equal = self._type_equal.get(key)
        if equal is None:
            equal = self._type_equal[key] = x == y
        return equal

    def _v(self, kind, left, right, message, slots=(), cascade=False):
        self.violations.append(Violation(kind, left, right, message, tuple(slots), cascade))

    def run(self) -> List[Violation]:
        L, R, l2r = self.L, self.R, self.l2r
        for p in L.problems + R.problems:
            self._v("unverifiable", None, None, p)
        if self.violations:
            return self.violations
        self._signature()
        r2l = {r: l for l, r in l2r.items()}  # (the last left id wins where a right id repeats)
        if len(r2l) != len(l2r):
            seen: set = set()
            for l, r in l2r.items():
                if r in seen:
                    self._v("unverifiable", l, r, f"mapping not one to one: {r} paired twice")
                seen.add(r)
        self.r2l = r2l
        lops, rops = L.ops, R.ops
        unmapped, unclean, mistyped = self._walk_pairs()
        violating = set(unmapped)
        for l in unmapped:
            self._v("unmapped", l, None, f"{lops[l].name} {l} has no counterpart on the right", cascade=True)
        # Every right op is paired with a left op when the mapping is one to one and its pairs
        # (distinct right ids, then) number the right's ops; only otherwise is one left to find.
        if len(r2l) != len(l2r) or len(lops) - len(unmapped) != len(rops):
            for r in R.order:
                if r2l.get(r) not in lops:
                    self._v("unmapped", None, r, f"{rops[r].name} {r} has no counterpart on the left",
                            cascade=True)
        for l, r in unclean:
            if self._pair(l, r):
                violating.add(l)
        # check 3's result types: a type that differs is explained when an input of the op
        # already differs (``violating``: the unmapped ops, the ops with a violation of their own)
        lp = L.producer
        for l, r, a, msg in mistyped:
            upstream = any(lp[v.vid][0] in violating for v in a.operands)
            self._v("label", l, r, msg, cascade=upstream)
            violating.add(l)
        self._order()
        if self.raw[0] is not None and self.raw[1] is not None:
            self._memory_order()
        if self.proof is not None and self.violations:
            self._prove()
        return self.violations

    # --- 8. proofs where the mapping alone does not show equality ---------------------------
    def shared(self, nid: str, res: int, is_left: bool) -> Optional[str]:
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
        if not smt_common.installed():  # (z3 itself is imported when a query first needs it)
            self.proof_skipped = smt_common.skipped_reason()
            return
        if self.proof is None or any(v.kind == "unverifiable" for v in self.violations):
            return
        ProofStep(self, self.proof).run()

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
    def mapped(self, src_l: Tuple[str, int]) -> Tuple[Optional[str], int]:
        nid, res = src_l
        return self.l2r.get(nid), res

    def _pair(self, l: str, r: str) -> bool:
        L, R = self.L, self.R
        a, b = L.ops[l], R.ops[r]
        bad = False
        regions = bool(a.regions or b.regions)  # (only combiner bodies read the outer values)
        for msg in _label_problems(a, b, (lambda v: self.mapped(L.producer[v]) if v in L.producer else None)
                                   if regions else None,
                                   (lambda v: R.producer.get(v)) if regions else None):
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
        if self._operands_agree(a, b):
            return bad
        got = [(L.producer[v.vid], R.producer[w.vid]) for v, w in zip(a.operands, b.operands)]
        agree = [self.mapped(x) == y for x, y in got]
        slots = [(k, k) for k, ok in enumerate(agree) if not ok]
        if a.name == "join_tokens":
            if sorted(map(str, (self.mapped(x) for x, _ in got))) == sorted(map(str, (y for _, y in got))):
                return bad
        elif _commutative(a) and agree[2:] == [True] * len(agree[2:]):
            (x0, y0), (x1, y1) = got[0], got[1]
            if self.mapped(x0) == y1 and self.mapped(x1) == y0:
                return bad
        cascade = all(self.l2r.get(got[i][0][0]) is None or self.r2l.get(got[j][1][0]) is None for i, j in slots)
        self._v("operand", l, r, f"{a.name} {l}: operand(s) {', '.join(str(i) for i, _ in slots)} "
                                 f"produced by unpaired values", slots, cascade=cascade)
        return True

    def _operands_agree(self, a: Operation, b: Operation) -> bool:
        """Whether every operand of ``a`` is produced by the mapped producer of ``b``'s operand
        at the same slot (same result index): ``_pair``'s common case, asked without building
        its lists (which it builds only when some slot disagrees)."""
        lp, rp, l2r = self.L.producer, self.R.producer, self.l2r
        for v, w in zip(a.operands, b.operands):
            lnid, lres = lp[v.vid]
            rnid, rres = rp[w.vid]
            if lres != rres or l2r.get(lnid) != rnid:
                return False
        return True

    def _walk_pairs(self) -> Tuple[List[str], List[Tuple[str, str]], List[Tuple[str, str, Operation, str]]]:
        """One walk over the left's ops, in order, for checks 2-5 and check 3's result types.
        Returns the left ops without a partner among the right's ops; the mapped pairs ``_pair``
        must look at; and the mapped pairs of one name whose result types differ, with
        ``_type_problem``'s message (``run`` reports them in that order, as passes of their own
        would).

        Most pairs agree in everything, which the walk tests inline: the same name, attribute
        dicts (``_same_attribute_dicts``), operand groups, no regions, the same block at the top
        level, every operand from the mapped producer. That is exactly the case where ``_pair``
        finds nothing; any other pair goes to it."""
        L, R, l2r = self.L, self.R, self.l2r
        rops, lwhere, rwhere = R.ops, L.where, R.where
        lp, rp, same_type, type_equal = L.producer, R.producer, self._same_type, self._type_equal
        # (with one block a side, every op sits at the top level of the body: nothing to compare)
        flat = len(L.blocks) == 1 and len(R.blocks) == 1
        unmapped: List[str] = []
        unclean: List[Tuple[str, str]] = []
        mistyped: List[Tuple[str, str, Operation, str]] = []
        for l, a in L.ops.items():
            r = l2r.get(l)
            b = None if r is None else rops.get(r)  # (None too for an id that is no op's)
            if r is None or b is None:
                unmapped.append(l)
                continue
            if a.name != b.name:
                unclean.append((l, r))  # (a label violation; result types not compared)
                continue
            xa, xb, operands = a.attributes, b.attributes, a.operands
            clean = type(xa) is dict and type(xb) is dict and not a.regions and not b.regions \
                and a.segments == b.segments and len(operands) == len(b.operands)
            if clean:
                value = xa.get("value")
                clean = xa == xb if type(value) is not DenseElements else _same_attribute_dicts(xa, xb, same_type)
            if clean and not flat:
                wl = lwhere[l]
                clean = wl[0] is None and wl == rwhere[r]
            if clean and operands:
                for v, w in zip(operands, b.operands):
                    lnid, lres = lp[v.vid]
                    rnid, rres = rp[w.vid]
                    if lres != rres or l2r.get(lnid) != rnid:
                        clean = False
                        break
            if not clean:
                unclean.append((l, r))
            ar, br = a.results, b.results
            if len(ar) == 1 and len(br) == 1:
                # (most ops: one result of the same type, as _type_problem would find; the
                # remembered answer read inline, ``_same_type`` asked only for a new pair)
                tx, ty = ar[0].type, br[0].type
                equal = type_equal.get((id(tx), id(ty)))
                if equal or (equal is None and same_type(tx, ty)):
                    continue
            msg = _type_problem(a, b, same_type)
            if msg is not None:
                mistyped.append((l, r, a, msg))
        return unmapped, unclean, mistyped

    # --- 6. unordered effects keep their order -------------------------------------------
    def _order(self) -> None:
        L, R = self.L, self.R
        lops, rops, pure = L.ops, R.ops, _PURE_OR_TERMINATOR
        for (parent, region, blk), ids in L.blocks.items():
            rparent = None if parent is None else self.l2r.get(parent)
            if parent is not None and rparent is None:
                continue  # an unmapped region op is a violation of its own
            right_ids = R.blocks.get((rparent, region, blk), [])
            # (the name test first, inline: most ops are pure, and most blocks hold no effect)
            left_seq = [self.l2r[x] for x in ids if lops[x].name not in pure
                        and x in self.l2r and _unordered_effect(lops[x])]
            right_seq = [x for x in right_ids if rops[x].name not in pure
                         and x in self.r2l and _unordered_effect(rops[x])]
            if not left_seq or not right_seq:
                continue  # (no effect on one side: none in both to compare)
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
        for lpos, nid, msg in self.memory_order_problems(self.l2r) or ():
            self._v("memory-order", lpos, nid, msg)

    def memory_order_problems(self, l2r: Mapping[str, str]) -> Optional[List[Tuple[str, str, str]]]:
        """(left id, right id, message) of each mapped access (under ``l2r``) the tokens of the
        functions as read order differently on the two sides; None when the raw functions are
        missing or their token order is not modelled (tokens across regions)."""
        raw_left, raw_right = self.raw
        if raw_left is None or raw_right is None:
            return None
        # (the last mapping asked, compared as a dict: equal items, whatever their order)
        if self._order_cache.get("l2r") == l2r:
            return self._order_cache["problems"]
        if self._token_orders is None:  # (of the functions as read, which never change: built once)
            self._token_orders = (_TokenOrder(raw_left), _TokenOrder(raw_right))
        left, right = self._token_orders
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
        self._order_cache = {"l2r": dict(l2r), "problems": out}
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
        self.ok = self._scan(f.body.operations)

    def _scan(self, operations: Sequence[Operation]) -> bool:
        """Tracks the ops of one block and, after each region op, those of its bodies (the
        function's pre-order). False, and no further op looked at, where a token escapes what
        this models: ``memory_order_problems`` then reads nothing of this order."""
        producer, tracked = self._producer, self._tracked
        for op in operations:
            name = op.name
            if name in TOKEN_GROUP_OPS:
                for r in op.results:
                    producer[r.vid] = op
                tracked[id(op)] = len(self.ops)
                self.pos[op.origin or f"?{len(self.ops)}"] = len(self.ops)
                self.ids.append(op.origin or f"?{len(self.ops)}")
                self.ops.append(op)
                t = traits_of(op)
                order = getattr(op.attributes.get("memory_ordering_semantics"), "name",
                                op.attributes.get("memory_ordering_semantics"))
                self.kinds.append("barrier" if "memory" not in t or order in _FENCING else
                                  "write" if "writes" in t else "read")
            elif name == "join_tokens":
                for r in op.results:
                    producer[r.vid] = op
            else:
                # an untracked op: its results need no producer entry (``before`` follows a
                # token only through join_tokens and tracked ops; any other producer carries
                # nothing, as a missing one does), and it must take no token
                for v in op.operands:
                    if isinstance(v.type, TokenType):
                        return False  # a token reaches a terminator or an op we do not model
            if op.regions and name not in COMBINER_OPS:
                if any(isinstance(r.type, TokenType) for r in op.results) or any(
                        isinstance(a.type, TokenType) for reg in op.regions for b in reg.blocks for a in b.arguments):
                    return False  # tokens cross regions
                for reg in op.regions:
                    for b in reg.blocks:
                        if not self._scan(b.operations):
                            return False
        return True

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
