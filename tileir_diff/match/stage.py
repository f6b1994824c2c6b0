"""What a matcher stage is, and the composites that run stages to a fixed point.

A stage is an object with a ``name`` and ``run(ctx, seeds=None) -> int`` (the pairs it added).
A primitive stage adds pairs only through ``ctx.add(left, right, self.name)``, so the provenance
tag of every pair is the name of the stage that made it; ``MatchContext.add`` refuses a pair
across region paths, for every stage alike. A composite stage adds nothing itself: it runs
other stages in an order and reports what they added; ``leaves()`` yields the primitive stages
it contains (``leaves()`` of a primitive stage is the stage itself).
"""
from __future__ import annotations

from typing import Iterable, Iterator, Optional, Sequence

from .mapping import MatchContext


class Stage:
    """A primitive stage: subclasses set ``name`` (the provenance tag) and implement ``run``."""
    name: str = ""

    def run(self, ctx: MatchContext, seeds=None) -> int:
        raise NotImplementedError

    def leaves(self) -> Iterator["Stage"]:
        yield self

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class TieAwareStage(Stage):
    """A primitive stage with a ``strict`` switch: strict, it pairs only candidates that are each
    other's unique best; otherwise it breaks ties. Subclasses set the default."""
    strict_by_default: bool = True

    def __init__(self, strict: Optional[bool] = None):
        self.strict = self.strict_by_default if strict is None else strict

    def __repr__(self) -> str:
        return f"{type(self).__name__}(strict={self.strict})"


class Composite(Stage):
    """A stage made of other stages; it pairs nothing itself."""
    parts: Sequence[Stage] = ()

    def leaves(self) -> Iterator[Stage]:
        for s in self.parts:
            yield from s.leaves()


class Repeat(Composite):
    """Run ``stage`` again as long as it adds pairs."""

    def __init__(self, stage: Stage):
        self.stage = stage
        self.parts = (stage,)
        self.name = f"repeat({stage.name})"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        total = 0
        while True:
            added = self.stage.run(ctx)
            if not added:
                return total
            total += added

    def __repr__(self) -> str:
        return f"Repeat({self.stage!r})"


class UntilStable(Composite):
    """Rounds: run ``stages`` in order up to the first one that adds pairs, then ``then``; stop
    after a round in which none of ``stages`` added a pair (``then`` does not run in it)."""

    def __init__(self, stages: Iterable[Stage], then: Stage):
        self.stages = tuple(stages)
        self.then = then
        self.parts = self.stages + (then,)
        self.name = f"until-stable({', '.join(s.name for s in self.stages)}; then {then.name})"

    def run(self, ctx: MatchContext, seeds=None) -> int:
        total = 0
        while True:
            for s in self.stages:
                added = s.run(ctx)
                if added:
                    total += added
                    break
            else:
                return total
            total += self.then.run(ctx)

    def __repr__(self) -> str:
        return f"UntilStable({list(self.stages)!r}, then={self.then!r})"


def leaf_stages(stages: Iterable[Stage]) -> Iterator[Stage]:
    """The primitive stages of a stage list, in order (repeats included)."""
    for s in stages:
        yield from s.leaves()
