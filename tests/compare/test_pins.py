"""Pinned arguments (compare/pins.py find_pins): a scalar argument one side takes where the other
has a constant, found on the matched graphs; the roles may come from the alignment."""
from __future__ import annotations

from tileir_diff.compare.pins import find_pins
from tileir_diff.match import Limits, match_functions
from tileir_diff.match.alignment import align

from ..match.aligned import corpus_pair

def _pins(name: str, with_roles: bool):
    L, R = corpus_pair(name)
    found = align(L, R)
    ctx = match_functions(L, R, Limits(), float("inf"), alignment=found)
    return find_pins(L, R, ctx.mapping, 0, found.signatures.roles if with_roles else None)


def test_a_constant_taken_as_an_argument_is_a_pin():
    pins = _pins("softmax_log2e_argument", True)
    # the right takes log2(e) as its argument 10; the left has the f32 constant 1.442695 (0x3fb8aa3b)
    assert [(p.side, p.function, p.argument, p.value.data) for p in pins] == [("right", 0, 10, b";\xaa\xb8?")]
    assert _pins("softmax_log2e_argument", False) == pins  # the alignment's roles are the same roles


def test_mutant_a_changed_constant_in_place_is_no_pin():
    assert _pins("softmax_log2e_changed", True) == []
