"""The covering aligner alone and its named steps: by role when every used argument finds its
role on the other side, with ties; never when the roles agree with the positions, nor when
arrays are left over on both sides."""
from __future__ import annotations

from tileir_diff.match.alignment import Covering, Signatures, align
from tileir_diff.match.alignment.covering import STEPS, CoveringState, cover, extra_arrays_on_one_side
from tileir_diff.match.arguments import Tie

from ..check import kernels as K
from .aligned import corpus_pair, signatures


def test_an_extent_the_right_fixes_in_its_view_type_is_a_static_tie():
    # the left passes K (shape[1] of its first array) as argument 2, the right fixes it to 4096
    sig = Signatures(*corpus_pair("matmul_static_k"))
    pairs, ties = Covering().align(sig)
    assert ties == [Tie("left", None, "f0/a2", "4096", ("shape", "f0/a0", 1))]
    assert "f0/a2" not in dict(pairs) and all(a == b for a, b in pairs)
    assert [a for a, _ in pairs] == sorted((a for a, _ in pairs), key=sig.largs.index)


def test_an_extra_output_stays_unpaired_with_its_extent():
    # output first and one more f16 array (with its extent) on the right: the rest pair by role
    L, R = corpus_pair("rms_norm_out_first_extra_output")
    found = align(L, R)
    assert found.by == "covering" and found.ties == []
    pairs = dict(found.pairs)
    assert pairs["f0/a0"] == "f0/a8" and pairs["f0/a8"] == "f0/a0" and pairs["f0/a5"] == "f0/a13"
    assert "f0/a5" not in pairs.values() and "f0/a6" not in pairs.values()  # the f32 array and its extent


def test_mutant_roles_in_place_are_left_to_position():
    # every role on both sides at its position: no reordering, no tie; position pairs them all
    assert cover(signatures(K.exp2_sub(), K.exp2_sub(True))) is None
    assert Covering().align(signatures(K.exp2_sub(), K.exp2_sub(True))) is None


def test_arrays_left_over_on_both_sides_end_the_role_pairing():
    s = CoveringState(signatures(K.exp2_sub(), K.exp2_sub()))
    s.l_arrays, s.r_arrays = ["f0/a0"], ["f0/a0"]
    assert extra_arrays_on_one_side(s) is False  # unpaired on both sides: no role pairing
    s.pair("f0/a0", "f0/a0")
    assert extra_arrays_on_one_side(s) is True and s.extra_l == s.extra_r == set()
    s = CoveringState(signatures(K.exp2_sub(), K.exp2_sub()))
    s.l_arrays = ["f0/a0"]
    assert extra_arrays_on_one_side(s) is True and s.extra_l == {"f0/a0"}  # an extra array on one side


def test_the_steps_run_in_their_documented_order():
    assert [f.__name__ for f in STEPS] == [
        "pair_arrays", "pair_leftover_arrays", "extra_arrays_on_one_side", "pair_left_extents",
        "tie_right_extents", "tie_right_fixed_on_the_left", "pair_scalars", "nothing_but_scalars_left",
        "no_rewired_use"]
    assert all(f.__doc__ for f in STEPS)
