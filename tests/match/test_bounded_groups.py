"""Issue 27: a group of many structurally identical nodes costs O(n log n + n * cap) in the
exact stage (each left node takes the ``max_candidates`` right nodes nearest in position through
a window on the sorted positions), and the stage charges its work budget inside a group. The time
figures (1k-20k identical ops diffed with themselves) are printed by scripts/stress_bounds.py."""
from __future__ import annotations

import random

import pytest

from tests.fuzz.bounds_inputs import identical_ops
from tileir_diff.match import Exact
from tileir_diff.match.mapping import LimitExceeded
from tileir_diff.match.stages import exact as exact_mod

from .kernels import Pair


def _brute_nearest(lefts, rights, lorder, rorder, cap):
    out = []
    for l in lefts:
        near = sorted(rights, key=lambda r: (abs(rorder[r] - lorder[l]), rorder[r], r))[:cap]
        out.append((l, frozenset(near)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_nearest_window_takes_the_nearest_candidates(seed):
    rng = random.Random(seed)
    n, m, cap = rng.randrange(1, 60), rng.randrange(1, 60), rng.choice([1, 3, 8, 64])
    lefts = [f"l{i}" for i in range(n)]
    rights = [f"r{i}" for i in range(m)]
    lorder = {x: rng.random() for x in lefts}
    rorder = {x: rng.choice([rng.random(), 0.5]) for x in rights}  # some ties
    got = exact_mod._nearest_pairs(lefts, rights, lorder, rorder, cap)
    assert len(got) == n * min(cap, m)
    by_left = {}
    for l, r in got:
        by_left.setdefault(l, []).append(r)
    for l, near in _brute_nearest(lefts, rights, lorder, rorder, cap):
        taken = by_left[l]
        assert len(set(taken)) == len(taken) == len(near)
        # the same distances as the brute force (ties may pick other nodes at the same distance)
        assert sorted(abs(rorder[r] - lorder[l]) for r in taken) == \
            pytest.approx(sorted(abs(rorder[r] - lorder[l]) for r in near))


def test_a_huge_group_sorts_no_list_per_left_node(monkeypatch):
    # 300 identical ops: 300 * 300 pairs > 64 * 64, the huge-group path. Count the elements
    # sorted while choosing candidates: the old path sorted every right node once per left node.
    n = 300
    p = Pair(identical_ops(n, kept=True))
    sorted_elements = []
    real_sorted = sorted

    def counting_sorted(items, *a, **k):
        items = list(items)
        sorted_elements.append(len(items))
        return real_sorted(items, *a, **k)

    monkeypatch.setattr(exact_mod, "sorted", counting_sorted, raising=False)
    p.run(Exact())
    assert len(p.ctx.mapping) == len(p.L)  # everything paired with itself
    big = [k for k in sorted_elements if k >= n]
    # one sort of the right group, one of the scored candidates (n * 64): no n sorts of n each
    assert len(big) <= 3, sorted_elements[:20]


def test_the_budget_is_charged_inside_a_group(monkeypatch):
    p = Pair(identical_ops(200, kept=True))
    calls = []

    def charge(units, where):
        calls.append(where)
        if len(calls) > 1:  # the second charge is inside the one big group
            raise LimitExceeded(f"work budget exceeded during {where}")

    monkeypatch.setattr(p.ctx, "charge", charge)
    with pytest.raises(LimitExceeded):
        p.run(Exact())
    assert len(p.ctx.mapping) < len(p.L)
