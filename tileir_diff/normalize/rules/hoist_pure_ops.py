"""hoist-pure-ops: where a pure op is computed, inside a branch or loop or before it, is not meaning."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import has_trait, map_functions
from ._scoped import hoist_invariant


def _movable(op) -> bool:
    # an assume is a fact where it stands: one inside a branch says nothing on the other path
    return op.name != "assume" and not op.regions and has_trait(op, "pure")


@register
class HoistPureOps(Rule):
    """Absorbs: a pure op written inside an ``if`` arm or a loop body that reads only values
    defined outside it, against the same op written before the ``if``/loop. One frontend
    computes ``t = x * 2`` inside the arm that uses it (cuTile Rust's ``if c { x * 2 } else
    { b }``), the other before the branch; loop-invariant index arithmetic sits inside the loop
    in one port and before it in another. Such ops (constants included) move to just before the
    region's op, repeatedly outward, early in the pipeline: if-pass-through, if-select and
    short-circuit-logic then see the arms as they would be with the op outside.

    Why meaning is kept: a pure op's result depends only on its operands, which are defined
    before the region's op, so computing it there gives the same value wherever it was used (no
    effect, no memory access; where the arm does not run the value is simply unused).

    Never touches: an op that reads a value the region computes (a block argument, a loop's
    iteration value, a load's result), ops with memory or other effects, ops with regions, and
    ``assume`` (its fact holds only where it stands).
    """
    name = "hoist-pure-ops"
    mutant = "an addi on a value a load in the branch returns stays in the branch"

    def apply(self, module):
        return map_functions(module, lambda f: hoist_invariant(f, _movable))
