"""The strict aligner alone: by position when the roles agree, by role when that pairs every
argument (a reordering), else not at all (the next aligner decides)."""
from __future__ import annotations

from tileir_diff.match.alignment import Signatures, Strict, align

from ..check import kernels as K
from .aligned import TPS, corpus_pair, graph, signatures


def test_same_roles_in_place_pair_by_position():
    found = Strict().align(signatures(K.exp2_sub(), K.exp2_sub(True)))
    assert found == ([(f"f0/a{k}", f"f0/a{k}") for k in range(5)], [])


def test_a_reordered_signature_pairs_by_role():
    sig = signatures(K.exp2_sub(), K.reorder_arguments(K.exp2_sub(), [2, 3, 0, 1, 4]))
    pairs, ties = Strict().align(sig)
    assert dict(pairs) == {"f0/a0": "f0/a2", "f0/a1": "f0/a3", "f0/a2": "f0/a0", "f0/a3": "f0/a1",
                           "f0/a4": "f0/a4"}
    assert [a for a, _ in pairs] == sig.largs and ties == []  # in left order, no ties


def test_mutant_not_a_reordering_is_left_to_the_next_aligner():
    # the right stores through both arrays: no role bijection
    right = K.exp2_sub().replace("store_view_tko weak %u, %po", "store_view_tko weak %u, %px")
    assert Strict().align(signatures(K.exp2_sub(), right)) is None


def test_an_output_first_port_is_aligned_by_strict():
    L, R = corpus_pair("rms_norm_out_first")
    found = align(L, R)
    assert found.by == "strict" and found.ties == [] and found.is_for(L, R)
    assert any(a != b for a, b in found.pairs)  # a reordering, not positions
    # for these very graphs: not for the mirrored pair, nor for a graph built again from the same text
    assert not found.is_for(R, L)
    assert not found.is_for(L, graph((TPS / "rms_norm_out_first.right.tir").read_text()))
    assert Signatures(L, R).roles == (found.signatures.lr, found.signatures.rr)
