"""The trusted checker (translation validation): the matcher proposes a mapping, this package
decides whether it proves two normalized kernels the same (see checker.py, docs/matching.md)."""
from .checker import FunctionCheck, Proof, ProofOptions, Violation, check_functions, check_module_level, covered

__all__ = ["FunctionCheck", "Proof", "ProofOptions", "Violation", "check_functions", "check_module_level", "covered"]
