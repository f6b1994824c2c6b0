"""Matcher stages and limits."""
from __future__ import annotations

import pytest

from tileir_diff.compare import compute_diff
from tileir_diff.graph import FunctionGraph
from tileir_diff.match import LimitExceeded, Limits, match_functions
from tileir_diff.normalize import normalize, tag_origins

from tests.normalize.kernels import kernel, load, store

F = "tile<128xf32>"


def graphs(a, b):
    ga = FunctionGraph(normalize(tag_origins(a))[0].functions[0], 0)
    gb = FunctionGraph(normalize(tag_origins(b))[0].functions[0], 0)
    return ga, gb


def test_identical_kernels_pair_everything_by_anchors_and_exact():
    body = load("a") + load("b", view="%py") + f"  %s = addf %a, %b : {F}\n" + store("%s")
    ctx = match_functions(*graphs(kernel(body), kernel(body)))
    assert len(ctx.mapping) == len(ctx.left) == len(ctx.right)
    stages = set(ctx.mapping.stage.values())
    assert stages <= {"anchors", "exact"} and "anchors" in stages


def test_changed_op_is_paired_by_propagation_not_left_unmatched():
    a = kernel(load("a") + f"  %s = mulf %a, %a : {F}\n  %e = exp %s : {F}\n" + store("%e"))
    b = kernel(load("a") + f"  %s = divf %a, %a : {F}\n  %e = exp %s : {F}\n" + store("%e"))
    ctx = match_functions(*graphs(a, b))
    paired = {ctx.left.nodes[l].name: ctx.right.nodes[r].name for l, r in ctx.mapping.l2r.items()
              if ctx.left.nodes[l].kind == "op"}
    assert paired.get("mulf") == "divf" and paired.get("exp") == "exp"
    r = compute_diff(a, b, with_summary=False, with_lines=False)
    assert [d.category for d in r.differences] == ["arith"]
    assert "mulf -> divf" in r.differences[0].message
    assert r.differences[0].affected == ()  # exp differs in no way of its own


def test_node_limit_gives_unknown_with_reason():
    body = load("a") + store("%a")
    r = compute_diff(kernel(body), kernel(body), limits={"max_nodes": 5}, with_summary=False, with_lines=False)
    assert r.verdict == "unknown" and "max_nodes=5" in r.reason and r.exit_code == 3


def test_time_limit_raises():
    a, b = graphs(kernel(load("a") + store("%a")), kernel(load("a") + store("%a")))
    with pytest.raises(LimitExceeded, match="time budget"):
        match_functions(a, b, Limits(time_budget_s=0.0), deadline=0.0)


def test_bad_limits_are_refused():
    with pytest.raises(ValueError, match="unknown limit"):
        Limits.coerce({"max_nodez": 3})


def test_inserted_argument_does_not_shift_the_other_anchors():
    base = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"
    a = kernel(load("a") + store("%a"), args=base)
    b = kernel(load("a") + store("%a"), args="%argX: tile<f32>, " + base)
    r = compute_diff(a, b, with_summary=False, with_lines=False)
    assert r.verdict == "different"
    assert [(d.category, d.left) for d in r.differences] == [("signature", None)]
    assert "only on the right" in r.differences[0].message
