"""The classifier's working records: a ``Finding`` (one thing that differs at a pair) and a
``Root`` (one root difference with what it explains), shared by the classifier and the folds.

Both are data: what differs is in fields (a finding's ``kind``, op, attribute, old and new
values; the clauses a root's message states), set where the record is made, so that later code
decides on them, never on the words. The words are made in compare/wording.py."""
from __future__ import annotations

from dataclasses import field
from typing import Dict, Optional, Set, Tuple

from ..record import record


#: What a finding is about (``Finding.kind``)
FINDING_KINDS = (
    "argument_kind",    # an entry/region argument against an op or the other kind of argument
    "argument_type",    # an entry or region argument's type
    "placement",        # an effect placed in another region
    "op_name",          # another op (old/new: the op names)
    "constant_type",    # a constant of another element type
    "constant",         # a constant's value
    "flag",             # an overflow flag (an assumption: compare/specialization.py)
    "attribute",        # any other attribute (attribute: its key)
    "combiner",         # a reduction's combiner
    "operand_groups",   # an op's operand segments
    "result_count",
    "result_type",
    "region_count",
    "wiring",           # operands wired to other values (slots: the (left, right) operand indices)
    "swap",             # two operands swapped
    "rewired",          # a paired user takes another (one-sided) input at one slot
    "unmapped",         # an op only on one side
    "checker",          # a checker violation worded by the checker itself
)


@record(frozen=False)
class Finding:
    category: str
    message: str
    own: bool = True          # False: a result-type change that inputs may explain
    kind: str = ""            # one of FINDING_KINDS
    op: Optional[str] = None  # the (left) op's name
    attribute: Optional[str] = None  # the attribute (or operand role) that differs
    old: Optional[str] = None  # the left's value, as text
    new: Optional[str] = None  # the right's value, as text
    slots: Tuple[Tuple[int, int], ...] = ()  # (left, right) operand indices it is about

    @property
    def key(self) -> Tuple[object, ...]:
        """What the finding states, as data: two findings with equal keys say the same thing."""
        return (self.kind, self.op, self.attribute, self.old, self.new, self.slots)


@record(frozen=False)
class Root:
    left: Optional[str]
    right: Optional[str]
    category: str
    message: str
    affected_left: Set[str] = field(default_factory=set)
    affected_right: Set[str] = field(default_factory=set)
    #: "changed" (a pair that differs), "replaced" (unpaired on both sides, one slot),
    #: "rewired" (a user takes another input; the old one's ops are one-sided), "only_left", "only_right"
    kind: str = "changed"
    slot: Optional[Tuple[str, int]] = None  # (left user, operand index) a replacement feeds
    extra: Dict[str, object] = field(default_factory=dict)  # added to the difference's detail
    #: further (left, right) node pairs this root stands at as its own ops (a fold that proves
    #: several sites one cause keeps each site a root op for the checker's coverage)
    also: Set[Tuple[Optional[str], Optional[str]]] = field(default_factory=set)
    #: the findings the message states (by ``Finding.key``) and the clauses folds added to it
    #: (by name, compare/wording.py): what later code asks instead of reading the message
    states: Set[Tuple[object, ...]] = field(default_factory=set)
    clauses: Set[str] = field(default_factory=set)
