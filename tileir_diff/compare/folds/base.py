"""The fold interface and what a fold reads (see folds/__init__.py)."""
from __future__ import annotations

from dataclasses import field
from typing import List, Set

from ..roots import Root
from ..view import PairView
from ...record import record


@record(frozen=False)
class FoldContext:
    """What a fold reads: the pair's view (compare/view.py: graphs ``L``/``R``, mapping ``m``,
    texts ``lt``/``rt``, versions, pins; frozen) and the dirty node sets of both sides. What
    differs at a pair and the texts of a node are compare/pair_findings.py's functions of the
    view; the words compare/wording.py's."""
    cl: PairView
    dirty_l: Set[str] = field(default_factory=set)
    dirty_r: Set[str] = field(default_factory=set)


#: the classification stages a fold may run at, in the order they come (folds/__init__.py)
STAGES = ("groups", "roots", "final", "checked")


class Fold:
    """One explanation fold. ``name`` is its public name (docs/matching.md); ``stage`` when it
    runs; ``order`` its place among the folds of that stage (lower first; the steps of 10 leave
    room for a fold between two)."""
    name = ""
    stage = "roots"
    order = 0

    def apply(self, ctx: FoldContext, roots: List[Root]) -> List[Root]:  # pragma: no cover - interface
        raise NotImplementedError


def footprint(root: Root, left: bool) -> Set[str]:
    """The ops a root stands on or lists, on one side."""
    own = root.left if left else root.right
    extra = {a if left else b for a, b in root.also}
    return (root.affected_left if left else root.affected_right) | ({own} if own else set()) | \
        {x for x in extra if x}


def reach(g, *starts: str) -> Set[str]:
    """The nodes that use the results of any of ``starts``, transitively (the starts themselves
    only where one of them uses another)."""
    seen: Set[str] = set()
    stack = list(starts)
    while stack:
        for u, _, _ in g.nodes[stack.pop()].users:
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return seen


def absorb(cl, members: List[Root], folded: Set[int]) -> List[str]:
    """Makes ``members[0]`` stand for every member (their sites and affected nodes join it) and
    marks the others folded (by id); returns the absorbed sites as "op name, op id" for the
    host's message."""
    host, names = members[0], []
    for r in members[1:]:
        host.also.add((r.left, r.right))
        host.also.update(r.also)
        host.affected_left |= r.affected_left
        host.affected_right |= r.affected_right
        names.append(f"{cl.L.nodes[r.left].name} {r.left}")
        folded.add(id(r))
    return names


def own_site(root: Root, left: bool) -> str:
    """The node ``root`` stands on on one side, asked only where it stands on one there (a
    one-sided root on its own side, a pair's root on either)."""
    nid = root.left if left else root.right
    assert nid is not None, (root.kind, root.message)
    return nid
