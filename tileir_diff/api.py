"""The library's diff API: ``diff``, ``assert_equivalent``, ``NotEquivalent``, ``summarize``.

Inputs are paths, bytes (bytecode or text) or ``Module`` objects; everything goes through
``tileir_diff.load``. The engine (and networkx) is imported on first use only.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from .ir import Module
from .loader import load
from .options import EXECUTE_MODES  # one list for the API, the CLI and the plugin

__all__ = ["diff", "assert_equivalent", "NotEquivalent", "NotDifferent", "ComparisonFailed", "summarize", "source_label", "apply_execution",
           "execute_mode", "EXECUTE_MODES"]


class ComparisonFailed(AssertionError):
    """A failed comparison assertion; ``.result`` is the DiffResult. ``str()`` starts with the
    first root cause (pytest's short summary shows that line), then the text report, cut after
    ``max_lines`` lines (None: never) with a pointer to ``report_paths`` when the pytest plugin
    wrote the full report. Built on demand, so the plugin can set both before pytest prints it."""

    expectation = ""

    def __init__(self, message_or_result: Any = None, result: Any = None, *, max_lines: Optional[int] = 40):
        # NotEquivalent(message, result) keeps working; NotEquivalent(result) is the usual form
        if result is None and hasattr(message_or_result, "verdict"):
            result, message_or_result = message_or_result, None
        super().__init__(message_or_result)
        self.result = result
        self.message = message_or_result
        self.max_lines = max_lines
        self.report_paths: List[str] = []

    def __str__(self) -> str:
        if self.message is not None or self.result is None:  # a message given by the caller
            return str(self.message)
        from .report.text import render_failure
        return render_failure(self.result, expectation=self.expectation, max_lines=self.max_lines,
                              report_paths=self.report_paths).rstrip("\n")


class NotEquivalent(ComparisonFailed):
    """Raised by ``assert_equivalent``: the verdict is not identical/equivalent (or an allowed one)."""


# Named as users import them (pytest prints module.qualname on the failure's first line).
ComparisonFailed.__module__ = NotEquivalent.__module__ = "tileir_diff"


class NotDifferent(ComparisonFailed):
    """Raised by the plugin's ``assert_different``: no difference, or other categories than expected."""

    def __init__(self, result: Any, expectation: str, *, max_lines: Optional[int] = 40):
        super().__init__(result, max_lines=max_lines)
        self.expectation = expectation


NotDifferent.__module__ = "tileir_diff"


def source_label(source: Any) -> str:
    """How a report names an input: its path, ``<bytes>``, ``<text>`` or the module's source."""
    if isinstance(source, Module):
        return source.source or "<module>"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<bytes>"
    if isinstance(source, str) and "\n" in source:
        return "<text>"
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return repr(source)




def execute_mode(execute: Any) -> Optional[str]:
    """``diff``'s ``execute`` argument as a mode: None (off), ``"auto"`` or ``"always"``."""
    if execute is None or execute is False:
        return None
    if execute is True:
        return "auto"
    if isinstance(execute, str) and execute in EXECUTE_MODES:
        return execute
    raise ValueError(f"execute must be True, False, 'auto' or 'always', got {execute!r}")


def diff(a: Any, b: Any, *, rules: Optional[Iterable[str]] = None, disable: Iterable[str] = (),
         limits: Optional[Dict[str, Any]] = None, execute: Union[bool, str, None] = False, trials: int = 20,
         seed: int = 0, execute_options: Optional[Dict[str, Any]] = None,
         labels: Optional[Sequence[str]] = None, **options: Any):
    """Structurally compare two kernels; returns a ``DiffResult``.

    ``rules``: normalization rule names to run (None: the default set); ``disable``: rule names
    to switch off; ``limits``: matcher budgets (past them the verdict is ``unknown``).
    ``execute``: also run both kernels with the interpreter on ``trials`` generated inputs
    (seeded by ``seed``) and put what it found in ``result.execution`` (``execute_options``:
    rtol, atol, time_budget, aliasing; see tileir_diff.execute). ``"auto"`` (or True) runs it for
    a ``different`` or ``unknown`` verdict only; ``"always"`` for every verdict, as a second
    opinion: a divergence on a pair the structural diff called identical or equivalent makes the
    verdict ``different`` (see ``apply_execution``).
    ``labels``: how reports and errors name the two inputs (default: their paths, ``<bytes>``...;
    the CLI passes ``<stdin>`` for ``-``).
    Raises ``TileIRFormatError`` for unreadable input.
    """
    from .compare.engine import compute_diff
    mode = execute_mode(execute)
    left_label, right_label = labels or (source_label(a), source_label(b))
    left, right = load_pair(a, b, labels)
    result = compute_diff(left, right, rules=None if rules is None else list(rules), disable=tuple(disable),
                          limits=limits, left_source=left_label, right_source=right_label, **options)
    if mode == "always" or (mode == "auto" and result.verdict in ("different", "unknown")):
        from .report.result import Execution
        from .execute import check
        from .execute.mapping import from_result
        found = check(left, right, trials=trials, seed=seed, mapping=from_result(result),
                      **(execute_options or {})).to_dict()
        result = apply_execution(result.replaced(execution=Execution(found, mode)))
        result = _time_limited(result, found.get("budget_exceeded"))
    return result


def _time_limited(result, budget_exceeded: Optional[str]):
    """``result`` made ``unknown`` when the execution stopped on its wall-clock safety net: what
    it found or missed then depends on the machine's speed, and no verdict may rest on that."""
    from .interp.budget import TIME_LIMIT
    if not budget_exceeded or TIME_LIMIT not in budget_exceeded or result.verdict == "unknown":
        return result
    return result.replaced(verdict="unknown", reason=f"execution: {budget_exceeded}", differences=[], proofs=[])


def accepted(result: Any, allow: Any = (), allow_unknown: bool = False) -> bool:
    """Whether a DiffResult passes ``assert_equivalent``: identical/equivalent, or a verdict the
    caller allows (``allow``: "specialization" for ``specialized`` by assumptions and hints,
    "calling-convention" besides for one whose arguments are in another order, "unknown")."""
    allow = {allow} if isinstance(allow, str) else set(allow or ())
    known_names = {"specialization", "specialized", "calling-convention", "unknown"}
    if allow - known_names:
        raise ValueError(f"allow takes 'specialization', 'calling-convention' and/or 'unknown', "
                         f"not {sorted(allow - known_names)}")
    if result.is_equivalent:
        return True
    if result.verdict == "specialized" and allow & {"specialization", "specialized"}:
        # a reordered (or other-arity) signature is right only with a caller that passes that
        # convention: say so
        reordered = any("calling_convention" in d.detail for d in result.differences)
        return not reordered or "calling-convention" in allow
    return result.verdict == "unknown" and (allow_unknown or "unknown" in allow)


def load_pair(a: Any, b: Any, labels: Optional[Sequence[str]] = None):
    """Both inputs as modules (``labels``: the names errors give them). Text carries no bytecode
    version: text compared with bytecode is read at the bytecode's version (a file and its own
    disassembly are then the same IR)."""
    from .loader import is_text
    pa, pb = labels or (None, None)
    left, right = load(a, path=pa), load(b, path=pb)
    ta, tb = is_text(a), is_text(b)
    if ta and not tb and left.version != right.version:
        left = load(a, path=pa, text_version=right.version)
    elif tb and not ta and left.version != right.version:
        right = load(b, path=pb, text_version=left.version)
    return left, right


def apply_execution(result):
    """``result`` with a divergence overruling a verdict that says the kernels compute the same
    thing (the same result when there is nothing to overrule; results are never changed in place).

    When ``result.execution`` found a counterexample valid for both kernels (status ``diverged`` and
    ``counterexample.valid``: inputs within both kernels' assumptions, arguments paired by the
    structural diff's mapping, both kernels ran to completion, only mapped arrays compared) and the
    verdict is ``identical``, ``equivalent`` or ``specialized``, the verdict becomes ``different``, ``result.reason`` says
    why, and ``result.execution.structural_verdict`` keeps what the structural diff said (its
    ``differences`` stay as they were: none, or the ones a rule absorbed). ``unknown`` and
    ``different`` verdicts are left as they are. The exit status follows the final verdict.
    """
    ex = result.execution
    if ex is None or ex.status != "diverged" or result.verdict not in ("identical", "equivalent", "specialized"):
        return result
    if (ex.report.get("counterexample") or {}).get("valid") is not True:
        return result  # no counterexample for both kernels: the report says why, the verdict stands
    return result.replaced(
        verdict="different", execution=dataclasses.replace(ex, structural_verdict=result.verdict),
        reason=f"execution found a counterexample the structural diff ({result.verdict}) missed: "
               f"{ex.report.get('message')}")


def assert_equivalent(a: Any, b: Any, *, allow: Any = (), allow_unknown: bool = False, **options: Any):
    """Return the DiffResult when ``a`` and ``b`` are identical or equivalent, else raise
    ``NotEquivalent``: its first line is the first root cause, then the text report (cut after
    40 lines; ``err.result.to_text()`` has all of it).

    ``allow="specialization"`` also accepts ``specialized`` (the same computation under other
    assumptions or hints); an ``unknown`` verdict (matcher limits hit) fails unless
    ``allow_unknown`` (or ``allow="unknown"``).
    """
    __tracebackhide__ = True  # pytest: the failure points at the caller, not at this frame
    result = diff(a, b, **options)
    if accepted(result, allow, allow_unknown):
        return result
    raise NotEquivalent(result)


def summarize(source: Any, *, label: Optional[str] = None) -> Dict[str, Any]:
    """The summary dict of one kernel file / bytes / Module (see docs/json-format.md);
    ``label`` names the input in errors and in the summary's ``source``."""
    from .summary import summarize as summarize_module
    module = load(source, path=label)
    summary = summarize_module(module)
    if label is not None or summary.get("source") is None:
        summary["source"] = label or source_label(source)
    return summary
