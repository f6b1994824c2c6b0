"""Differential execution of two kernels with the interpreter: does a structural difference
change what the kernels compute? ``check(left, right)`` returns an ``ExecutionResult`` whose
``status`` is ``diverged`` (with a counterexample), ``no_divergence`` or ``unsupported``."""
from .check import STATUSES, ExecutionResult, Trial, check, make_trial, run_trial
from .signature import ArraySpec, Layout, ScalarSpec, infer_layout

__all__ = ["check", "ExecutionResult", "STATUSES", "infer_layout", "Layout", "ArraySpec", "ScalarSpec",
           "make_trial", "run_trial", "Trial"]
