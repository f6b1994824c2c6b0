"""The stage list: its names are the provenance tags, and no stage pairs across region paths."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import tileir_diff.match.stages as stages_pkg
from tileir_diff.match import (DEFAULT_STAGES, VF2, Anchors, BottomUp, Exact, MatchContext, RelativeExact, SameIO,
                               Stage, TopDown, leaf_stages, match_functions)
from tileir_diff.match.stage import Composite

from tests.check.kernels import guarded_store, two_stores

from .kernels import ARGS, T, Pair, branch_stores, crosses_region_paths, kernel, load, store

#: the tags the result's ``mapping`` and ``pairs_by_stage`` show (docs/matching.md)
TAGS = {"anchors", "exact", "exact-relative", "top-down", "bottom-up", "same-io", "vf2"}


def _scaled(op: str, c: str) -> str:
    return kernel(load("a") + f"  %c = constant <f32: {c}> : {T}\n  %m = {op} %a, %c : {T}\n  %e = exp %m : {T}\n"
                  + store("st", "%e"))


def _same_inputs(op: str) -> str:
    return kernel(load("a") + f"  %m = {op} %a, %a : {T}\n  %e = exp %m : {T}\n" + store("st", "%e"))


def _slot(src: str) -> str:
    return kernel(load("a") + load("b", index="%by") + f"  %u = {src} : {T}\n  %n = negf %u : {T}\n"
                  f"  %s = addf %n, %a : {T}\n" + store("st", "%s"))


CASES = [
    (_scaled("mulf", "2.0"), _scaled("mulf", "2.0")),
    (_scaled("mulf", "2.0"), _scaled("mulf", "3.0")),
    (_scaled("mulf", "2.0"), _scaled("divf", "2.0")),
    (_same_inputs("mulf"), _same_inputs("divf")),
    (_slot("exp %a"), _slot("absf %b")),
    (kernel(load("a") + store("st", "%a")), kernel(load("a") + store("st", "%a"), args="%argX: tile<f32>, " + ARGS)),
    (branch_stores(), branch_stores(swapped=True)),
    (guarded_store(), guarded_store(in_else=True)),
    (two_stores(), two_stores(swapped=True)),
]


def test_the_stage_list_names_exactly_the_provenance_tags():
    leaves = list(leaf_stages(DEFAULT_STAGES))
    assert {s.name for s in leaves} == TAGS
    assert all(not isinstance(s, Composite) for s in leaves)
    # every primitive stage of the package runs somewhere in the list
    kinds = {type(s) for s in leaves}
    assert kinds == {getattr(stages_pkg, n) for n in stages_pkg.__all__
                     if isinstance(getattr(stages_pkg, n), type) and issubclass(getattr(stages_pkg, n), Stage)
                     and not issubclass(getattr(stages_pkg, n), Composite)}


def test_the_documented_list_is_the_list():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "matching.md").read_text()
    block = doc.split("DEFAULT_STAGES = (", 1)[1].split("```", 1)[0]
    assert re.findall(r"(\w+)\(", block) == re.findall(r"(\w+)\(", repr(tuple(DEFAULT_STAGES)))
    for leaf in leaf_stages(DEFAULT_STAGES):
        assert f"| `{leaf.name}` | `{type(leaf).__name__}`" in doc


def test_every_pair_carries_the_name_of_the_stage_that_made_it(monkeypatch):
    """Each primitive stage of the list, watched while the whole list runs: the pairs it adds
    are tagged with its own name and its count is right; the tags in the mappings are the
    stage names (vf2 finds nothing left on these: tests/match/test_vf2.py runs it alone)."""
    wrong, seen = [], set()
    for leaf in set(leaf_stages(DEFAULT_STAGES)):
        def watched(ctx, seeds=None, _leaf=leaf, _run=leaf.run):
            before = set(ctx.mapping.l2r)
            n = _run(ctx, seeds=seeds)
            new = [l for l in ctx.mapping.l2r if l not in before]
            if n != len(new) or any(ctx.mapping.stage[l] != _leaf.name for l in new):
                wrong.append((_leaf.name, n, [(l, ctx.mapping.stage[l]) for l in new]))
            return n
        monkeypatch.setattr(leaf, "run", watched)
    for a, b in CASES:
        ctx = match_functions(*Pair(a, b).ctx_graphs())
        tags = set(ctx.mapping.stage.values())
        assert tags <= TAGS and set(ctx.stats["pairs_by_stage"]) == tags
        seen |= tags
    assert not wrong, wrong
    assert seen == TAGS - {"vf2"}


def test_match_functions_runs_the_list_it_is_given():
    L, R = Pair(_scaled("mulf", "2.0")).ctx_graphs()
    ctx = match_functions(L, R, stages=[Anchors()])
    assert set(ctx.mapping.stage.values()) == {"anchors"} and len(ctx.mapping) < len(L)
    ctx = match_functions(L, R, stages=[Exact()])
    assert set(ctx.mapping.stage.values()) == {"exact"} and len(ctx.mapping) == len(L)


# --- region paths ---------------------------------------------------------------------------------
# branch_stores: the left then-branch stores %a and the else-branch %b, the right the other way
# round; the left then-store and the right else-store are the same op (equal hashes).

def _branch_pair():
    p = Pair(branch_stores(), branch_stores(swapped=True))
    return p, p.lid("%s1"), p.lid("%s2"), p.rid("%s1"), p.rid("%s2")


def test_the_gate_refuses_a_then_branch_op_against_an_else_branch_op():
    p, then_l, else_l, then_r, else_r = _branch_pair()
    assert p.L.nodes[then_l].merkle_key == p.R.nodes[else_r].merkle_key  # the same store, in the other branch
    assert not p.ctx.add(then_l, else_r, "test")  # parents not paired yet: still another region
    p.given("if")
    assert not p.ctx.add(then_l, else_r, "test") and not p.ctx.add(else_l, then_r, "test")
    assert not p.ctx.add(then_l, p.rid("%a"), "test")  # a branch's op and a top-level op
    assert p.ctx.add(then_l, then_r, "test")  # same region of paired parents (their inputs differ)


def test_a_region_op_pairs_only_with_the_parent_of_its_childrens_pairs():
    p, then_l, _, then_r, _ = _branch_pair()
    assert p.ctx.add(then_l, then_r, "test")  # parents not paired yet: allowed, and binding
    # (the gate is all that stops these: the ops are unpaired and at the same top level)
    assert not p.ctx.add(p.lid("if"), p.rid("%a"), "test")  # its child's counterpart is not in %a
    assert not p.ctx.add(p.lid("%a"), p.rid("if"), "test")  # the right if's child is paired elsewhere
    assert p.ctx.add(p.lid("if"), p.rid("if"), "test")


STAGES_ALONE = [Anchors(), Exact(), RelativeExact(), TopDown(), TopDown(strict=True), BottomUp(),
                BottomUp(strict=False), SameIO(), VF2()]


@pytest.mark.parametrize("stage", STAGES_ALONE, ids=repr)
@pytest.mark.parametrize("case", [0, 1], ids=["stores-swapped", "store-moved-to-else"])
def test_no_stage_pairs_across_region_paths(stage, case):
    """Each stage alone on kernels whose branch bodies trade places, once from nothing and once
    with everything outside the branches paired: every pair it makes stays in one region path
    (parents paired with each other, or both still unpaired and then bound to pair together)."""
    a, b = [(branch_stores(), branch_stores(swapped=True)), (guarded_store(), guarded_store(in_else=True))][case]
    for pre in (False, True):
        p = Pair(a, b)
        if pre:
            p.given_all_but(*[n for n, nid in p.lids.items() if "/r" in nid])
        p.run(stage)
        assert crosses_region_paths(p.ctx) == [], (stage, pre)


def test_the_whole_list_keeps_region_paths_and_the_gate_is_what_refuses(monkeypatch):
    refused = []
    gate = MatchContext._same_region_path

    def watched(self, x, y):
        ok = gate(self, x, y)
        if not ok:
            refused.append((x.nid, y.nid))
        return ok
    monkeypatch.setattr(MatchContext, "_same_region_path", watched)
    p, then_l, else_l, then_r, else_r = _branch_pair()
    ctx = match_functions(p.L, p.R)
    assert crosses_region_paths(ctx, pending=False) == []
    assert (then_l, else_r) in refused  # exact tried the equal store of the other branch
    assert ctx.mapping.l2r[then_l] == then_r and ctx.mapping.l2r[else_l] == else_r
