"""Summaries of a kernel and of a pair of kernels, as plain JSON-ready dicts.

``summarize(module)`` describes one module; ``summarize_pair(left, right)`` gives
``{"left": ..., "right": ..., "pair": ...}``, what ``DiffResult.summary`` (a PairSummary) holds.
Imports only the IR and the op table, so ``tileir-diff summary`` starts fast.
"""
from __future__ import annotations

from typing import Any, Dict

from ..gc_pause import gc_paused
from ..ir import Module
from .kernel import summarize_function, summarize_module
from .pair import SECTIONS, pair_function_summaries, summarize_pair_dicts

__all__ = ["summarize", "summarize_module", "summarize_function", "summarize_pair",
           "summarize_pair_dicts", "pair_function_summaries", "SECTIONS"]


def summarize(module: Module) -> Dict[str, Any]:
    """Summary of one module (see docs/json-format.md, "summary")."""
    with gc_paused():  # an index record per value, all kept until the end: see gc_pause.py
        return summarize_module(module)


def summarize_pair(left: Module, right: Module) -> Dict[str, Any]:
    """``{"left": summary, "right": summary, "pair": side-by-side rows with differences flagged}``."""
    with gc_paused():
        ls, rs = summarize_module(left), summarize_module(right)
        return {"left": ls, "right": rs, "pair": summarize_pair_dicts(ls, rs)}
