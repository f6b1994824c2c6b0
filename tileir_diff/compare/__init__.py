"""Diff stage: classify matched graphs into root differences and a verdict (see result.py)."""
from ..report.result import CATEGORIES, VERDICTS, SCHEMA_VERSION, OpRef, Difference, DiffResult
from .engine import compute_diff, pair_functions

__all__ = ["CATEGORIES", "VERDICTS", "SCHEMA_VERSION", "OpRef", "Difference", "DiffResult", "compute_diff",
           "pair_functions"]
