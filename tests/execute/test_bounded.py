"""``--execute`` does bounded work (issue 27): steps, bytes and time per trial and per call,
SSA values freed at their last use, input sizes capped; a budget that runs out says so and never
changes a verdict."""
from __future__ import annotations

import numpy as np
import pytest

from tileir_diff import load
from tileir_diff.api import diff
from tileir_diff.execute import check
from tileir_diff.interp import Interpreter, Memory, Options, run_kernel
from tileir_diff.interp.budget import Budget
from tileir_diff.interp.errors import BudgetExceeded
from tileir_diff.interp.machine import entry_function, last_uses

from . import pairs as P

SMALL = {"max_steps_per_trial": 20_000, "max_steps_per_call": 60_000}


@pytest.mark.parametrize("trips,inner", [(999_999, 0), (1000, 1000)], ids=["one-loop-999999", "nested-1000x1000"])
def test_long_loops_hit_the_step_budget_and_keep_the_verdict(trips, inner):
    same = P.counted_loop(trips, inner)
    for other, verdict in ((same, "identical"), (P.counted_loop(trips, inner, step="2.0"), "different")):
        r = diff(same, other, execute="always", trials=4, execute_options=SMALL)
        assert r.verdict == verdict, r.brief()
        ex = r.execution.to_dict()
        assert ex["status"] == "unsupported" and ex["trials"] == 0 and "counterexample" not in ex, ex
        assert ex["budget_exceeded"].startswith("budget exceeded: more than 20,000 interpreter steps in one trial")
        assert ex["could_not_check"] == ex["budget_exceeded"] and "budget exceeded" in ex["message"]
        assert ex.get("structural_verdict") is None
        assert "budget exceeded" in r.to_text()


def test_nested_loops_count_every_inner_iteration():
    # 30 x 30 iterations of an addf and a continue (plus the outer ones): ~1,900 steps, over 1,000
    m = load(P.counted_loop(30, inner=30))
    x, out = np.zeros(16, np.float32), np.zeros(16, np.float32)
    with pytest.raises(BudgetExceeded, match="more than 1,000 interpreter steps"):
        run_kernel(m, [x, out], (1, 1, 1), options=Options(budget=Budget(max_steps=1000, what="trial")))
    budget = Budget(max_steps=10_000, what="trial")
    run_kernel(m, [x, out], (1, 1, 1), options=Options(budget=budget))
    assert (out == 900.0).all() and 1800 < budget.steps < 10_000


def test_the_call_budget_bounds_the_trials_together():
    m = load(P.counted_loop(300))  # ~600 steps per kernel run, ~1,200 per trial
    r = check(m, m, trials=20, max_steps_per_trial=5_000, max_steps_per_call=6_000)
    assert r.status == "no_divergence" and 1 <= r.trials < 20, r.to_dict()
    assert r.budget_exceeded.startswith("budget exceeded: more than 6,000 interpreter steps in one call")
    assert "stopped: budget exceeded" in r.message


def test_the_time_budget_is_enforced_inside_a_trial():
    m = load(P.counted_loop(999_999))
    r = check(m, m, trials=3, time_budget=0.5, max_steps_per_trial=10 ** 9, max_steps_per_call=10 ** 9)
    assert r.status == "unsupported" and r.trials == 0
    assert r.budget_exceeded.startswith("budget exceeded: time limit (machine too slow/overloaded): the wall-clock "
                                        "safety net ran out after"), r.budget_exceeded
    # it stopped inside the loop's body (op f0/o14 is the for), not after the loop or between trials
    assert "in one call (execute_options time_budget) (at f0/o14/r0/o" in r.budget_exceeded, r.budget_exceeded


def test_the_time_safety_net_makes_the_diff_unknown_never_a_verdict():
    """Steps are the budget (the same on any machine); the wall clock only a safety net, and what
    an execution cut short by it found or missed decides nothing."""
    m = load(P.counted_loop(999_999))
    r = diff(m, m, execute="always", trials=3, execute_options={"time_budget": 0.2, "max_steps_per_trial": 10 ** 9,
                                                                 "max_steps_per_call": 10 ** 9})
    assert r.verdict == "unknown" and r.exit_code == 3, r.brief()
    assert r.reason.startswith("execution: budget exceeded: time limit (machine too slow/overloaded)"), r.reason
    steps = diff(m, m, execute="always", trials=3)  # the default step budget: counted, the verdict stands
    assert steps.verdict == "identical"
    assert steps.execution.to_dict()["budget_exceeded"].startswith("budget exceeded: more than 500,000 interpreter")


def test_a_huge_bounded_size_gives_the_cap_message_not_memory_error():
    m = load(P.huge_bounded(1 << 30))  # x of 2^30 f32 elements: 4 GiB
    r = diff(m, m, execute="always", trials=2)
    assert r.verdict == "identical"
    ex = r.execution.to_dict()
    assert ex["status"] == "unsupported", ex
    assert ex["reason"].startswith("inputs too large: trial 0 needs"), ex["reason"]
    assert "over the cap of 256 MiB (execute_options max_input_bytes)" in ex["reason"]
    assert "array0 f32[1073741824] alone 4,096 MiB" in ex["reason"]
    # the cap is configurable: a smaller lower bound fits under a larger cap, not under a smaller one
    small = load(P.huge_bounded(1 << 20))  # 4 MiB per array
    assert check(small, small, trials=1, max_input_bytes=64 << 20).status == "no_divergence"
    assert check(small, small, trials=1, max_input_bytes=1 << 20).reason.startswith("inputs too large")


def test_one_value_over_the_cap_is_refused_before_it_is_built():
    text = P.kernel(P.store("%x")).replace("%x, %tx = load_view_tko", "%big = iota : tile<16777216xi32>\n"
                                           "  %x, %tx = load_view_tko")
    m = load(text)
    with pytest.raises(BudgetExceeded, match=r"an op would build 64 MiB of results, over the 16 MiB one value may take .*\(at f0/o8\)"):
        run_kernel(m, [np.zeros(16, np.float32), np.zeros(16, np.float32)], (1, 1, 1),
                   options=Options(budget=Budget(max_value_bytes=16 << 20)))


def test_values_leave_the_environment_after_their_last_use():
    m = load(P.counted_loop(3))
    f = entry_function(m)
    frees = last_uses(f.body)
    ops = f.body.operations
    freed = {vid: i for i, vids in enumerate(frees) for vid in vids}
    for i, op in enumerate(ops):
        for r in op.results:
            later = [j for j, o in enumerate(ops) if any(v.vid == r.vid for v in o.operands)]
            nested = [j for j, o in enumerate(ops) if o.regions and any(
                v.vid == r.vid for inner in o.walk() for v in inner.operands)]
            assert freed[r.vid] == max([i] + later + nested), (op.name, freed[r.vid])
    # after a run, the environment holds only the entry's arguments (every value of the body went)
    seen = []

    class Spy(Interpreter):
        def exec_block(self, block, env):
            out = super().exec_block(block, env)
            if block is f.body:
                seen.append(set(env))
            return out

    memory = Memory()
    x = memory.put_array(np.zeros(16, np.float32), "f32")
    o = memory.put_array(np.zeros(16, np.float32), "f32")
    Spy(m, memory).run(None, [x, 16, 1, o, 16, 1], (1, 1, 1))
    assert seen and seen[0] <= {a.vid for a in f.arguments}, seen


def test_a_budget_hit_mid_check_keeps_a_specialized_verdict_and_the_trials_run_so_far():
    from pathlib import Path
    here = Path(__file__).resolve().parents[1] / "corpus" / "independent"
    ref, port = str(here / "reference" / "softmax.f32_row_m4_n1024.tileirbc"), str(here / "softmax_ptr.tileirbc")
    full = diff(ref, port, execute="always", trials=6)
    assert full.verdict == "specialized" and full.execution.status == "no_divergence"
    r = diff(ref, port, execute="always", trials=6, execute_options={"max_steps_per_trial": 10})
    ex = r.execution.to_dict()
    assert r.verdict == "specialized" and ex["status"] == "unsupported" and ex.get("structural_verdict") is None
    assert "max_steps_per_trial" in ex["budget_exceeded"]
    with pytest.raises(TypeError, match="unknown execute option"):
        diff(ref, port, execute="always", trials=1, execute_options={"max_stepz": 10})
