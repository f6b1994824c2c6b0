"""Which arrays a kernel's memory ops touch and which of those accesses its tokens order.

A memory op (``load_view_tko``, ``store_view_tko``, ``load_ptr_tko``, ``store_ptr_tko``,
``atomic_rmw_tko``, ``atomic_cas_tko``, ``atomic_red_view_tko``) reaches its arrays through its
view or pointer operand: every pointer argument the value derives from (through views, ``offset``,
``broadcast``, ``reshape``, ``select``, loop-carried values, ``ptr_to_int``/``int_to_ptr``; never
through data a load returned). Its input token carries every memory op that produced a token
flowing into it (through ``join_tokens`` and the iteration values and results of ``for``,
``loop`` and ``if``): those are ordered before it.

Two arrays are *ordered* in a kernel when some access to one is ordered by tokens with some access
to the other and at least one of the two writes. Accesses that tokens leave unordered may run in
either order on the device, so only a kernel that orders accesses to arrays j and k is well
defined when j and k share memory. ``--execute`` runs alias trials (j and k in one buffer) only
for pairs that at least one of the two kernels orders.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Set, Tuple

from tileir_diff.dialect.access import MEMORY_ACCESS
from tileir_diff.dialect.ops import OPS_BY_NAME
from tileir_diff.dialect.traits import CONTROL_FLOW, TERMINATOR, ops_with
from tileir_diff.ir import Function, Module
from tileir_diff.interp.machine import entry_function
from tileir_diff.ir.types import TokenType

from .signature import Layout

#: memory op -> (index of the operand holding its view/pointer, writes?), from the op table
MEMORY_OPS = {n: (a.address_index, a.writes) for n, a in MEMORY_ACCESS.items()}
_REGION_OPS = ops_with(CONTROL_FLOW)
# the terminators that end a region of a control-flow op (yield, continue, break; not return)
_REGION_TERMINATORS = frozenset(n for n in ops_with(TERMINATOR) if set(OPS_BY_NAME[n].parents) & _REGION_OPS)


def _terminators(op) -> Iterable:
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                if o.name in _REGION_TERMINATORS:
                    yield o
                if o.name == "if":  # an if may end in continue/break of this loop
                    yield from (t for t in _terminators(o) if t.name != "yield")


_EMPTY: FrozenSet[int] = frozenset()
Access = Tuple[FrozenSet[int], bool, FrozenSet[int]]


def memory_accesses(module: Module, layout: Layout) -> Tuple[List[Access], Dict[int, int]]:
    """Per memory op (in program order): (arrays it may touch, writes?, memory ops ordered before
    it by tokens, as indices into this list)."""
    return _accesses(entry_function(module, layout.entry), layout)


def _accesses(f: Function, layout: Layout) -> Tuple[List[Access], Dict[int, int]]:
    """``memory_accesses`` of the entry function ``f``."""
    array_of_arg = {spec.pointer_arg: k for k, spec in enumerate(layout.arrays)}
    flow = _Provenance(list(f.walk()))
    for i, a in enumerate(f.arguments):
        if i in array_of_arg:
            flow.roots[a.vid] = frozenset([array_of_arg[i]])
    for _ in range(8):  # to a fixpoint over loop-carried values (a few rounds suffice)
        before = (dict(flow.roots), dict(flow.prov))
        for op in flow.ops:
            flow.step(op)
        if (flow.roots, flow.prov) == before:
            break
    return [flow.access[n] for n in range(len(flow.index))], flow.index


class _Provenance:
    """The arrays each value may point into (``roots``) and the memory ops each token carries
    (``prov``), propagated over the ops of one function."""

    def __init__(self, ops: List) -> None:
        self.ops = ops
        self.index = {id(op): n for n, op in enumerate(o for o in ops if o.name in MEMORY_OPS)}
        self.roots: Dict[int, FrozenSet[int]] = {}  # value vid -> arrays it may point into
        self.prov: Dict[int, FrozenSet[int]] = {}   # token vid -> memory ops (indices) it carries
        self.access: Dict[int, Access] = {}

    def _arrays(self, v) -> FrozenSet[int]:
        return self.roots.get(v.vid, _EMPTY)

    def _carried(self, v) -> FrozenSet[int]:
        return self.prov.get(v.vid, _EMPTY)

    def step(self, op) -> None:
        if op.name in MEMORY_OPS:
            self._memory_op(op)  # loaded data carries no pointer provenance
        elif op.name == "join_tokens":
            self.prov[op.results[0].vid] = frozenset().union(*(self._carried(v) for v in op.operands))
        elif op.name in _REGION_OPS:
            self._region_op(op)
        else:
            src = frozenset().union(_EMPTY, *(self._arrays(v) for v in op.operands))
            if src:
                for res in op.results:
                    self.roots[res.vid] = src

    def _memory_op(self, op) -> None:
        slot, writes = MEMORY_OPS[op.name]
        ptr = op.operands[slot] if slot < len(op.operands) else None
        arrays = self._arrays(ptr) if ptr is not None else _EMPTY
        tin = _EMPTY
        for v in op.operands:
            if isinstance(v.type, TokenType):
                tin = tin | self._carried(v)
        n = self.index[id(op)]
        self.access[n] = (arrays, writes, tin)
        for res in op.results:
            if isinstance(res.type, TokenType):
                self.prov[res.vid] = tin | {n}

    def _region_op(self, op) -> None:
        """Results and block arguments of a control-flow op carry what its operands and the
        operands of its region terminators carry."""
        carried_t = frozenset().union(_EMPTY, *(self._carried(v) for v in op.operands))
        carried_r = frozenset().union(_EMPTY, *(self._arrays(v) for v in op.operands))
        for term in _terminators(op):
            carried_t = carried_t.union(*(self._carried(v) for v in term.operands))
            carried_r = carried_r.union(*(self._arrays(v) for v in term.operands))
        targets = list(op.results) + [a for reg in op.regions for b in reg.blocks for a in b.arguments]
        for v in targets:
            if isinstance(v.type, TokenType):
                self.prov[v.vid] = carried_t
            elif carried_r:
                self.roots[v.vid] = carried_r


@dataclass(frozen=True)
class MemoryUse:
    """One entry's memory ops (program order): what each touches and orders (``memory_accesses``)
    and its op name; one walk serves both questions the differential check asks."""
    accesses: List[Access]
    names: List[str]

    def ordered_pairs(self) -> Set[FrozenSet[int]]:
        """Pairs {j, k} of distinct arrays whose accesses the kernel's tokens order (one a write)."""
        out: Set[FrozenSet[int]] = set()
        for arrays_b, writes_b, before in self.accesses:
            for a in before:
                arrays_a, writes_a, _ = self.accesses[a]
                if not (writes_a or writes_b):
                    continue
                for j in arrays_a:
                    for k in arrays_b:
                        if j != k:
                            out.add(frozenset((j, k)))
        return out

    def arrays_read(self) -> Set[int]:
        """Arrays (indices into ``layout.arrays``) some memory op of the kernel may read."""
        out: Set[int] = set()
        for name, (arrays, _writes, _before) in zip(self.names, self.accesses):
            if name not in _STORES:
                out |= arrays
        return out


#: memory ops that only write (every other memory op reads what it addresses)
_STORES = frozenset(n for n, a in MEMORY_ACCESS.items() if a.writes and n.startswith("store"))


def memory_use(module: Module, layout: Layout) -> MemoryUse:
    """The memory ops of ``layout``'s entry in ``module``, walked once."""
    f = entry_function(module, layout.entry)
    names = [op.name for op in f.walk() if op.name in MEMORY_OPS]
    accesses, _ = _accesses(f, layout)
    return MemoryUse(accesses, names)


def ordered_pairs(module: Module, layout: Layout) -> Set[FrozenSet[int]]:
    """Pairs {j, k} of distinct arrays whose accesses the kernel's tokens order (one a write)."""
    return memory_use(module, layout).ordered_pairs()


def arrays_read(module: Module, layout: Layout) -> Set[int]:
    """Arrays (indices into ``layout.arrays``) some memory op of the kernel may read."""
    return memory_use(module, layout).arrays_read()
