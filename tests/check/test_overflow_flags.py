"""Overflow flags as assumptions (compare/specialization.py): a flag on one side only (or another
flag) is a ``specialization`` root saying which side assumes more, the checker proves the rest
the same with every flag cleared, and the pair is ``specialized``; the flag changed together with
anything else, or a flag that no launch satisfies, stays ``different``."""
from __future__ import annotations

import pytest

import tileir_diff
from tileir_diff.compare.specialization import flag_side, overflow_keys, strip_assumptions
from tileir_diff.ir import Function
from tileir_diff.text.parser import parse_text

VIEW = "partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>"


def _kernel(index: str, trunc: str = "", add: str = "", source: str = "%arg3", width: str = "i32",
            extra: str = "", pre: str = "") -> str:
    """y[bx] = x[trunci(source) + bx]: the index narrowed from the i64 argument, then offset by
    the block id; ``trunc``/``add`` are the two ops' overflow flags (``""``: none)."""
    t = f" overflow<{trunc}>" if trunc else ""
    a = f" overflow<{add}>" if add else ""
    narrow = f"  %i = trunci {source}{t} : tile<i64> -> tile<{width}>\n"
    if width != "i32":
        narrow += f"  %iw = exti %i signed : tile<{width}> -> tile<i32>\n"
    return f"""entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>, %arg3: tile<i64>, %arg4: tile<i64>) {{
  %0 = make_token : token
  %tx = make_tensor_view %arg0, shape = [%arg2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %ty = make_tensor_view %arg1, shape = [%arg2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %px = make_partition_view %tx : {VIEW}
  %py = make_partition_view %ty : {VIEW}
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %big = constant <i64: 2147483648> : tile<i64>
  %small = constant <i64: 5> : tile<i64>
  %sum = addi %arg3, %arg4 : tile<i64>
{pre}{narrow}{extra}  %j = addi {index}, %bx{a} : tile<i32>
  %v, %vt = load_view_tko weak %px[%j] token = %0 : {VIEW}, tile<i32> -> tile<128xf32>, token
  %st = store_view_tko weak %v, %py[%bx] token = %0 : tile<128xf32>, {VIEW}, tile<i32> -> token
  return
}}
"""


def k(trunc: str = "", add: str = "", **kw) -> str:
    return _kernel("%iw" if kw.get("width", "i32") != "i32" else "%i", trunc, add, **kw)


def test_the_op_table_names_the_flags():
    assert {n for n in ("addi", "subi", "muli", "shli", "negi", "trunci") if overflow_keys(n) == ("overflow",)} == \
        {"addi", "subi", "muli", "shli", "negi", "trunci"}
    assert overflow_keys("addf") == () and overflow_keys("divi") == ()


@pytest.mark.parametrize("left,right,side", [
    ("none", "no_signed_wrap", "right"), ("no_unsigned_wrap", "none", "left"), ("no_signed_wrap", "no_wrap", "right"),
    ("no_signed_wrap", "no_unsigned_wrap", "neither"), ("no_wrap", "no_wrap", "same"), (None, "none", "same")])
def test_which_flag_assumes_more(left, right, side):
    assert flag_side(left, right) == side


def test_trunci_flag_on_the_port_only_is_specialized_and_says_so():
    r = tileir_diff.diff(k(), k(trunc="no_signed_wrap"))
    assert r.verdict == "specialized" and r.exit_code == 4, r.to_text()
    assert [d.category for d in r.differences] == ["specialization"]
    d = r.differences[0]
    assert d.detail["assumes_more"] == "right"
    assert "trunci" in d.message and "the right assumes no signed wrap" in d.message
    assert "overflow none -> no_signed_wrap" in d.message


@pytest.mark.parametrize("left,right,side", [("no_signed_wrap", "", "left"), ("no_signed_wrap", "no_unsigned_wrap", "neither"),
                                             ("no_unsigned_wrap", "no_wrap", "right")])
def test_addi_flags_either_way(left, right, side):
    r = tileir_diff.diff(k(add=left), k(add=right))
    assert r.verdict == "specialized", r.to_text()
    assert [d.detail["assumes_more"] for d in r.differences] == [side]


def test_the_same_flag_on_both_sides_is_no_difference():
    assert tileir_diff.diff(k(trunc="no_signed_wrap", add="no_wrap"), k(trunc="no_signed_wrap", add="no_wrap")).verdict \
        == "identical"


def test_strip_assumptions_clears_every_flag():
    m = parse_text(k(trunc="no_signed_wrap", add="no_wrap"))
    f: Function = strip_assumptions(m).functions[0]
    assert all("overflow" not in op.attributes for op in f.walk())


# --- mutants: the flag together with another change stays different ---------------------------

def test_mutant_trunci_to_another_width_with_the_flag():
    r = tileir_diff.diff(k(), k(trunc="no_signed_wrap", width="i16"))
    assert r.verdict == "different", r.to_text()
    assert "specialization" not in {d.category for d in r.differences}


def test_mutant_trunci_of_another_operand_with_the_flag():
    # (%arg4 alone would read as the arguments in another order: a calling-convention root)
    r = tileir_diff.diff(k(), k(trunc="no_signed_wrap", source="%sum"))
    assert r.verdict == "different", r.to_text()
    assert r.differences[0].category != "specialization"
    assert "assumes_more" not in r.differences[0].detail


def test_mutant_flag_added_with_a_change_elsewhere():
    other = _kernel("%i2", "no_signed_wrap", extra="  %c1 = constant <i32: 1> : tile<i32>\n"
                                                     "  %i2 = addi %i, %c1 : tile<i32>\n")
    r = tileir_diff.diff(k(), other)
    assert r.verdict == "different", r.to_text()


@pytest.mark.parametrize("constant,verdict", [("%big", "different"), ("%small", "equivalent")])
def test_a_flag_no_launch_satisfies_is_different(constant, verdict):
    # trunci no_signed_wrap of the constant 2^31 to i32 wraps on every launch: the port is
    # undefined for every input, not a specialization; of the constant 5 it never wraps, which
    # the proof step shows (the flag then excludes nothing)
    r = tileir_diff.diff(k(source=constant), k(trunc="no_signed_wrap", source=constant))
    assert r.verdict == verdict, r.to_text()
    if verdict == "equivalent":
        assert r.rules_applied.get("smt-equivalence"), r.rules_applied
    else:
        assert "never_holds" in r.differences[0].detail and "2147483648" in r.differences[0].detail["never_holds"]
