"""The classifier's working records: a ``Finding`` (one thing that differs at a pair) and a
``Root`` (one root difference with what it explains), shared by the classifier and the folds."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Set, Tuple


@dataclass
class Finding:
    category: str
    message: str
    own: bool = True          # False: a result-type change that inputs may explain


@dataclass
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
