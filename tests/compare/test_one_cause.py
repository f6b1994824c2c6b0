"""One cause, one root (issue 11 class 4): differences that follow from another are listed under it."""
from __future__ import annotations

from tileir_diff.compare import compute_diff

from ..normalize.kernels import kernel, load, store


def _diff(a, b):
    return compute_diff(a, b, with_summary=False, with_lines=False)


def _persistent(view: str) -> str:
    """A grid-stride loop over the tiles: load x, store into ``view`` at each tile index."""
    return ("  %one = constant <i32: 1> : tile<i32>\n  %gx, %gy, %gz = get_num_tile_blocks : tile<i32>\n"
            "  for %iv in (%bx to %arg2, step %gx) : tile<i32> {\n"
            + load("a", index="%iv").replace("  %", "    %", 1)
            + store("%a", view=view, index="%iv").replace("  %", "    %", 1)
            + "    continue\n  }\n")


def test_a_store_moved_into_a_persistent_loop_is_the_loop_root():
    one_tile = kernel(load("a") + store("%a"))
    r = _diff(one_tile, kernel(_persistent("%py")))
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.category == "control_flow" and "for" in d.message and "only on the right" in d.message
    assert "store_view_tko" in d.message and "outside any region" in d.message


def test_mutant_the_loop_stores_into_another_array_stays_two_roots():
    # the loop's store writes x (%px), not y: the left's store to y is a deletion of its own
    one_tile = kernel(load("a") + store("%a"))
    r = _diff(one_tile, kernel(_persistent("%px")))
    assert r.verdict == "different"
    msgs = [d.message for d in r.differences]
    assert any("store_view_tko" in m and "only on the left" in m for m in msgs), msgs
    assert not any("outside any region" in m for m in msgs), msgs


# --- a formula written another way (classify.Classifier._fold_formula_cascades) ---------------
T = "tile<128xf32>"


def _sigmoid_divided() -> str:
    """x / (1 + exp(-x)): the reference's SiLU."""
    return (f"  %one = constant <f32: 1.0> : {T}\n  %n = negf %a : {T}\n  %e = exp %n : {T}\n"
            f"  %s = addf %one, %e : {T}\n  %q = divf %a, %s : {T}\n")


def _sigmoid_exp2(x: str = "%a") -> str:
    """x * (e / (1 + e)), e = exp2(x * log2 e): the port's SiLU (NaN for large x)."""
    return (f"  %one = constant <f32: 1.0> : {T}\n  %c = constant <f32: 1.44269502> : {T}\n"
            f"  %m = mulf %a, %c : {T}\n  %e = exp2 %m : {T}\n  %s = addf %one, %e : {T}\n"
            f"  %q = divf %e, %s : {T}\n  %p = mulf {x}, %q : {T}\n")


def _silu_mul(gate_at=None, **right):
    """(left, right) kernels: silu(a) * gate, the gate ``a`` itself or a load of y at ``gate_at``;
    ``right``: ``right_gate_at`` (the right's gate load), ``ftz`` (on the right's product), ``x`` and
    ``extra`` (what the right multiplies the sigmoid by, and ops before it)."""
    def side(sigmoid, value, index, ftz=""):
        gate = load("g", view="%py", index=index) if index else ""
        return kernel(load("a") + gate + sigmoid + f"  %w = mulf {value}, {'%g' if gate else '%a'}{ftz} : {T}\n"
                      + store("%w"))
    left = side(_sigmoid_divided(), "%q", gate_at)
    return left, side(right.get("extra", "") + _sigmoid_exp2(right.get("x", "%a")), "%p",
                      right.get("right_gate_at", gate_at), right.get("ftz", ""))


def test_a_formula_written_another_way_is_one_root_with_both_expressions():
    r = _diff(*_silu_mul())
    assert r.verdict == "different"
    assert len(r.differences) == 1, r.brief()
    (d,) = r.differences
    assert d.category == "arith"
    assert "exp (" in d.message and "-> exp2 (" in d.message
    # both sides' expressions where the two formulas meet again, the whole formula
    assert "the formula reaching mulf lhs (operand 0) changes with it: divf(L%tile, (1.0 + exp(-L%tile))) -> " \
           "divf(exp2((1.4426950216293335 * R%tile)), (1.0 + exp2(" in d.message, d.message
    assert d.detail["reaches"] == [{"user": "mulf", "role": "lhs"}]
    # the rewired product and the port's extra multiply are listed under it
    assert len(d.affected_right) > len(d.affected)


def test_mutant_the_meeting_product_changes_too_stays_its_own_root():
    r = _diff(*_silu_mul(ftz=" flush_to_zero"))
    assert r.verdict == "different"
    msgs = [d.message for d in r.differences]
    assert any("mulf flush_to_zero" in m for m in msgs), msgs
    assert not any("the formula reaching" in m for m in msgs), msgs


def test_mutant_a_second_changed_input_of_the_product_stays_its_own_root():
    # the gate is loaded at another index on the right: the product has two changed inputs
    r = _diff(*_silu_mul("%bx", right_gate_at="%by"))
    assert r.verdict == "different"
    cats = sorted(d.category for d in r.differences)
    assert cats == ["arith", "arith", "memory"], r.brief()
    msgs = [d.message for d in r.differences]
    assert any("index[0]" in m and "bid.x -> bid.y" in m for m in msgs), msgs
    assert any(m.startswith("mulf ") for m in msgs), msgs
    assert not any("the formula reaching" in m for m in msgs), msgs


def test_mutant_the_extra_product_reads_a_load_of_its_own_stays_its_own_root():
    # the port multiplies the sigmoid by a value it loads itself (not x): not computed from the change
    r = _diff(*_silu_mul("%bx", x="%h", extra=load("h", view="%py", index="%by")))
    assert r.verdict == "different"
    msgs = [d.message for d in r.differences]
    assert len(msgs) == 2 and any(m.startswith("mulf ") for m in msgs), msgs
    assert not any("the formula reaching" in m for m in msgs), msgs
