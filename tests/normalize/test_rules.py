"""Each normalization rule: it absorbs its case (equivalent with the rule, different without it)
and it does NOT absorb its mutant (different even with every rule on). One file for the rules of
tileir_diff/normalize/rules/: the registry's checks first, then the rules that normalize what one
frontend writes, the cross-frontend idiom rules, and the rules for what cuTile Rust ports write."""
from __future__ import annotations

from dataclasses import replace

import pytest

from tileir_diff.ir import Block
from tileir_diff.normalize import REGISTRY, UnknownRuleError, normalize, select_rules
from .kernels import PROLOGUE, kernel, load, store, verdict

F = "tile<128xf32>"
I32 = "tile<i32>"


def both(a, b, rule):
    """(verdict with all rules, verdict with ``rule`` switched off). The proof step is off too
    in the second run: it may prove the same case on its own (tests/check/test_smt.py)."""
    on = verdict(a, b)
    off = verdict(a, b, disable=[rule] if rule == "smt-equivalence" else [rule, "smt-equivalence"])
    return on, off


#: Differences of assumptions or hints alone give ``specialized`` (the checker proves the
#: computation the same without them); every other difference gives ``different``.
NOT_SAME = ("different", "specialized")


def _expected(r) -> str:
    only_facts = r.differences and all(d.category in ("specialization", "hints") for d in r.differences)
    return "specialized" if only_facts else "different"


def assert_absorbed(a, b, rule):
    on, off = both(a, b, rule)
    assert on.verdict == "equivalent", on.brief()
    assert on.rules_applied.get(rule, 0) > 0, on.rules_applied
    assert off.verdict in NOT_SAME and off.verdict == _expected(off), off.brief()
    assert any(d.rule_hint == rule for d in off.differences), [d.rule_hint for d in off.differences]


def assert_not_absorbed(a, b, category=None):
    r = verdict(a, b)
    assert r.verdict in NOT_SAME and r.verdict == _expected(r), r.brief()
    if category:
        assert [d.category for d in r.differences] == [category], r.brief()
    return r


def test_registry_names_docs_and_order():
    names = list(REGISTRY)
    assert names[0] == "ssa-renaming"
    for name, rule in REGISTRY.items():
        assert name == rule.name and name == name.lower() and " " not in name
        assert "Never touches" in rule.doc() and "Absorbs" in rule.doc(), name
        assert rule.mutant


def test_unknown_and_mandatory_rules_are_refused():
    with pytest.raises(UnknownRuleError, match="no-such-rule"):
        select_rules(disable=["no-such-rule"])
    with pytest.raises(UnknownRuleError, match="cannot be switched off"):
        select_rules(disable=["ssa-renaming"])
    assert [r.name for r in select_rules(rules=[])] == ["ssa-renaming", "version-defaults"]


def test_rules_do_not_mutate_their_input():
    a = kernel(load("a") + load("b") + f"  %s = addf %a, %b : {F}\n" + store("%s"))
    before = [(op.name, op.operands, dict(op.attributes)) for op in a.walk()]
    normalize(a)
    assert before == [(op.name, op.operands, dict(op.attributes)) for op in a.walk()]


# --- ssa-renaming ------------------------------------------------------------------------------
def test_renaming_is_identical_and_operand_identity_is_not():
    a = kernel(load("a") + load("b") + f"  %s = subf %a, %b : {F}\n" + store("%s"))
    b = kernel(load("p") + load("q") + f"  %r = subf %p, %q : {F}\n" + store("%r"))
    assert verdict(a, b).verdict == "identical"
    mutant = kernel(load("a") + load("b") + f"  %s = subf %a, %a : {F}\n" + store("%s"))
    assert_not_absorbed(a, mutant, "arith")


# --- version-defaults --------------------------------------------------------------------------
def test_version_defaults_exp_rounding_absent_vs_full():
    body = load("a") + "  %e = exp %a : tile<128xf32>\n" + store("%e")
    old = kernel(body, version=(13, 2))      # exp has no rounding field before 13.3
    new = kernel(body, version=(13, 4))
    assert "rounding_mode" not in next(o for o in old.walk() if o.name == "exp").attributes
    # always on: the encoding's absent field reads as the default, so the two are identical
    assert verdict(old, new).verdict == "identical"


def test_version_defaults_mutant_exp_approx():
    a = kernel(load("a") + "  %e = exp %a : tile<128xf32>\n" + store("%e"), version=(13, 4))
    b = kernel(load("a") + "  %e = exp %a rounding<approx> : tile<128xf32>\n" + store("%e"), version=(13, 4))
    r = assert_not_absorbed(a, b, "attribute")
    assert "rounding_mode full -> approx" in r.differences[0].message or "approx" in r.differences[0].message


def test_version_defaults_sm_key_only_below_13_3():
    body = load("a") + store("%a")
    sm = kernel(body, hints=" optimization_hints=<sm_90 = {num_cta_in_cga = 2}>", version=(13, 2))
    dflt = kernel(body, hints=" optimization_hints=<default = {num_cta_in_cga = 2}>", version=(13, 3))
    assert verdict(sm, dflt).verdict == "identical"
    sm33 = kernel(body, hints=" optimization_hints=<sm_90 = {num_cta_in_cga = 2}>", version=(13, 3))
    assert_not_absorbed(sm33, dflt, "hints")


# --- empty-target-hints ------------------------------------------------------------------------
def test_empty_target_hints_vs_none():
    body = load("a") + store("%a")
    a = kernel(body, hints=" optimization_hints=<sm_90 = {}>")
    b = kernel(body, hints="")
    assert_absorbed(a, b, "empty-target-hints")


def test_empty_target_hints_mutant_nonempty():
    body = load("a") + store("%a")
    a = kernel(body, hints=" optimization_hints=<default = {num_cta_in_cga = 2}>")
    b = kernel(body, hints="")
    assert_not_absorbed(a, b, "hints")


# --- constant-dedup ----------------------------------------------------------------------------
def test_constant_dedup():
    one = "  %c = constant <f32: 1.500000e+00> : tile<128xf32>\n"
    two = "  %c2 = constant <f32: 1.500000e+00> : tile<128xf32>\n"
    a = kernel(load("a") + one + f"  %s = addf %a, %c : {F}\n  %t = mulf %s, %c : {F}\n" + store("%t"))
    b = kernel(load("a") + one + two + f"  %s = addf %a, %c : {F}\n  %t = mulf %s, %c2 : {F}\n" + store("%t"))
    assert_absorbed(a, b, "constant-dedup")


def test_constant_dedup_mutant_negative_zero():
    a = kernel(load("a") + "  %c = constant <f32: 0.000000e+00> : tile<128xf32>\n"
               f"  %s = mulf %a, %c : {F}\n" + store("%s"))
    b = kernel(load("a") + "  %c = constant <f32: -0.000000e+00> : tile<128xf32>\n"
               f"  %s = mulf %a, %c : {F}\n" + store("%s"))
    r = assert_not_absorbed(a, b, "constant")
    assert "-0.0" in r.differences[0].message


# --- cse-pure-ops ------------------------------------------------------------------------------
def test_cse_duplicate_block_id_and_view():
    a = kernel(load("a") + store("%a"))
    extra = ("  %bx2, %by2, %bz2 = get_tile_block_id : tile<i32>\n"
             "  %py2 = make_partition_view %ty : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>\n")
    b = kernel(load("a") + extra + store("%a", view="%py2", index="%bx2"))
    assert_absorbed(a, b, "cse-pure-ops")


def test_cse_mutant_different_tile_shape_view():
    v64 = "partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>"
    a = kernel(load("a") + store("%a"))
    # (well typed: the 64-wide view stores the first half of the loaded tile)
    b = kernel(load("a") + f"  %py2 = make_partition_view %ty : {v64}\n"
               "  %h = extract %a[%c0i] : tile<128xf32> -> tile<64xf32>\n"
               f"  %st = store_view_tko weak %h, %py2[%bx] token = %0 : tile<64xf32>, {v64}, tile<i32> -> token\n",
               prologue=PROLOGUE + "  %c0i = constant <i32: 0> : tile<i32>\n")
    r = verdict(a, b)
    assert r.verdict == "different" and "tile_shape" in {d.category for d in r.differences}, r.brief()


def test_cse_mutant_assume_moved_out_of_a_branch():
    # the assume holds only where the branch runs: hoisting it would assume it everywhere
    guard = ("  %c0 = constant <i32: 0> : tile<i32>\n"
             "  %g = cmpi equal %arg2, %c0, signed : tile<i32> -> tile<i1>\n")
    inside = guard + ("  if %g {\n    %as = assume div_by<16>, %arg2 : tile<i32>\n"
                      "    %u = addi %as, %as : tile<i32>\n    yield\n  }\n")
    outside = guard + ("  %as = assume div_by<16>, %arg2 : tile<i32>\n"
                       "  if %g {\n    %u = addi %as, %as : tile<i32>\n    yield\n  }\n")
    a = kernel(load("a") + inside + store("%a"))
    b = kernel(load("a") + outside + store("%a"))
    # the same computation, assumed in more places: specialized, not equivalent
    assert verdict(a, b).verdict == "specialized"


def _loop_with_branch(before_if: str, in_then: str) -> str:
    """A loop whose body computes ``%u`` before an ``if`` or inside its then-branch (which also
    stores, so that if-select leaves the branch as written)."""
    return ("  %c0 = constant <i32: 0> : tile<i32>\n  %c1 = constant <i32: 1> : tile<i32>\n"
            "  %f = for %i in (%c0 to %arg2, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {\n"
            "    %g = cmpi less_than %i, %bx, signed : tile<i32> -> tile<i1>\n" + before_if +
            "    %r = if %g -> (tile<i32>) {\n" + in_then + "  " + store("%a", name="sb", index="%i") +
            "      yield %u : tile<i32>\n"
            "    } else {\n      yield %acc : tile<i32>\n    }\n    continue %r : tile<i32>\n  }\n")


def test_cse_hoists_out_of_a_branch_into_the_enclosing_loop():
    # %u depends on the loop's values, so it leaves the if and stops in the loop body; nothing
    # leaves the loop (a nested hoist was once dropped unless some op also left the outer op)
    add = "addi %acc, %i : tile<i32>\n"
    a = kernel(load("a") + _loop_with_branch("", "      %u = " + add) + store("%a", index="%f"))
    b = kernel(load("a") + _loop_with_branch("    %u = " + add, "") + store("%a", index="%f"))
    assert verdict(a, b).verdict == "equivalent"
    # hoist-pure-ops (early) moves it too; cse-pure-ops' own hoisting is what this test is for
    r = verdict(a, b, disable=["hoist-pure-ops"])
    assert r.verdict == "equivalent" and r.rules_applied.get("cse-pure-ops", 0) > 0, r.brief()
    assert verdict(a, b, disable=["hoist-pure-ops", "cse-pure-ops", "smt-equivalence"]).verdict == "different"


def test_cse_mutant_branch_op_on_a_branch_value_stays():
    # the op uses a value the branch computes: it cannot leave the branch
    a = kernel(load("a") + _loop_with_branch("", "      %w = addi %acc, %i : tile<i32>\n"
                                                 "      %u = muli %w, %i : tile<i32>\n") + store("%a", index="%f"))
    b = kernel(load("a") + _loop_with_branch("", "      %w = addi %acc, %i : tile<i32>\n"
                                                 "      %u = muli %w, %acc : tile<i32>\n") + store("%a", index="%f"))
    assert verdict(a, b).verdict == "different"


# --- hoist-pure-ops -----------------------------------------------------------------------------
def _choice(then_arm: str) -> str:
    return (f"  %g = cmpi less_than %bx, %arg2, signed : {I32} -> tile<i1>\n"
            f"  %i = if %g -> ({I32}) {{\n{then_arm}  }} else {{\n    yield %arg2 : {I32}\n  }}\n")


def test_hoist_pure_ops_before_if_select():
    # Rust `if c { bx * 2 } else { n }` computes in the arm; a port computing bx * 2 first has an
    # if with empty arms, which if-select makes a select: the arm's op must leave it before then
    two = f"  %k = constant <i32: 2> : {I32}\n"
    before = _int_kernel(two + f"  %t = muli %bx, %k : {I32}\n" + _choice(f"    yield %t : {I32}\n"), "%i")
    inside = _int_kernel(two + _choice(f"    %t = muli %bx, %k : {I32}\n    yield %t : {I32}\n"), "%i")
    assert_absorbed(before, inside, "hoist-pure-ops")


def test_hoist_pure_ops_mutant_op_on_a_value_the_arm_loads():
    # the arm's op reads what the arm loads: it cannot move, and the two kernels differ
    loaded = (f"  %g = cmpi less_than %bx, %arg2, signed : {I32} -> tile<i1>\n"
              f"  %i = if %g -> ({F}) {{\n" + "  " + load("z") + f"    %t = addf %z, %z : {F}\n    yield %t : {F}\n"
              f"  }} else {{\n    yield %a : {F}\n  }}\n")
    a = kernel(load("a") + loaded + store("%i"))
    b = kernel(load("a") + loaded.replace("addf %z, %z", "mulf %z, %z") + store("%i"))
    r = verdict(a, b)
    assert r.verdict == "different", r.brief()
    assert "hoist-pure-ops" not in r.rules_applied, r.rules_applied


# --- dead-code ---------------------------------------------------------------------------------
def test_dead_code():
    a = kernel(load("a") + store("%a"))
    b = kernel(load("a") + "  %d = constant <i32: 1> : tile<i32>\n"
               f"  %u = exp %a : {F}\n" + store("%a"))
    assert_absorbed(a, b, "dead-code")


def test_dead_code_mutant_unused_load_and_store():
    a = kernel(load("a") + store("%a"))
    b = kernel(load("a") + load("unused", view="%py") + store("%a"))
    assert_not_absorbed(a, b, "memory")
    c = kernel(load("a") + store("%a") + store("%a", name="st2", index="%by"))
    assert_not_absorbed(a, c, "memory")


# --- commutative-operands ----------------------------------------------------------------------
@pytest.mark.parametrize("op", ["addf", "mulf", "maxf", "minf"])
def test_commutative_float_ops(op):
    a = kernel(load("a") + load("b", view="%py") + f"  %s = {op} %a, %b : {F}\n" + store("%s"))
    b = kernel(load("a") + load("b", view="%py") + f"  %s = {op} %b, %a : {F}\n" + store("%s"))
    assert_absorbed(a, b, "commutative-operands")


def test_commutative_fma_first_two_only():
    ab = load("a") + load("b", view="%py") + "  %c = constant <f32: 2.000000e+00> : tile<128xf32>\n"
    a = kernel(ab + f"  %s = fma %a, %b, %c : {F}\n" + store("%s"))
    b = kernel(ab + f"  %s = fma %b, %a, %c : {F}\n" + store("%s"))
    assert_absorbed(a, b, "commutative-operands")
    mutant = kernel(ab + f"  %s = fma %a, %c, %b : {F}\n" + store("%s"))
    assert_not_absorbed(a, mutant, "arith")


def test_commutative_mutant_subf():
    a = kernel(load("a") + load("b", view="%py") + f"  %s = subf %a, %b : {F}\n" + store("%s"))
    b = kernel(load("a") + load("b", view="%py") + f"  %s = subf %b, %a : {F}\n" + store("%s"))
    r = assert_not_absorbed(a, b, "arith")
    assert "swapped" in r.differences[0].message


def _reduce(comb: str) -> str:
    return ("  %r = reduce %a dim=0 identities=[0.000000e+00 : f32] : tile<128xf32> -> tile<f32>\n"
            "  (%l: tile<f32>, %h: tile<f32>) {\n"
            f"    %x = {comb} : tile<f32>\n    yield %x : tile<f32>\n  }}\n"
            "  %rb = reshape %r : tile<f32> -> tile<1xf32>\n"
            "  %bb = broadcast %rb : tile<1xf32> -> tile<128xf32>\n")


def test_commutative_reduce_combiner():
    a = kernel(load("a") + _reduce("addf %l, %h") + store("%bb"))
    b = kernel(load("a") + _reduce("addf %h, %l") + store("%bb"))
    assert_absorbed(a, b, "commutative-operands")
    mutant_a = kernel(load("a") + _reduce("subf %l, %h") + store("%bb"))
    mutant_b = kernel(load("a") + _reduce("subf %h, %l") + store("%bb"))
    r = assert_not_absorbed(mutant_a, mutant_b, "reduction")
    assert "combiner" in r.differences[0].message


# --- token-order -------------------------------------------------------------------------------
def test_token_order_independent_loads_and_chaining():
    # Python style: every access takes the fresh token, the store joins both loads. Chained
    # style: the load of y waits for the load of x (two reads: not observable) and the store
    # waits for the load of y, hence for both. The same order between every write and access.
    a = kernel(load("a") + load("b", view="%py") + "  %j = join_tokens %a_t, %b_t : token\n"
               + f"  %s = addf %a, %b : {F}\n" + store("%s", token="%j"))
    b = kernel(load("a") + load("b", view="%py", token="%a_t") + f"  %s = addf %a, %b : {F}\n"
               + store("%s", token="%b_t"))
    assert_absorbed(a, b, "token-order")


def test_token_order_mutant_store_no_longer_after_load_of_another_array():
    # x and y may alias (nothing in the IR says they cannot): a store to y ordered after the
    # load of x must stay ordered, whatever array each goes through.
    a = kernel(load("a") + load("b", view="%py") + f"  %s = addf %a, %b : {F}\n"
               + "  %j = join_tokens %a_t, %b_t : token\n" + store("%s", token="%j"))
    b = kernel(load("a") + load("b", view="%py") + f"  %s = addf %a, %b : {F}\n" + store("%s", token="%b_t"))
    r = assert_not_absorbed(a, b, "memory")
    assert "token" in r.differences[0].message or "orders" in r.differences[0].message


def test_token_order_mutant_store_no_longer_after_load_of_same_array():
    a = kernel(load("a", view="%py") + store("%a", token="%a_t"))
    b = kernel(load("a", view="%py") + store("%a", token="%0"))
    r = assert_not_absorbed(a, b, "memory")
    assert "token" in r.differences[0].message


def _loop(carried: bool) -> str:
    from .kernels import VIEW
    head = ("  %lb = constant <i32: 0> : tile<i32>\n  %ub = constant <i32: 4> : tile<i32>\n"
            "  %one = constant <i32: 1> : tile<i32>\n")
    body = (f"    %v, %vt = load_view_tko weak %px[%iv] token = {'%t' if carried else '%0'} : {VIEW}, tile<i32>"
            f" -> tile<128xf32>, token\n"
            f"    %s = store_view_tko weak %v, %py[%iv] token = %vt : tile<128xf32>, {VIEW}, tile<i32> -> token\n")
    if carried:
        return head + ("  %r = for %iv in (%lb to %ub, step %one) : tile<i32> iter_values(%t = %0) -> (token) {\n"
                       + body + "    continue %s : token\n  }\n")
    return head + "  for %iv in (%lb to %ub, step %one) : tile<i32> {\n" + body + "    continue\n  }\n"


def test_token_order_declined_on_one_side_is_applied_to_neither():
    # the left carries a token through the loop (token-order leaves such a function as
    # written); rewriting only the right would report its token spelling as differences too
    from tileir_diff.normalize import REGISTRY, one_sided_declines
    a = kernel(load("a") + _loop(True))
    b = kernel(load("a") + _loop(False))
    rule = REGISTRY["token-order"]
    assert rule.declines(a.functions[0], a.version) and not rule.declines(b.functions[0], b.version)
    assert one_sided_declines(a, b, [(0, 0)]) == ({}, {"token-order": {0}})
    r = verdict(a, b)
    assert r.verdict == "different"
    assert "token-order" not in r.rules_applied
    assert not any("make_token" in d.message for d in r.differences), r.brief()


def test_token_order_keeps_order_of_two_stores_to_one_array():
    two = store("%a", name="s1") + store("%a", name="s2", token="%s1", index="%by")
    swapped = store("%a", name="s2", index="%by") + store("%a", name="s1", token="%s2")
    a = kernel(load("a") + two)
    b = kernel(load("a") + swapped)
    assert verdict(a, b).verdict == "different"


# --- assumptions are never absorbed unless implied ----------------------------------------------
def test_assumption_set_difference_is_specialization():
    # bounded<1, ?> on a block id is a fact the definition does not give (bounded<0, ?> would be:
    # implied-assumptions absorbs that one, see test_implied_assumptions_*).
    a = kernel(load("a") + store("%a"))
    b = kernel(load("a", index="%as") + store("%a", index="%as"),
               prologue=PROLOGUE + "  %as = assume bounded<1, ?>, %bx : tile<i32>\n")
    r = assert_not_absorbed(a, b, "specialization")
    assert "assume bounded<1, ?>" in r.differences[0].message


def test_rules_skipped_by_op_names_would_have_done_nothing():
    """A rule with ``acts_on`` is skipped on modules without those ops: on every corpus kernel
    where that happens, running the rule anyway changes nothing; elsewhere it does act on some."""
    import tileir_diff
    from tileir_diff.dialect import OPS_BY_NAME
    from tileir_diff.normalize.util import op_names, tag_origins

    from ..conftest import corpus_files

    declared = [r for r in REGISTRY.values() if r.acts_on is not None]
    assert {r.name for r in declared} >= {"identity-ops", "assume-chains", "constant-dedup"}
    for rule in declared:
        assert rule.acts_on <= set(OPS_BY_NAME), rule.name
    skipped = {r.name: 0 for r in declared}
    acted = {r.name: 0 for r in declared}
    for path in corpus_files():
        module = tag_origins(tileir_diff.load(path))
        names = op_names(module)
        for rule in declared:
            out, n = rule.apply(module)
            if names.isdisjoint(rule.acts_on):
                skipped[rule.name] += 1
                assert n == 0 and out is module, (rule.name, path.name)
            elif n:
                acted[rule.name] += 1
    assert all(skipped.values()), skipped  # each declaration is exercised ...
    assert all(acted[name] for name in ("constant-dedup", "assume-chains", "identity-ops")), acted  # ... and live
    # the pipeline gives the same module and counts with the skips as rule by rule
    for path in corpus_files()[::25]:
        module = tag_origins(tileir_diff.load(path))
        fast, counts = normalize(module)
        slow = module
        for rule in select_rules():
            slow, n = rule.apply(slow)
            assert counts[rule.name] == n, (rule.name, path.name)
        from tileir_diff.ir.compare import module_mismatches
        assert module_mismatches(fast, slow) == [], path.name


# === the cross-frontend idiom rules ==============================================================


def _int_kernel(expr_lines: str, result: str) -> object:
    """A kernel that loads at block index f(bx), f given by ``expr_lines`` computing ``result``."""
    return kernel(expr_lines + load("a", index=result) + store("%a"))


# --- splat-constants ----------------------------------------------------------------------------
def test_splat_constants_broadcast_of_a_scalar_constant():
    python = ("  %c = constant <f32: 2.000000e+00> : tile<f32>\n  %r = reshape %c : tile<f32> -> tile<1xf32>\n"
              f"  %k = broadcast %r : tile<1xf32> -> {F}\n")
    rust = f"  %k = constant <f32: 2.000000e+00> : {F}\n"
    a = kernel(load("a") + python + f"  %s = mulf %a, %k : {F}\n" + store("%s"))
    b = kernel(load("a") + rust + f"  %s = mulf %a, %k : {F}\n" + store("%s"))
    assert_absorbed(a, b, "splat-constants")


def test_splat_constants_mutant_other_value():
    python = ("  %c = constant <f32: 2.000000e+00> : tile<f32>\n  %r = reshape %c : tile<f32> -> tile<1xf32>\n"
              f"  %k = broadcast %r : tile<1xf32> -> {F}\n")
    a = kernel(load("a") + python + f"  %s = mulf %a, %k : {F}\n" + store("%s"))
    b = kernel(load("a") + f"  %k = constant <f32: 2.500000e+00> : {F}\n  %s = mulf %a, %k : {F}\n" + store("%s"))
    assert_not_absorbed(a, b, "constant")


# --- neutral-operands ---------------------------------------------------------------------------
@pytest.mark.parametrize("op,const", [("addi", "0"), ("muli", "1"), ("subi", "0"), ("ori", "0"), ("divi", "1")])
def test_neutral_operands_integer(op, const):
    extra = " signed" if op == "divi" else ""
    a = _int_kernel("", "%bx")
    b = _int_kernel(f"  %z = constant <i32: {const}> : {I32}\n  %i = {op} %bx, %z{extra} : {I32}\n", "%i")
    assert_absorbed(a, b, "neutral-operands")


def test_neutral_operands_float_times_one_and_plus_negative_zero():
    a = kernel(load("a") + store("%a"))
    for body in (f"  %one = constant <f32: 1.000000e+00> : {F}\n  %s = mulf %a, %one : {F}\n",
                 f"  %nz = constant <f32: -0.000000e+00> : {F}\n  %s = addf %a, %nz : {F}\n"):
        assert_absorbed(a, kernel(load("a") + body + store("%s")), "neutral-operands")


def test_neutral_operands_mutants():
    a = kernel(load("a") + store("%a"))
    # x + 0.0 is not x for x = -0.0; x * 1.0 with flush_to_zero flushes subnormals; x * 1 on ints
    # with another constant
    plus_zero = kernel(load("a") + f"  %z = constant <f32: 0.000000e+00> : {F}\n  %s = addf %a, %z : {F}\n"
                       + store("%s"))
    assert_not_absorbed(a, plus_zero)
    ftz = kernel(load("a") + f"  %one = constant <f32: 1.000000e+00> : {F}\n"
                 f"  %s = mulf %a, %one flush_to_zero : {F}\n" + store("%s"))
    assert_not_absorbed(a, ftz)
    b = _int_kernel(f"  %z = constant <i32: 2> : {I32}\n  %i = muli %bx, %z : {I32}\n", "%i")
    assert_not_absorbed(_int_kernel("", "%bx"), b)


# --- mirrored-compares --------------------------------------------------------------------------
def _guarded(pred: str, lhs: str, rhs: str) -> str:
    return (f"  %c0 = constant <i32: 0> : {I32}\n  %g = cmpi {pred} {lhs}, {rhs}, signed : {I32} -> tile<i1>\n"
            f"  %i = select %g, %bx, %c0 : tile<i1>, {I32}\n")


def test_mirrored_compares():
    a = _int_kernel(_guarded("less_than", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("greater_than", "%bx", "%arg2"), "%i")
    assert_absorbed(a, b, "mirrored-compares")


def test_mirrored_compares_mutant_turned_without_swap():
    a = _int_kernel(_guarded("less_than", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("greater_than", "%arg2", "%bx"), "%i")
    assert_not_absorbed(a, b)


# --- select-min-max -----------------------------------------------------------------------------
def test_select_min_max_integer_min_and_max():
    for name, arms in (("mini", "%bx, %arg2"), ("maxi", "%arg2, %bx")):
        a = _int_kernel(f"  %i = {name} %bx, %arg2 signed : {I32}\n", "%i")
        b = _int_kernel(f"  %g = cmpi less_than %bx, %arg2, signed : {I32} -> tile<i1>\n"
                        f"  %i = select %g, {arms} : tile<i1>, {I32}\n", "%i")
        assert_absorbed(a, b, "select-min-max")


def test_select_min_max_mutants():
    a = _int_kernel(f"  %i = mini %bx, %arg2 signed : {I32}\n", "%i")
    unsigned = _int_kernel(f"  %g = cmpi less_than %bx, %arg2, unsigned : {I32} -> tile<i1>\n"
                           f"  %i = select %g, %bx, %arg2 : tile<i1>, {I32}\n", "%i")
    assert_not_absorbed(a, unsigned)
    third = _int_kernel(f"  %c = constant <i32: 3> : {I32}\n  %g = cmpi less_than %bx, %arg2, signed : {I32} -> tile<i1>\n"
                        f"  %i = select %g, %bx, %c : tile<i1>, {I32}\n", "%i")
    assert_not_absorbed(a, third)
    # floats: select(a < b, a, b) is not minf (NaN, signed zeros)
    fa = kernel(load("a") + load("b", view="%py") + f"  %s = minf %a, %b : {F}\n" + store("%s"))
    fb = kernel(load("a") + load("b", view="%py") + f"  %g = cmpf less_than ordered %a, %b : {F} -> tile<128xi1>\n"
                f"  %s = select %g, %a, %b : tile<128xi1>, {F}\n" + store("%s"))
    assert_not_absorbed(fa, fb)


# --- sub-as-add-neg -----------------------------------------------------------------------------
def test_sub_as_add_neg():
    two = load("a") + load("b", view="%py")
    a = kernel(two + f"  %s = subf %a, %b : {F}\n" + store("%s"))
    b = kernel(two + f"  %n = negf %b : {F}\n  %s = addf %n, %a : {F}\n" + store("%s"))
    assert_absorbed(a, b, "sub-as-add-neg")


def test_sub_as_add_neg_mutant_other_operand_negated():
    two = load("a") + load("b", view="%py")
    a = kernel(two + f"  %s = subf %a, %b : {F}\n" + store("%s"))
    b = kernel(two + f"  %n = negf %a : {F}\n  %s = addf %n, %b : {F}\n" + store("%s"))
    assert_not_absorbed(a, b)
    assert verdict(a, b).verdict == "different"


# --- commutative-operands: (in)equality compares ---------------------------------------------------
def test_equality_compare_operands_commute():
    a = _int_kernel(_guarded("equal", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("equal", "%bx", "%arg2"), "%i")
    assert_absorbed(a, b, "commutative-operands")


def test_ordering_compare_operands_do_not_commute():
    a = _int_kernel(_guarded("less_than", "%arg2", "%bx"), "%i")
    b = _int_kernel(_guarded("less_than", "%bx", "%arg2"), "%i")
    assert_not_absorbed(a, b)


# --- if-select ----------------------------------------------------------------------------------
def _if_min(then_arm: str) -> str:
    return (f"  %g = cmpi less_than %bx, %arg2, signed : {I32} -> tile<i1>\n"
            f"  %i = if %g -> ({I32}) {{\n{then_arm}  }} else {{\n    yield %arg2 : {I32}\n  }}\n")


def test_if_select_min_written_as_an_if():
    # cuTile Rust `if a < b { a } else { b }` against Python's min(a, b)
    a = _int_kernel(f"  %i = mini %bx, %arg2 signed : {I32}\n", "%i")
    b = _int_kernel(_if_min(f"    yield %bx : {I32}\n"), "%i")
    r = verdict(a, b)
    assert r.verdict == "equivalent", r.brief()
    assert "if-select" in r.rules_applied and "select-min-max" in r.rules_applied
    assert verdict(a, b, disable=["if-select"]).verdict == "different"


def test_if_select_mutants():
    a = _int_kernel(f"  %i = mini %bx, %arg2 signed : {I32}\n", "%i")
    # an arm that computes before yielding is control flow, not a choice between two values
    computes = _int_kernel(_if_min(f"    %c = constant <i32: 1> : {I32}\n    %t = addi %bx, %c : {I32}\n"
                                   f"    yield %t : {I32}\n"), "%i")
    assert_not_absorbed(a, computes)
    # the arms swapped: max, not min
    swapped = _int_kernel(f"  %g = cmpi less_than %bx, %arg2, signed : {I32} -> tile<i1>\n"
                          f"  %i = if %g -> ({I32}) {{\n    yield %arg2 : {I32}\n  }} else {{\n    yield %bx : {I32}\n  }}\n",
                          "%i")
    assert_not_absorbed(a, swapped)


# --- short-circuit-logic ------------------------------------------------------------------------
B1 = "tile<i1>"
_COMPARES = (f"  %c = cmpi less_than %bx, %arg2, signed : {I32} -> {B1}\n"
             f"  %x = cmpi less_than %by, %arg2, signed : {I32} -> {B1}\n")


def _logic_kernel(choice: str) -> object:
    """Loads at bx or by as ``%r``, an i1 that ``choice`` computes from %c and %x, says."""
    return _int_kernel(_COMPARES + choice + f"  %i = select %r, %bx, %by : {B1}, {I32}\n", "%i")


def _branch(then_v: str, else_v: str, make: str = "") -> str:
    return (make + f"  %r = if %c -> ({B1}) {{\n    yield {then_v} : {B1}\n  }} else {{\n"
            f"    yield {else_v} : {B1}\n  }}\n")


_FALSE = f"  %f = constant <i1: false> : {B1}\n"
_TRUE = f"  %t = constant <i1: true> : {B1}\n"


@pytest.mark.parametrize("written", ["python", "rust", "select"])
def test_short_circuit_and(written):
    # `c and x`: Python's else arm yields c, Rust's `&&` the constant false; a port may write c & x
    a = _logic_kernel(f"  %r = andi %x, %c : {B1}\n")
    b = _logic_kernel({"python": _branch("%x", "%c"), "rust": _branch("%x", "%f", _FALSE),
                       "select": _FALSE + f"  %r = select %c, %x, %f : {B1}, {B1}\n"}[written])
    assert_absorbed(a, b, "short-circuit-logic")


@pytest.mark.parametrize("written", ["python", "rust"])
def test_short_circuit_or(written):
    a = _logic_kernel(f"  %r = ori %c, %x : {B1}\n")
    b = _logic_kernel({"python": _branch("%c", "%x"), "rust": _branch("%t", "%x", _TRUE)}[written])
    assert_absorbed(a, b, "short-circuit-logic")


def test_short_circuit_python_and_rust_forms_agree():
    a = _logic_kernel(_branch("%x", "%c"))
    b = _logic_kernel(_branch("%x", "%f", _FALSE))
    assert verdict(a, b).verdict == "equivalent"


def test_short_circuit_mutants():
    # c ? x : true is !c | x; c ? false : x is !c & x; and an and is not an or
    and_ = _logic_kernel(f"  %r = andi %c, %x : {B1}\n")
    or_ = _logic_kernel(f"  %r = ori %c, %x : {B1}\n")
    assert_not_absorbed(or_, _logic_kernel(_branch("%x", "%t", _TRUE)))
    assert_not_absorbed(and_, _logic_kernel(_branch("%f", "%x", _FALSE)))
    assert_not_absorbed(and_, _logic_kernel(_branch("%c", "%x")))
    assert_not_absorbed(or_, and_)


def test_short_circuit_leaves_an_arm_that_computes():
    # an arm with an op that has an effect (a load) is control flow: the short circuit guards it
    load_arm = (f"  %r = if %c -> ({B1}) {{\n" + "  " + load("z") +
                f"    yield %x : {B1}\n  }} else {{\n    yield %c : {B1}\n  }}\n")
    r = verdict(_logic_kernel(f"  %r = andi %c, %x : {B1}\n"), _logic_kernel(load_arm))
    assert r.verdict == "different" and "short-circuit-logic" not in r.rules_applied, r.brief()


# --- if-pass-through ----------------------------------------------------------------------------
def _loop_passing(then_y: str, else_y: str, results: str, count_from: str) -> str:
    """A loop with a counter %n that an if inside it passes through (or not, as written)."""
    return ("  %c0 = constant <i32: 0> : tile<i32>\n  %c1 = constant <i32: 1> : tile<i32>\n"
            "  %f:2 = for %i in (%c0 to %arg2, step %c1) : tile<i32> iter_values(%acc = %c0, %n = %c0)"
            " -> (tile<i32>, tile<i32>) {\n"
            "    %g = cmpi less_than %i, %bx, signed : tile<i32> -> tile<i1>\n"
            f"    %r:{results} = if %g -> ({', '.join([I32] * int(results))}) {{\n" + "  " + store("%a", name="sb", index="%i") +
            f"      yield {then_y}\n    }} else {{\n      yield {else_y}\n    }}\n"
            f"    %m = addi {count_from}, %c1 : tile<i32>\n    continue %r#0, %m : tile<i32>, tile<i32>\n  }}\n")


def test_if_pass_through_rust_if_yields_every_loop_variable():
    # cuTile Rust's if in a loop also yields %n, unchanged in both arms, and the loop reads that
    python = _loop_passing(f"%i : {I32}", f"%acc : {I32}", "1", "%n").replace("%r:1", "%r").replace("%r#0", "%r")
    rust = _loop_passing(f"%i, %n : {I32}, {I32}", f"%acc, %n : {I32}, {I32}", "2", "%r#1")
    a = kernel(load("a") + python + store("%a", index="%f#1"))
    b = kernel(load("a") + rust + store("%a", index="%f#1"))
    assert_absorbed(a, b, "if-pass-through")


def test_if_pass_through_mutant_arms_yield_different_values():
    python = _loop_passing(f"%i : {I32}", f"%acc : {I32}", "1", "%n").replace("%r:1", "%r").replace("%r#0", "%r")
    # the else arm yields the other loop variable: the if's second result is not %n
    rust = _loop_passing(f"%i, %n : {I32}, {I32}", f"%acc, %acc : {I32}, {I32}", "2", "%r#1")
    a = kernel(load("a") + python + store("%a", index="%f#1"))
    b = kernel(load("a") + rust + store("%a", index="%f#1"))
    r = verdict(a, b)
    assert r.verdict == "different", r.brief()


# === the rules for what cuTile Rust ports write ==================================================


def _sum_rows(src: str, shape: str, out: str = "%s") -> str:
    return (f"  {out} = reduce {src} dim=0 identities=[0.000000e+00 : f32] : {shape} -> {F}\n"
            "  (%l: tile<f32>, %h: tile<f32>) {\n    %x = addf %l, %h : tile<f32>\n    yield %x : tile<f32>\n  }\n")


# --- identity-ops ------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["broadcast", "reshape"])
def test_identity_ops_same_type_broadcast_and_reshape(op):
    a = kernel(load("a") + store("%a"))
    b = kernel(load("a") + f"  %i = {op} %a : {F} -> {F}\n" + store("%i"))
    assert_absorbed(a, b, "identity-ops")


def test_identity_ops_identity_permute():
    cube = "tile<2x8x8xf32>"
    around = lambda perm: kernel(load("a") + f"  %c = reshape %a : {F} -> {cube}\n"  # noqa: E731
                                 + (f"  %p = permute %c [{perm}] : {cube} -> {cube}\n" if perm else "")
                                 + f"  %f = reshape {'%p' if perm else '%c'} : {cube} -> {F}\n" + store("%f"))
    assert_absorbed(around(None), around("0, 1, 2"), "identity-ops")
    # mutant: [0, 2, 1] keeps the type of a 2x8x8 tile but transposes each 8x8 slice
    assert_not_absorbed(around("0, 1, 2"), around("0, 2, 1"))


def test_identity_ops_mutant_broadcast_that_changes_shape():
    def summed(rows: int) -> str:
        wide = f"tile<{rows}x128xf32>"
        body = (load("a") + "  %r = reshape %a : tile<128xf32> -> tile<1x128xf32>\n"
                f"  %w = broadcast %r : tile<1x128xf32> -> {wide}\n" + _sum_rows("%w", wide) + store("%s"))
        return kernel(body)
    # one copy summed vs four copies summed: the shape-changing broadcast must stay
    assert_not_absorbed(summed(1), summed(4))


# --- implied-assumptions -----------------------------------------------------------------------
def _with_assume(pred: str, value: str = "%bx"):
    return kernel(load("a", index="%as") + store("%a", index="%as"),
                  prologue=PROLOGUE + f"  %as = assume {pred}, {value} : {I32}\n")


def test_implied_assumptions_block_id_nonnegative():
    a = kernel(load("a") + store("%a"))
    assert_absorbed(a, _with_assume("bounded<0, ?>"), "implied-assumptions")
    assert_absorbed(a, _with_assume("div_by<1>"), "implied-assumptions")


@pytest.mark.parametrize("pred", ["bounded<1, ?>", "bounded<0, 7>", "div_by<2>"])
def test_implied_assumptions_mutant_stronger_fact_on_block_id(pred):
    a = kernel(load("a") + store("%a"))
    r = assert_not_absorbed(a, _with_assume(pred), "specialization")
    assert pred in r.differences[0].message


def _row_loop(lb: str, step: str, assume: bool):
    """A loop over row tiles; the body indexes with the induction variable (or an assume on it)."""
    idx = "%ai" if assume else "%iv"
    head = (f"  %c0 = constant <i32: 0> : {I32}\n  %c1 = constant <i32: 1> : {I32}\n"
            f"  for %iv in ({lb} to %arg2, step {step}) : {I32} {{\n")
    body = (f"    %ai = assume bounded<0, ?>, %iv : {I32}\n" if assume else "")
    body += load("a", index=idx).replace("  %", "    %", 1) + store("%a", index=idx).replace("  %", "    %", 1)
    return kernel(head + body + "  }\n")


def test_implied_assumptions_loop_induction_variable():
    assert_absorbed(_row_loop("%c0", "%c1", False), _row_loop("%c0", "%c1", True), "implied-assumptions")


@pytest.mark.parametrize("lb,step", [("%arg2", "%c1"), ("%c0", "%arg2")])
def test_implied_assumptions_mutant_loop_bound_or_step_of_unknown_sign(lb, step):
    r = assert_not_absorbed(_row_loop(lb, step, False), _row_loop(lb, step, True), "specialization")
    assert "bounded<0, ?>" in r.differences[0].message


# --- assume-chains -----------------------------------------------------------------------------
def _chain(*preds: str, extra_use: bool = False):
    """``%n`` = assume chain on %arg2 (the tensor length). ``extra_use``: the first link's result
    also feeds an ``addi`` stored as data, so that link is seen on its own."""
    lines, prev = [], "%arg2"
    for i, p in enumerate(preds):
        lines.append(f"  %n{i} = assume {p}, {prev} : {I32}\n")
        prev = f"%n{i}"
    prologue = "".join(lines) + PROLOGUE.replace("shape = [%arg2]", f"shape = [{prev}]")
    body = load("a")
    if extra_use:
        body += (f"  %k = addi %n0, %bx : {I32}\n  %kf = itof %k signed : {I32} -> tile<f32>\n"
                 f"  %kb = reshape %kf : tile<f32> -> tile<1xf32>\n  %kt = broadcast %kb : tile<1xf32> -> {F}\n"
                 f"  %s = addf %a, %kt : {F}\n")
        return kernel(body + store("%s"), prologue=prologue)
    return kernel(body + store("%a"), prologue=prologue)


def test_assume_chains_repeat_and_order():
    python_style = _chain("div_by<8>", "bounded<0, ?>", "div_by<8>")
    rust_style = _chain("bounded<0, ?>", "div_by<8>")
    assert_absorbed(python_style, rust_style, "assume-chains")


def test_assume_chains_weaker_fact_next_to_stronger():
    assert_absorbed(_chain("div_by<16>", "div_by<8>"), _chain("div_by<16>"), "assume-chains")


def test_assume_chains_mutant_different_divisor():
    r = assert_not_absorbed(_chain("div_by<8>", "bounded<0, ?>", "div_by<8>"), _chain("bounded<0, ?>", "div_by<16>"),
                            "specialization")
    assert "div_by" in r.differences[0].message


def test_assume_chains_mutant_intermediate_value_with_another_user():
    # the addi sees only div_by<8> on one side and only bounded<0, ?> on the other
    a = _chain("div_by<8>", "bounded<0, ?>", extra_use=True)
    b = _chain("bounded<0, ?>", "div_by<8>", extra_use=True)
    assert_not_absorbed(a, b)


# --- nonnegative-division ----------------------------------------------------------------------
def _divide(x: str, d: str, floor: bool, pre: str = ""):
    """Index = x // d (floor: cuTile Python's divi rounding<negative_inf>) or trunc division."""
    rounding = " rounding<negative_inf>" if floor else ""
    pro = PROLOGUE + pre + f"  %c8 = constant <i32: 8> : {I32}\n  %q = divi {x}, {d} signed{rounding} : {I32}\n"
    return kernel(load("a", index="%q") + store("%a", index="%q"), prologue=pro)


def _modulo(x: str, d: str, floor: bool):
    """Index = x % d: cuTile Python's floor-modulo fix-up around remi, or the plain remi."""
    pro = PROLOGUE + f"  %c8 = constant <i32: 8> : {I32}\n  %r = remi {x}, {d} signed : {I32}\n"
    idx = "%r"
    if floor:
        pro += (f"  %z = constant <i32: 0> : {I32}\n"
                f"  %rn = cmpi less_than %r, %z, signed : {I32} -> tile<i1>\n"
                f"  %dn = cmpi less_than {d}, %z, signed : {I32} -> tile<i1>\n"
                "  %sg = xori %rn, %dn : tile<i1>\n"
                f"  %nz = cmpi not_equal %r, %z, signed : {I32} -> tile<i1>\n"
                "  %fix = andi %sg, %nz : tile<i1>\n"
                f"  %ad = addi %r, {d} : {I32}\n"
                f"  %m = select %fix, %ad, %r : tile<i1>, {I32}\n")
        idx = "%m"
    return kernel(load("a", index=idx) + store("%a", index=idx), prologue=pro)


def _floor_mod_lines(name: str, x: str, d: str) -> str:
    """cuTile Python's floor modulo %name = x % d: remi and its sign fix-up select."""
    return (f"  %{name}r = remi {x}, {d} signed : {I32}\n"
            f"  %{name}rn = cmpi less_than %{name}r, %z, signed : {I32} -> tile<i1>\n"
            f"  %{name}dn = cmpi less_than {d}, %z, signed : {I32} -> tile<i1>\n"
            f"  %{name}sg = xori %{name}rn, %{name}dn : tile<i1>\n"
            f"  %{name}nz = cmpi not_equal %{name}r, %z, signed : {I32} -> tile<i1>\n"
            f"  %{name}fix = andi %{name}sg, %{name}nz : tile<i1>\n"
            f"  %{name}ad = addi %{name}r, {d} : {I32}\n"
            f"  %{name} = select %{name}fix, %{name}ad, %{name}r : tile<i1>, {I32}\n")


def _modulo_of_modulo(divisor: str, floor: bool):
    """Index = (bid % D) % 8 with D = max(1, n) (%dm; n: %arg2 >= 0 by assume bounded) or 1 - n
    (%ds): floor modulos (cuTile Python) or plain remi (cuTile Rust)."""
    pro = PROLOGUE + (f"  %an = assume bounded<0, ?>, %arg2 : {I32}\n  %c1 = constant <i32: 1> : {I32}\n"
                      f"  %c8 = constant <i32: 8> : {I32}\n  %z = constant <i32: 0> : {I32}\n"
                      f"  %dm = maxi %c1, %an signed : {I32}\n  %ds = subi %c1, %an : {I32}\n")
    if floor:
        pro += _floor_mod_lines("m", "%bx", divisor) + _floor_mod_lines("k", "%m", "%c8")
    else:
        pro += f"  %m = remi %bx, {divisor} signed : {I32}\n  %k = remi %m, %c8 signed : {I32}\n"
    return kernel(load("a", index="%k") + store("%a", index="%k"), prologue=pro)


def test_nonnegative_division_floor_mod_of_a_floor_mod():
    # the inner fix-up's r + D may pass i32's bound (D up to 2^31 - 1), so its select is known
    # non-negative only as the operand its decided condition picks (the ranges' select rule);
    # tile_coords_of(t % tiles) in reference/bmm's persistent kernel is this shape
    a, b = _modulo_of_modulo("%dm", True), _modulo_of_modulo("%dm", False)
    assert_absorbed(a, b, "nonnegative-division")
    assert normalize(a)[1]["nonnegative-division"] == 2


def test_nonnegative_division_mutant_floor_mod_of_a_floor_mod_by_a_value_of_unknown_sign():
    # D = 1 - n, negative for n > 1: the inner fix-up fires (5 % -3 is -1 floored, 2 truncated, and
    # -1 % 8 = 7 against 2 % 8 = 2)
    assert_not_absorbed(_modulo_of_modulo("%ds", True), _modulo_of_modulo("%ds", False))


def test_nonnegative_division_floor_div_of_block_id():
    assert_absorbed(_divide("%bx", "%c8", True), _divide("%bx", "%c8", False), "nonnegative-division")


def test_nonnegative_division_floor_mod_of_block_id():
    assert_absorbed(_modulo("%bx", "%c8", True), _modulo("%bx", "%c8", False), "nonnegative-division")


def test_nonnegative_division_uses_bounded_assumptions():
    # %arg2 alone may be negative; with assume bounded<0, ?> it is not.
    pre = f"  %an = assume bounded<0, ?>, %arg2 : {I32}\n"
    assert_absorbed(_divide("%an", "%c8", True, pre), _divide("%an", "%c8", False, pre), "nonnegative-division")


def test_nonnegative_division_mutant_dividend_of_unknown_sign():
    r = assert_not_absorbed(_divide("%arg2", "%c8", True), _divide("%arg2", "%c8", False), "attribute")
    assert "negative_inf" in r.differences[0].message


def test_nonnegative_division_mutant_divisor_of_unknown_sign():
    # bid % n with n possibly negative: the floor fix-up can fire, so it is real code
    assert_not_absorbed(_modulo("%bx", "%arg2", True), _modulo("%bx", "%arg2", False))


def test_nonnegative_division_keeps_a_select_that_is_not_the_fixup():
    # same shape, but the true branch subtracts: not the fix-up, so never folded
    a = _modulo("%bx", "%c8", True)
    f = a.functions[0]
    ops = tuple(op.replace(name="subi") if op.name == "addi" else op for op in f.body.operations)
    b = replace(a, functions=(replace(f, body=Block(f.body.arguments, ops)),))
    n, counts = normalize(b)
    assert counts["nonnegative-division"] == 0
    assert any(op.name == "select" for op in n.walk())
    assert normalize(a)[1]["nonnegative-division"] == 1


def test_assume_chains_same_facts_written_twice_become_one_value():
    # a repeated assume on a value that already carries the fact (its other users keep it)
    once = _chain("bounded<0, ?>", extra_use=True)
    twice = _chain("bounded<0, ?>", "bounded<0, ?>", extra_use=True)
    assert_absorbed(once, twice, "assume-chains")


def test_assume_chains_mutant_unused_assume_stays():
    # an assume nobody uses still states a fact: it is not folded away
    a = _chain("bounded<0, ?>")
    b = kernel(load("a") + store("%a"), prologue=f"  %n0 = assume bounded<0, ?>, %arg2 : {I32}\n"
               f"  %u = assume div_by<4>, %n0 : {I32}\n" + PROLOGUE.replace("shape = [%arg2]", "shape = [%n0]"))
    r = assert_not_absorbed(a, b, "specialization")
    assert "div_by<4>" in r.differences[0].message


def test_identity_ops_bitcast_to_its_own_type():
    i = "tile<128xi32>"
    a = kernel(load("a") + f"  %b = bitcast %a : {F} -> {i}\n  %c = bitcast %b : {i} -> {F}\n" + store("%c"))
    b = kernel(load("a") + f"  %b = bitcast %a : {F} -> {i}\n  %s = bitcast %b : {i} -> {i}\n"
               f"  %c = bitcast %s : {i} -> {F}\n" + store("%c"))
    assert_absorbed(a, b, "identity-ops")
    # mutant: a bitcast between two types reinterprets the bits
    assert_not_absorbed(kernel(load("a") + store("%a")),
                        kernel(load("a") + f"  %b = bitcast %a : {F} -> {i}\n  %c = bitcast %b : {i} -> {F}\n"
                               + f"  %d = absf %c : {F}\n" + store("%d")))


def _two_facts(extra: str = "", first_use: str = "%n0") -> object:
    """A shape with div_by<4> then bounded<0, ?> (``extra`` lines after the first assume)."""
    return kernel(load("a") + store("%a"), prologue=f"  %n0 = assume div_by<4>, %arg2 : {I32}\n{extra}"
                  f"  %n1 = assume bounded<0, ?>, {first_use} : {I32}\n"
                  + PROLOGUE.replace("shape = [%arg2]", "shape = [%n1]"))


def test_assume_chains_a_dead_user_does_not_keep_a_folded_assume():
    # an unused absi of the first assume: dead-code removes it, so the chain reads the same
    a = _two_facts()
    b = _two_facts(extra=f"  %dead = absi %n0 : {I32}\n")
    assert verdict(a, b).verdict == "equivalent"


def test_assume_chains_an_unused_copy_restating_a_used_fact_goes():
    # the first assume duplicated and its use moved to the copy: the original is left unused,
    # stating what the used chain states
    a = _two_facts()
    b = _two_facts(extra=f"  %n0b = assume div_by<4>, %arg2 : {I32}\n", first_use="%n0b")
    assert verdict(a, b).verdict == "equivalent"


def _min_as_if(other: str = "8") -> str:
    """``if x < 8 { x } else { 8 }`` with each 8 its own constant op, the arm making its own."""
    return ("  %eight = constant <i32: 8> : tile<i32>\n"
            "  %lt = cmpi less_than %arg2, %eight, signed : tile<i32> -> tile<i1>\n"
            "  %q = if %lt -> (tile<i32>) {\n    yield %arg2 : tile<i32>\n  } else {\n"
            f"    %k = constant <i32: {other}> : tile<i32>\n    yield %k : tile<i32>\n  }}\n")


def test_min_as_if_with_a_constant_arm_is_mini():
    from tileir_diff.compare import compute_diff
    from .kernels import kernel, load, store
    py = kernel("  %eight = constant <i32: 8> : tile<i32>\n  %q = mini %arg2, %eight signed : tile<i32>\n"
                + load("a", index="%q") + store("%a"))
    rs = kernel(_min_as_if() + load("a", index="%q") + store("%a"))
    r = compute_diff(py, rs, with_summary=False, with_lines=False, disable=["smt-equivalence"])
    assert r.verdict == "equivalent", r.brief()
    assert r.rules_applied.get("if-select") and r.rules_applied.get("select-min-max"), r.rules_applied


def test_mutant_min_as_if_with_another_constant_stays_different():
    from tileir_diff.compare import compute_diff
    from .kernels import kernel, load, store
    py = kernel("  %eight = constant <i32: 8> : tile<i32>\n  %q = mini %arg2, %eight signed : tile<i32>\n"
                + load("a", index="%q") + store("%a"))
    rs = kernel(_min_as_if("7") + load("a", index="%q") + store("%a"))
    r = compute_diff(py, rs, with_summary=False, with_lines=False)
    assert r.verdict == "different", r.brief()


# --- zero-minus-under-exp --------------------------------------------------------------------------
def _exp_of(neg: str, reader: str = "exp") -> str:
    return load("a") + neg + f"  %e = {reader} %n : {F}\n" + store("%e")


_NEGF = f"  %n = negf %a : {F}\n"
_ZSUB = f"  %z = constant <f32: 0.0> : {F}\n  %n = subf %z, %a : {F}\n"


def test_zero_minus_under_exp():
    assert_absorbed(kernel(_exp_of(_NEGF)), kernel(_exp_of(_ZSUB)), "zero-minus-under-exp")
    assert_absorbed(kernel(_exp_of(_NEGF, "exp2")), kernel(_exp_of(_ZSUB, "exp2")), "zero-minus-under-exp")


def test_zero_minus_under_exp_mutant_another_reader():
    # -x * y keeps the sign of a zero x: 0 - x is not -x there
    body = f"  %m = mulf %n, %a : {F}\n  %e = exp %n : {F}\n  %t = addf %m, %e : {F}\n" + store("%t")
    assert_not_absorbed(kernel(load("a") + _NEGF + body), kernel(load("a") + _ZSUB + body))


def test_zero_minus_under_exp_an_unused_reader_does_not_count():
    """A mulf of the difference that nothing reads (dead code on one side) does not keep 0 - x
    as written: the exp alone reads it once dead-code has run."""
    dead = f"  %unused = mulf %n, %a : {F}\n"
    b = kernel(load("a") + _ZSUB + dead + f"  %e = exp %n : {F}\n" + store("%e"))
    assert_absorbed(kernel(_exp_of(_NEGF)), b, "zero-minus-under-exp")
    assert verdict(kernel(_exp_of(_NEGF)), b).rules_applied.get("dead-code", 0) >= 1


def test_zero_minus_under_exp_mutant_negative_zero_or_ftz():
    neg_zero = f"  %z = constant <f32: -0.0> : {F}\n  %n = subf %z, %a : {F}\n"
    r = assert_not_absorbed(kernel(_exp_of(f"  %z = constant <f32: 1.0> : {F}\n  %n = subf %z, %a : {F}\n")),
                            kernel(_exp_of(neg_zero)))
    assert r.rules_applied.get("zero-minus-under-exp", 0) == 0
    ftz = f"  %z = constant <f32: 0.0> : {F}\n  %n = subf %z, %a flush_to_zero : {F}\n"
    r = verdict(kernel(_exp_of(_NEGF)), kernel(_exp_of(ftz)))
    assert r.rules_applied.get("zero-minus-under-exp", 0) == 0


# --- conversion-before-shape-ops -----------------------------------------------------------------
_H = "tile<128xf16>"


def _convert_then_reshape() -> str:
    """f32 -> f16 -> f32 around a reshape to 1x128 and back, each conversion before the reshape."""
    return (load("a") + f"  %h = ftof %a : {F} -> {_H}\n  %r = reshape %h : {_H} -> tile<1x128xf16>\n"
            "  %w = ftof %r : tile<1x128xf16> -> tile<1x128xf32>\n"
            f"  %s = reshape %w : tile<1x128xf32> -> {F}\n" + store("%s"))


def _reshape_then_convert(target: str = "f16", rounding: str = "") -> str:
    return (load("a") + "  %r = reshape %a : tile<128xf32> -> tile<1x128xf32>\n"
            f"  %h = ftof %r{rounding} : tile<1x128xf32> -> tile<1x128x{target}>\n"
            f"  %w = ftof %h : tile<1x128x{target}> -> tile<1x128xf32>\n"
            f"  %s = reshape %w : tile<1x128xf32> -> {F}\n" + store("%s"))


def _transposed(convert_first: bool, shape=(2, 64)) -> str:
    """a seen as ``shape``, transposed, flattened; converted to f16 and back before or after."""
    r, c = shape
    if convert_first:
        head = f"  %h = ftof %a : {F} -> {_H}\n  %b = ftof %h : {_H} -> {F}\n  %v = reshape %b : {F} -> tile<{r}x{c}xf32>\n"
        tail = f"  %t = permute %v [1, 0] : tile<{r}x{c}xf32> -> tile<{c}x{r}xf32>\n"
        out = "%t"
    else:
        head = f"  %v = reshape %a : {F} -> tile<{r}x{c}xf32>\n"
        tail = (f"  %t = permute %v [1, 0] : tile<{r}x{c}xf32> -> tile<{c}x{r}xf32>\n"
                f"  %h = ftof %t : tile<{c}x{r}xf32> -> tile<{c}x{r}xf16>\n"
                f"  %b = ftof %h : tile<{c}x{r}xf16> -> tile<{c}x{r}xf32>\n")
        out = "%b"
    return load("a") + head + tail + f"  %s = reshape {out} : tile<{c}x{r}xf32> -> {F}\n" + store("%s")


def test_conversion_before_shape_ops():
    assert_absorbed(kernel(_convert_then_reshape()), kernel(_reshape_then_convert()), "conversion-before-shape-ops")
    assert_absorbed(kernel(_transposed(True)), kernel(_transposed(False)), "conversion-before-shape-ops")


def test_conversion_before_shape_ops_mutants():
    # another target type, another rounding mode: the conversions stay as written and differ
    assert_not_absorbed(kernel(_convert_then_reshape()), kernel(_reshape_then_convert("bf16")))
    assert_not_absorbed(kernel(_convert_then_reshape()), kernel(_reshape_then_convert(rounding=" rounding<zero>")))
    # a reshape to another shape before the transpose moves the elements elsewhere
    assert_not_absorbed(kernel(_transposed(True)), kernel(_transposed(False, (64, 2))))


# --- masked-pointer-as-view ----------------------------------------------------------------------
def _pointer_copy(pred: str = "less_than", width: str = "i64", pad: str = "0.0", scale: int = 128,
                  signed: str = "signed") -> str:
    """x copied to y through pointers: indices bx * scale + iota(128) in ``width`` bits, each
    access masked by ``idx pred n``, the load padded with ``pad``."""
    P = "tile<128xptr<f32>>"
    I = f"tile<128x{width}>"
    widen = (lambda v, name: f"  %{name} = exti {v} signed : tile<i32> -> tile<i64>\n") if width == "i64" else \
        (lambda v, name: f"  %{name} = addi {v}, %zero32 : tile<i32>\n")
    body = ("  %zero32 = constant <i32: 0> : tile<i32>\n" + widen("%bx", "b") + widen("%arg2", "n")
            + f"  %c = constant <{width}: {scale}> : tile<{width}>\n  %s = muli %b, %c : tile<{width}>\n"
            f"  %i = iota : {I}\n  %sr = reshape %s : tile<{width}> -> tile<1x{width}>\n"
            f"  %sb = broadcast %sr : tile<1x{width}> -> {I}\n  %idx = addi %i, %sb : {I}\n"
            f"  %nr = reshape %n : tile<{width}> -> tile<1x{width}>\n  %nb = broadcast %nr : tile<1x{width}> -> {I}\n"
            f"  %m = cmpi {pred} %idx, %nb, {signed} : {I} -> tile<128xi1>\n"
            f"  %pad = constant <f32: {pad}> : {F}\n")
    for name, arg in (("x", "%arg0"), ("y", "%arg1")):
        body += (f"  %{name}r = reshape {arg} : tile<ptr<f32>> -> tile<1xptr<f32>>\n"
                 f"  %{name}b = broadcast %{name}r : tile<1xptr<f32>> -> {P}\n"
                 f"  %{name}p = offset %{name}b, %idx : {P}, {I} -> {P}\n")
    return body + (f"  %a, %at = load_ptr_tko weak %xp, %m, %pad token=%0 : {P}, tile<128xi1>, {F} -> {F}, token\n"
                   f"  %st = store_ptr_tko weak %yp, %a, %m token=%0 : {P}, {F}, tile<128xi1> -> token\n")


_UNPADDED = (PROLOGUE.replace("%px = make_partition_view %tx : partition_view<tile=(128), ",
                              "%px = make_partition_view %tx : partition_view<tile=(128), padding_value = zero, "))


def _view_copy() -> str:
    view = "partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>"
    return (f"  %a, %a_t = load_view_tko weak %px[%bx] token = %0 : {view}, tile<i32> -> {F}, token\n"
            + store("%a"))


def test_masked_pointer_as_view():
    r = verdict(kernel(_view_copy(), prologue=_UNPADDED), kernel(_pointer_copy()))
    assert r.verdict == "equivalent", r.brief()
    assert r.rules_applied.get("masked-pointer-as-view") == 2, r.rules_applied


def test_masked_pointer_as_view_mutants():
    left = kernel(_view_copy(), prologue=_UNPADDED)
    for right in (_pointer_copy(pred="less_than_or_equal"), _pointer_copy(width="i32"), _pointer_copy(pad="-0.0"),
                  _pointer_copy(scale=64), _pointer_copy(signed="unsigned")):
        r = verdict(left, kernel(right))
        assert r.verdict == "different", r.brief()
