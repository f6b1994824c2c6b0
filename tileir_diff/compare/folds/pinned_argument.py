"""pinned-argument: an argument read as a constant is the pin's root, not also an unused one."""
from __future__ import annotations

from typing import List, Optional

from .. import wording
from ..roots import Root
from .base import Fold, FoldContext


def _pin_of(roots: List[Root], side: str, index: int) -> Optional[Root]:
    for r in roots:
        pin = r.extra.get("pin")
        if isinstance(pin, dict) and pin.get("side") == side and pin.get("argument") == index:
            return r
    return None


class PinnedArgument(Fold):
    """One cause, one root: a calling-convention root that says only that some arguments are
    unused, when each of them is a pinned argument (compare/pins.py: the other side has a
    constant there, and the engine reads the argument as that constant, so nothing reads it),
    is the pin's consequence. The pin's root stands on the calling-convention root's argument too
    (``also``) and says the argument is unused.

    Mutants it must not absorb: an argument moved as well (a reorder is a calling-convention
    change of its own); an unused argument that is not pinned."""
    name = "pinned-argument"
    stage = "checked"
    order = 10

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:
        pinned = ctx.cl.pinned
        out = []
        for r in roots:
            if r.category != "signature" or r.extra.get("calling_convention") != []:
                out.append(r)
                continue
            ul, ur = r.extra.get("unused_left") or [], r.extra.get("unused_right") or []
            assert isinstance(ul, list) and isinstance(ur, list)
            unused = [("left", i) for i in ul] + [("right", i) for i in ur]
            hosts = [_pin_of(roots, side, i) for side, i in unused]
            if not unused or any((side, i) not in pinned for side, i in unused) or any(h is None for h in hosts):
                out.append(r)
                continue
            for h in hosts:
                assert h is not None
                h.also.add((r.left, r.right))
                if wording.ARGUMENT_UNUSED not in h.clauses:
                    h.clauses.add(wording.ARGUMENT_UNUSED)
                    h.message += wording.clause(wording.ARGUMENT_UNUSED)
        return out
