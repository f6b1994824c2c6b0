"""The positional aligner alone: in order when the counts agree, else on the sequence of
argument types (an inserted argument shifts nothing); always applies, so it ends ALIGNERS."""
from __future__ import annotations

import pytest

from tileir_diff.match.alignment import ALIGNERS, Positional, Strict, align

from ..check import kernels as K
from .aligned import graph, signatures

_SIG = "entry @k("


def _with_inserted_scalar(text: str) -> str:
    assert _SIG in text
    return text.replace(_SIG, _SIG + "%argX: tile<f32>, ", 1)


def test_equal_counts_pair_in_order():
    right = K.exp2_sub().replace("store_view_tko weak %u, %po", "store_view_tko weak %u, %px")
    assert Positional().align(signatures(K.exp2_sub(), right)) == ([(f"f0/a{k}", f"f0/a{k}") for k in range(5)], [])


def test_an_inserted_argument_does_not_shift_the_others():
    pairs, ties = Positional().align(signatures(K.exp2_sub(), _with_inserted_scalar(K.exp2_sub())))
    assert pairs == [(f"f0/a{k}", f"f0/a{k + 1}") for k in range(5)] and ties == []


def test_positional_ends_the_list_and_the_list_must_end_with_it():
    assert isinstance(ALIGNERS[-1], Positional)
    L, R = graph(K.exp2_sub()), graph(_with_inserted_scalar(K.exp2_sub()))
    with pytest.raises(ValueError, match="no aligner applies"):
        align(L, R, aligners=[Strict()])
