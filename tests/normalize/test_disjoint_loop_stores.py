"""disjoint-loop-stores: a store order carried through a loop is dropped only where every
iteration provably stores another tile; the side without the order then assumes those tiles do
not overlap (a ``specialization`` root, verdict ``specialized``), and each mutant stays
``different``."""
from __future__ import annotations

import pytest

from tileir_diff.normalize import REGISTRY
from .kernels import VIEW, kernel, verdict

RULE = "disjoint-loop-stores"
HEAD = ("  %lb = constant <i32: 0> : tile<i32>\n  %ub = constant <i32: 4> : tile<i32>\n"
        "  %one = constant <i32: 1> : tile<i32>\n  %two = constant <i32: 2> : tile<i32>\n"
        "  %three = constant <i32: 3> : tile<i32>\n")


def _loop(carried: bool, index: str = "  %i = addi %bx, %iv : tile<i32>\n", view: str = "%py",
          load_token: str = "%0", step: str = "%one", after: str = "") -> str:
    """A loop storing x's tile i into ``view``'s tile i: the store ordered across iterations
    by a carried token (cuTile Python) or taking the entry token (cuTile Rust)."""
    body = (index + f"    %v, %vt = load_view_tko weak %px[%i] token = {load_token} : {VIEW}, tile<i32>"
            " -> tile<128xf32>, token\n"
            f"    %s = store_view_tko weak %v, {view}[%i] token = {'%t' if carried else '%0'} : tile<128xf32>, "
            f"{VIEW}, tile<i32> -> token\n")
    body = "".join("  " + line + "\n" if not line.startswith("    ") else line + "\n"
                   for line in body.splitlines())
    if carried:
        return HEAD + (f"  %r = for %iv in (%lb to %ub, step {step}) : tile<i32> iter_values(%t = %0) -> (token) {{\n"
                       + body + "    continue %s : token\n  }\n" + after)
    return HEAD + f"  for %iv in (%lb to %ub, step {step}) : tile<i32> {{\n" + body + "    continue\n  }\n" + after


def _order_roots(r):
    return [d for d in r.differences if "unordered_stores" in d.detail]


@pytest.mark.parametrize("index", [
    "  %i = addi %bx, %iv : tile<i32>\n",
    "  %i = subi %bx, %iv : tile<i32>\n",
    "  %m = muli %iv, %three : tile<i32>\n  %i = addi %m, %bx : tile<i32>\n",
    "  %n = negi %iv : tile<i32>\n  %i = xori %n, %bx : tile<i32>\n",
], ids=["iv+c", "c-iv", "3iv+c", "-iv^c"])
def test_carried_store_order_against_none_is_specialized(index):
    a = kernel(_loop(True, index))
    b = kernel(_loop(False, index))
    r = verdict(a, b)
    assert r.verdict == "specialized", r.brief()
    assert r.rules_applied.get(RULE, 0) == 1, r.rules_applied
    (root,) = r.differences
    assert root.category == "specialization" and root.detail["assumes_more"] == "right"
    assert root.detail["unordered_stores"]["ordered"] == "left"
    assert "do not overlap" in root.message and "store_view_tko to %pview" in root.message
    # the other way round: the left assumes more
    back = verdict(b, a)
    assert back.verdict == "specialized" and back.differences[0].detail["assumes_more"] == "left", back.brief()


def test_without_the_rule_the_order_stays_different():
    r = verdict(kernel(_loop(True)), kernel(_loop(False)), disable=[RULE])
    assert r.verdict == "different", r.brief()
    assert any(d.rule_hint == RULE for d in r.differences), r.brief()


def test_the_same_order_on_both_sides_is_identical():
    a = kernel(_loop(True))
    r = verdict(a, kernel(_loop(True)))
    assert r.verdict == "identical" and not r.differences, r.brief()


@pytest.mark.parametrize("left", [
    _loop(True, "  %i = addi %bx, %lb : tile<i32>\n"),                       # the same tile every iteration
    _loop(True, "  %i = divi %iv, %two signed : tile<i32>\n"),                # iv // 2: tiles repeat
    _loop(True, "  %m = muli %iv, %two : tile<i32>\n  %i = addi %m, %bx : tile<i32>\n"),  # 2 iv: not proven
    _loop(True, load_token="%t"),                                             # a load ordered by the token
    _loop(True, step="%arg2"),                                                # a step that may repeat iv
    _loop(True, after=f"  %w, %wt = load_view_tko weak %py[%bx] token = %r : {VIEW}, tile<i32> -> "
                      "tile<128xf32>, token\n"),                              # the token feeds a later load
], ids=["same-tile", "iv-div-2", "2iv", "load-ordered", "runtime-step", "token-after-loop"])
def test_mutants_stay_different(left):
    index = "  %i = addi %bx, %iv : tile<i32>\n"
    if "divi" in left:
        index = "  %i = divi %iv, %two signed : tile<i32>\n"
    elif "muli %iv, %two" in left:
        index = "  %m = muli %iv, %two : tile<i32>\n  %i = addi %m, %bx : tile<i32>\n"
    elif "addi %bx, %lb" in left:
        index = "  %i = addi %bx, %lb : tile<i32>\n"
    right = _loop(False, index, step="%arg2" if "%arg2" in left else "%one",
                  after=f"  %w, %wt = load_view_tko weak %py[%bx] token = %0 : {VIEW}, tile<i32> -> "
                        "tile<128xf32>, token\n" if "token = %r" in left else "")
    a, b = kernel(left), kernel(right)
    r = verdict(a, b)
    assert r.verdict == "different", r.brief()
    assert not _order_roots(r)
    assert r.rules_applied.get(RULE, 0) == 0


def test_mutant_store_to_another_view_stays_different():
    r = verdict(kernel(_loop(True)), kernel(_loop(False, view="%px")))
    assert r.verdict == "different", r.brief()


def test_a_marked_store_that_also_differs_gets_no_order_root():
    # the right stores another value: the order root would cover the checker's violation at the
    # store pair, so it is left out; the value change is the root and the verdict different
    a = kernel(_loop(True))
    b = kernel(_loop(False).replace("store_view_tko weak %v,", "store_view_tko weak %vv,").replace(
        "    %s = store", "    %vv = negf %v : tile<128xf32>\n    %s = store"))
    r = verdict(a, b)
    assert r.verdict == "different", r.brief()
    assert not _order_roots(r)


def test_token_order_is_judged_after_the_drop():
    from tileir_diff.normalize import one_sided_declines
    a, b = kernel(_loop(True)), kernel(_loop(False))
    assert REGISTRY["token-order"].declines(a.functions[0], a.version)
    assert one_sided_declines(a, b, [(0, 0)]) == ({}, {})
    assert one_sided_declines(a, b, [(0, 0)], disable=[RULE]) == ({}, {"token-order": {0}})


def test_mutant_early_continue_carrying_another_token_stays_different():
    # an iteration that ends early carries the token of a store to x into the next one: the
    # next store to y waits for it (x and y may alias), an order the right does not have
    early = ("    %c = cmpi less_than %iv, %one, signed : tile<i32> -> tile<i1>\n    if %c {\n"
             f"      %e = store_view_tko weak %v, %px[%bx] token = %0 : tile<128xf32>, {VIEW}, tile<i32> -> token\n"
             "      continue %e : token\n    }\n")
    plain = ("    %c = cmpi less_than %iv, %one, signed : tile<i32> -> tile<i1>\n    if %c {\n"
             f"      %e = store_view_tko weak %v, %px[%bx] token = %0 : tile<128xf32>, {VIEW}, tile<i32> -> token\n"
             "      continue\n    }\n")
    at = "    %s = store_view_tko"
    a = kernel(_loop(True).replace(at, early + at))
    b = kernel(_loop(False).replace(at, plain + at))
    r = verdict(a, b)
    assert r.verdict == "different", r.brief()
    assert r.rules_applied.get(RULE, 0) == 0 and not _order_roots(r)
