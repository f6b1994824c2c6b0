"""One dataflow graph per function: nodes are ops and arguments, edges are operand uses.

Node ids are stable paths: the op id of the input file (``f0/o12/r0/o3``, from ``Operation.origin``,
which the engine sets on every op before normalizing), ``f0/a3`` for entry arguments and
``<op id>/r<k>/a<i>`` for region block arguments. Edges run producer -> user and carry the
operand ``index`` at the user, the ``result`` index at the producer and a ``kind``: ``data``,
``token`` (a token-typed operand) or ``region`` (region op -> op or argument of its body).

``reduce``/``scan`` combiner bodies are folded into the op's label (a canonical expression), so a
changed combiner is one changed node; loop and ``if`` bodies are nested subgraphs.

The algorithms work on the plain ``Node`` records; ``FunctionGraph.nx`` builds the networkx
MultiDiGraph on demand (VF2 on leftovers, users who want networkx).
"""
from __future__ import annotations

from operator import attrgetter
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..dialect.traits import COMBINER, TERMINATOR, ops_with
from ..gc_pause import gc_paused
from ..ir import Block, Function, Operation, TokenType, Value
from ..normalize.canon import fmt_type
from ..normalize.keys import GraphKeyBuilder, op_label

#: Ops whose region is a combiner folded into the label rather than a nested subgraph.
FOLDED_REGION_OPS = ops_with(COMBINER)
_TERMINATORS = ops_with(TERMINATOR)
_SIZE_CAP = 1 << 30


class Node:
    __slots__ = ("nid", "kind", "name", "op", "value", "compare_key", "merkle_key", "parent", "region", "position", "depth",
                 "operands", "users", "children", "size", "height", "arg_index", "seq")

    def __init__(self, nid: str, kind: str, name: str):
        self.nid = nid
        self.kind = kind              # "op", "arg" (entry argument), "barg" (region block argument)
        self.name = name              # op name, "arg" or "barg"
        self.op: Optional[Operation] = None
        self.value: Optional[Value] = None
        self.compare_key = ""         # equal keys = the same op apart from its operands
        self.merkle_key = 0           # over compare_key, operands and region bodies (keys.GraphKeyBuilder)
        self.parent: Optional[str] = None   # enclosing region op (node id)
        self.region = 0               # which region of the parent holds it
        self.position = 0             # index in its block (or argument index)
        self.depth = 0
        self.operands: List[Tuple[Optional[str], int, str]] = []  # per operand: (producer, result idx, kind)
        self.users: List[Tuple[str, int, int]] = []                # (user, operand idx, result idx)
        # region body nodes (block args first), in order; () for nodes without regions (most
        # nodes: one list less each), a list of its own for a region op
        self.children: Sequence[str] = ()
        self.size = 1
        self.height = 1
        self.arg_index = -1
        self.seq = 0                  # index in the graph's ``order``

    def __repr__(self) -> str:
        return f"<node {self.nid} {self.name}>"


_new_node = object.__new__
_seq = attrgetter("seq")


def input_op_id(nid: str) -> str:
    """The input file's op id of a node (ops a rule inserted carry ``~suffix`` on the id of the
    op they came from)."""
    return nid.split("~", 1)[0] if "~" in nid else nid


def combiner_expression(block: Block) -> str:
    """A reduce/scan body as one canonical expression over its block arguments a0, a1, ..."""
    names: Dict[int, str] = {a.vid: f"a{i}" for i, a in enumerate(block.arguments)}
    for op in block.operations:
        args = ",".join(names.get(v.vid, "?") for v in op.operands)
        label = op_label(op).split("(", 1)[0]
        expr = f"{label}({args})"
        if len(op.results) == 1:
            names[op.results[0].vid] = expr
        else:
            for i, r in enumerate(op.results):
                names[r.vid] = f"{expr}#{i}"
        if op.name in _TERMINATORS:
            return expr
    return "?"


class FunctionGraph:
    """The dataflow graph of one function (see module docstring)."""

    def __init__(self, function: Function, index: int, text_ids: Optional[Dict[str, int]] = None):
        """``text_ids``: GraphKeyBuilder's memo of hashed texts, shared by the graphs of a pair
        (the keys do not depend on it, only their cost)."""
        self.function = function
        self.index = index
        self.nodes: Dict[str, Node] = {}
        self.order: List[str] = []     # node ids in pre-order (arguments first)
        self.node_list: List[Node] = []  # the nodes in that order (passes over all nodes skip the lookup)
        # op node ids per Merkle hash, in program order (filled while building, when each node
        # is at hand, so that exact matching needs no pass of its own)
        self.by_hash: Dict[int, List[str]] = {}
        # op nodes per op name, in program order, and the entry arguments' nodes (first in
        # ``order``): what the passes look for by name find it without a walk over every node
        self.by_name: Dict[str, List[Node]] = {}
        self.arg_nodes: List[Node] = []
        self._producer: Dict[int, Tuple[Node, int]] = {}  # vid -> (producing node, result index)
        self._nx = None
        self._position_of: Optional[Dict[str, int]] = None
        # A graph is several objects per op (node, operand and user lists, edge tuples), all
        # kept while the diff runs and none in a reference cycle: the cycle collector would
        # traverse the whole heap again and again while they are made (in process, a 30,000-op
        # pair's graphs took 1.3-2x as long with it on; the CLI pauses it already), and
        # gc_paused files them with the old objects.
        with gc_paused():
            keys = GraphKeyBuilder(text_ids)
            self._keys = keys
            keys.function(function)
            prefix = f"f{index}"
            for i, a in enumerate(function.arguments):
                n = self._add(f"{prefix}/a{i}", "arg", "arg")
                n.value, n.position, n.arg_index = a, i, i
                n.compare_key = f"arg:{fmt_type(a.type)}"
                n.merkle_key = keys.value[a.vid]
                self._producer[a.vid] = (n, 0)
                self.arg_nodes.append(n)
            self._region_ops: List[Node] = []
            self._block(function.body, prefix, None, 0)
            self._measure_regions()
        # construction tables: the nodes hold what later stages need (less live memory while matching)
        self._keys = self._producer = self._region_ops = None  # type: ignore[assignment]

    def uses_through(self, nid: str, through, max_seen: int) -> List[Tuple[str, int]]:
        """(user, operand index) of a value, looking through chains of the ops named in
        ``through`` (their operand 0), depth first, visiting at most ``max_seen`` values."""
        out: List[Tuple[str, int]] = []
        stack: List[str] = [nid]
        seen: Set[str] = set()
        while stack and len(seen) < max_seen:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            for u, k, _ in self.nodes[x].users:
                un = self.nodes[u]
                if un.kind == "op" and un.name in through and k == 0:
                    stack.append(u)
                else:
                    out.append((u, k))
        return out

    # --- construction -------------------------------------------------------------------
    def _add(self, nid: str, kind: str, name: str) -> Node:
        if nid in self.nodes:  # defensive: ids must be unique (duplicate origin tags)
            k = 1
            while f"{nid}~{k}" in self.nodes:
                k += 1
            nid = f"{nid}~{k}"
        n = Node(nid, kind, name)
        n.seq = len(self.order)
        self.nodes[nid] = n
        self.order.append(nid)
        self.node_list.append(n)
        return n

    def _block(self, block: Block, prefix: str, parent: Optional[str], depth: int, region: int = 0) -> None:
        producer, nodes, op_keys, by_hash = self._producer, self.nodes, self._keys.op, self.by_hash
        order, node_list, by_name = self.order, self.node_list, self.by_name
        for j, op in enumerate(block.operations):
            nid = op.origin or f"{prefix}/o{j}"
            name = op.name
            if nid in nodes:
                n = self._add(nid, "op", name)  # a duplicate id: _add makes it unique
                n.op, n.parent, n.position, n.depth, n.region = op, parent, j, depth, region
            else:  # _add and Node.__init__ inlined: each slot set once (compare_key, size and height below)
                n = _new_node(Node)
                n.nid, n.kind, n.name, n.op, n.value, n.parent, n.region, n.position, n.depth = \
                    nid, "op", name, op, None, parent, region, j, depth
                n.operands, n.users, n.children, n.arg_index, n.seq = [], [], (), -1, len(order)
                nodes[nid] = n
                order.append(nid)
                node_list.append(n)
            nid = n.nid
            named = by_name.get(name)
            if named is None:
                by_name[name] = [n]
            else:
                named.append(n)
            n.merkle_key = h = op_keys[op]
            same = by_hash.get(h)
            if same is None:
                by_hash[h] = [nid]
            else:
                same.append(nid)
            operands = n.operands
            # operand-tree size (capped) and height: producers come first in pre-order
            size, height = 1, 1
            if op.operands:  # (no enumerate object for an op without operands: a constant)
                for k, v in enumerate(op.operands):
                    src = producer.get(v.vid)
                    kind = "token" if isinstance(v.type, TokenType) else "data"
                    if src is None:
                        operands.append((None, 0, kind))
                        continue
                    s, res = src
                    operands.append((s.nid, res, kind))
                    s.users.append((nid, k, res))
                    size += s.size
                    if s.height >= height:
                        height = s.height + 1
            n.size, n.height = (size if size < _SIZE_CAP else _SIZE_CAP), height
            results = op.results
            if len(results) == 1:
                producer[results[0].vid] = (n, 0)
            else:
                for i, r in enumerate(results):
                    producer[r.vid] = (n, i)
            label = getattr(op, "_label", None) or op_label(op)  # (op_label's memo, set while keying)
            if name in FOLDED_REGION_OPS:
                exprs = [combiner_expression(b) for r in op.regions for b in r.blocks]
                n.compare_key = label + "{" + ";".join(exprs) + "}"
                continue
            n.compare_key = label
            if op.regions:
                self._region_ops.append(n)  # in pre-order: outer before inner
                n.children = children = []
                sig = []
                for k, op_region in enumerate(op.regions):
                    for b in op_region.blocks:
                        sig.append(",".join(fmt_type(a.type) for a in b.arguments))
                        for i, a in enumerate(b.arguments):
                            an = self._add(f"{n.nid}/r{k}/a{i}", "barg", "barg")
                            an.value, an.parent, an.position, an.depth, an.arg_index = a, n.nid, i, depth + 1, i
                            an.region = k
                            an.compare_key = f"barg:{k}:{i}:{fmt_type(a.type)}"
                            an.merkle_key = self._keys.value[a.vid]
                            self._producer[a.vid] = (an, 0)
                            children.append(an.nid)
                        before = len(self.order)
                        self._block(b, f"{n.nid}/r{k}", n.nid, depth + 1, k)
                        children.extend(x for x in self.order[before:] if self.nodes[x].parent == n.nid)
                n.compare_key += "{" + "|".join(sig) + "}"

    def _measure_regions(self) -> None:
        """Region ops also count their bodies: innermost first (reverse pre-order), so a body's
        nested region ops are complete before their parent adds them up. The operand-tree part
        was computed while building (producers precede users in pre-order)."""
        nodes = self.nodes
        for n in reversed(self._region_ops):
            n.size = min(_SIZE_CAP, n.size + sum(nodes[c].size for c in n.children if nodes[c].parent == n.nid))
            n.height = max([n.height] + [nodes[c].height + 1 for c in n.children])

    # --- queries ------------------------------------------------------------------------
    @property
    def position_of(self) -> Dict[str, int]:
        """Node id -> position in ``order`` (built on first use, then shared)."""
        if self._position_of is None:
            self._position_of = {nid: i for i, nid in enumerate(self.order)}
        return self._position_of

    def __len__(self) -> int:
        return len(self.nodes)

    def op_nodes(self) -> List[Node]:
        return [n for n in self.node_list if n.kind == "op"]

    def ops_named(self, names: Iterable[str]) -> List[Node]:
        """The op nodes named one of ``names``, in program order."""
        groups = [group for group in map(self.by_name.get, names) if group]
        if len(groups) == 1:
            return list(groups[0])
        return sorted([n for group in groups for n in group], key=_seq)

    def producer(self, nid: str, k: int) -> Optional[str]:
        return self.nodes[nid].operands[k][0]

    @property
    def nx(self):
        """The graph as a networkx MultiDiGraph (built on first use)."""
        if self._nx is None:
            import networkx as nx
            g = nx.MultiDiGraph()
            for nid in self.order:
                n = self.nodes[nid]
                g.add_node(nid, kind=n.kind, name=n.name, compare_key=n.compare_key, merkle_key=n.merkle_key, parent=n.parent)
            for nid in self.order:
                n = self.nodes[nid]
                for k, (src, res, kind) in enumerate(n.operands):
                    if src is not None:
                        g.add_edge(src, nid, index=k, result=res, kind=kind)
                for c in n.children:
                    g.add_edge(nid, c, index=0, result=0, kind="region")
            self._nx = g
        return self._nx


def build_graphs(module) -> List[FunctionGraph]:
    return [FunctionGraph(f, i) for i, f in enumerate(module.functions)]
