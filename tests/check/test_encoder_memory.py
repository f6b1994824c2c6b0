"""A diff frees its proofs' z3 contexts when it returns (ConeEncoder.close, called by
ProofStep.run), not when Python's cycle collector next runs a full pass: the encoder and its
counterexample search refer to each other, and in a long-running process full passes are rare.
Before the close, the mutation engine's workers held dozens of finished contexts (tens of MB of
native memory each) and grew to 6-12 GB."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path

from tileir_diff.api import diff
from tileir_diff.check import smt

PAIR = Path(__file__).resolve().parents[1] / "corpus" / "third_party_style" / "matmul_static_mnk"


def _diff_tracking_contexts(monkeypatch):
    made = []
    original = smt.new_context

    def tracked():
        ctx = original()
        made.append(weakref.ref(ctx))
        return ctx
    monkeypatch.setattr(smt, "new_context", tracked)
    gc.disable()  # only reference counts may free a context here
    try:
        r = diff(f"{PAIR}.left.tir", f"{PAIR}.right.tir")
        alive = [ref() for ref in made if ref() is not None]
        probe = getattr(smt._PROBE_CONTEXTS, "ctx", None)  # (the thread's probe context is kept)
        return r, made, [c for c in alive if c is not probe]
    finally:
        gc.enable()


def test_a_diff_frees_its_proof_contexts_when_it_returns(monkeypatch):
    r, made, alive = _diff_tracking_contexts(monkeypatch)
    assert r.proofs, "the pair's values are proven equal by z3 (the verdict rests on proofs)"
    assert made, "the pair is proven with z3: an encoder context was made"
    assert alive == []


def test_without_close_the_context_outlives_the_diff(monkeypatch):
    """The mutant: an encoder that is not closed keeps its context until a collection."""
    monkeypatch.setattr(smt.ConeEncoder, "close", lambda self: None)
    _, made, alive = _diff_tracking_contexts(monkeypatch)
    assert made and alive
    gc.collect()
