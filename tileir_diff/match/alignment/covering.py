"""covering: by role when every *used* argument of both sides finds its role on the other side,
an extent or stride one side passes once for several arrays counted as a tie (a port with raw
pointers and one ``len`` for three arrays; unused arguments, like strides the view folds to 1,
pair with nothing). With as many arguments on both sides, it applies only when it explains more
than position does (one argument changed in place is a difference there, not a reordering).

The pairing is a list of named steps (``STEPS``) over one ``CoveringState``; a step that finds
no role pairing possible ends it (the next aligner is tried)."""
from __future__ import annotations

from dataclasses import field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from ...graph import FunctionGraph
from ...normalize.canon import fmt_type
from ..arguments import (ContextPick, Tie, argument_slots, direction, idle_pointer, loose, static_dims, used,
                         value_of_argument)
from .base import Aligner, Signatures
from ...record import record

Slot = Tuple[str, Optional[str], int]


@record(frozen=False)
class CoveringState:
    """The state the steps share: the pairs so far (left -> right, None: tied, not paired), their
    inverse, the ties, and the slot tables both sides' extents and strides fill."""
    sig: Signatures
    pairs: Dict[str, Optional[str]] = field(default_factory=dict)
    back: Dict[str, Optional[str]] = field(default_factory=dict)
    ties: List[Tie] = field(default_factory=list)
    l_arrays: List[str] = field(default_factory=list)
    r_arrays: List[str] = field(default_factory=list)
    extra_l: Set[str] = field(default_factory=set)
    extra_r: Set[str] = field(default_factory=set)
    lslots: Dict[str, List[Tuple[str, str, int]]] = field(default_factory=dict)
    rslots: Dict[str, List[Tuple[str, str, int]]] = field(default_factory=dict)
    # (kind, array, dim) -> the argument in that slot (keyed as looked up: by the other side's
    # partner of an array, None when it has none)
    l_at: Dict[Slot, str] = field(default_factory=dict)
    r_at: Dict[Slot, str] = field(default_factory=dict)

    def pair(self, a: str, b: str) -> None:
        self.pairs[a] = b
        self.back[b] = a

    def left_partner(self, rbase: str) -> Optional[str]:
        """The left argument paired with right argument ``rbase`` (the first one paired)."""
        return next((x for x, y in self.pairs.items() if y == rbase), None)

    def result(self) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
        """The pairs in left order and the ties; None when the roles agree with the positions
        (position then pairs the unused ones too)."""
        largs, rargs = self.sig.largs, self.sig.rargs
        real = [(a, b) for a, b in self.pairs.items() if b is not None]
        if not self.ties and all(largs.index(a) == rargs.index(b) for a, b in real):
            return None
        return sorted(real, key=lambda p: largs.index(p[0])), self.ties


def pair_arrays(s: CoveringState) -> bool:
    """Used arrays: equal roles up to the extents the view types fix, ties by position; but only
    when that agrees on more roles than pairing the arrays in order does (a changed role, such as
    another padding on one array, must not swap two arrays)."""
    sig = s.sig
    s.l_arrays = [a for a in sig.largs if sig.lr[a][0] == "array" and used(sig.L, a)]
    s.r_arrays = [b for b in sig.rargs if sig.rr[b][0] == "array" and used(sig.R, b)]
    by_role = _pair_by_loose_role(sig.L, sig.R, s.l_arrays, s.r_arrays, sig.lr, sig.rr)
    in_order = sum(loose(sig.lr[a]) == loose(sig.rr[b]) for a, b in zip(s.l_arrays, s.r_arrays))
    chosen = by_role if len(by_role) > in_order else _pair_by_direction(s.l_arrays, s.r_arrays, sig.lr, sig.rr)
    for la, rb in chosen:
        s.pair(la, rb)
    return True


def pair_leftover_arrays(s: CoveringState) -> bool:
    """Arrays read or written differently (a store one side lacks), or not at all on the right (an
    argument nothing reads): same pointer type, by position."""
    sig, lr, rr = s.sig, s.sig.lr, s.sig.rr
    rest = [b for b in sig.rargs
            if b not in s.back and ((rr[b][0] == "array" and used(sig.R, b)) or idle_pointer(rr[b]))]
    for a in sig.largs:
        if lr[a][0] == "array" and used(sig.L, a) and a not in s.pairs:
            b = _closest_array(lr[a], [b for b in rest if rr[b][1] == lr[a][1]], rr)
            if b is not None:
                rest.remove(b)
                s.pair(a, b)
    return True


def extra_arrays_on_one_side(s: CoveringState) -> bool:
    """An array only one side has (an extra output), with the extents and strides only it reads:
    unpaired, when every array of the other side is paired (a root of its own downstream). Arrays
    left over on both sides: no role pairing."""
    s.extra_l = {a for a in s.l_arrays if a not in s.pairs}
    s.extra_r = {b for b in s.r_arrays if b not in s.back}
    return not (s.extra_l and s.extra_r)


def pair_left_extents(s: CoveringState) -> bool:
    """Extents and strides: the right's argument in the same slot of the paired array; a left
    one the right fixes in its view type, or passes once for two left ones, is a tie."""
    L, R = s.sig.L, s.sig.R
    s.lslots, s.rslots = argument_slots(L), argument_slots(R)
    s.r_at = {(kind, base, d): b for b, slots in s.rslots.items() for kind, base, d in slots}
    s.l_at = {(kind, base, d): a for a, slots in s.lslots.items() for kind, base, d in slots}
    rstatic = static_dims(R)
    for a in s.sig.largs:
        if not _left_fixed_on_the_right(s, a, rstatic):
            _pair_left_slot(s, a)
    return True


def _left_fixed_on_the_right(s: CoveringState, a: str, rstatic) -> bool:
    """Whether unpaired left argument ``a`` fills (first) a slot the right fixes in its view type:
    then a static tie (the right fixes it)."""
    if a in s.pairs or not s.lslots.get(a):
        return False
    kind, base, d = s.lslots[a][0]
    fixed = rstatic.get((kind, s.pairs.get(base), d))
    if fixed is None or (kind, s.pairs.get(base), d) in s.r_at:
        return False
    s.ties.append(Tie("left", None, a, str(fixed), (kind, base, d)))
    s.pairs[a] = None
    return True


def _pair_left_slot(s: CoveringState, a: str) -> None:
    """Left argument ``a`` with the right's argument of its first slot (of a paired array, of
    the same type) the right has; a tie when one side passes once what the other passes twice."""
    L, R = s.sig.L, s.sig.R
    for kind, base, d in s.lslots.get(a, ()):
        rbase = s.pairs.get(base)
        if rbase is None:  # (the array has no partner: no right argument fills that slot)
            continue
        b = s.r_at.get((kind, rbase, d))
        if b is None or fmt_type(value_of_argument(L, a).type) != fmt_type(value_of_argument(R, b).type):
            continue
        if a in s.pairs:
            if s.pairs[a] != b and b not in s.back:  # the left passes once what the right passes twice
                s.ties.append(Tie("right", s.pairs[a], b, a, (kind, rbase, d)))
            continue
        if b in s.back:  # the right passes once what the left passes twice
            s.ties.append(Tie("left", s.back[b], a, b, (kind, base, d)))
            s.pairs[a] = None  # tied, not paired
            return
        s.pair(a, b)
        return


def tie_right_extents(s: CoveringState) -> bool:
    """Right extents that only tie to an already paired left argument."""
    for b in s.sig.rargs:
        if b in s.back or not used(s.sig.R, b):
            continue
        for kind, base, d in s.rslots.get(b, ()):
            a = s.l_at.get((kind, s.left_partner(base), d))
            if a is not None and s.pairs.get(a) not in (None, b):
                s.ties.append(Tie("right", s.pairs[a], b, a, (kind, base, d)))
                s.back[b] = None
                break
    return True


def tie_right_fixed_on_the_left(s: CoveringState) -> bool:
    """Right extents the left fixes in its view type: static ties."""
    lstatic = static_dims(s.sig.L)
    for b in s.sig.rargs:
        if b not in s.back and s.rslots.get(b):
            kind, base, d = s.rslots[b][0]
            lbase = s.left_partner(base)
            fixed = lstatic.get((kind, lbase, d))
            if fixed is not None and (kind, lbase, d) not in s.l_at:
                s.ties.append(Tie("right", None, b, str(fixed), (kind, base, d)))
                s.back[b] = None
    return True


def pair_scalars(s: CoveringState) -> bool:
    """Other used scalars: equal roles, ties by position."""
    sig = s.sig
    groups: Dict[tuple, List[str]] = {}
    for b in sig.rargs:
        if sig.rr[b][0] == "scalar" and used(sig.R, b) and b not in s.back:
            groups.setdefault(sig.rr[b], []).append(b)
    for a in sig.largs:
        if sig.lr[a][0] == "scalar" and used(sig.L, a) and a not in s.pairs and groups.get(sig.lr[a]):
            s.pair(a, groups[sig.lr[a]].pop(0))
    return True


def nothing_but_scalars_left(s: CoveringState) -> bool:
    """A used argument left over must be a plain scalar (one the other side may have as a
    constant: compare/pins.py); an array, extent or stride without a counterpart (other than an
    extra array's, or one of an array the right ignores) means no role pairing."""
    sig = s.sig
    idle = {a for a, b in s.pairs.items() if b is not None and idle_pointer(sig.rr[b])}  # arrays the right ignores
    left_over = any(used(sig.L, a) and a not in s.pairs and sig.lr[a][0] != "scalar" and a not in s.extra_l and
                    not (sig.lr[a][0] in ("shape", "stride") and sig.lr[a][2] in idle) and
                    not _only_of(s.lslots, a, s.extra_l) for a in sig.largs)
    right_over = any(used(sig.R, b) and b not in s.back and sig.rr[b][0] != "scalar" and b not in s.extra_r and
                     not _only_of(s.rslots, b, s.extra_r) for b in sig.rargs)
    return not (left_over or right_over)


def no_rewired_use(s: CoveringState) -> bool:
    """With as many arguments on both sides, no tie may be a use moved to another argument of
    one signature (a difference, not a tie)."""
    sig = s.sig
    return not (len(sig.largs) == len(sig.rargs) and any(_rewired(sig, t) for t in s.ties))


#: the steps in order; each returns False when no role pairing covers the arguments
STEPS: Sequence[Callable[[CoveringState], bool]] = (
    pair_arrays,
    pair_leftover_arrays,
    extra_arrays_on_one_side,
    pair_left_extents,
    tie_right_extents,
    tie_right_fixed_on_the_left,
    pair_scalars,
    nothing_but_scalars_left,
    no_rewired_use,
)


class Covering(Aligner):
    name = "covering"

    def align(self, sig: Signatures) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
        covered = cover(sig)
        if covered is None:
            return None
        largs, rargs = sig.largs, sig.rargs
        # (position is credited only for arguments something reads: two unused ones agree by default)
        read_in_place = [(a, b) for a, b in zip(largs, rargs) if used(sig.L, a) or used(sig.R, b)]
        if len(largs) != len(rargs) or _agreeing(covered[0], sig) + len(covered[1]) > _agreeing(read_in_place, sig):
            return covered
        return None


def cover(sig: Signatures) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
    """Role pairing with ties (``STEPS``), or None when some used argument finds no role on the
    other side."""
    state = CoveringState(sig)
    for step in STEPS:
        if not step(state):
            return None
    return state.result()


def _agreeing(pairs, sig: Signatures) -> int:
    """How many of ``pairs`` agree in role (arrays up to fixed extents; an extent or stride also
    in the position of its array)."""
    pair_of = dict(pairs)
    n = 0
    for a, b in pairs:
        x, y = sig.lr[a], sig.rr[b]
        if x[0] != y[0]:
            continue
        if x[0] == "array":  # (a view and a pointer access in one direction agree)
            n += loose(x) == loose(y) or direction(x) == direction(y)
        elif x[0] in ("shape", "stride"):
            n += x[1] == y[1] and x[3] == y[3] and pair_of.get(x[2]) == y[2]
        else:
            n += x == y
    return n


def _pair_by_direction(l_arrays, r_arrays, lr, rr) -> List[Tuple[str, str]]:
    """Arrays in order, but an array one side only reads never with one the other side writes
    while one of the same direction is still to pair (a port that takes its output first and
    accesses every array through pointers instead of views)."""
    pairs = []
    rest = list(r_arrays)
    for a in l_arrays:
        same = [b for b in rest if direction(rr[b]) == direction(lr[a])]
        if same:
            rest.remove(same[0])
            pairs.append((a, same[0]))
    return pairs


def _only_of(slots, nid: str, arrays) -> bool:
    """Whether every extent or stride slot argument ``nid`` fills is one of ``arrays``."""
    return bool(slots.get(nid)) and all(base in arrays for _, base, _ in slots[nid])


def _closest_array(role: tuple, cands: List[str], roles) -> Optional[str]:
    """Of arrays of one pointer type, the one whose role is closest to ``role``: the same memory
    ops (stored vs loaded), then the same tiles; ties by position."""
    if not cands:
        return None

    def closeness(b):
        other = roles[b]
        return (other[0] == "array" and other[2] == role[2], other[0] == "array" and loose(other) == loose(role),
                -cands.index(b))
    return max(cands, key=closeness)


def _pair_by_loose_role(L: FunctionGraph, R: FunctionGraph, l_arrays, r_arrays, lr, rr) -> List[Tuple[str, str]]:
    """Arrays of equal roles up to fixed extents; within a group, each array of the side with
    fewer picks its closest ``data_context`` on the other (an extra output of one role with the
    port's ``out`` stays over, wherever it stands in the signature)."""
    groups: Dict[tuple, Tuple[List[str], List[str]]] = {}
    for a in l_arrays:
        groups.setdefault(loose(lr[a]), ([], []))[0].append(a)
    for b in r_arrays:
        groups.setdefault(loose(rr[b]), ([], []))[1].append(b)
    pick = ContextPick(L, R)
    pairs = []
    for mine, theirs in groups.values():
        if len(mine) <= len(theirs):
            for a in mine:
                b = pick.best(0, a, theirs)
                theirs.remove(b)
                pairs.append((a, b))
        else:
            for b in theirs:
                a = pick.best(1, b, mine)
                mine.remove(a)
                pairs.append((a, b))
    return sorted(pairs, key=lambda p: l_arrays.index(p[0]))


def _rewired(sig: Signatures, tie: Tie) -> bool:
    """Whether a tie between two signatures of one length is a rewired use instead: the side
    that passes one scalar has, in the tied argument's position, an argument of its type that
    nothing but assumes reads. A port written for square inputs drops the second argument; a
    kernel that reads the wrong one of two arguments it takes is wrong (the mutation engine's
    rewire of a shape operand), and must not read as a specialization."""
    if tie.kept is None:  # the other side fixes the extent in its view type: not a rewire
        return False
    if tie.side == "left":  # the right passes one scalar; the left's `tied` argument has no partner
        mine, theirs, g_mine, g_theirs, roles = sig.largs, sig.rargs, sig.L, sig.R, sig.rr
    else:
        mine, theirs, g_mine, g_theirs, roles = sig.rargs, sig.largs, sig.R, sig.L, sig.lr
    other = theirs[mine.index(tie.tied)]
    idle = roles[other][0] == "scalar" and not roles[other][2]
    return idle and fmt_type(value_of_argument(g_theirs, other).type) == \
        fmt_type(value_of_argument(g_mine, tie.tied).type)
