"""The ``specialized`` verdict: the same computation under other assumptions/hints, proven by the
checker on the kernels with every assume and hint stripped; anything else stays ``different``."""
from __future__ import annotations

import pytest

import tileir_diff
from tileir_diff.api import accepted

from . import kernels as K


def _with_assume(text: str, predicate: str) -> str:
    """Wrap the first shape argument in ``assume predicate`` (as a frontend's specialization)."""
    return text.replace("  %0 = make_token : token\n",
                        f"  %0 = make_token : token\n  %n = assume {predicate}, %arg1 : tile<i32>\n", 1) \
        .replace("shape = [%arg1]", "shape = [%n]", 1)


def test_extra_assumption_on_the_port_is_specialized_and_says_who_assumes_more():
    base = K.exp2_sub()
    port = _with_assume(base, "div_by<16>")
    r = tileir_diff.diff(base, port)
    assert r.verdict == "specialized" and r.exit_code == 4
    assert [d.category for d in r.differences] == ["specialization"]
    assert r.differences[0].detail["assumes_more"] == "right"
    assert "right assumes more" in r.differences[0].message


def test_weaker_and_stronger_divisibility():
    a = _with_assume(K.exp2_sub(), "div_by<8>")
    b = _with_assume(K.exp2_sub(), "div_by<16>")
    r = tileir_diff.diff(a, b)
    assert r.verdict == "specialized"
    assert r.differences[0].detail["assumes_more"] == "right"
    assert tileir_diff.diff(b, a).differences[0].detail["assumes_more"] == "left"


def test_hints_only_is_specialized():
    a = K.exp2_sub()
    b = a.replace("optimization_hints=<default = {}>", "optimization_hints=<sm_90 = {num_cta_in_cga = 2}>")
    r = tileir_diff.diff(a, b)
    assert r.verdict == "specialized", r.to_text()
    assert {d.category for d in r.differences} == {"hints"}


def test_an_assumption_difference_plus_a_computation_difference_is_different():
    a = K.exp2_sub()
    b = _with_assume(K.exp2_sub(True), "div_by<16>")
    r = tileir_diff.diff(a, b)
    assert r.verdict == "different"
    assert "arith" in {d.category for d in r.differences}


def test_an_assumption_that_changes_what_is_computed_is_not_stripped_away():
    # the assume's result feeds another place than the original value did: after stripping
    # the two kernels still differ, so the verdict stays different
    a = K.upstream_and_index()
    b = a.replace("  %c1 = constant <i32: 1> : tile<i32>\n",
                  "  %c1 = constant <i32: 1> : tile<i32>\n  %ax = assume div_by<2>, %by : tile<i32>\n") \
        .replace("%by1 = addi %by, %c1", "%by1 = addi %ax, %ax")
    assert tileir_diff.diff(a, b).verdict == "different"


def test_allow_specialization_in_assert_equivalent_and_the_json_schema():
    base = K.exp2_sub()
    port = _with_assume(base, "div_by<16>")
    with pytest.raises(tileir_diff.NotEquivalent):
        tileir_diff.assert_equivalent(base, port)
    assert tileir_diff.assert_equivalent(base, port, allow="specialization").verdict == "specialized"
    r = tileir_diff.diff(base, port)
    assert accepted(r, ["specialization"]) and not accepted(r)
    import json
    data = json.loads(r.to_json())
    from tileir_diff.compare.result import SCHEMA_VERSION
    assert data["schema_version"] == SCHEMA_VERSION and data["verdict"] == "specialized"
    from tileir_diff.report.json_schema import validate
    assert not validate(data)
    with pytest.raises(ValueError):
        accepted(r, ["everything"])


def test_arguments_in_another_order_pair_by_role_and_are_one_calling_convention_root():
    base = K.exp2_sub()
    port = K.reorder_arguments(base, [2, 3, 0, 1, 4])  # output first
    r = tileir_diff.diff(base, port)
    assert r.verdict == "specialized", r.to_text()
    assert [d.category for d in r.differences] == ["signature"]
    moved = r.differences[0].detail["calling_convention"]
    assert {(m["left"], m["right"]) for m in moved} == {(0, 2), (1, 3), (2, 0), (3, 1)}
    assert any("stored" in m["role"] for m in moved)
    # the arguments pair by role, so a real bug downstream is still found and named
    wrong = K.reorder_arguments(K.exp2_sub(True), [2, 3, 0, 1, 4])
    r = tileir_diff.diff(base, wrong)
    assert r.verdict == "different"
    assert "arith" in {d.category for d in r.differences}


def test_reordered_arguments_with_a_changed_type_are_different():
    base = K.exp2_sub()
    port = K.reorder_arguments(base, [2, 3, 0, 1, 4]).replace("%arg4: tile<i32>", "%arg4: tile<i64>") \
        .replace("cmpi equal %arg4, %c0, signed : tile<i32>", "cmpi equal %arg4, %c0, signed : tile<i64>")
    r = tileir_diff.diff(base, port)
    assert r.verdict == "different"


def test_static_vs_dynamic_shape_is_a_specialization_root():
    a = K.exp2_sub()
    b = a.replace("tensor_view<?xf32, strides=[1]>", "tensor_view<64xf32, strides=[1]>") \
        .replace("shape = [%arg1], strides = [1]", "shape = [64], strides = [1]") \
        .replace("shape = [%arg3], strides = [1]", "shape = [64], strides = [1]")
    r = tileir_diff.diff(a, b)
    # the left's views are read with the size the right fixes (a static tie, issue 11): the
    # checker proves the rest, and each fixed size is one root saying the right assumes more
    assert r.verdict == "specialized", r.to_text()
    assert [d.category for d in r.differences] == ["specialization"] * 2
    assert all("static vs dynamic shape: the right fixes shape[0]" in d.message and " to 64 " in d.message
               and d.detail["assumes_more"] == "right" for d in r.differences)
    # mutant: the same fixed sizes around a real change stay different, the change named
    wrong = K.exp2_sub(True).replace("tensor_view<?xf32, strides=[1]>", "tensor_view<64xf32, strides=[1]>") \
        .replace("shape = [%arg1], strides = [1]", "shape = [64], strides = [1]") \
        .replace("shape = [%arg3], strides = [1]", "shape = [64], strides = [1]")
    r = tileir_diff.diff(a, wrong)
    assert r.verdict == "different" and "arith" in {d.category for d in r.differences}


def test_a_reordered_signature_needs_its_own_allowance():
    base = K.exp2_sub()
    port = K.reorder_arguments(base, [2, 3, 0, 1, 4])
    r = tileir_diff.diff(base, port)
    assert r.verdict == "specialized"
    assert not accepted(r, "specialization")          # the caller must pass the new order
    assert accepted(r, ["specialization", "calling-convention"])


def _rewired_shape_mutant():
    """corpus/mma_scaled_fp8 with one view's extent read from another argument (the mutation
    engine's rewire of make_tensor_view's dynamicShape[0]); its own extent argument stays in the
    signature, read by nothing but its assume."""
    from tests.mutation import engine, operators
    kernel = next(k for k in engine.corpus_kernels() if k.name == "corpus/mma_scaled_fp8")
    mutation = operators.find_mutation(kernel.module, "rewire|f0/o15|1:%32")
    assert mutation is not None
    return kernel.module, engine.validate(kernel, mutation.build).module


def test_a_use_moved_to_another_argument_of_one_signature_is_different_not_a_tie():
    """Reading arg7 where the reference reads arg11, with arg11 still taken and unused, is a wrong
    argument, not a port for inputs with arg7 == arg11: `different`, the root names the operand."""
    original, mutant = _rewired_shape_mutant()
    r = tileir_diff.diff(original, mutant)
    assert r.verdict == "different", [d.message for d in r.differences]
    assert any(d.category == "memory" and "dynamic shape[0]" in d.message for d in r.differences)
    assert not any("passes one scalar" in d.message for d in r.differences)


def _with_dead_assume_on_constant(text: str, value: int, predicate: str) -> str:
    """An extra ``assume`` whose operand is a constant and whose result nothing reads."""
    return text.replace("  %0 = make_token : token\n",
                        f"  %0 = make_token : token\n  %k = constant <i32: {value}> : tile<i32>\n"
                        f"  %ka = assume {predicate}, %k : tile<i32>\n", 1)


@pytest.mark.parametrize("value,predicate,why", [(-1, "bounded<0, ?>", "-1 is below 0"),
                                                 (12, "div_by<8>", "12 is not a multiple of 8"),
                                                 (300, "bounded<?, 255>", "300 is above 255")])
def test_an_assumption_no_input_satisfies_is_different_not_specialized(value, predicate, why):
    # found by the mutation engine (rust/bmm, an assume rewired to the constant -1): a kernel that
    # assumes something false of a constant is undefined for every launch
    base = K.exp2_sub()
    port = _with_dead_assume_on_constant(base, value, predicate)
    for r in (tileir_diff.diff(base, port), tileir_diff.diff(port, base)):
        assert r.verdict == "different", r.to_text()
        assert [d.category for d in r.differences] == ["specialization"]
        assert "can never hold" in r.differences[0].message and why in r.differences[0].message
        assert r.differences[0].detail["never_holds"]


@pytest.mark.parametrize("value,predicate", [(0, "bounded<0, ?>"), (16, "div_by<8>"), (255, "bounded<?, 255>")])
def test_an_assumption_a_constant_satisfies_is_not_flagged(value, predicate):
    # implied by the constant itself (implied-assumptions removes it) or a plain specialization
    base = K.exp2_sub()
    r = tileir_diff.diff(base, _with_dead_assume_on_constant(base, value, predicate))
    assert r.verdict in ("equivalent", "specialized"), r.to_text()
    assert not any("can never hold" in d.message for d in r.differences)
