"""Checks 2-5 and check 3's result types, as ``FunctionCheck`` makes them in one walk over the
mapped pairs (with an inline test for a pair that agrees in everything), against the same checks
made pair by pair through ``_pair`` and ``_type_problem`` in separate passes, as before that walk:
the same violations in the same order, for the kernels of the soundness tests under many
mappings (the identity, crossed pairs of one name or of two, dropped pairs, a right op paired
twice, swapped arguments). And the dense-constant comparison the walk uses agrees with ``==``."""
from __future__ import annotations

import random

import pytest

from tileir_diff.check import checker
from tileir_diff.check.checker import FunctionCheck, _same_attribute_dicts, _type_problem
from tileir_diff.ir import DenseElements, ScalarType, TileType

from . import kernels as K
from .test_checker import _ids, _prepared


def _separate_passes(check: FunctionCheck):
    """Checks 1-6 with checks 2-5 and the result types made pair by pair, pass after pass."""
    L, R, l2r = check.L, check.R, check.l2r
    for p in L.problems + R.problems:
        check._v("unverifiable", None, None, p)
    if check.violations:
        return check.violations
    check._signature()
    r2l = {}
    for l, r in l2r.items():
        if r in r2l:
            check._v("unverifiable", l, r, f"mapping not one to one: {r} paired twice")
        r2l[r] = l
    check.r2l = r2l
    violating = set()
    for l in L.order:
        if l2r.get(l) not in R.ops:
            check._v("unmapped", l, None, f"{L.ops[l].name} {l} has no counterpart on the right", cascade=True)
            violating.add(l)
    for r in R.order:
        if r2l.get(r) not in L.ops:
            check._v("unmapped", None, r, f"{R.ops[r].name} {r} has no counterpart on the left", cascade=True)
    for l in L.order:
        if l2r.get(l) in R.ops and check._pair(l, l2r[l]):
            violating.add(l)
    for l in L.order:
        r = l2r.get(l)
        if r not in R.ops or L.ops[l].name != R.ops[r].name:
            continue
        msg = _type_problem(L.ops[l], R.ops[r], lambda x, y: x == y)
        if msg is not None:
            upstream = any(L.producer[v.vid][0] in violating for v in L.ops[l].operands)
            check._v("label", l, r, msg, cascade=upstream)
            violating.add(l)
    check._order()
    return check.violations


def _mappings(lf, rf, rng: random.Random):
    lids, rids = _ids(lf), set(_ids(rf))
    base = {x: x for x in lids if x in rids}
    yield dict(base)
    name = {op.origin: op.name for op in lf.walk()}
    ops = [x for x in base if x in name]
    for _ in range(12):
        m = dict(base)
        a, b = rng.sample(ops, 2)
        same = [x for x in ops if name[x] == name[a] and x != a]
        if same and rng.random() < 0.6:
            b = rng.choice(same)
        m[a], m[b] = m[b], m[a]
        if rng.random() < 0.3:
            del m[rng.choice(ops)]
        if rng.random() < 0.2:
            c, d = rng.sample(ops, 2)
            m[c] = base[d]  # (a right op paired twice)
        if rng.random() < 0.2 and "f0/a0" in m and "f0/a1" in m:
            m["f0/a0"], m["f0/a1"] = m["f0/a1"], m["f0/a0"]
        yield m


PAIRS = [(f"{build.__name__}-{variant}", build, (lambda b=build: b(True)) if variant else build)
         for build in (K.branches, K.guarded_store, K.two_stores, K.rsqrt_eps, K.exp2_sub, K.load_after_store)
         for variant in (False, True)]


def _asserts(swapped: bool = False) -> str:
    """two_stores with two asserts after the stores (effects no token orders: check 6)."""
    first, second = '"first" : tile<i1>', '"second" : tile<i1>'
    a, b = (f"%f, {second}", f"%t, {first}") if swapped else (f"%t, {first}", f"%f, {second}")
    return K.two_stores().replace("  return\n", "  %t = constant <i1: true> : tile<i1>\n  %f = constant <i1: false> : "
                                  f"tile<i1>\n  assert {a}\n  assert {b}\n  return\n")


PAIRS += [("asserts-same", _asserts, _asserts), ("asserts-swapped", _asserts, lambda: _asserts(True))]
PAIRS += [("upstream_and_index-same", K.upstream_and_index, K.upstream_and_index),
          ("upstream_and_index-swapped", K.upstream_and_index, lambda: K.upstream_and_index(2, swapped_index=True))]


@pytest.mark.parametrize("what,left,right", PAIRS, ids=[p[0] for p in PAIRS])
def test_one_walk_finds_what_the_separate_passes_find(what, left, right):
    _, lnorm = _prepared(left())
    _, rnorm = _prepared(right())
    lf, rf = lnorm.functions[0], rnorm.functions[0]
    rng = random.Random(what)
    kinds = set()
    for mapping in _mappings(lf, rf, rng):
        walked = FunctionCheck(lf, 0, rf, 0, mapping).run()
        reference = _separate_passes(FunctionCheck(lf, 0, rf, 0, mapping))
        assert walked == reference, mapping
        kinds.update(v.kind for v in walked)
    assert {"unmapped", "operand"} <= kinds, kinds  # (the mappings do reach the checks' other paths)


def test_dense_constants_compare_as_their_dicts_do():
    f32, f16 = ScalarType("f32"), ScalarType("f16")
    t, t_again, other_shape, other_element = TileType((64,), f32), TileType((64,), f32), TileType((32,), f32), \
        TileType((64,), f16)
    one = {"value": DenseElements(t, b"\x00\x00\x80?")}
    cases = [
        (one, {"value": DenseElements(t_again, b"\x00\x00\x80?")}),
        (one, one),
        (one, {"value": DenseElements(t, b"\x00\x00\x00@")}),
        (one, {"value": DenseElements(other_shape, b"\x00\x00\x80?")}),
        (one, {"value": DenseElements(other_element, b"\x00\x00\x80?")}),
        (one, {"value": DenseElements(t, b"\x00\x00\x80?"), "extra": 1}),
        (one, {"other": DenseElements(t, b"\x00\x00\x80?")}),
        (one, {"value": 1.0}),
        ({"value": 1.0}, {"value": 1.0}),
    ]
    assert checker._DENSE_FIELDS, "DenseElements no longer compares (type, data): the walk compares dicts alone"
    for x, y in cases:
        for a, b in ((x, y), (y, x)):
            assert _same_attribute_dicts(a, b, lambda p, q: p == q) == (a == b), (a, b)


@pytest.mark.parametrize("build", [K.branches, K.guarded_store, K.load_after_store])
def test_the_index_order_places_and_users_are_the_walks(build):
    """``FunctionIndex``: ``order`` is the pre-order walk, ``where`` each op's block, ``users``
    every (user, operand index) in walk order, as a plain recursive walk finds them."""
    from tileir_diff.check.index import COMBINER_OPS, FunctionIndex
    _, norm = _prepared(build())
    f = norm.functions[0]
    ix = FunctionIndex(f, 0)
    order, where = [], {}

    def walk(ops, parent, region, blk):
        for op in ops:
            order.append(op.origin)
            where[op.origin] = (parent, region, blk)
            if op.name not in COMBINER_OPS:
                for k, reg in enumerate(op.regions):
                    for b_i, b in enumerate(reg.blocks):
                        walk(b.operations, op.origin, k, b_i)
    walk(f.body.operations, None, 0, 0)
    assert ix.order == order and ix.where == where
    users = {}
    for nid in order:
        for k, v in enumerate(ix.ops[nid].operands):
            users.setdefault(ix.producer[v.vid][0], []).append((nid, k))
    assert ix.users() == users and list(ix.users()) == list(users)
