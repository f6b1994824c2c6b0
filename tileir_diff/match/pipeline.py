"""The matcher: the stage list and the function that runs it."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional, Sequence, Union

from ..graph import FunctionGraph
from .mapping import LimitExceeded, Limits, MatchBudget, MatchContext, Mapping
from .stage import Repeat, Stage, UntilStable
from .stages import VF2, Anchors, Arguments, Exact, Propagate, RelativeExact, SameIO

if TYPE_CHECKING:
    from .alignment import Alignment

#: The whole order of the matcher. Every pair is tagged with the name of the primitive stage
#: that made it (anchors, exact, exact-relative, top-down, bottom-up, same-io, vf2).
DEFAULT_STAGES: Sequence[Stage] = (
    Arguments(),
    Anchors(),
    Exact(),
    Repeat(RelativeExact()),
    Propagate(),
    # relative keys first; same-io only when they add nothing; propagate after either adds
    UntilStable([RelativeExact(), SameIO()], then=Propagate()),
    VF2(),
    Propagate(),
)


def match_functions(left: FunctionGraph, right: FunctionGraph, limits: Optional[Limits] = None,
                    budget: Union[MatchBudget, float, None] = None,
                    stages: Optional[Sequence[Stage]] = None,
                    alignment: Optional["Alignment"] = None) -> MatchContext:
    """Run ``stages`` (default ``DEFAULT_STAGES``) in order. ``budget``: the diff's MatchBudget
    (shared by its function pairs; None: one of its own; a number: one whose wall-clock safety
    net ends then). Raises LimitExceeded when a node-count or work cap is hit (MatchTimeLimit past
    the safety net); a VF2 cap is recorded in ``ctx.limits_hit`` (the engine reports ``unknown``
    for either). ``alignment``: the entry arguments as already aligned on these graphs
    (``match.alignment.align``), for the ``Arguments`` stage to add instead of aligning again."""
    limits = Limits.coerce(limits)
    for g, side in ((left, "left"), (right, "right")):
        if len(g) > limits.max_nodes:
            raise LimitExceeded(f"{side} function @{g.function.name} has {len(g)} nodes > max_nodes={limits.max_nodes}")
    ctx = MatchContext(left, right, Mapping(), limits, MatchBudget(limits) if budget is None else budget,
                       alignment=alignment)
    t0 = time.perf_counter()
    for stage in DEFAULT_STAGES if stages is None else stages:
        stage.run(ctx)
    ctx.count_stages()
    ctx.stats["seconds"] = round(time.perf_counter() - t0, 4)
    return ctx
