"""``--execute`` runs both kernels on the argument mapping the structural diff proved (issue 26,
item 2): arrays by role (an output-first port, an extra output), a scalar that stands for a
constant of the other side gets that constant, and a divergence overrules a verdict only when it
is a counterexample valid for both kernels under that mapping; otherwise the report says why it
could not check and the verdict stands."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from tileir_diff import load
from tileir_diff.api import diff
from tileir_diff.execute import check, infer_layout, make_plan, make_trial
from tileir_diff.execute.mapping import ArgumentMapping, from_result, parse_value

from . import pairs as P

INDEPENDENT = Path(__file__).resolve().parents[1] / "corpus" / "independent"


def _corpus(port: str, variant: str):
    return str(INDEPENDENT / "reference" / f"{variant}.tileirbc"), str(INDEPENDENT / f"{port}.tileirbc")


def _ex(r) -> dict:
    return r.execution.to_dict()


def test_output_first_port_runs_on_the_role_mapping():
    ref, port = P.python_order_double(), P.rust_out_first()
    r = diff(ref, port, execute="always", trials=12, seed=0)
    assert r.verdict == "specialized", r.brief()
    ex = _ex(r)
    assert ex["status"] == "no_divergence" and ex["invalid_trials"] == 0 and ex["could_not_check"] is None, ex
    # x (left 0) is the port's argument 1, out (left 3) its argument 0: positions would swap them
    (mapping,) = from_result(r)
    assert {(0, 1), (3, 0)} <= set(mapping.pairs)
    plan = make_plan(infer_layout(load(ref)), infer_layout(load(port)), mapping=mapping)
    assert plan.left_of == [0, 1] and plan.right_of == [1, 0] and plan.unmapped == []
    # by position the same pair compares x with out: a divergence that proves nothing
    positional = ArgumentMapping(("k", "k"), ((0, 0), (3, 1)), source="positional")
    assert check(load(ref), load(port), trials=4, mapping=[positional]).status == "diverged"


def test_output_first_port_with_a_planted_bug_diverges_validly():
    r = diff(P.python_order_double(), P.rust_out_first("3.0"), execute="always", trials=12, seed=0)
    ex = _ex(r)
    assert r.verdict == "different" and ex["status"] == "diverged", ex
    cex = ex["counterexample"]
    assert cex["valid"] is True and cex["mapping"] == "structural diff" and "invalid_because" not in cex
    assert cex["output"] == "array1" and cex["left"] * 1.5 == cex["right"]  # out: 2x on the left, 3x on the right
    assert [(a["left_arg"], a["right_arg"]) for a in cex["inputs"]["arrays"]] == [(0, 1), (3, 0)]


@pytest.mark.parametrize("port,variant", [("swiglu_out_first", "swiglu.fwd_f16"), ("softmax_ptr", "softmax.f32_row_m4_n1024"),
                                          ("vector_add_ptr", "vector_add.f32_t1024")])
def test_a_specialized_pair_stays_specialized_under_execute_always(port, variant):
    # each of these was overruled to "different" when arrays paired by position (x against out)
    r = diff(*_corpus(port, variant), execute="always", trials=12, seed=0)
    assert r.verdict == "specialized", r.brief()
    ex = _ex(r)
    assert ex["status"] == "no_divergence" and ex.get("structural_verdict") is None, ex
    assert not any("no counterpart" in n for n in ex["notes"]), ex["notes"]


@pytest.mark.parametrize("mutation", ["op-kind", "swap-noncommutative", "drop-store"])
def test_a_bug_planted_in_an_output_first_port_diverges_validly(mutation):
    from tests.compare.transforms import MUTATIONS
    ref, port = _corpus("swiglu_out_first", "swiglu.fwd_f16")
    mutant = MUTATIONS[mutation][1](load(port), random.Random(0))
    assert mutant is not None
    r = diff(ref, mutant, execute="always", trials=12, seed=0)
    ex = _ex(r)
    assert r.verdict == "different" and ex["status"] == "diverged", ex
    assert ex["counterexample"]["valid"] is True and ex["counterexample"]["output"] == "array2"  # out: the reference's 3rd


def test_a_constant_that_the_port_takes_as_an_argument_gets_that_value():
    ref, port = P.python_order_double(), P.rust_out_first("0.0", scalar=True)  # out = x * c, c for the constant 2.0
    r = diff(ref, port, execute="always", trials=12, seed=0)
    assert r.verdict == "specialized", r.brief()
    (mapping,) = from_result(r)
    assert mapping.pins == {("right", 3): 2.0}
    ex = _ex(r)
    assert ex["status"] == "no_divergence" and not ex["notes"], ex
    # the same port adding 1.0: a real difference, shown with c = 2.0 (the constant), so valid
    r = diff(ref, P.rust_out_first("1.0", scalar=True), execute="always", trials=12, seed=0)
    ex = _ex(r)
    assert r.verdict == "different" and ex["status"] == "diverged" and ex["counterexample"]["valid"] is True, ex
    assert [s["value"] for s in ex["counterexample"]["inputs"]["scalar_args"] if s["right_arg"] == 3] == [2.0]
    # without the pin, c gets values of its own: a divergence then proves nothing, and says so
    unpinned = ArgumentMapping(("k", "k"), mapping.pairs)
    res = check(load(ref), load(P.rust_out_first("0.0", scalar=True)), trials=12, mapping=[unpinned])
    assert res.status == "diverged" and res.counterexample["valid"] is False
    assert "reads scalar argument 3, to which the argument mapping gives no value" in res.counterexample["invalid_because"]
    assert res.could_not_check.startswith("the divergence is no counterexample for both kernels")


def test_an_output_only_one_side_has_is_allocated_and_not_compared():
    ref = P.python_order_double()
    extra = ref.replace(", %a5: tile<i32>)", ", %a5: tile<i32>, %aux: tile<ptr<f32>>, %an: tile<i32>, %as: tile<i32>)")
    aux_store = ("  %tva = make_tensor_view %aux, shape = [%an], strides = [%as] : tile<i32> -> " + P.TV + "\n"
                 f"  %pva = make_partition_view %tva : {P.PV}\n" + P.store("%x", "%pva", "%tok", "%ta") + "\n  return")
    port = extra.replace("  return", aux_store, 1)
    la, lb = infer_layout(load(ref)), infer_layout(load(port))
    assert len(la.arrays) == 2 and len(lb.arrays) == 3  # array lists differ: "unsupported" before
    r = diff(ref, port, execute="always", trials=12, seed=0)
    ex = _ex(r)
    assert ex["status"] == "no_divergence" and ex["could_not_check"] is None, ex
    assert any("array argument 6 has no counterpart" in n and "not compared" in n for n in ex["notes"]), ex["notes"]
    # a bug in the shared output still shows, as a valid counterexample on array1 (out)
    r = diff(ref, port.replace("2.0", "4.0"), execute="always", trials=12, seed=0)
    ex = _ex(r)
    assert ex["status"] == "diverged" and ex["counterexample"]["valid"] is True
    assert ex["counterexample"]["output"] == "array1"


def test_an_input_only_one_side_reads_makes_a_divergence_invalid():
    # the right reads a second input y (out = x + y) the reference does not have: whatever y holds
    # is made up for one kernel, so the divergence is reported but overrules nothing
    ref = P.python_order_double()
    port = ref.replace(", %a5: tile<i32>)", ", %a5: tile<i32>, %y0: tile<ptr<f32>>, %yn: tile<i32>, %ys: tile<i32>)")
    port = port.replace("  %y = mulf %x, %two", "  %tvy = make_tensor_view %y0, shape = [%yn], strides = [%ys] : "
                        f"tile<i32> -> {P.TV}\n  %pvy = make_partition_view %tvy : {P.PV}\n"
                        f"{P.load('%pvy', '%tok', '%yv', '%tyv')}\n  %y = addf %x, %yv")
    res = check(load(ref), load(port), trials=8, mapping=[ArgumentMapping(("k", "k"), tuple((k, k) for k in range(6)))])
    assert res.status == "diverged" and res.counterexample["valid"] is False
    assert "the right kernel reads array argument 6, which has no counterpart" in res.counterexample["invalid_because"]


def test_paired_arrays_of_other_ranks_or_types_cannot_be_checked_and_say_why():
    # rms_norm's arrays: x f16[2d], w f16[1d], out f16[2d], rstd f32[1d]; a mapping that pairs x
    # with w (other ranks) or with rstd (other element types) has no one buffer for both
    m = load(str(INDEPENDENT / "reference" / "rms_norm.fwd_f16_m4_n1024.tileirbc"))
    x, w, out, rstd = (a.pointer_arg for a in infer_layout(m).arrays)
    for other, why in ((w, "is 2-D and its counterpart, argument %d (right), 1-D" % w),
                       (rstd, "is f16 and its counterpart, argument %d (right), f32" % rstd)):
        res = check(m, m, trials=2, mapping=[ArgumentMapping((infer_layout(m).entry,) * 2, ((x, other),))])
        assert res.status == "unsupported" and res.trials == 0, res.to_dict()
        assert res.reason.startswith("no argument mapping to run both kernels with: array argument 0 (left) ")
        assert why in res.reason and res.could_not_check == res.reason
    # with its own mapping (one signature) the same kernel runs
    assert check(m, m, trials=2).status == "no_divergence"


def test_tie_to_a_static_extent_and_pin_values_reach_the_trial():
    ref, port = infer_layout(load(P.python_order_double())), infer_layout(load(P.rust_out_first("0.0", scalar=True)))
    mapping = ArgumentMapping(("k", "k"), ((0, 1), (1, 2), (3, 0)), pins={("right", 3): 2.5},
                              ties={("left", 4): ("argument", 1), ("left", 2): ("static", 1), ("left", 5): ("static", 1)})
    plan = make_plan(ref, port, mapping=mapping)
    assert plan.unmapped == [], plan.unmapped
    for k in range(6):
        t = make_trial(plan, k, 0)
        assert t.arrays[0].shape == t.arrays[1].shape and t.arrays[0].strides == (1,)
        assert 2.5 in t.scalars


@pytest.mark.parametrize("text,value", [("<f32: 1.442695e+00>", 1.442695), ("<i32: 8>", 8), ("<i64: -3>", -3),
                                        ("<i1: true>", True), ("<f32: inf>", float("inf")), ("nonsense", None)])
def test_pin_values_parse_from_their_text(text, value):
    assert parse_value(text) == value


def test_a_raw_pointer_sized_by_a_mask_takes_its_partners_shape():
    # a 2-D array (rows x 16) against a raw pointer whose mask (offsets < n) made it 1-D: the
    # pointer takes the 2-D shape, and n, free again, gets the value of the extent it is paired with
    rows, raw = load(P.rows_double()), load(P.rust_raw_pointers())
    la, lb = infer_layout(rows), infer_layout(raw)
    assert [a.ndim for a in la.arrays] == [2, 2] and [a.ndim for a in lb.arrays] == [1, 1] and 2 in lb.slots
    mapping = ArgumentMapping(("k", "k"), ((0, 0), (2, 1), (1, 2)))
    plan = make_plan(la, lb, mapping=mapping)
    assert plan.ndims == [2, 2] and plan.unmapped == [] and [s.arg for s in plan.right.scalars] == [2]
    n = plan.right_scalar[0]
    for k in range(6):
        t = make_trial(plan, k, 0)
        assert t.arrays[0].shape[1] == 16 and t.scalars[n] == t.arrays[0].shape[0]
    res = check(rows, raw, trials=6, mapping=mapping)  # one mapping, or one per entry pair
    assert res.status != "unsupported", res.to_dict()
