"""permuted-scan: a scan written between a permute and its inverse is a scan along the mapped dimension."""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

from ...ir import Operation, TileType, Value
from ..rule import Rule, register
from ..util import FreshVids, live_users, names_in, rewrite_ops, use_counts
from ._constants import producers


def _permutation(op: Optional[Operation]) -> Optional[Tuple[int, ...]]:
    """The permutation of a one-operand ``permute`` whose attribute is a permutation of its rank."""
    if op is None or op.name != "permute" or len(op.operands) != 1 or len(op.results) != 1:
        return None
    perm = op.attributes.get("permutation")
    source = op.operands[0].type
    if not isinstance(perm, tuple) or not isinstance(source, TileType):
        return None
    if sorted(perm) != list(range(len(source.shape))):
        return None
    return tuple(int(p) for p in perm)


def inverse(perm: Sequence[int]) -> Tuple[int, ...]:
    """``q`` with ``permute(permute(x, perm), q) == x`` (``q[perm[k]] = k``)."""
    q = [0] * len(perm)
    for k, p in enumerate(perm):
        q[p] = k
    return tuple(q)


@register
class PermutedScan(Rule):
    """Absorbs: a ``scan`` whose every operand is ``permute %x_i, p`` (one permutation ``p`` for
    all operands) and whose every result is read only by ``permute ..., q`` with ``q`` the
    inverse of ``p``: the whole becomes one ``scan`` of the ``%x_i`` along dimension ``p[dim]``,
    with the same ``reverse`` flag, identities and combiner region, whose results replace the
    outer permutes. cuTile Rust 0.5.0 writes every scan with ``dim = 0``, so a port's row scan
    is ``permute(scan(permute(x, [1, 0]), dim=0), [1, 0])`` where cuTile Python writes
    ``scan(x, dim=1)``. The inner permutes are dropped when nothing else reads them.

    Why meaning is kept: ``permute`` by ``p`` puts source dimension ``p[k]`` at result
    dimension ``k`` (``result.shape[k] = source.shape[p[k]]``) and moves no element within a
    line, so the lines along dimension ``dim`` of the permuted tile are exactly the lines along
    dimension ``p[dim]`` of ``%x_i``, each in the same order. A scan combines the elements of
    each line in its own order (forward, or backward with ``reverse``) independently of the
    other lines: the same sums, in the same order, land at the permuted positions, and the
    inverse permutation puts each one back at the position of its element in ``%x_i``. Nothing
    else of the scan changes, so the rewritten scan computes the outer permutes' values bit for
    bit.

    Never touches: permutations that are not mutual inverses (``[1, 2, 0]`` before and after a
    3-D scan), operands permuted by different permutations or not permuted at all, a scan
    result read by anything other than the inverse permute (the permuted scan stays, as
    written; a reader that nothing uses, which dead-code removes, does not count), and whatever
    the scan states itself: its dimension, ``reverse`` flag, identities and combiner are carried
    over, so a scan of the wrong dimension or direction stays a difference. An inner permute that something else reads stays for that reader.
    """
    name = "permuted-scan"
    mutant = ("scan dim=1 vs permute [1, 0], scan dim=1, permute [1, 0] (the wrong dimension), or the outer "
              "permute not the inverse of the inner one, stays a difference")
    acts_on = frozenset({"scan"})

    def apply(self, module):
        scans = [0]  # counted per scan (its outer permutes go with it)

        def rewrite_for(f, bypassed):
            if "scan" not in names_in(f):
                return None  # (most functions: no scan, no walks)
            prod = producers(f)
            readers: list = []  # [live readers, use counts], made at the first scan of permutes
            fresh = FreshVids(f)  # the largest id found on the first new value
            moved: Dict[int, Value] = {}  # old scan result vid -> the new scan's result

            def users_and_uses():
                if not readers:
                    # an unused reader of the scan does not keep it as written
                    readers.extend([live_users(f), use_counts(f)])
                return readers

            def fn(op, subst):
                if op.name == "permute" and op.operands and op.operands[0].vid in moved:
                    subst[op.results[0].vid] = moved[op.operands[0].vid]
                    return []
                if op.name != "scan" or _permutation(prod.get(op.operands[0].vid) if op.operands else None) is None:
                    return None
                users, uses = users_and_uses()
                new = self._unpermuted(op, prod, users, fresh, subst)
                if new is None:
                    return None
                for old, value in zip(op.results, new.results):
                    moved[old.vid] = value
                for v in op.operands:
                    bypassed.add(id(prod[v.vid]))
                scans[0] += 1
                # unused readers too: the old scan stays for them (dead-code removes it with them)
                dead_readers = any(uses[r.vid] != len(users.get(r.vid, ())) for r in op.results)
                return [op, new] if dead_readers else [new]
            return fn

        module, _ = rewrite_ops(module, rewrite_for, drop_bypassed=True)
        return module, scans[0]

    @staticmethod
    def _unpermuted(op: Operation, prod, users, fresh, subst) -> Optional[Operation]:
        """The scan of the un-permuted operands along the mapped dimension, or None."""
        if not op.operands or len(op.operands) != len(op.results) or len(op.regions) != 1:
            return None
        inner = [prod.get(v.vid) for v in op.operands]
        perms = {_permutation(p) for p in inner}
        if len(perms) != 1 or None in perms:
            return None
        perm = perms.pop()
        assert perm is not None
        dim = op.attributes.get("dim")
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < len(perm):
            return None
        back = inverse(perm)
        # (an inner permute's source may itself be a value this pass replaced: a chain of scans)
        sources = [subst.get(p.operands[0].vid, p.operands[0]) for p in inner if p is not None]
        readers = 0
        for result, source in zip(op.results, sources):
            for user in users.get(result.vid, ()):
                if _permutation(user) != back or user.results[0].type != source.type:
                    return None
                readers += 1
        if not readers:
            return None
        results = []
        for source in sources:
            fresh[0] += 1
            results.append(Value(fresh[0], source.type))
        attrs = dict(op.attributes)
        attrs["dim"] = perm[dim]
        return op.replace(operands=tuple(sources), results=tuple(results), attributes=attrs)
