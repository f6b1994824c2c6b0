"""The Arguments stage alone: the entry arguments as the aligners pair them, tagged ``anchors``;
an alignment handed to the matcher for the same graphs is added as it is, never aligned again."""
from __future__ import annotations

from tileir_diff.match import DEFAULT_STAGES, Arguments, Limits, match_functions
from tileir_diff.match.alignment import Alignment, Signatures, align

from ..check import kernels as K
from .kernels import Pair


def test_a_reordered_signature_is_anchored_by_role():
    p = Pair(K.exp2_sub(), K.reorder_arguments(K.exp2_sub(), [2, 3, 0, 1, 4]))
    added = p.run(Arguments())
    assert dict(p.ctx.mapping.l2r) == {"f0/a0": "f0/a2", "f0/a1": "f0/a3", "f0/a2": "f0/a0", "f0/a3": "f0/a1",
                                       "f0/a4": "f0/a4"}
    assert len(added) == 5 and {tag for _, _, tag in added} == {"anchors"}
    assert p.run(Arguments()) == []  # nothing twice


def test_a_given_alignment_of_these_graphs_is_added_as_it_is():
    p = Pair(K.exp2_sub(), K.exp2_sub(True))
    # a stand-in alignment (one crossed pair) that aligning would never give: the stage adds it
    p.ctx.alignment = Alignment([("f0/a1", "f0/a3")], [], "given", Signatures(p.L, p.R))
    assert Arguments().run(p.ctx) == 1
    assert dict(p.ctx.mapping.l2r) == {"f0/a1": "f0/a3"}


def test_mutant_an_alignment_of_other_graphs_is_not_used():
    p = Pair(K.exp2_sub(), K.exp2_sub(True))
    other = Pair(K.exp2_sub(), K.exp2_sub(True))  # the same texts, other graph objects
    p.ctx.alignment = Alignment([("f0/a1", "f0/a3")], [], "given", Signatures(other.L, other.R))
    assert Arguments().run(p.ctx) == 5
    assert dict(p.ctx.mapping.l2r) == {f"f0/a{k}": f"f0/a{k}" for k in range(5)}


def test_match_functions_hands_the_alignment_to_the_stage():
    p = Pair(K.exp2_sub(), K.reorder_arguments(K.exp2_sub(), [2, 3, 0, 1, 4]))
    found = align(p.L, p.R)
    ctx = match_functions(p.L, p.R, Limits(), float("inf"), alignment=found)
    assert ctx.alignment is found and isinstance(DEFAULT_STAGES[0], Arguments)
    assert all(ctx.mapping.l2r[a] == b and ctx.mapping.stage[a] == "anchors" for a, b in found.pairs)
    alone = match_functions(p.L, p.R, Limits(), float("inf"))  # aligned by the stage itself
    assert alone.mapping.l2r == ctx.mapping.l2r
