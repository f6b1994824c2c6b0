"""Matcher: pairs the nodes of two function graphs by running a list of stages
(``pipeline.DEFAULT_STAGES``; one module per stage under ``stages/``), under limits."""
from __future__ import annotations

from .address import address_root
from .mapping import LimitExceeded, Limits, MatchBudget, MatchContext, MatchTimeLimit, Mapping
from .operands import aligned_operand_pairs
from .pipeline import DEFAULT_STAGES, match_functions
from .stage import Composite, Repeat, Stage, UntilStable, leaf_stages
from .stages import VF2, Anchors, Arguments, BottomUp, Exact, Propagate, RelativeExact, SameIO, TopDown

__all__ = ["match_functions", "DEFAULT_STAGES", "Limits", "LimitExceeded", "MatchBudget", "MatchTimeLimit",
           "MatchContext", "Mapping",
           "Stage", "Composite", "Repeat", "UntilStable", "leaf_stages",
           "Arguments", "Anchors", "Exact", "RelativeExact", "TopDown", "BottomUp", "Propagate", "SameIO", "VF2",
           "address_root", "aligned_operand_pairs"]
