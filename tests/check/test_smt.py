"""The proof step (smt-equivalence, the checker's check 8): integer/boolean cones that the
pattern rules leave different are proven equal by z3 (absorbed, with the facts the proof used)
or shown different with a counterexample; its mutants stay different."""
from __future__ import annotations

import pytest

from tileir_diff.check import ProofOptions, check_functions, smt
from tileir_diff.compare import compute_diff
from tileir_diff.match import match_functions, Limits
from tileir_diff.graph import FunctionGraph
from tileir_diff.normalize import normalize

from ..normalize.kernels import kernel, load, store

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

F = "tile<128xf32>"
BOUND = "  %n = assume bounded<0, 1000000>, %arg2 : tile<i32>\n"


def _indexed(lines: str, index: str = "%q"):
    """A kernel whose load index is the value ``index`` computed by ``lines``."""
    return kernel(lines + load("a", index=index) + store("%a"))


def _diff(a, b, **kw):
    return compute_diff(a, b, with_summary=False, with_lines=False, **kw)


def _absorbed(a, b, **kw):
    r = _diff(a, b, **kw)
    assert r.verdict == "equivalent", r.brief()
    assert r.rules_applied.get("smt-equivalence", 0) > 0, r.rules_applied
    equal = [p for p in r.proofs if p["status"] == "equal"]
    assert equal and all(p["rule"] == "smt-equivalence" for p in equal)
    off = _diff(a, b, disable=["smt-equivalence", *kw.get("disable", ())])
    assert off.verdict == "different", off.brief()
    # the hint names a switched-off rule that absorbs the difference (the proof, or the rule
    # the case switched off so that the proof alone is tested)
    assert any(d.rule_hint in ("smt-equivalence", *kw.get("disable", ())) for d in off.differences)
    return r


def _refuted(a, b):
    r = _diff(a, b)
    assert r.verdict == "different", r.brief()
    cex = [d.detail["counterexample"] for d in r.differences if "counterexample" in d.detail]
    assert cex, r.brief()
    assert cex[0]["left"] != cex[0]["right"]
    return r, cex[0]


CDIV_PY = BOUND + "  %c = constant <i32: 128> : tile<i32>\n  %q = divi %n, %c signed rounding<positive_inf> : tile<i32>\n"
CDIV_RS = (BOUND + "  %c = constant <i32: 128> : tile<i32>\n  %d = constant <i32: 127> : tile<i32>\n"
           "  %s = addi %n, %d : tile<i32>\n  %q = divi %s, %c signed : tile<i32>\n")


def test_ceil_division_by_hand_is_proven_with_the_bound_it_uses():
    r = _absorbed(_indexed(CDIV_PY), _indexed(CDIV_RS))
    facts = [f for p in r.proofs if p["status"] == "equal" for f in p["assumptions"]]
    assert any("assume bounded<0, 1000000>" in f for f in facts), facts


def test_ceil_division_mutant_without_the_bound_wraps():
    # n + 127 wraps for n near 2^31: a counterexample, not a proof
    a = _indexed(CDIV_PY.replace(BOUND, "  %n = assume bounded<0, ?>, %arg2 : tile<i32>\n"))
    b = _indexed(CDIV_RS.replace(BOUND, "  %n = assume bounded<0, ?>, %arg2 : tile<i32>\n"))
    _, cex = _refuted(a, b)
    assert cex["arg2"] > 2 ** 31 - 128


def test_ceil_division_mutant_off_by_one():
    _, cex = _refuted(_indexed(CDIV_PY), _indexed(CDIV_RS.replace("<i32: 127>", "<i32: 128>")))
    assert cex["arg2"] % 128 == 0


def test_mask_and_unsigned_remainder_of_a_power_of_two():
    a = _indexed("  %m = constant <i32: 7> : tile<i32>\n  %q = andi %bx, %m : tile<i32>\n")
    b = _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = remi %bx, %m unsigned : tile<i32>\n")
    _absorbed(a, b)


def test_mutant_wrong_mask_width():
    a = _indexed("  %m = constant <i32: 15> : tile<i32>\n  %q = andi %bx, %m : tile<i32>\n")
    b = _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = remi %bx, %m unsigned : tile<i32>\n")
    _, cex = _refuted(a, b)
    assert cex["bid.x"] & 8


def test_shift_as_division_of_a_block_id_uses_the_ir_fact():
    a = _indexed("  %m = constant <i32: 3> : tile<i32>\n  %q = shri %bx, %m signed : tile<i32>\n")
    b = _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = divi %bx, %m signed : tile<i32>\n")
    r = _absorbed(a, b)
    facts = [f for p in r.proofs if p["status"] == "equal" for f in p["assumptions"]]
    assert any("bid.x" in f and "IR fact" in f for f in facts), facts


def test_mutant_floor_vs_truncation_on_a_possibly_negative_operand():
    a = _indexed("  %m = constant <i32: 3> : tile<i32>\n  %q = shri %arg2, %m signed : tile<i32>\n")
    b = _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = divi %arg2, %m signed : tile<i32>\n")
    _, cex = _refuted(a, b)
    assert cex["arg2"] < 0


SEL = ("  %z = constant <i32: 0> : tile<i32>\n  %p = cmpi less_than %bx, {n}, {sign} : tile<i32> -> tile<i1>\n"
       "  %q = select %p, %bx, %z : tile<i1>, tile<i32>\n")


def test_signed_and_unsigned_compare_of_non_negative_values():
    a = _indexed(BOUND + SEL.format(n="%n", sign="signed"))
    b = _indexed(BOUND + SEL.format(n="%n", sign="unsigned"))
    # nonnegative-casts makes the compare signed before the proof step; here the proof alone
    _absorbed(a, b, disable=["nonnegative-casts"])


def test_mutant_signed_vs_unsigned_compare_on_a_possibly_negative_value():
    a = _indexed(SEL.format(n="%arg2", sign="signed"))
    b = _indexed(SEL.format(n="%arg2", sign="unsigned"))
    _, cex = _refuted(a, b)
    assert cex["arg2"] < 0


def test_mutant_off_by_one_bound():
    a = _indexed(BOUND + SEL.format(n="%n", sign="signed"))
    b = _indexed(BOUND + SEL.format(n="%n", sign="signed").replace("less_than", "less_than_or_equal"))
    _, cex = _refuted(a, b)
    assert cex["bid.x"] == cex["arg2"]


def test_float_x_plus_x_is_two_x_bit_exactly():
    a = kernel(load("a") + f"  %s = addf %a, %a : {F}\n" + store("%s"))
    b = kernel(load("a") + f"  %two = constant <f32: 2.000000e+00> : {F}\n  %s = mulf %a, %two : {F}\n" + store("%s"))
    _absorbed(a, b)  # an f32 multiplier: 0.4 M of z3's resource units, within the default budget


def test_float_mutant_x_plus_x_vs_three_x():
    a = kernel(load("a") + f"  %s = addf %a, %a : {F}\n" + store("%s"))
    b = kernel(load("a") + f"  %two = constant <f32: 3.000000e+00> : {F}\n  %s = mulf %a, %two : {F}\n" + store("%s"))
    r = _diff(a, b)
    assert r.verdict == "different"
    assert any(p["status"] == "different" for p in r.proofs), r.proofs


def test_the_checker_itself_decides_not_the_classifier():
    """Check 8 run directly on the normalized functions and the matcher's mapping."""
    def violations(a, b, proof):
        na, _ = normalize(a)
        nb, _ = normalize(b)
        fa, fb = na.functions[0], nb.functions[0]
        ctx = match_functions(FunctionGraph(fa, 0), FunctionGraph(fb, 0), Limits(), float("inf"))
        return check_functions(fa, 0, fb, 0, ctx.mapping.l2r, a.functions[0], b.functions[0], proof)
    a, b = _indexed(CDIV_PY), _indexed(CDIV_RS)
    assert violations(a, b, None)
    assert violations(a, b, ProofOptions()) == []
    assert violations(a, _indexed(CDIV_RS.replace("<i32: 127>", "<i32: 128>")), ProofOptions())


def test_work_budget_gives_undecided_not_absorbed():
    r = _diff(_indexed(CDIV_PY), _indexed(CDIV_RS), limits={"smt_rlimit": 300})
    assert r.verdict == "different"
    assert any(p["status"] == "undecided" and "work budget of 150 resource units" in p["note"] for p in r.proofs), \
        r.proofs


def test_without_z3_the_step_is_skipped_and_says_so(monkeypatch):
    monkeypatch.setattr(smt, "z3", None)
    r = _diff(_indexed(CDIV_PY), _indexed(CDIV_RS))
    assert r.verdict == "different"
    assert "z3-solver is not installed" in (r.stats.smt or "")


def test_launch_fact_is_used_and_reported():
    a = _indexed("  %c = constant <i32: 4> : tile<i32>\n  %q = mini %bx, %c signed : tile<i32>\n")
    b = _indexed("", index="%bx")
    assert _diff(a, b).verdict == "different"
    r = _diff(a, b, launch=["grid.x <= 4"])
    assert r.verdict == "equivalent", r.brief()
    facts = [f for p in r.proofs for f in p.get("assumptions", ())]
    assert any("grid.x <= 4 (launch fact" in f for f in facts), facts


@pytest.mark.parametrize("bad", ["grid.x", "arg99 == 1", "__import__('os') == 1", "arg2 * arg2 * arg2 * arg2 == 1"])
def test_launch_fact_refuses_what_it_cannot_state_exactly(bad):
    a = _indexed(CDIV_PY)
    with pytest.raises(ValueError):
        name, make = smt.launch_fact(bad)
        # parsing is lazy for names and bounds: build it against an encoder
        from tileir_diff.check.index import FunctionIndex
        ix = FunctionIndex(a.functions[0], 0)
        make(smt.ConeEncoder(ix, ix, lambda *_: None, lambda *_: None))


@pytest.mark.parametrize("bad, says", [("grid.x == " + "(" * 900 + "1" + ")" * 900, "nested"),
                                       ("grid.w == 1", "unknown name"),
                                       ("grid.x == " + " + ".join(["1"] * 1200), "characters")])
def test_launch_fact_through_the_api_takes_the_bounded_grammar(bad, says):
    """A fact given to the library (diff(launch=[...])) is read by the same bounded grammar as
    --launch-fact: a one-line ValueError, never a RecursionError from a deeply nested text."""
    a = _indexed(CDIV_PY)
    with pytest.raises(ValueError, match=says):
        _diff(a, a, launch=[bad])


def _attempt(a, b, ints: bool):
    """The first operand slot of the load pair, posed directly in one encoding."""
    from tileir_diff.check.checker import FunctionCheck
    na, _ = normalize(a)
    nb, _ = normalize(b)
    fa, fb = na.functions[0], nb.functions[0]
    ctx = match_functions(FunctionGraph(fa, 0), FunctionGraph(fb, 0), Limits(), float("inf"))
    fc = FunctionCheck(fa, 0, fb, 0, ctx.mapping.l2r, a.functions[0], b.functions[0])
    fc.run()
    enc = smt.ConeEncoder(fc.L, fc.R, lambda n, r: fc.shared(n, r, True), lambda n, r: fc.shared(n, r, False),
                          entry_facts=(a.functions[0], b.functions[0]))
    load_l = next(op for op in fa.body.operations if op.name == "load_view_tko")
    load_r = next(op for op in fb.body.operations if op.name == "load_view_tko")
    enc.shape = None
    return enc._attempt(load_l.operands[1], load_r.operands[1], ints, smt.DEFAULT_RLIMIT)


@pytest.mark.parametrize("ints", [False, True])
def test_both_encodings_agree_on_ceil_division_and_its_mutants(ints):
    assert _attempt(_indexed(CDIV_PY), _indexed(CDIV_RS), ints).status == "equal"
    off_by_one = _attempt(_indexed(CDIV_PY), _indexed(CDIV_RS.replace("<i32: 127>", "<i32: 128>")), ints)
    assert off_by_one.status == "different" and off_by_one.counterexample["arg2"] % 128 == 0


def test_integer_encoding_refuses_when_a_step_may_wrap():
    # without the upper bound n + 127 may leave 32 bits: the integer encoding must not answer
    unbounded = "  %n = assume bounded<0, ?>, %arg2 : tile<i32>\n"
    out = _attempt(_indexed(CDIV_PY.replace(BOUND, unbounded)), _indexed(CDIV_RS.replace(BOUND, unbounded)), True)
    assert out.status == "undecided" and "width" in out.note


def test_a_pair_is_never_its_own_leaf():
    """Mutation-engine find: a broadcast (a leaf unless its source has one element) whose
    source was rewired was "proven" equal to itself through its own shared leaf."""
    a = kernel(load("a") + "  %r = reshape %a : tile<128xf32> -> tile<128x1xf32>\n"
               "  %b = broadcast %r : tile<128x1xf32> -> tile<128x1xf32>\n"
               "  %c = reshape %b : tile<128x1xf32> -> tile<128xf32>\n" + store("%c"))
    b = kernel(load("a") + "  %n = negf %a : tile<128xf32>\n  %r = reshape %n : tile<128xf32> -> tile<128x1xf32>\n"
               "  %b = broadcast %r : tile<128x1xf32> -> tile<128x1xf32>\n"
               "  %c = reshape %b : tile<128x1xf32> -> tile<128xf32>\n" + store("%c"))
    r = _diff(a, b)
    assert r.verdict == "different", r.brief()
    assert not any(p["status"] == "equal" for p in r.proofs), r.proofs


def test_cli_launch_fact_and_timeout(tmp_path, capsys):
    from tileir_diff.cli import main
    from tileir_diff.text.printer import print_module
    a = _indexed("  %c = constant <i32: 4> : tile<i32>\n  %q = mini %bx, %c signed : tile<i32>\n")
    b = _indexed("", index="%bx")
    pa, pb = tmp_path / "a.mlir", tmp_path / "b.mlir"
    pa.write_text(print_module(a))
    pb.write_text(print_module(b))
    assert main(["diff", str(pa), str(pb)]) == 1
    out = capsys.readouterr().out
    assert "counterexample (z3): bid.x=" in out
    assert main(["diff", str(pa), str(pb), "--launch-fact", "grid.x <= 4", "--smt-timeout", "5"]) == 0
    assert "proven equal (smt-equivalence)" in capsys.readouterr().out
    assert main(["diff", str(pa), str(pb), "--launch-fact", "grid.x <="]) == 2
    assert main(["diff", str(pa), str(pb), "--smt-timeout", "0"]) == 2


def test_a_view_operand_is_unsupported_not_a_crash():
    """A rewired view (not a tile) reaches the proof step as a slot query: unsupported."""
    a = kernel(load("a") + store("%a"))
    b = kernel(load("a", view="%py") + store("%a"))
    r = _diff(a, b)
    assert r.verdict == "different", r.brief()


# --- the grouped tile swizzle of the GEMMs (reference/matmul, bmm): floor vs truncation by a
# divisor that is >= 1 only for the blocks of the launched grid (a launch fact) ---------------
SWIZZLE_ARGS = ("%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>, %arg3: tile<i32>, "
                "%arg4: tile<i32>")
GRID = "grid.x == cdiv(arg3, 128) * cdiv(arg4, 128)"  # arg3 = M, arg4 = N


def _swizzle(floor: bool, coordinate: str, group_m: int = 8, divisor: str = "%rows") -> object:
    """tile_m (``coordinate="m"``) or tile_n of the grouped swizzle as a load index, with floor
    division and modulo (cuTile Python: ``divi rounding<negative_inf>``, ``remi`` and its sign
    fix-up) or truncating ones (cuTile Rust). ``divisor``: what the last step divides by
    (``%rows`` = min(tiles_m - first_m, GROUP_M); ``%ragged`` = tiles_m - first_m - GROUP_M, which
    is negative for the blocks of a last, partial group)."""
    t = "tile<i32>"
    rounding = " rounding<negative_inf>" if floor else ""

    def modulo(name, x, d):
        if not floor:
            return f"  %{name} = remi {x}, {d} signed : {t}\n"
        return (f"  %{name}_r = remi {x}, {d} signed : {t}\n"
                f"  %{name}_nr = cmpi less_than %{name}_r, %zero, signed : {t} -> tile<i1>\n"
                f"  %{name}_nd = cmpi less_than {d}, %zero, signed : {t} -> tile<i1>\n"
                f"  %{name}_op = xori %{name}_nr, %{name}_nd : tile<i1>\n"
                f"  %{name}_nz = cmpi not_equal %{name}_r, %zero, signed : {t} -> tile<i1>\n"
                f"  %{name}_fix = andi %{name}_op, %{name}_nz : tile<i1>\n"
                f"  %{name}_up = addi %{name}_r, {d} : {t}\n"
                f"  %{name} = select %{name}_fix, %{name}_up, %{name}_r : tile<i1>, {t}\n")
    body = (f"  %m = assume bounded<0, ?>, %arg3 : {t}\n  %nn = assume bounded<0, ?>, %arg4 : {t}\n"
            f"  %zero = constant <i32: 0> : {t}\n  %c128 = constant <i32: 128> : {t}\n"
            f"  %gm = constant <i32: {group_m}> : {t}\n"
            f"  %tm = divi %m, %c128 signed rounding<positive_inf> : {t}\n"
            f"  %tn = divi %nn, %c128 signed rounding<positive_inf> : {t}\n"
            f"  %bpg = muli %gm, %tn : {t}\n  %grp = divi %bx, %bpg signed{rounding} : {t}\n"
            f"  %first = muli %grp, %gm : {t}\n  %left = subi %tm, %first : {t}\n"
            f"  %rows = mini %left, %gm signed : {t}\n  %ragged = subi %left, %gm : {t}\n")
    if coordinate == "m":
        body += modulo("within", "%bx", divisor) + f"  %q = addi %first, %within : {t}\n"
    else:
        body += modulo("in_group", "%bx", "%bpg") + f"  %q = divi %in_group, {divisor} signed{rounding} : {t}\n"
    return kernel(body + load("a", index="%q") + store("%a"), args=SWIZZLE_ARGS)


@pytest.mark.parametrize("coordinate", ["m", "n"])
def test_swizzle_floor_vs_truncation_differs_beyond_the_grid_without_the_launch_fact(coordinate):
    _, cex = _refuted(_swizzle(True, coordinate), _swizzle(False, coordinate))
    tiles = -(-cex["arg3"] // 128) * -(-cex["arg4"] // 128)
    assert cex["bid.x"] >= tiles, cex  # a block the launch never runs


@pytest.mark.parametrize("coordinate", ["m", "n"])
def test_swizzle_floor_vs_truncation_is_proven_under_the_launch_fact(coordinate):
    r = _diff(_swizzle(True, coordinate), _swizzle(False, coordinate), launch=[GRID])
    assert r.verdict == "equivalent", r.brief()
    facts = [f for p in r.proofs if p["status"] == "equal" for f in p["assumptions"]]
    assert any(f.startswith(GRID) and "launch fact" in f for f in facts), facts
    # the split: a lemma on the divisor's sign, proven from the facts (the launch fact among them)
    assert any(f.startswith("lemma: the divisor of") for f in facts), facts
    assert all(p["seconds"] < 30 for p in r.proofs)


@pytest.mark.parametrize("coordinate", ["m", "n"])
def test_swizzle_mutant_grid_fact_off_by_one_tile_column(coordinate):
    # a launcher counting one column tile too many: with one column a block of the second
    # column is past every group of rows, its divisor negative. (One block too many is no
    # mutant: that block's group is empty, both sides divide by zero, neither is defined.)
    r = _diff(_swizzle(True, coordinate), _swizzle(False, coordinate),
              launch=["grid.x == cdiv(arg3, 128) * (cdiv(arg4, 128) + 1)"])
    assert r.verdict == "different", r.brief()
    cex = [d.detail["counterexample"] for d in r.differences if "counterexample" in d.detail]
    assert cex and cex[0]["left"] != cex[0]["right"], r.brief()
    assert cex[0]["bid.x"] >= -(-cex[0]["arg3"] // 128) * -(-cex[0]["arg4"] // 128), cex[0]


@pytest.mark.parametrize("coordinate", ["m", "n"])
def test_swizzle_mutant_group_m_changed_on_one_side(coordinate):
    r = _diff(_swizzle(True, coordinate), _swizzle(False, coordinate, group_m=4), launch=[GRID])
    assert r.verdict == "different", r.brief()
    assert not any(p["status"] == "equal" for p in r.proofs
                   if p["left"] == r.differences[0].left.op_id), r.proofs
    assert any(d.category in ("constant", "arith") for d in r.differences), r.brief()


@pytest.mark.parametrize("coordinate", ["m", "n"])
def test_swizzle_mutant_floor_vs_truncation_by_a_divisor_negative_within_the_grid(coordinate):
    a = _swizzle(True, coordinate, divisor="%ragged")
    b = _swizzle(False, coordinate, divisor="%ragged")
    r = _diff(a, b, launch=[GRID])
    assert r.verdict == "different", r.brief()
    cex = [d.detail["counterexample"] for d in r.differences if "counterexample" in d.detail]
    assert cex and cex[0]["left"] != cex[0]["right"], r.brief()
    tiles = -(-cex[0]["arg3"] // 128) * -(-cex[0]["arg4"] // 128)
    assert cex[0]["bid.x"] < tiles, cex[0]  # inside the launched grid


def test_every_semantics_of_the_op_table_has_an_encoder_and_no_other():
    """Op semantics for proofs live in one table keyed by the op table's ``semantics``: an op
    row naming a semantics the encoding lacks would silently be a leaf, an encoder no row
    names is dead code."""
    from tileir_diff.dialect import OPS_BY_NAME
    named = {d.semantics for d in OPS_BY_NAME.values() if d.semantics is not None}
    assert named - set(smt.ENCODERS) == set(), "semantics with no encoder"
    assert set(smt.ENCODERS) - named == set(), "encoders no op names"
    # an integer op has its integer-mode encoding (the fallback when bit-vectors time out)
    assert all(e.ints is not None for s, e in smt.ENCODERS.items() if s.startswith("int."))
    # the only ops the proof step divides by a computed value are the division rows
    assert {s for s, e in smt.ENCODERS.items() if e.divides} == {"int.div", "int.rem"}


_I32 = "tile<i32>"
#: one op per semantics (the value named %q), on a block id, an argument and a constant
_ONE_OP = {
    "int.add": f"addi %bx, %arg2 : {_I32}", "int.sub": f"subi %bx, %arg2 : {_I32}",
    "int.mul": f"muli %bx, %c3 : {_I32}", "int.div": f"divi %bx, %c3 signed rounding<positive_inf> : {_I32}",
    "int.rem": f"remi %arg2, %c3 signed : {_I32}", "int.and": f"andi %bx, %c3 : {_I32}",
    "int.or": f"ori %bx, %c3 : {_I32}", "int.xor": f"xori %bx, %c3 : {_I32}",
    "int.min": f"mini %bx, %c3 signed : {_I32}", "int.max": f"maxi %arg2, %c3 unsigned : {_I32}",
    "int.shl": f"shli %bx, %c3 : {_I32}", "int.shr": f"shri %arg2, %c3 signed : {_I32}",
    "int.neg": f"negi %bx : {_I32}", "int.abs": f"absi %arg2 : {_I32}",
    "int.trunc": f"trunci %bx : {_I32} -> tile<i16>", "int.ext": f"exti %c3 unsigned : {_I32} -> tile<i64>",
    "int.cmp": f"cmpi less_than %bx, %arg2, unsigned : {_I32} -> tile<i1>",
    "select": f"select %p, %bx, %gx : tile<i1>, {_I32}", "assume": f"assume bounded<0, 100>, %arg2 : {_I32}",
    "constant": f"constant <i32: 7> : {_I32}", "block_id": None, "num_blocks": None,
    "iota": "iota : tile<128xi32>", "splat": f"reshape %bx : {_I32} -> tile<1xi32>",
    "index_space": "get_index_space_shape %px : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>> -> tile<i32>",
    "float.add": f"addf %a, %a : {F}", "float.sub": f"subf %a, %a : {F}", "float.mul": f"mulf %a, %a : {F}",
    "float.neg": f"negf %a : {F}", "float.div": f"divf %a, %a : {F}",
    "float.cmp": f"cmpf less_than_or_equal unordered %a, %a : {F} -> tile<128xi1>",
    "ptr.offset": f"offset %arg0, %bx : tile<ptr<f32>>, {_I32} -> tile<ptr<f32>>",
    # (a memory read is expanded only unpaired: the probe's shared names leave it so)
    # (a view without padding leaves out-of-bounds elements unspecified: one per side)
    "memory.read": "load_view_tko weak %pz[%bx] : partition_view<tile=(128), padding_value = zero, "
                   "tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token",
}


@pytest.mark.parametrize("semantics", sorted(smt.ENCODERS))
def test_every_encoder_expands_its_op_in_the_encoders_own_context(semantics, monkeypatch):
    """Each encoder, in the bit-vector encoding and (integers) the integer one: a value is
    proven equal to itself through the op (expanded, not a leaf), and no term of the query is
    made in z3's global context (the cross-thread crash, issue 27)."""
    import z3.z3 as z3_module
    from tileir_diff.check.index import FunctionIndex
    assert semantics in _ONE_OP, f"add a one-op probe for {semantics}"
    line = _ONE_OP[semantics] or ("get_num_tile_blocks" if semantics == "num_blocks" else "get_tile_block_id")
    body = ("  %c3 = constant <i32: 3> : tile<i32>\n  %gx, %gy, %gz = get_num_tile_blocks : tile<i32>\n"
            "  %p = cmpi less_than %bx, %c3, signed : tile<i32> -> tile<i1>\n" + load("a"))
    name = line.split()[0]
    results = "%q, %q_t" if semantics == "memory.read" else "%q"
    if semantics == "memory.read":
        body += ("  %pz = make_partition_view %tx : partition_view<tile=(128), padding_value = zero, "
                 "tensor_view<?xf32, strides=[1]>>\n")
    f = kernel(body + (f"  {results} = {line}\n" if _ONE_OP[semantics] else "") + store("%a")).functions[0]
    op = [o for o in f.body.operations if o.name == name][-1]
    calls = []
    original = z3_module.main_ctx
    monkeypatch.setattr(z3_module, "main_ctx", lambda: calls.append(1) or original())
    ix = FunctionIndex(f, 0)
    modes = (False, True) if semantics.startswith("int.") else (False,)
    def shared(nid, res):
        if nid in ix.arg_index:
            return f"arg{ix.arg_index[nid]}"
        return None if ix.ops.get(nid) is op and semantics == "memory.read" else f"m:{nid}#{res}"
    for ints in modes:
        enc = smt.ConeEncoder(ix, ix, shared, shared)
        enc.shape = op.results[0].type.shape
        out = enc._attempt(op.results[0], op.results[0], ints, smt.DEFAULT_RLIMIT)
        if not ints:
            assert out.status == "equal", (semantics, out)
        if out.status == "equal":
            nid = next(k for k, o in ix.ops.items() if o is op)
            assert nid in out.cone_left and nid in out.cone_right, (semantics, ints, out)
        else:  # the integer encoding declines: shifts and wide bitwise ops, or a step that may wrap
            assert out.status in ("unsupported", "undecided") and out.note, (semantics, out)
    assert not calls, semantics
