"""Entry arguments by role (match/arguments.py): roles from use, a reordering pairs by role, and
anything that is not a pure reordering keeps the positional pairing."""
from __future__ import annotations

import tileir_diff
from tileir_diff.graph import FunctionGraph
from tileir_diff.match.arguments import align_arguments, argument_roles, describe_role
from tileir_diff.normalize import normalize, tag_origins

from ..check import kernels as K


def _graph(text: str) -> FunctionGraph:
    return FunctionGraph(normalize(tag_origins(tileir_diff.load(text)))[0].functions[0], 0)


def test_roles_from_use():
    g = _graph(K.exp2_sub())
    roles = argument_roles(g)
    assert roles["f0/a0"][0] == "array" and "load_view_tko" in roles["f0/a0"][2]
    assert roles["f0/a2"][0] == "array" and "store_view_tko" in roles["f0/a2"][2]
    assert roles["f0/a1"][:1] == ("shape",) and roles["f0/a1"][2] == "f0/a0" and roles["f0/a1"][3] == 0
    assert roles["f0/a3"][2] == "f0/a2"
    assert roles["f0/a4"][0] == "scalar"
    assert describe_role(g, "f0/a2", roles) == "array tile<ptr<f32>> (stored)"
    assert describe_role(g, "f0/a3", roles) == "shape[0] of argument 2"


def test_same_order_pairs_by_position():
    L = _graph(K.exp2_sub())
    assert align_arguments(L, _graph(K.exp2_sub(True))) == [(f"f0/a{k}", f"f0/a{k}") for k in range(5)]


def test_output_first_pairs_by_role():
    L = _graph(K.exp2_sub())
    R = _graph(K.reorder_arguments(K.exp2_sub(), [2, 3, 0, 1, 4]))
    assert dict(align_arguments(L, R)) == {"f0/a0": "f0/a2", "f0/a1": "f0/a3", "f0/a2": "f0/a0",
                                           "f0/a3": "f0/a1", "f0/a4": "f0/a4"}


def test_not_a_reordering_keeps_positions():
    # the right stores through both arrays: no role bijection, so positions decide
    L = _graph(K.exp2_sub())
    text = K.exp2_sub().replace("store_view_tko weak %u, %po", "store_view_tko weak %u, %px")
    R = _graph(text)
    assert align_arguments(L, R) == [(f"f0/a{k}", f"f0/a{k}") for k in range(5)]
