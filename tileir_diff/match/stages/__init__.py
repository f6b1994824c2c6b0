"""The matcher stages, one module each; the order they run in is ``match.pipeline.DEFAULT_STAGES``.

anchors          Arguments      entry arguments, as match.alignment aligns them
anchors          Anchors        memory ops by address root, the entry's return
exact            Exact          equal Merkle hashes, largest subgraph first, cones in lock step
exact-relative   RelativeExact  equal keys with paired nodes standing for their pairs
top-down         TopDown        paired users -> their operands (same slot, same op name)
bottom-up        BottomUp       paired operands -> their users (same slot, similarity)
same-io          SameIO         leftovers with identical paired inputs or the same user slot
vf2              VF2            small leftover components, labelled isomorphism under a time cap
(composite)      Propagate      top-down/bottom-up to a fixed point, then tie-breaking
"""
from __future__ import annotations

# helpers other packages import from here (compare/classify.py)
from ..address import address_root
from ..operands import aligned_operand_pairs
from .anchors import Anchors
from .arguments import Arguments
from .bottom_up import BottomUp
from .exact import Exact
from .propagate import Propagate
from .relative_exact import RelativeExact
from .same_io import SameIO
from .top_down import TopDown
from .vf2 import VF2

__all__ = ["Arguments", "Anchors", "Exact", "RelativeExact", "TopDown", "BottomUp", "Propagate", "SameIO", "VF2",
           "address_root", "aligned_operand_pairs"]
