"""strict: by position when the roles agree position by position; else by role when that pairs
every argument on both sides (the same arguments, reordered). No ties."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..arguments import ContextPick, Tie
from .base import Aligner, Signatures


def _plain(role: tuple) -> tuple:
    """A role without the array it refers to."""
    return role[:2] + role[3:] if role[0] in ("shape", "stride") else role


class Strict(Aligner):
    name = "strict"

    def align(self, sig: Signatures) -> Optional[Tuple[List[Tuple[str, str]], List[Tie]]]:
        largs, rargs, lr, rr = sig.largs, sig.rargs, sig.lr, sig.rr
        if len(largs) == len(rargs) and all(_plain(lr[a]) == _plain(rr[b]) for a, b in zip(largs, rargs)) and \
                all(lr[a][0] not in ("shape", "stride") or largs.index(lr[a][2]) == rargs.index(rr[b][2])
                    for a, b in zip(largs, rargs)):
            return list(zip(largs, rargs)), []
        pairs = _by_role(sig)
        if len(pairs) == len(largs) == len(rargs):
            # every argument found its role on the other side: the same arguments, reordered
            return sorted(pairs.items(), key=lambda p: largs.index(p[0])), []
        return None


def _by_role(sig: Signatures) -> Dict[str, str]:
    """Arrays first (several of one role by their data context), then their shapes and strides
    (of the paired array, same dimension), then the rest; ties by position."""
    largs, rargs, lr, rr = sig.largs, sig.rargs, sig.lr, sig.rr
    pairs: Dict[str, str] = {}
    used = set()

    def take(keyl, keyr, left_ids, right_ids, pick=lambda a, cands: cands[0]):
        groups: Dict[tuple, List[str]] = {}
        for b in right_ids:
            if b not in used:
                groups.setdefault(keyr(b), []).append(b)
        for a in left_ids:
            if a in pairs:
                continue
            cands = groups.get(keyl(a))
            if cands:
                b = pick(a, cands)
                cands.remove(b)
                pairs[a] = b
                used.add(b)

    arrays_l = [a for a in largs if lr[a][0] == "array"]
    arrays_r = [b for b in rargs if rr[b][0] == "array"]
    take(lambda a: lr[a], lambda b: rr[b], arrays_l, arrays_r,
         lambda a, cands: ContextPick(sig.L, sig.R).best(0, a, cands))
    slots_l = [a for a in largs if lr[a][0] in ("shape", "stride")]
    slots_r = [b for b in rargs if rr[b][0] in ("shape", "stride")]
    take(lambda a: (lr[a][0], lr[a][1], pairs.get(lr[a][2]), lr[a][3]),
         lambda b: (rr[b][0], rr[b][1], rr[b][2], rr[b][3]), slots_l, slots_r)
    take(lambda a: lr[a], lambda b: rr[b], [a for a in largs if lr[a][0] == "scalar"],
         [b for b in rargs if rr[b][0] == "scalar"])
    return pairs
