"""The trusted checker on its own (hand-given mappings, no matcher) and as the gate of every
verdict (a classifier or matcher that says nothing must not make a wrong pair "same")."""
from __future__ import annotations

import pytest

import tileir_diff
from tileir_diff.check import check_functions, covered
from tileir_diff.compare import classify, engine
from tileir_diff.normalize import normalize, tag_origins

from . import kernels as K


def _ids(f, index=0):
    """Node ids the graph would give (op origins, arguments, block arguments)."""
    out = [f"f{index}/a{k}" for k in range(len(f.arguments))]
    stack = [f.body.operations]
    while stack:
        ops = stack.pop()
        for op in ops:
            out.append(op.origin)
            for k, reg in enumerate(op.regions):
                for b in reg.blocks:
                    out.extend(f"{op.origin}/r{k}/a{i}" for i in range(len(b.arguments)))
                    stack.append(b.operations)
    return out


def _prepared(text: str):
    raw = tag_origins(tileir_diff.load(text))
    norm, _ = normalize(raw)
    return raw, norm


def _check(left_text: str, right_text: str, mapping=None):
    lraw, lnorm = _prepared(left_text)
    rraw, rnorm = _prepared(right_text)
    lf, rf = lnorm.functions[0], rnorm.functions[0]
    if mapping is None:  # identity on ids present on both sides
        rids = set(_ids(rf))
        mapping = {x: x for x in _ids(lf) if x in rids}
    return check_functions(lf, 0, rf, 0, mapping, lraw.functions[0], rraw.functions[0])


# --- the checker alone --------------------------------------------------------------------------

def test_identity_mapping_proves_a_kernel_equal_to_itself():
    for build in (K.branches, K.two_stores, K.rsqrt_eps, K.load_after_store, K.guarded_store):
        assert _check(build(), build()) == []


def test_an_unmapped_op_is_a_violation():
    text = K.two_stores()
    _, norm = _prepared(text)
    mapping = {x: x for x in _ids(norm.functions[0])}
    store = next(x for x in mapping if x and norm.functions[0] and "o" in x and x.endswith("o13"))
    del mapping[store]
    kinds = {v.kind for v in _check(text, text, mapping)}
    assert "unmapped" in kinds


def test_operands_from_other_producers_are_a_violation_that_is_no_cascade():
    # rsqrt(ms) + eps vs rsqrt(ms + eps): same op names, the producers are paired with other ops
    lraw, lnorm = _prepared(K.rsqrt_eps())
    rraw, rnorm = _prepared(K.rsqrt_eps(True))
    lf, rf = lnorm.functions[0], rnorm.functions[0]
    by_name = {}
    for op in rf.walk():
        by_name.setdefault(op.name, []).append(op.origin)
    mapping = {f"f0/a{k}": f"f0/a{k}" for k in range(len(lf.arguments))}
    for op in lf.walk():
        mapping[op.origin] = by_name[op.name].pop(0)
    vs = check_functions(lf, 0, rf, 0, mapping, lraw.functions[0], rraw.functions[0])
    assert not [v for v in vs if v.kind in ("label", "unmapped")]
    operand = [v for v in vs if v.kind == "operand"]
    assert operand and not any(v.cascade for v in operand)


def test_swapped_stores_are_an_operand_violation():
    vs = _check(K.two_stores(), K.two_stores(True))
    assert any(v.kind in ("operand", "label") for v in vs)


def test_a_pair_across_regions_is_a_placement_violation():
    text = K.guarded_store()
    moved = K.guarded_store(True)
    lraw, lnorm = _prepared(text)
    rraw, rnorm = _prepared(moved)
    lids, rids = _ids(lnorm.functions[0]), _ids(rnorm.functions[0])
    mapping = {x: x for x in lids if x in rids}
    lstore = next(x for x in lids if x.endswith("/r0/o0"))
    rstore = next(x for x in rids if x.endswith("/r1/o0"))
    mapping[lstore] = rstore
    vs = check_functions(lnorm.functions[0], 0, rnorm.functions[0], 0, mapping, lraw.functions[0], rraw.functions[0])
    assert any(v.kind == "placement" and v.left == lstore for v in vs)


def test_commutative_operands_may_cross_but_subtraction_may_not():
    base = K.exp2_sub()
    crossed_add = base.replace("%d = subf %x, %m", "%d = addf %x, %m")
    crossed_add_r = base.replace("%d = subf %x, %m", "%d = addf %m, %x")
    assert _check(crossed_add, crossed_add_r) == []
    crossed_sub = base.replace("%d = subf %x, %m", "%d = subf %m, %x")
    assert any(v.kind == "operand" for v in _check(base, crossed_sub))


def test_memory_order_as_read_is_compared_for_accesses_through_different_arrays():
    # the load of x waits for the store to out on the left, not on the right
    vs = _check(K.load_after_store(), K.load_after_store(True))
    assert any(v.kind in ("memory-order", "operand", "label") for v in vs)
    # and the memory-order check alone sees it, whatever normalization did to the tokens
    lraw, _ = _prepared(K.load_after_store())
    rraw, _ = _prepared(K.load_after_store(True))
    lf, rf = lraw.functions[0], rraw.functions[0]
    mapping = {x: x for x in _ids(lf)}
    vs = check_functions(lf, 0, lf, 0, mapping, lf, rf)
    assert [v.kind for v in vs] == ["memory-order"]


def test_effects_without_tokens_keep_their_order():
    a = K.two_stores().replace("  return\n", "  %t = constant <i1: true> : tile<i1>\n  %f = constant <i1: false> : tile<i1>\n"
                                             '  assert %t, "first" : tile<i1>\n  assert %f, "second" : tile<i1>\n  return\n')
    b = a.replace('assert %t, "first" : tile<i1>\n  assert %f, "second"', 'assert %f, "second" : tile<i1>\n  assert %t, "first"')
    assert _check(a, a) == []
    vs = _check(a, b)
    assert vs, "two asserts in another order must not pass"


def test_coverage_cascades_need_a_listing_roots_need_their_own_op():
    from tileir_diff.check import Violation
    own = Violation("operand", "f0/o3", "f0/o3", "m")
    casc = Violation("unmapped", "f0/o4", None, "m", cascade=True)
    assert covered([own, casc], set(), set(), {"f0/o3", "f0/o4"}, set()) == [own]
    assert covered([own, casc], {"f0/o3"}, set(), {"f0/o4"}, set()) == []


# --- the five classes of issue 10 (each was identical/equivalent before the checker) -------------

WRONG = [
    ("then/else swapped", K.branches, {}),
    ("guarded store in the other branch", K.guarded_store, {}),
    ("two stores to x swapped", K.two_stores, {}),
    ("rsqrt(ms) + eps for rsqrt(ms + eps)", K.rsqrt_eps, {}),
    ("exp2(t) - m for exp2(t - m)", K.exp2_sub, {}),
    ("load of x hoisted above the store to out", K.load_after_store, {}),
]


@pytest.mark.parametrize("what,build,_", WRONG, ids=[w[0] for w in WRONG])
def test_wrong_variant_is_different(what, build, _):
    r = tileir_diff.diff(build(), build(True))
    assert r.verdict == "different", what
    assert r.differences
    assert tileir_diff.diff(build(), build()).verdict == "identical"


def test_an_upstream_root_does_not_swallow_an_index_swap_downstream():
    base = K.upstream_and_index()
    only_upstream = tileir_diff.diff(base, K.upstream_and_index(2))
    both = tileir_diff.diff(base, K.upstream_and_index(2, swapped_index=True))
    assert only_upstream.verdict == both.verdict == "different"
    assert len(both.differences) == len(only_upstream.differences) + 1
    assert any("index" in d.message and "swapped" in d.message for d in both.differences)


# --- the gate: a classifier or matcher that finds nothing cannot make a wrong pair "same" --------

@pytest.mark.parametrize("what,build,_", WRONG, ids=[w[0] for w in WRONG])
def test_a_silent_classifier_cannot_pass_a_wrong_variant(monkeypatch, what, build, _):
    monkeypatch.setattr(classify.Classifier, "run", lambda self: [])
    r = tileir_diff.diff(build(), build(True))
    assert r.verdict == "different", what
    assert r.differences


def test_a_wrong_mapping_cannot_make_a_pair_same(monkeypatch):
    """A matcher bug that pairs two ops crosswise (so that the classifier sees equal labels
    everywhere) is caught: the checker finds operands produced by other ops."""
    real = engine.match_functions

    def crossed(L, R, limits, deadline, **options):
        ctx = real(L, R, limits, deadline, **options)
        m = ctx.mapping
        stores = [l for l in m.l2r if L.nodes[l].name == "store_view_tko"]
        if len(stores) == 2:
            a, b = stores
            m.l2r[a], m.l2r[b] = m.l2r[b], m.l2r[a]
            m.r2l[m.l2r[a]], m.r2l[m.l2r[b]] = a, b
        return ctx

    monkeypatch.setattr(engine, "match_functions", crossed)
    monkeypatch.setattr(classify.Classifier, "run", lambda self: [])
    r = tileir_diff.diff(K.two_stores(), K.two_stores())
    assert r.verdict in ("different", "unknown")
