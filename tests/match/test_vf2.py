"""The vf2 stage alone: labelled isomorphism between small leftover components, under caps."""
from __future__ import annotations

from tileir_diff.match import VF2, Limits

from .kernels import T, Pair, kernel, load, store

COPY = kernel(load("a") + store("st", "%a"))
NAMES = ["%a", "%arg0", "%arg1", "%arg2", "%bx", "%px", "%py", "%st", "%tx", "%ty"]


def test_isomorphic_leftover_components_pair():
    p = Pair(COPY)  # nothing paired: one component of ten nodes and the return on each side
    assert p.run(VF2()) == sorted([(n, n, "vf2") for n in NAMES] + [("return", "return", "vf2")])


def test_components_with_other_labels_or_over_the_cap_are_left():
    p = Pair(COPY, kernel(load("a") + f"  %e = exp %a : {T}\n" + store("st", "%e")))
    assert p.run(VF2()) == [("return", "return", "vf2")]
    p = Pair(COPY, limits=Limits(vf2_max_nodes=5))
    assert p.run(VF2()) == [("return", "return", "vf2")]
    assert p.ctx.stats["vf2_components_skipped"] == 1


def test_a_spent_step_budget_is_recorded_not_guessed():
    p = Pair(COPY, limits=Limits(vf2_max_steps=0))
    assert p.run(VF2()) == []
    assert p.ctx.limits_hit == ["vf2_max_steps=0 (leftover component of 10 nodes)"]


def test_the_step_budget_is_work_not_time(monkeypatch):
    """The least budget that pairs the component pairs it under any clock; one step less never does."""
    need = next(k for k in range(1, 1000) if not _run_with(k).ctx.limits_hit)
    import time
    ticks = iter(range(0, 10 ** 9, 1000))  # every clock read: 1000 s later
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(ticks)))
    p, q = _run_with(need), _run_with(need - 1)
    assert not p.ctx.limits_hit and len(p.ctx.mapping) == len(NAMES) + 1
    assert len(q.ctx.limits_hit) == 1 and q.ctx.limits_hit[0].startswith(f"vf2_max_steps={need - 1} (leftover")
    assert len(q.ctx.mapping) < len(p.ctx.mapping)


def _run_with(steps: int) -> Pair:
    p = Pair(COPY, limits=Limits(vf2_max_steps=steps))
    p.run(VF2())
    return p
