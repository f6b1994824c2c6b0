"""One function as the checker reads it: its ops by node id, where each sits, who produces each
value and who uses it, and what the op table says of an op (its traits, whether the proof step
encodes it).

Its own module because every part of the checker reads it (the checks of the mapping, the proof
step and its lifted, masked and memory-read proofs, and ``smt.ConeEncoder``, which takes two of
these indexes): one place that names the nodes, so that all of them name them alike.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..dialect import OPS_BY_NAME
from ..dialect.traits import COMBINER, ops_with
from ..ir import Block, Function, Operation

#: Ops whose regions are combiners, compared op by op inside the op's label (not mapped).
COMBINER_OPS = ops_with(COMBINER)


class FunctionIndex:
    """One function's ops by node id, with where each sits and who produces each value."""

    def __init__(self, f: Function, index: int):
        self.f = f
        self.prefix = f"f{index}"
        self.ops: Dict[str, Operation] = {}
        self.where: Dict[str, Tuple[Optional[str], int, int]] = {}   # id -> (parent id, region, block)
        self.blocks: Dict[Tuple[Optional[str], int, int], List[str]] = {}
        self.producer: Dict[int, Tuple[str, int]] = {}               # vid -> (node id, result index)
        self.problems: List[str] = []
        self.arg_index: Dict[str, int] = {}                          # entry argument node id -> k
        self._users: Optional[Dict[str, List[Tuple[str, int]]]] = None
        for k, a in enumerate(f.arguments):
            self.producer[a.vid] = (f"{self.prefix}/a{k}", 0)
            self.arg_index[f"{self.prefix}/a{k}"] = k
        self._block(f.body, self.prefix, None, 0, 0)
        #: the node ids in the walk's order (pre-order): ``ops``'s own order, which the walk
        #: inserts each op into once (a duplicated id gets its own ``~k`` key)
        self.order: List[str] = list(self.ops)

    def _block(self, block: Block, prefix: str, parent: Optional[str], region: int, blk: int) -> None:
        place = (parent, region, blk)  # (one tuple shared by the block's ops: it is never changed)
        ids = self.blocks.setdefault(place, [])
        ops, where, producer = self.ops, self.where, self.producer
        for j, op in enumerate(block.operations):
            nid = op.origin or f"{prefix}/o{j}"
            if nid in ops:  # the graph's convention for a duplicated origin tag
                k = 1
                while f"{nid}~{k}" in ops:
                    k += 1
                nid = f"{nid}~{k}"
            ops[nid] = op
            ids.append(nid)
            for v in op.operands:
                if v.vid not in producer:
                    self.problems.append(f"{nid}: operand %v{v.vid} has no producer before it")
            results = op.results
            if len(results) == 1:
                producer[results[0].vid] = (nid, 0)
            else:
                for i, r in enumerate(results):
                    producer[r.vid] = (nid, i)
            if not op.regions or op.name in COMBINER_OPS:
                continue
            for k, reg in enumerate(op.regions):
                for b_i, b in enumerate(reg.blocks):
                    for i, a in enumerate(b.arguments):
                        producer[a.vid] = (f"{nid}/r{k}/a{i}", 0)
                    self._block(b, f"{nid}/r{k}", nid, k, b_i)
        where.update(dict.fromkeys(ids, place))  # (``where`` is only looked up: its order means nothing)

    def users(self) -> Dict[str, List[Tuple[str, int]]]:
        """node id -> [(user node id, operand index)], over the whole function. Built once (the
        lifted and masked proofs and the discharge each ask; the function does not change), and
        read only by its callers."""
        if self._users is None:
            self._users = self._build_users()
        return self._users

    def _build_users(self) -> Dict[str, List[Tuple[str, int]]]:
        # (one pass over ``ops`` in its order, with the lookups bound to locals: the lists are
        # appended in the walk's order, as the callers read them)
        users: Dict[str, List[Tuple[str, int]]] = {}
        producer_of, users_of = self.producer.get, users.get
        for nid, op in self.ops.items():
            operands = op.operands
            if not operands:
                continue  # (a constant, most often: nothing to look up)
            k = 0
            for v in operands:
                src = producer_of(v.vid)
                if src is not None:
                    node = src[0]
                    listed = users_of(node)
                    if listed is None:
                        users[node] = [(nid, k)]
                    else:
                        listed.append((nid, k))
                k += 1
        return users


def traits_of(op: Operation) -> frozenset:
    """The op's traits in the op table (none for an op the table lacks)."""
    d = OPS_BY_NAME.get(op.name)
    return d.traits if d is not None else frozenset()


def has_token_group(op: Operation) -> bool:
    """Whether the op's row has an operand group ``token`` (the token graph orders it)."""
    return op.name in TOKEN_GROUP_OPS


#: The ops whose row has an operand group ``token``, read from the op table once (as
#: ``dialect.traits.ops_with`` does): the checker asks this of every op, twice.
TOKEN_GROUP_OPS = frozenset(n for n, d in OPS_BY_NAME.items() if any(o.name == "token" for o in d.operands))


def encodable(op: Operation) -> bool:
    """An op the proof step encodes (not a leaf): its row has ``semantics`` and it is pure."""
    d = OPS_BY_NAME.get(op.name)
    return d is not None and d.semantics is not None and "pure" in d.traits and not op.regions
