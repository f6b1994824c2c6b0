"""Diff stage: classify matched graphs into root differences and a verdict (see result.py)."""
from .result import CATEGORIES, VERDICTS, SCHEMA_VERSION, OpRef, Difference, DiffResult
