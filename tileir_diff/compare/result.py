"""The result model, re-exported: it lives in tileir_diff/report/result.py, beside its renderers
(docs/api.md); this name stays importable for code written against it."""
from ..report.result import (CATEGORIES, EXIT_CODES, EXIT_OK_ACCEPTED, SCHEMA_VERSION, VERDICTS, DeferredLines,
                             DiffResult, Difference, Execution, FunctionPair, FunctionStats, MatchStats, OpRef,
                             PairSummary)

__all__ = ["CATEGORIES", "EXIT_CODES", "EXIT_OK_ACCEPTED", "SCHEMA_VERSION", "VERDICTS", "DeferredLines",
           "DiffResult", "Difference", "Execution", "FunctionPair", "FunctionStats", "MatchStats", "OpRef",
           "PairSummary"]
