"""The left<->right node bijection, with the stage that produced each pair, and the match context."""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import field
from typing import TYPE_CHECKING, Dict, List, Optional, Union

from ..check import smt_common  # (the limits only: smt.py, the encoder, is imported where a query is posed)
from ..errors import TimeLimitExceeded
from ..graph import FunctionGraph
from ..ir.record import record

if TYPE_CHECKING:
    from .alignment import Alignment


@record
class Limits:
    """Caps on the matcher and the proof step. Past a cap the verdict is ``unknown`` with the cap
    named, never a guess.

    Every cap that can change a verdict or a message is **work**, counted the same way on any
    machine under any load (matcher steps, VF2 node comparisons, z3's resource units), so that the
    same inputs give the same report. The ``*_s`` fields are wall-clock **safety nets** far above
    what the work budgets take on this project's machines (docs/robustness.md, "Work budgets"):
    past one the diff is ``unknown``, reason ``time limit (machine too slow/overloaded)``."""
    max_nodes: int = 200_000          # per function and side
    max_match_steps: int = 30_000_000  # matcher work units of the whole diff (MatchBudget); ~100 s of CPU here
    time_budget_s: float = 1200.0     # safety net: wall clock of the whole diff's matching
    vf2_max_nodes: int = 24           # leftover components larger than this skip VF2
    vf2_max_steps: int = 200_000      # VF2 node comparisons of one function, all components together
    max_candidates: int = 64          # candidates scored per node in bottom-up matching
    consistency_budget: int = 20_000  # nodes one exact-subgraph consistency check may visit
    smt_rlimit: int = smt_common.DEFAULT_RLIMIT  # z3's work per proof (smt-equivalence); past it: undecided
    smt_timeout_s: float = smt_common.DEFAULT_TIMEOUT_S  # safety net: wall clock of one proof

    @classmethod
    def coerce(cls, value) -> "Limits":
        if value is None:
            return cls()
        if isinstance(value, Limits):
            return value
        if isinstance(value, dict):
            unknown = set(value) - set(cls.__dataclass_fields__)
            if unknown:
                raise ValueError(f"unknown limit(s) {sorted(unknown)}; known: {sorted(cls.__dataclass_fields__)}")
            return cls(**value)
        raise TypeError(f"limits must be a Limits, a dict or None, not {type(value).__name__}")


def _children_follow(a, b, there, here_nodes, there_nodes) -> bool:
    """Every paired child of ``a`` is paired into the same region of ``b``."""
    for c in a.children:
        other = there.get(c)
        if other is not None and (there_nodes[other].parent != b.nid or there_nodes[other].region != here_nodes[c].region):
            return False
    return True


class LimitExceeded(Exception):
    """Raised inside a stage when a cap is hit; the engine turns it into an ``unknown`` verdict."""


class MatchTimeLimit(LimitExceeded, TimeLimitExceeded):
    """The matcher's wall-clock safety net ran out before its work budget."""


class MatchBudget:
    """The matcher's budget for one diff, shared by every function pair and every pass of the
    engine: ``max_steps`` units of counted work (``charge``; deterministic), and a wall-clock
    safety net at ``time_end`` (perf_counter) that only a machine far slower than this project's,
    or overloaded, reaches."""

    def __init__(self, limits: "Limits", time_end: Optional[float] = None):
        self.max_steps = limits.max_match_steps
        self.time_limit_s = limits.time_budget_s
        self.time_end = time.perf_counter() + limits.time_budget_s if time_end is None else time_end
        self.steps = 0

    def charge(self, units: int, where: str) -> None:
        """Count ``units`` of work done in ``where``; raises LimitExceeded past the work budget,
        MatchTimeLimit past the safety net."""
        self.steps += units
        if self.steps > self.max_steps:
            raise LimitExceeded(f"work budget of {self.max_steps:,} matching steps exceeded during {where} "
                                f"(Limits.max_match_steps)")
        if time.perf_counter() > self.time_end:
            raise MatchTimeLimit(f"time limit (machine too slow/overloaded): the wall-clock safety net of "
                                 f"{self.time_limit_s:g} s ran out during {where}, after {self.steps:,} of "
                                 f"{self.max_steps:,} matching steps (Limits.time_budget_s)")


class Mapping:
    def __init__(self):
        self.l2r: Dict[str, str] = {}
        self.r2l: Dict[str, str] = {}
        self.stage: Dict[str, str] = {}

    def add(self, left: str, right: str, stage: str) -> bool:
        """Pair two unpaired nodes; returns False (and changes nothing) if either is paired."""
        if left in self.l2r or right in self.r2l:
            return False
        self.l2r[left] = right
        self.r2l[right] = left
        self.stage[left] = stage
        return True

    def __len__(self) -> int:
        return len(self.l2r)

    def __contains__(self, left: str) -> bool:
        return left in self.l2r


@record(frozen=False)
class MatchContext:
    left: FunctionGraph
    right: FunctionGraph
    mapping: Mapping
    limits: Limits
    #: the diff's MatchBudget; a number: a wall-clock time_end (perf_counter) for a budget of its own
    budget: Union[MatchBudget, float]
    stats: Dict[str, object] = field(default_factory=dict)
    limits_hit: List[str] = field(default_factory=list)
    _positions: Optional[tuple] = field(default=None, repr=False)
    # pairs whose commutative operands strict top-down left waiting (see stages/top_down.td_pairs)
    deferred: List[tuple] = field(default_factory=list, repr=False)
    # Pairs top-down may still extend, in pairing order. A pair whose operands are all paired
    # can never add anything again (pairs are permanent), so top-down drops it here instead of
    # revisiting every pair on every round (bottom-up derives its candidates from the unpaired
    # nodes instead: bottom_up_candidates). Pairs enter through ``add`` only, which keeps these
    # tables in step with the mapping.
    td_open: Dict[str, str] = field(default_factory=dict, repr=False)
    # Unpaired nodes of each side in program order (the stages after exact matching look only
    # at these), and each pair's rank in pairing order.
    lfree: Dict[str, None] = field(default=None, repr=False)  # type: ignore[arg-type]  # set in __post_init__
    rfree: Dict[str, None] = field(default=None, repr=False)  # type: ignore[arg-type]
    rank: Dict[str, int] = field(default_factory=dict, repr=False)
    # the entry arguments as aligned before matching (the engine needs the ties first): the
    # Arguments stage adds these pairs when they were aligned on these graphs, else aligns
    alignment: Optional["Alignment"] = field(default=None, repr=False)

    def __post_init__(self):
        if not isinstance(self.budget, MatchBudget):
            self.budget = MatchBudget(self.limits, time_end=self.budget)
        # (the matcher starts from an empty mapping: every node is unpaired)
        l2r, r2l = self.mapping.l2r, self.mapping.r2l
        if self.lfree is None:
            self.lfree = dict.fromkeys([n for n in self.left.order if n not in l2r] if l2r else self.left.order)
        if self.rfree is None:
            self.rfree = dict.fromkeys([n for n in self.right.order if n not in r2l] if r2l else self.right.order)

    def positions(self):
        """Each node's relative position in program order (0..1) on the left and on the right:
        the tie-breaker among structurally identical candidates (as GumTree and hlo_diff use
        position in the parent)."""
        if self._positions is None:
            self._positions = tuple({nid: i / max(1, len(g.order)) for i, nid in enumerate(g.order)}
                                    for g in (self.left, self.right))
        return self._positions

    def charge(self, units: int, where: str) -> None:
        """``units`` of work done in ``where`` (MatchBudget.charge): each stage charges the
        nodes, groups, candidate pairs or rounds it walked, every so many of them."""
        self.budget.charge(units, where)  # type: ignore[union-attr]  # a MatchBudget since __post_init__

    def add(self, left: str, right: str, stage: str) -> bool:
        """Pair two unpaired nodes (Mapping.add, inlined: the matcher's hottest call). Refused
        across region paths: two nodes pair only when they sit in the same region of parents
        that are paired with each other (or not yet paired at all), and a region op only with
        one whose body holds the counterparts of its own paired children."""
        m = self.mapping
        if left in m.l2r or right in m.r2l:
            return False
        a, b = self.left.nodes[left], self.right.nodes[right]
        # (two top-level nodes without regions, most pairs, are on the same path: no call)
        if (a.parent is not None or b.parent is not None or a.children or b.children or a.region != b.region) \
                and not self._same_region_path(a, b):
            return False
        m.l2r[left] = right
        m.r2l[right] = left
        m.stage[left] = stage
        self.td_open[left] = right
        self.rank[left] = len(self.rank)
        del self.lfree[left], self.rfree[right]
        return True

    def _same_region_path(self, a, b) -> bool:
        pa, pb = a.parent, b.parent
        if (pa is None) != (pb is None) or a.region != b.region:
            return False
        m = self.mapping
        if pa is not None:
            if m.l2r.get(pa, pb) != pb or m.r2l.get(pb, pa) != pa:
                return False
        # (most nodes have no children: nothing to follow, and no call)
        return (not a.children or _children_follow(a, b, m.l2r, self.left.nodes, self.right.nodes)) and \
            (not b.children or _children_follow(b, a, m.r2l, self.right.nodes, self.left.nodes))

    def bottom_up_candidates(self) -> List[tuple]:
        """The pairs bottom-up matching can extend: paired producers of an unpaired left node's
        operands (a pair whose users are all paired has nothing to offer), in pairing order."""
        l2r, nodes = self.mapping.l2r, self.left.nodes
        found = {}
        for nid in self.lfree:
            for src, _, _ in nodes[nid].operands:
                if src is not None and src in l2r:
                    found[src] = l2r[src]
        rank = self.rank
        return sorted(found.items(), key=lambda p: rank[p[0]])

    def count_stages(self) -> None:
        """stats["pairs_by_stage"]: pairs per stage, stages in the order they first paired."""
        # (Counter counts in C and keeps the order in which each stage first appears)
        self.stats["pairs_by_stage"] = dict(Counter(self.mapping.stage.values()))

    def compatible(self, ln: str, rn: str) -> Optional[bool]:
        """Whether two nodes may pair by kind and name (args with args, same op name)."""
        a, b = self.left.nodes[ln], self.right.nodes[rn]
        return a.kind == b.kind and a.name == b.name
