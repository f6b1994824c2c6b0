"""Memory reads in the proof step: a load the mapping leaves unpaired is the value of memory at
its byte address (``mem(address)``, one function per array and element type, shared by the two
sides), so a view load and an explicit pointer gather are proven to read the same element under
the same bounds, each with its padding. The embedding port's gather (the table read through raw
pointers with i64 offsets, masked, zeroed by a select) against the reference's gather view is
the real pair; every mutant below changes one thing the proof must see."""
from __future__ import annotations

from pathlib import Path

import pytest

from tileir_diff.check import smt
from tileir_diff.check.smt import layout_position
from tileir_diff.compare import compute_diff
from tileir_diff.text.parser import parse_text

from ..normalize.kernels import PROLOGUE, kernel

pytestmark = pytest.mark.skipif(not smt.available(), reason="z3-solver not installed")

#: the embedding pair as dumped from build/ (reference export and the Rust port's IR)
DATA = Path(__file__).resolve().parent / "data"


def _diff(a, b, **kw):
    return compute_diff(a, b, with_summary=False, with_lines=False, **kw)


def _gather(edit=None, flag=True):
    """The embedding pair (reference: gather view; port: masked pointer gather + select);
    ``flag``: keep the port's trunci no_signed_wrap; ``edit``: a mutation of the port's text."""
    left = (DATA / "gather_view_vs_pointer.left.tir").read_text()
    right = (DATA / "gather_view_vs_pointer.right.tir").read_text()
    if not flag:
        right = right.replace(" overflow<no_signed_wrap>", "")
    if edit:
        right = edit(right)
    return parse_text(left), parse_text(right)


def _edit(old, new):
    def apply(text):
        assert old in text, old
        return text.replace(old, new)
    return apply


def test_gather_view_and_pointer_gather_are_one_read_without_the_flag():
    r = _diff(*_gather(flag=False))
    assert r.verdict == "equivalent", r.brief()
    proof = [p for p in r.proofs if p["status"] == "equal" and p["of"] == "operand 0"]
    assert proof, r.proofs
    facts = "; ".join(proof[0]["assumptions"])
    assert "loopIdx < upper bound" in facts and "pos1" in facts, facts
    off = _diff(*_gather(flag=False), disable=["smt-equivalence"])
    assert off.verdict == "different"


def test_the_flag_alone_is_a_specialization_stated_as_the_ports_assumption():
    r = _diff(*_gather())
    assert r.verdict == "specialized", r.brief()
    assert [d.category for d in r.differences] == ["specialization"], r.brief()
    assert r.differences[0].detail.get("assumes_more") == "right"
    assert "no signed wrap" in r.differences[0].message


MUTANTS = {
    # the row offset multiplied by the table's extent V instead of its row stride
    "another stride": _edit("%9 = muli %reshape, %bcast_54", "%9 = muli %reshape, %bcast"),
    # one element further on
    "off by one": _edit("%17 = offset %bcast_72, %16 :", "%one = constant <i64: 1> : tile<8x256xi64>\n"
                        "    %16p = addi %16, %one : tile<8x256xi64>\n    %17 = offset %bcast_72, %16p :"),
    # the column mask lets column H through, the row mask row V
    "column mask <=": _edit("%14 = cmpi less_than %reshape_92", "%14 = cmpi less_than_or_equal %reshape_92"),
    "row mask <=": _edit("%8 = cmpi less_than %reshape, %bcast,", "%8 = cmpi less_than_or_equal %reshape, %bcast,"),
    # masked lanes zeroed with 1.0, or not at all
    "padding 1": _edit("%cst_0_f16 = constant <f16: 0.000000e+00>", "%cst_0_f16 = constant <f16: 1.000000e+00>"),
    "no select": _edit("%19 = store_view_tko weak %18,", "%19 = store_view_tko weak %result,"),
    # the output's base pointer: the wrong array
    "wrong array": _edit("%reshape_67 = reshape %assume_1 ", "%reshape_67 = reshape %assume_6 "),
    # the narrowed id zero-extended: a negative i32 row becomes a huge in-bounds one
    "zero extension": _edit("%4 = exti %2 signed", "%4 = exti %2 unsigned"),
    # no narrowing at all: the i64 id indexes rows the reference's wrapped i32 index does not
    "no trunci (wraps differ)": _edit("%reshape = reshape %4 :", "%reshape = reshape %tile :"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
@pytest.mark.parametrize("flag", [False, True])
def test_mutant_of_the_pointer_gather_stays_different(name, flag):
    r = _diff(*_gather(MUTANTS[name], flag=flag))
    assert r.verdict == "different", (name, r.brief())
    assert any(d.category == "memory" for d in r.differences), (name, r.brief())


# --- a small pair: a padded view load against a masked pointer gather, 1-D ------------------
PADDED = "partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>"
F = "tile<128xf32>"
#: both sides say the extent is not negative (else the unsigned mask lets every column through
#: where the view reads none: a real difference, which the proof finds without this)
EXTENT = "  %nn = assume bounded<0, ?>, %arg2 : tile<i32>\n"
#: one block per 128 elements: bx * 128 never wraps (without it the port's i32 start wraps for a
#: grid of 2^24 blocks where the view's exact coordinate does not: a real difference)
GRID = "grid.x == cdiv(arg2, 128)"


def _small(a, b):
    return _diff(a, b, launch=[GRID])


def _view_side(pre: str = "", token: str = "%0"):
    return kernel(EXTENT + pre + f"  %pz = make_partition_view %tx : {PADDED}\n"
                  f"  %a, %a_t = load_view_tko weak %pz[%bx] token = {token} : {PADDED}, tile<i32> -> {F}, token\n"
                  + _store("%a"))


def _store(value: str) -> str:
    return (f"  %st = store_view_tko weak {value}, %py[%bx] token = %0 : {F}, "
            "partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token\n")


def _pointer_side(pre: str = "", token: str = "", pad: str = "0.000000e+00", bound: str = "%arg2",
                  base: str = "%arg0", predicate: str = "less_than"):
    return kernel(EXTENT + pre + f"""  %c128 = constant <i32: 128> : tile<i32>
  %start = muli %bx, %c128 : tile<i32>
  %r = reshape %start : tile<i32> -> tile<1xi32>
  %s = broadcast %r : tile<1xi32> -> tile<128xi32>
  %i = iota : tile<128xi32>
  %col = addi %s, %i : tile<128xi32>
  %nr = reshape {bound} : tile<i32> -> tile<1xi32>
  %n = broadcast %nr : tile<1xi32> -> tile<128xi32>
  %m = cmpi {predicate} %col, %n, unsigned : tile<128xi32> -> tile<128xi1>
  %br = reshape {base} : tile<ptr<f32>> -> tile<1xptr<f32>>
  %b = broadcast %br : tile<1xptr<f32>> -> tile<128xptr<f32>>
  %p = offset %b, %col : tile<128xptr<f32>>, tile<128xi32> -> tile<128xptr<f32>>
  %v, %v_t = load_ptr_tko weak %p, %m{token} : tile<128xptr<f32>>, tile<128xi1> -> {F}, token
  %z = constant <f32: {pad}> : {F}
  %a = select %m, %v, %z : tile<128xi1>, {F}
""" + _store("%a"))


def test_small_view_load_against_pointer_gather_is_equivalent():
    r = _small(_view_side(), _pointer_side())
    assert r.verdict == "equivalent", r.brief()
    assert r.rules_applied.get("smt-equivalence"), r.rules_applied


@pytest.mark.parametrize("mutant", [dict(pad="1.000000e+00"), dict(bound="%bx"), dict(base="%arg1"),
                                    dict(predicate="less_than_or_equal")], ids=["pad", "bound", "array", "mask"])
def test_small_pair_mutants_stay_different(mutant):
    r = _small(_view_side(), _pointer_side(**mutant))
    assert r.verdict == "different", (mutant, r.brief())


def test_mutant_a_read_ordered_after_a_store_on_one_side_only_stays_different():
    """Both kernels first store to y; the pointer gather waits for that store (its token), the
    view load does not: if x and y overlap, the two reads see memory in different states, so
    the reads are not one read (check 7 with the pair added)."""
    first = f"  %zero = constant <f32: 0.000000e+00> : {F}\n" + _store("%zero").replace("%st =", "%st0 =")
    same = _small(_view_side(pre=first), _pointer_side(pre=first))
    assert same.verdict == "equivalent", same.brief()
    r = _small(_view_side(pre=first), _pointer_side(pre=first, token=" token=%st0"))
    assert r.verdict == "different", r.brief()
    notes = [p.get("note", "") for p in r.proofs]
    assert any("ordered differently" in n for n in notes), r.proofs


def test_a_view_without_padding_leaves_out_of_bounds_elements_unspecified():
    """A partition view without a padding value: out-of-bounds elements are unspecified (a value
    of each side alone), never read as the right's zeros."""
    unpadded = kernel(EXTENT + "  %a, %a_t = load_view_tko weak %px[%bx] token = %0 : "
                      "partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> "
                      f"{F}, token\n" + _store("%a"))
    r = _small(unpadded, _pointer_side())
    assert r.verdict == "different", r.brief()


def test_prologue_is_what_the_small_pair_assumes():
    assert "%tx = make_tensor_view %arg0" in PROLOGUE and "%py = make_partition_view %ty" in PROLOGUE


@pytest.mark.parametrize("name,src,res,pos,want", [
    ("broadcast", (8, 1), (8, 256), (0, 1), (0, None)),
    ("broadcast", (1, 256), (8, 256), (0, 1), (None, 1)),
    ("reshape", (8,), (8, 1), (0, None), (0,)),
    ("reshape", (256,), (1, 256), (None, 1), (1,)),
    ("reshape", (8, 32), (256,), (0,), None),        # a real reshape: not followed
    ("broadcast", (2, 256), (8, 256), (0, 1), None),  # not a broadcast of unit dims
])
def test_layout_position(name, src, res, pos, want):
    assert layout_position(name, src, res, pos) == want


def test_mutant_without_the_grid_fact_the_ports_wrapping_start_is_a_difference():
    """The port's bx * 128 in i32 wraps for a grid of 2^24 blocks; the view's coordinate is
    exact: without the launch grid the two read different elements there."""
    r = _diff(_view_side(), _pointer_side())
    assert r.verdict == "different", r.brief()
    cex = [d.detail["counterexample"] for d in r.differences if "counterexample" in d.detail]
    assert cex and cex[0]["bid.x"] * 128 >= 2 ** 31, cex
