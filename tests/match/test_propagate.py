"""The propagate stage alone: strict top-down and bottom-up to a fixed point, then tie-breaking."""
from __future__ import annotations

from tileir_diff.match import Propagate

from .kernels import Pair
from .test_top_down import twins


def test_waiting_commutative_operands_are_decided_by_their_inputs():
    """addf(absf(a), absf(b)) below a changed index: strict top-down leaves the addf's operands
    waiting, bottom-up from the loads pairs each absf with its own (not crossed)."""
    p = Pair(twins(0), twins(1))
    p.given("%arg0", "%arg1", "%arg2", "%tx", "%ty", "%px", "%py", "%st", "%x")
    assert p.run(Propagate()) == [("%a", "%a", "bottom-up"), ("%b", "%b", "bottom-up"), ("%bx", "%bx", "top-down"),
                                  ("%i", "%i", "top-down"), ("%p", "%p", "bottom-up"), ("%q", "%q", "bottom-up")]
    assert p.ctx.deferred == []


def test_from_the_store_alone_everything_connected_pairs():
    p = Pair(twins(0), twins(1))
    p.given("%st")
    added = p.run(Propagate())
    assert {t for _, _, t in added} == {"top-down", "bottom-up"}
    assert all(l == r for l, r, _ in added)
    assert set(p.pairs()) == {p.lnames[n] for n in p.L.order} - {"return"}  # the return is connected to nothing
