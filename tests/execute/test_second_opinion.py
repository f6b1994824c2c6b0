"""``--execute`` as an independent second opinion (issue 10, class 5): it runs for every verdict
with ``always``, overrules a "same" verdict when it finds a valid counterexample, draws inputs that
meet both kernels' signatures and assumes (special values, large magnitudes and aliased arrays
among them), and never shows an input that breaks an assume as a counterexample.

The kernels are the small text kernels of ``pairs.py``.
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from tileir_diff import load
from tileir_diff.api import diff
from tileir_diff.compare.result import Execution
from tileir_diff.execute import check, infer_layout
from tileir_diff.interp import run_kernel
from tileir_diff.suite.catalog import repo_root

from . import pairs as P

# pairs whose kernels differ on valid inputs but look alike structurally
MISSED = {
    "if-branches-swapped": P.if_branches,
    "rsqrt-then-add-eps": P.rsqrt_eps,
    "exp2-then-subtract": P.exp2_shift,
    "stores-swapped": P.two_stores,
    "load-hoisted-above-store": P.load_after_store,
}


@pytest.mark.parametrize("name", sorted(MISSED))
def test_execute_always_finds_a_valid_counterexample(name):
    make = MISSED[name]
    r = diff(make(False), make(True), execute="always", trials=20, seed=0)
    assert r.execution is not None and r.execution.mode == "always"
    ex = r.execution.to_dict()
    assert ex["status"] == "diverged", ex
    assert r.verdict == "different" and r.exit_code == 1
    if "structural_verdict" in ex:  # the structural diff said "same": overruled, and said so
        assert ex["structural_verdict"] in ("identical", "equivalent")
        assert "execution found a counterexample" in r.reason
        assert "verdict overruled" in r.to_text()
    cex = ex["counterexample"]
    assert cex["kind"] == "values" and cex["left"] != cex["right"]
    if name == "load-hoisted-above-store":
        assert cex["inputs"]["aliases"] == ["array0", "array1"]
        assert "inputs alias: array0 and array1 share memory" in cex["note"]
        assert "inputs alias" in ex["message"]


def test_the_hoisted_load_differs_only_when_the_arrays_alias():
    from tileir_diff.execute import ordered_pairs
    a, b = load(P.load_after_store(False)), load(P.load_after_store(True))
    assert check(a, b, trials=20, aliasing=False).status == "no_divergence"
    # the reference orders the store to out before the second load of x
    assert frozenset((0, 1)) in ordered_pairs(a, infer_layout(a))


def test_no_alias_trials_when_no_kernel_orders_the_accesses():
    from tileir_diff.execute import ordered_pairs
    # the same hoisting, but neither kernel's tokens order the load of x and the store to out:
    # neither is written for x and out to share memory, so aliasing them proves nothing
    a, b = load(P.unordered_load_store(False)), load(P.unordered_load_store(True))
    assert ordered_pairs(a, infer_layout(a)) == set() and ordered_pairs(b, infer_layout(b)) == set()
    r = check(a, b, trials=20)
    assert r.status == "no_divergence", r.to_dict()
    assert not any(k.startswith("alias") for k in r.families)


def test_a_same_verdict_is_overruled_by_a_divergence():
    from tileir_diff.api import apply_execution
    r = diff(P.commuted(False), P.commuted(False))
    assert r.verdict == "identical"
    same = r
    r = apply_execution(same.replaced(execution=Execution(
        {"status": "diverged", "message": "diverged: array1[0] is 1.0 (left) vs 2.0 (right)",
         "counterexample": {"kind": "values", "valid": True}}, "always")))
    assert r.verdict == "different" and r.exit_code == 1
    assert r.execution.structural_verdict == "identical" and "array1[0]" in r.reason
    # a divergence that is no counterexample for both kernels (or says nothing of it) never overrules
    for cex in ({"kind": "values", "valid": False, "invalid_because": "scalar without a value"}, {"kind": "values"}):
        kept = apply_execution(same.replaced(execution=Execution(
            {"status": "diverged", "message": "diverged", "counterexample": cex}, "always")))
        assert kept.verdict == "identical" and kept.execution.structural_verdict is None
    # a divergence never touches a different or unknown verdict, nor does no divergence a same one
    r2 = diff(P.commuted(False), P.commuted(False))
    r2 = apply_execution(r2.replaced(execution=Execution({"status": "no_divergence"}, "always")))
    assert r2.verdict == "identical"


def test_really_equivalent_pair_never_diverges_across_families():
    r = diff(P.commuted(False), P.commuted(True), execute="always", trials=24, seed=0)
    assert r.verdict in ("identical", "equivalent"), r.brief()
    ex = r.execution.to_dict()
    assert ex["status"] == "no_divergence" and ex["invalid_trials"] == 0, ex
    fams = ex["families"]
    for family in ("normal", "ints", "wide", "large", "zeros", "special: signed zeros, subnormals",
                   "special: NaN, Inf", "special: extremes"):
        assert fams.get(family), (family, fams)
    assert any(k.startswith("alias") for k in fams), fams  # the store is ordered after the load
    # max/min order -0 below +0 whichever operand comes first
    maxf = lambda swap: P.kernel("\n".join([P.const("%z", "0.000000e+00"),  # noqa: E731
                                            f"  %y = maxf {'%z, %x' if swap else '%x, %z'} : {P.T}",
                                            f"  %w = minf {'%x, %y' if swap else '%y, %x'} : {P.T}",
                                            P.store("%w")]))
    assert check(load(maxf(False)), load(maxf(True)), trials=24).status == "no_divergence"


@pytest.mark.parametrize("make,family", [(P.signed_zero, "special: signed zeros"), (P.self_difference, "special: NaN")])
def test_special_values_expose_rewrites_that_normal_values_cannot(make, family):
    r = check(load(make(False)), load(make(True)), trials=20, seed=0)
    assert r.status == "diverged", r.to_dict()
    assert r.counterexample["inputs"]["family"].startswith(family)


def test_large_family_reaches_overflow():
    from tileir_diff.execute import make_plan
    from tileir_diff.execute.inputs import make_values, schedule
    rng = np.random.default_rng(0)
    for elem, lo, hi in (("f32", 80, 100), ("f16", 10, 12)):
        v, how = make_values(elem, (256,), rng, "large")
        big = np.abs(v.astype(np.float64)) >= lo
        assert 0.3 < big.mean() < 0.7 and (np.abs(v.astype(np.float64)) <= hi + 0.01).all()
        with np.errstate(over="ignore"):
            inf = np.isinf(np.exp(v[big & (v > 0)]))
        assert inf.any() and not inf.all()  # the range straddles where exp overflows in the type
    plan = make_plan(infer_layout(load(P.commuted(False))), infer_layout(load(P.commuted(True))))
    modes = [schedule(plan, k)[0] for k in range(20)]
    assert "large" in modes and sum(m.startswith("special") for m in modes) >= 2 and "normal" in modes


def test_fma_rounds_once():
    x = np.array([1 + 2 ** -12] * 16, np.float32)
    outs = []
    for fused in (True, False):
        out = np.zeros(16, np.float32)
        run_kernel(load(P.fma_or_mul_add(fused)), [x, out], (1, 1, 1))
        outs.append(float(out[0]))
    # (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; the unfused product rounds 2^-24 away first
    assert outs == [2 ** -11 + 2 ** -24, 2 ** -11]
    r = check(load(P.fma_or_mul_add(True)), load(P.fma_or_mul_add(False)), trials=4)
    assert r.status == "diverged" and r.counterexample["kind"] == "values", r.to_dict()
    from tileir_diff.interp.machine import fma_f64
    a, b, c = np.array([1 + 2.0 ** -30, 3.0, 1e308]), np.array([1 + 2.0 ** -30, 1 / 3, 2.0]), np.array([-1.0, -1.0, -1.5e308])
    got = fma_f64(a, b, c)
    assert got[0] == float(Fraction(a[0]) * Fraction(b[0]) - 1) and got[1] == float(Fraction(3) * Fraction(1 / 3) - 1)
    assert got[1] != 0.0 and got[2] == 0.5e308  # 3 * fl(1/3) - 1 is not 0; 2e308 - 1.5e308 does not overflow


def test_shape_scalar_assumed_divisible_by_16_gets_only_multiples():
    py, rust = load(P.python_order_double()), load(P.rust_order(16))
    # the Rust order (x, out, n): n is both arrays' size, so it must match them and be a multiple of 16
    r = check(py, rust, trials=20)
    assert r.status == "no_divergence" and r.invalid_trials == 0, r.to_dict()
    from tileir_diff.execute import make_plan, make_trial
    lr = infer_layout(rust)
    assert lr.slots == {2: [("shape", 0, 0), ("shape", 1, 0)]} and lr.scalars == []
    plan = make_plan(infer_layout(py), lr)
    for k in range(40):
        t = make_trial(plan, k, 0)
        assert t.arrays[0].shape == t.arrays[1].shape and t.arrays[0].shape[0] % 16 == 0, t.summary()
        assert t.arrays[0].strides == (1,) and t.arrays[1].strides == (1,)
    # the cuTile Python convention: div_by<16>/<8> on sizes and strides, div_by<128> on a pointer
    m = load(str(repo_root() / "tests" / "corpus" / "data" / "copy_divisibility.v13_4.tileirbc"))
    plan = make_plan(infer_layout(m), infer_layout(m))
    for k in range(30):
        a, b = make_trial(plan, k, 0).arrays
        assert a.shape[0] % 16 == 0 and a.shape[1] % 8 == 0 and a.strides[0] % 8 == 0, (a.shape, a.strides)
        assert all(n % 16 == 0 for n in b.shape + b.strides), (b.shape, b.strides)
    r = check(m, m, trials=8)
    assert r.status == "no_divergence" and r.invalid_trials == 0, r.to_dict()


def test_free_scalars_pair_by_position_with_small_values():
    from tileir_diff.execute import make_plan, make_trial
    a, b = load(P.if_branches(False)), load(P.if_branches(True))
    plan = make_plan(infer_layout(a), infer_layout(b))
    assert [(p.left, p.right) for p in plan.scalars] == [(6, 6)]
    values = {make_trial(plan, k, 0).scalars[0] for k in range(30)}
    assert values <= set(range(1, 6)) and {1, 5} & values and {3, 4} & values  # both branches reached


def test_one_signature_one_argument_list():
    # the same entry signature: argument 6 is z's size on the left (a dead view reads it) and a
    # plain number on the right; both kernels are called with one argument list, as a caller does
    from tileir_diff.execute import make_plan, make_trial
    a, b = load(P.scaled_with_dead_view(True)), load(P.scaled_with_dead_view(False))
    la, lb = infer_layout(a), infer_layout(b)
    assert 6 in la.slots and 6 in [s.arg for s in lb.scalars]
    plan = make_plan(la, lb)
    assert not any("no counterpart" in n for n in plan.notes), plan.notes
    for k in range(12):
        t = make_trial(plan, k, 0)
        # the right's %c takes z's size from the left's slot; the left's %zn (unused) the right's
        by_arg = {(p.left, p.right): n for n, p in enumerate(plan.scalars)}
        assert set(plan.scalar_slot) == {by_arg[(None, 6)], by_arg[(8, None)]}
        assert t.scalars[by_arg[(None, 6)]] == t.scalars[by_arg[(8, None)]] == t.arrays[2].shape[0], t.summary(plan)
    r = check(a, b, trials=12, seed=0)
    assert r.status == "no_divergence", r.to_dict()
    # a real difference on the same argument still shows
    r = check(a, load(P.scaled_with_dead_view(False, plus_one=True)), trials=12, seed=0)
    assert r.status == "diverged", r.to_dict()


def test_other_signatures_keep_values_of_their_own():
    # one more argument on one side: no one argument list; an unmatched scalar is said to get its own values
    from tileir_diff.execute import make_plan
    py, rust = load(P.python_order_double()), load(P.scaled_with_dead_view(False))
    plan = make_plan(infer_layout(py), infer_layout(rust))
    assert not plan.scalar_slot
    assert any("scalar argument 6" in n and "no counterpart" in n for n in plan.notes), plan.notes


def test_a_violated_assume_is_reported_never_a_counterexample():
    # the kernels agree whenever c (through a derived value) is even, as their assume promises
    a, b = load(P.scaled_by_scalar(False)), load(P.scaled_by_scalar(True))
    r = check(a, b, trials=12, seed=0)
    assert r.status == "no_divergence", r.to_dict()
    assert r.invalid_trials > 0 and r.trials > 0
    assert "input violates assume div_by<2> at op f0/o" in r.invalid_reason
    assert "rejected" in r.to_dict()["message"]
    from tileir_diff.interp.errors import AssumeViolation
    with pytest.raises(AssumeViolation, match=r"input violates assume div_by<2> at op f0/o\d+ .*value 3 is not a multiple"):
        run_kernel(a, [np.zeros(16, np.float32), np.zeros(16, np.float32), 3], (1, 1, 1))


def test_approx_math_is_noted_as_not_modelled():
    m = load(P.approx_exp())
    r = diff(m, m, execute="always", trials=3)
    notes = r.execution.report["notes"]
    assert any("approx math not modelled" in n and "exp" in n for n in notes), notes
    assert "note: approx math not modelled" in r.to_text()


def test_cli_execute_modes(tmp_path):
    left, right = tmp_path / "left.mlir", tmp_path / "right.mlir"
    left.write_text(P.if_branches(False))
    right.write_text(P.if_branches(True))
    cmd = [sys.executable, "-m", "tileir_diff.cli", "diff"]
    out = subprocess.run(cmd + [str(left), str(right), "--execute=always", "-f", "json"], capture_output=True,
                         text=True, cwd=repo_root())
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "different"
    assert report["execution"]["mode"] == "always" and report["execution"]["status"] == "diverged"
    # a bare --execute is auto, before or after the inputs; an identical pair is then not executed
    for args in (["--execute", str(left), str(left)], [str(left), str(left), "--execute"]):
        out = subprocess.run(cmd + args + ["-f", "json"], capture_output=True, text=True, cwd=repo_root())
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["execution"] is None
    out = subprocess.run(cmd + [str(left), str(right), "--execute=sometimes"], capture_output=True, text=True,
                         cwd=repo_root())
    assert out.returncode == 2 and "--execute" in out.stderr


def test_bare_pointers_masked_by_a_size_scalar_get_it():
    # cuTile Rust raw pointers (x, out, n) accessed through pointer tiles masked by offsets < n:
    # n is both arrays' size, as the view sizes of the cuTile Python kernel are
    py, raw = load(P.python_order_double()), load(P.rust_raw_pointers())
    r = check(py, raw, trials=20)
    assert r.status == "no_divergence" and r.invalid_trials == 0, r.to_dict()
    lr = infer_layout(raw)
    assert lr.slots == {2: [("shape", 0, 0), ("shape", 1, 0)]} and lr.scalars == []
