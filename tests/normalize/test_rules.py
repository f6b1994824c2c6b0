"""Each normalization rule: it absorbs its case (equivalent with the rule, different without it)
and it does NOT absorb its mutant (different even with every rule on)."""
from __future__ import annotations

import pytest

from tileir_diff.normalize import REGISTRY, UnknownRuleError, normalize, select_rules
from .kernels import kernel, load, store, verdict

F = "tile<128xf32>"


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
               prologue=__import__("tests.normalize.kernels", fromlist=["PROLOGUE"]).PROLOGUE
               + "  %c0i = constant <i32: 0> : tile<i32>\n")
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
               prologue=__import__("tests.normalize.kernels", fromlist=["PROLOGUE"]).PROLOGUE
               + "  %as = assume bounded<1, ?>, %bx : tile<i32>\n")
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
