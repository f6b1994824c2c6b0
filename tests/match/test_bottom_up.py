"""The bottom-up stage alone: from paired operands to their users."""
from __future__ import annotations

from tileir_diff.match import BottomUp

from tests.normalize.kernels import PROLOGUE as NPROLOGUE, kernel as nkernel, load as nload, store as nstore

from .kernels import T, Pair, kernel, load, store

F = "tile<128xf32>"


def _chain(op: str) -> str:
    return kernel(load("a") + f"  %e = exp %a : {T}\n  %n = negf %e : {T}\n  %m = {op} %n, %a : {T}\n"
                  + store("st", "%m"))


def test_users_pair_from_a_paired_load():
    p = Pair(_chain("subf"))
    p.given("%a")
    assert p.run(BottomUp()) == [("%e", "%e", "bottom-up"), ("%m", "%m", "bottom-up"), ("%n", "%n", "bottom-up"),
                                 ("%st", "%st", "bottom-up")]


def test_another_op_name_stops_bottom_up():
    p = Pair(_chain("subf"), _chain("divf"))
    p.given("%a")
    assert p.run(BottomUp()) == [("%e", "%e", "bottom-up"), ("%n", "%n", "bottom-up")]


def _four_loads(lb: int):
    """Loads of one view at indices 0, 1, 0, 1 below an assumption on the view's shape."""
    prologue = NPROLOGUE.replace("shape = [%arg2]", "shape = [%n]")
    pro = f"  %n = assume bounded<{lb}, ?>, %arg2 : tile<i32>\n" + prologue
    body = "  %c0 = constant <i32: 0> : tile<i32>\n  %c1 = constant <i32: 1> : tile<i32>\n"
    for name, idx in (("a", "%c0"), ("b", "%c1"), ("c", "%c0"), ("d", "%c1")):
        body += nload(name, index=idx)
    body += (f"  %e = exp %a : {F}\n  %f = negf %b : {F}\n  %g = absf %c : {F}\n  %h = sqrt %d : {F}\n"
             f"  %s1 = subf %e, %f : {F}\n  %s2 = subf %g, %h : {F}\n  %s3 = divf %s1, %s2 : {F}\n")
    return nkernel(body + nstore("%s3"), prologue=pro)


def test_a_tie_takes_no_lesser_candidate_and_waits():
    """Loads of one view at indices 0, 1, 0, 1 (two identical pairs) below a changed assumption:
    every load's hash moves. Bottom-up from the view must pair each load with a load of the
    same index: a pair is taken only when each is the other's unique best, so the tie between
    the two index-0 loads must not let an index-0 load take an index-1 one; not strict, ties
    go to the nearest position."""
    p = Pair(_four_loads(0), _four_loads(1))
    L, R, ctx = p.L, p.R, p.ctx
    for nid in L.order:
        if L.nodes[nid].name in ("arg", "constant", "get_tile_block_id"):
            ctx.add(nid, nid, "given")
    view = next(n for n in L.order if L.nodes[n].name == "make_partition_view"
                and L.nodes[n].users and L.nodes[L.nodes[n].users[0][0]].name == "load_view_tko")
    ctx.add(view, view, "given")
    before = len(ctx.mapping)
    assert BottomUp().run(ctx, seeds=[(view, view)]) == len(ctx.mapping) - before
    loads = {l: r for l, r in ctx.mapping.l2r.items() if L.nodes[l].name == "load_view_tko"}
    assert all(L.nodes[l].operands[1][0] == R.nodes[r].operands[1][0] for l, r in loads.items()), loads
    BottomUp(strict=False).run(ctx, seeds=[(view, view)])  # ties broken: nearest position first
    loads = {l: r for l, r in ctx.mapping.l2r.items() if L.nodes[l].name == "load_view_tko"}
    assert loads == {l: l for l in loads} and len(loads) == 4
    assert {ctx.mapping.stage[l] for l in loads} == {"bottom-up"}
