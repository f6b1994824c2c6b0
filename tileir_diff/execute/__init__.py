"""Differential execution of two kernels with the interpreter: does a structural difference (or
its absence) hold up when both kernels run? ``check(left, right)`` returns an ``ExecutionResult``
whose ``status`` is ``diverged`` (with a counterexample, ``valid`` when it holds for both kernels under
the argument mapping), ``no_divergence`` or ``unsupported``; ``could_not_check`` says why it cannot
overrule a verdict. See docs/interpreter.md."""
from .check import STATUSES, ExecutionResult, Limits, check, run_trial
from .inputs import InputTooLarge, NoMapping, Plan, Trial, make_plan, make_trial
from .mapping import ArgumentMapping
from .signature import ArraySpec, Layout, ScalarSpec, infer_layout
from .tokens import ordered_pairs

__all__ = ["check", "ExecutionResult", "STATUSES", "infer_layout", "Layout", "ArraySpec", "ScalarSpec",
           "make_plan", "make_trial", "run_trial", "Trial", "Plan", "ordered_pairs", "ArgumentMapping", "Limits",
           "NoMapping", "InputTooLarge"]
