"""Differential execution of two kernels with the interpreter: does a structural difference (or
its absence) hold up when both kernels run? ``check(left, right)`` returns an ``ExecutionResult``
whose ``status`` is ``diverged`` (with a counterexample), ``no_divergence`` or ``unsupported``."""
from .check import STATUSES, ExecutionResult, check, run_trial
from .inputs import Plan, Trial, make_plan, make_trial
from .signature import ArraySpec, Layout, ScalarSpec, infer_layout
from .tokens import ordered_pairs

__all__ = ["check", "ExecutionResult", "STATUSES", "infer_layout", "Layout", "ArraySpec", "ScalarSpec",
           "make_plan", "make_trial", "run_trial", "Trial", "Plan", "ordered_pairs"]
