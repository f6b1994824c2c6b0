"""Matcher: pairs the nodes of two function graphs in stages (see stages.py), under limits."""
from __future__ import annotations

import time
from typing import Optional

from ..graph import FunctionGraph
from .mapping import LimitExceeded, Limits, MatchContext, Mapping
from .stages import (DEFAULT_STAGES, address_root, anchors, bottom_up, exact, propagate, relative_exact, same_io,
                     top_down, vf2)


def match_functions(left: FunctionGraph, right: FunctionGraph, limits: Optional[Limits] = None,
                    deadline: Optional[float] = None) -> MatchContext:
    """Run all stages. Raises LimitExceeded when a node-count or time cap is hit; a VF2 timeout
    is recorded in ``ctx.limits_hit`` (the engine reports ``unknown`` for either)."""
    limits = Limits.coerce(limits)
    for g, side in ((left, "left"), (right, "right")):
        if len(g) > limits.max_nodes:
            raise LimitExceeded(f"{side} function @{g.function.name} has {len(g)} nodes > max_nodes={limits.max_nodes}")
    if deadline is None:
        deadline = time.perf_counter() + limits.time_budget_s
    ctx = MatchContext(left, right, Mapping(), limits, deadline)
    t0 = time.perf_counter()
    anchors(ctx)
    exact(ctx)
    while relative_exact(ctx):
        pass
    propagate(ctx)
    while relative_exact(ctx) or same_io(ctx):
        propagate(ctx)
    vf2(ctx)
    propagate(ctx)
    ctx.count_stages()
    ctx.stats["seconds"] = round(time.perf_counter() - t0, 4)
    return ctx


__all__ = ["match_functions", "Limits", "LimitExceeded", "MatchContext", "Mapping", "DEFAULT_STAGES",
           "address_root", "anchors", "exact", "top_down", "bottom_up", "propagate", "same_io", "vf2"]
