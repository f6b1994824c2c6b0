"""The rules that the cuTile Rust ports needed (identity-ops, implied-assumptions, assume-chains,
nonnegative-division): each absorbs its case (equivalent with it, different without it) and does
NOT absorb its mutant."""
from __future__ import annotations

from dataclasses import replace

import pytest

from tileir_diff.ir import Block
from tileir_diff.normalize import normalize
from .kernels import PROLOGUE, kernel, load, store, verdict
from .test_rules import assert_absorbed, assert_not_absorbed

F = "tile<128xf32>"
I32 = "tile<i32>"


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


def _loop(lb: str, step: str, assume: bool):
    """A loop over row tiles; the body indexes with the induction variable (or an assume on it)."""
    idx = "%ai" if assume else "%iv"
    head = (f"  %c0 = constant <i32: 0> : {I32}\n  %c1 = constant <i32: 1> : {I32}\n"
            f"  for %iv in ({lb} to %arg2, step {step}) : {I32} {{\n")
    body = (f"    %ai = assume bounded<0, ?>, %iv : {I32}\n" if assume else "")
    body += load("a", index=idx).replace("  %", "    %", 1) + store("%a", index=idx).replace("  %", "    %", 1)
    return kernel(head + body + "  }\n")


def test_implied_assumptions_loop_induction_variable():
    assert_absorbed(_loop("%c0", "%c1", False), _loop("%c0", "%c1", True), "implied-assumptions")


@pytest.mark.parametrize("lb,step", [("%arg2", "%c1"), ("%c0", "%arg2")])
def test_implied_assumptions_mutant_loop_bound_or_step_of_unknown_sign(lb, step):
    r = assert_not_absorbed(_loop(lb, step, False), _loop(lb, step, True), "specialization")
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
