"""The whole matcher (the default stage list) and its limits; each stage alone: tests/match/test_<stage>.py."""
from __future__ import annotations

import struct

import pytest

from tileir_diff.compare import compute_diff
from tileir_diff.graph import FunctionGraph
from tileir_diff.match import LimitExceeded, Limits, MatchBudget, MatchTimeLimit, match_functions
from tileir_diff.normalize import normalize, tag_origins

from tests.normalize.kernels import PROLOGUE, kernel, load, store

F = "tile<128xf32>"


def graphs(a, b):
    ga = FunctionGraph(normalize(tag_origins(a))[0].functions[0], 0)
    gb = FunctionGraph(normalize(tag_origins(b))[0].functions[0], 0)
    return ga, gb


def test_identical_kernels_pair_everything_by_anchors_and_exact():
    body = load("a") + load("b", view="%py") + f"  %s = addf %a, %b : {F}\n" + store("%s")
    ctx = match_functions(*graphs(kernel(body), kernel(body)))
    assert len(ctx.mapping) == len(ctx.left) == len(ctx.right)
    stages = set(ctx.mapping.stage.values())
    assert stages <= {"anchors", "exact"} and "anchors" in stages


def test_changed_op_is_paired_by_propagation_not_left_unmatched():
    a = kernel(load("a") + f"  %s = mulf %a, %a : {F}\n  %e = exp %s : {F}\n" + store("%e"))
    b = kernel(load("a") + f"  %s = divf %a, %a : {F}\n  %e = exp %s : {F}\n" + store("%e"))
    ctx = match_functions(*graphs(a, b))
    paired = {ctx.left.nodes[l].name: ctx.right.nodes[r].name for l, r in ctx.mapping.l2r.items()
              if ctx.left.nodes[l].kind == "op"}
    assert paired.get("mulf") == "divf" and paired.get("exp") == "exp"
    r = compute_diff(a, b, with_summary=False, with_lines=False)
    assert [d.category for d in r.differences] == ["arith"]
    assert "mulf -> divf" in r.differences[0].message
    assert r.differences[0].affected == ()  # exp differs in no way of its own


def test_node_limit_gives_unknown_with_reason():
    body = load("a") + store("%a")
    r = compute_diff(kernel(body), kernel(body), limits={"max_nodes": 5}, with_summary=False, with_lines=False)
    assert r.verdict == "unknown" and "max_nodes=5" in r.reason and r.exit_code == 3


def test_work_budget_raises_and_is_counted_not_timed(monkeypatch):
    body = "".join(load(f"a{k}") + store(f"%a{k}", name=f"st{k}") for k in range(300))
    a, b = graphs(kernel(body), kernel(body))
    with pytest.raises(LimitExceeded, match="work budget of 100 matching steps exceeded"):
        match_functions(a, b, Limits(max_match_steps=100))
    spent = MatchBudget(Limits())
    match_functions(a, b, Limits(), spent)
    import time
    ticks = iter(range(0, 10 ** 9))  # a clock a second further on every read: no effect on the work
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(ticks)))
    again = MatchBudget(Limits(), time_end=float("inf"))
    match_functions(a, b, Limits(), again)
    assert again.steps == spent.steps > 0


def test_the_wall_clock_safety_net_gives_unknown_naming_the_machine():
    a, b = graphs(kernel(load("a") + store("%a")), kernel(load("a") + store("%a")))
    with pytest.raises(MatchTimeLimit, match=r"^time limit \(machine too slow/overloaded\)"):
        match_functions(a, b, Limits(), 0.0)  # a safety net that ended long ago
    body = load("a") + store("%a")
    r = compute_diff(kernel(body), kernel(body), limits={"time_budget_s": 0.0}, with_summary=False,
                     with_lines=False)
    assert r.verdict == "unknown" and r.reason.startswith("time limit (machine too slow/overloaded)"), r.reason


def test_bad_limits_are_refused():
    with pytest.raises(ValueError, match="unknown limit"):
        Limits.coerce({"max_nodez": 3})


def test_inserted_argument_does_not_shift_the_other_anchors():
    base = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"
    a = kernel(load("a") + store("%a"), args=base)
    b = kernel(load("a") + store("%a"), args="%argX: tile<f32>, " + base)
    r = compute_diff(a, b, with_summary=False, with_lines=False)
    # an extra argument nothing reads is a calling-convention difference: the same computation
    assert r.verdict == "specialized"
    assert [d.category for d in r.differences] == ["signature"]
    d = r.differences[0]
    assert "right %arg0 unused" in d.message and d.detail["unused_right"] == [0]
    assert [(m["left"], m["right"]) for m in d.detail["calling_convention"]] == [(0, 1), (1, 2), (2, 3)]


def test_inserted_argument_that_is_read_is_different():
    base = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"
    a = kernel(load("a") + store("%a"), args=base)
    scaled = load("a") + f"  %k1 = reshape %argX : tile<f32> -> tile<1xf32>\n  %k = broadcast %k1 : tile<1xf32> -> {F}\n  %s = mulf %a, %k : {F}\n" + store("%s")
    b = kernel(scaled, args="%argX: tile<f32>, " + base)
    r = compute_diff(a, b, with_summary=False, with_lines=False)
    # the argument is read: not a calling-convention difference, and not a pinned constant either
    assert r.verdict == "different"
    assert any(d.category != "signature" and "store_view_tko" in d.message for d in r.differences)


# --- symmetric copies: the matcher must pick the right one -------------------------------------

def _diff(a, b):
    return compute_diff(a, b, with_summary=False, with_lines=False)


def _one_root(r, category):
    assert r.verdict == "different", r.brief()
    assert [d.category for d in r.differences] == [category], r.brief()


CONSTANT_BITS = ["0x3F000000", "0x3F000001", "0x40400000", "0x40400001", "0xBF800000", "0x3E99999A"]


@pytest.mark.parametrize("bits", CONSTANT_BITS)
def test_changed_copy_of_a_shared_constant_is_one_constant_difference(bits):
    """Constant dedup merges both uses of c on the left; on the right one use takes c'. The
    commutative operand order of that user follows the operands' keys, so it can flip: the
    classifier must compare x with x and c with c', whichever order each side sorted them in."""
    value = struct.unpack("<f", struct.pack("<I", int(bits, 16)))[0]
    nudged = struct.unpack("<f", struct.pack("<I", int(bits, 16) ^ 1))[0]

    def body(second):
        return (load("a") + f"  %c = constant <f32: {value!r}> : {F}\n  %d = constant <f32: {second!r}> : {F}\n"
                f"  %m = mulf %a, %c : {F}\n  %n = mulf %m, %d : {F}\n" + store("%n"))
    r = _diff(kernel(body(value)), kernel(body(nudged)))
    _one_root(r, "constant")


# five of these gave crossed cmpf pairs (three differences) before top-down waited on ties
TWIN_BITS = [hex(0x3F000000 + i * 7919) for i in range(8)]


@pytest.mark.parametrize("bits", TWIN_BITS)
def test_commutative_user_of_two_moved_twins_pairs_them_by_their_inputs(bits):
    """Python's modulo: xori(cmpf(r < 0), cmpf(b < 0)) where r = remf(a, b) and b both derive
    from a changed constant. Both cmpf change hash, and the xori may sort them the other way
    round; top-down must not pair them by operand order (rounding_family in the corpus)."""
    def body(v):
        return (load("a") + f"  %c = constant <f32: {v!r}> : tile<f32>\n"
                f"  %c1 = reshape %c : tile<f32> -> tile<1xf32>\n  %b = broadcast %c1 : tile<1xf32> -> {F}\n"
                f"  %z = constant <f32: 0.0> : {F}\n  %r = remf %a, %b : {F}\n"
                f"  %p = cmpf less_than ordered %r, %z : {F} -> tile<128xi1>\n"
                f"  %q = cmpf less_than ordered %b, %z : {F} -> tile<128xi1>\n"
                f"  %x = xori %p, %q : tile<128xi1>\n"
                f"  %ne = cmpf not_equal unordered %r, %z : {F} -> tile<128xi1>\n"
                f"  %y = andi %x, %ne : tile<128xi1>\n  %t = addf %r, %b : {F}\n"
                f"  %s = select %y, %t, %r : tile<128xi1>, {F}\n" + store("%s"))
    value = struct.unpack("<f", struct.pack("<I", int(bits, 16)))[0]
    nudged = struct.unpack("<f", struct.pack("<I", int(bits, 16) ^ 1))[0]
    r = _diff(kernel(body(value)), kernel(body(nudged)))
    _one_root(r, "constant")


def test_duplicated_loads_below_a_changed_view_pair_by_their_index():
    """Loads of one view at indices 0, 1, 0, 1 (two identical pairs) below a changed
    assumption: every load's hash moves; the whole pipeline reports the one assumption
    (bottom-up alone on these kernels: tests/match/test_bottom_up.py)."""
    prologue = PROLOGUE.replace("shape = [%arg2]", "shape = [%n]")

    def k(lb):
        pro = f"  %n = assume bounded<{lb}, ?>, %arg2 : tile<i32>\n" + prologue
        body = "  %c0 = constant <i32: 0> : tile<i32>\n  %c1 = constant <i32: 1> : tile<i32>\n"
        for name, idx in (("a", "%c0"), ("b", "%c1"), ("c", "%c0"), ("d", "%c1")):
            body += load(name, index=idx)
        body += (f"  %e = exp %a : {F}\n  %f = negf %b : {F}\n  %g = absf %c : {F}\n  %h = sqrt %d : {F}\n"
                 f"  %s1 = subf %e, %f : {F}\n  %s2 = subf %g, %h : {F}\n  %s3 = divf %s1, %s2 : {F}\n")
        return kernel(body + store("%s3"), prologue=pro)
    r = _diff(k(0), k(1))  # an assumption alone: the same computation, specialized
    assert r.verdict == "specialized" and [d.category for d in r.differences] == ["specialization"], r.brief()


# --- pinned constants (compare/pins.py) ----------------------------------------------------------
_BASE = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"


def _scaled_by_constant(value: str) -> str:
    return kernel(load("a") + f"  %k = constant <f32: {value}> : {F}\n  %s = mulf %a, %k : {F}\n" + store("%s"),
                  args=_BASE)


def _scaled_by_argument(extra: str = "") -> str:
    body = load("a") + f"  %k1 = reshape %argS : tile<f32> -> tile<1xf32>\n  %k = broadcast %k1 : tile<1xf32> -> {F}\n" \
        f"  %s = mulf %a, %k : {F}\n{extra}" + store("%s")
    return kernel(body, args=_BASE + ", %argS: tile<f32>")


def test_a_constant_the_port_takes_as_an_argument_is_a_pinned_specialization():
    r = compute_diff(_scaled_by_constant("2.000000e+00"), _scaled_by_argument(), with_summary=False, with_lines=False)
    assert r.verdict == "specialized", r.brief()
    pins = [d for d in r.differences if "pin" in d.detail]
    assert len(pins) == 1 and "2.0" in pins[0].message and pins[0].detail["assumes_more"] == "left"
    assert pins[0].detail["pin"]["argument"] == 3


def test_an_argument_meeting_two_different_constants_is_not_pinned():
    # the left scales by 2 and adds 3 where the right uses its one argument for both
    left = kernel(load("a") + f"  %k = constant <f32: 2.000000e+00> : {F}\n  %m = mulf %a, %k : {F}\n"
                  f"  %c = constant <f32: 3.000000e+00> : {F}\n  %s = addf %m, %c : {F}\n" + store("%s"), args=_BASE)
    right = kernel(load("a") + f"  %k1 = reshape %argS : tile<f32> -> tile<1xf32>\n  %k = broadcast %k1 : tile<1xf32> -> {F}\n"
                   f"  %m = mulf %a, %k : {F}\n  %s = addf %m, %k : {F}\n" + store("%s"), args=_BASE + ", %argS: tile<f32>")
    r = compute_diff(left, right, with_summary=False, with_lines=False)
    assert r.verdict == "different"
    assert not any("pin" in d.detail for d in r.differences)
