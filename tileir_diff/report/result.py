"""The diff result as plain data: verdict, root differences, provenance; serializes without graphs.

This is the contract between the engine (normalize -> graph -> match -> diff) and the reports
(summary, report, CLI, pytest plugin). Fields are only ever added, never renamed. It lives in
report/, beside the renderers that take it, one layer below compare/, which builds it
(``tileir_diff.compare.result`` re-exports it).
"""
from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Any, Dict, List, Optional, Tuple

from ..ir.record import record

CATEGORIES = ("tile_shape", "memory", "reduction", "mma", "control_flow", "arith", "constant", "type",
              "signature", "specialization", "attribute", "hints", "structure")
VERDICTS = ("identical", "equivalent", "specialized", "different", "unknown")
# 1.1: Difference.detail filled (kind, left_op, right_op, attributes, operands, slot)
# 1.2: verdict "specialized" (same computation, other assumptions/hints); detail.assumes_more
# 1.3: OpRef.source_location (file relative to the repo root, line, col, scope, inlined_at);
#      detail.swapped, operands[].swapped_with, detail.operand_groups; diff --no-lines
SCHEMA_VERSION = "1.4"

#: Exit status per verdict (2 is reserved for bad input / usage, raised before a result exists).
EXIT_CODES = {"identical": 0, "equivalent": 0, "different": 1, "unknown": 3, "specialized": 4}
#: A different/specialized verdict whose root differences are all accepted (diff --accept).
EXIT_OK_ACCEPTED = 0


@record
class OpRef:
    """One side of a difference."""
    op_id: str                 # stable path "f<i>/o<j>[/r<k>/o<j>...]" (same ids as text.printer)
    text: str                  # the op printed on one line (names as in the printed module)
    location: Optional[str] = None  # "file:line:col (inlined at ...)" when the bytecode has debug info
    # the same, structured (1.3): file (repo-relative), line, col, scope, inlined_at [{file, line, col}]
    source_location: Optional[Dict[str, Any]] = field(default=None, compare=False)

    def to_dict(self) -> dict:
        return {"op_id": self.op_id, "text": self.text, "location": self.location,
                "source_location": self.source_location}

    @classmethod
    def from_dict(cls, d: Optional[dict]) -> Optional["OpRef"]:
        if d is None:
            return None
        return cls(d["op_id"], d["text"], d.get("location"), d.get("source_location"))


@record
class Difference:
    """One ROOT difference. Ops that differ only because of it are listed in ``affected``."""
    category: str
    message: str
    left: Optional[OpRef]      # None: only on the right side
    right: Optional[OpRef]     # None: only on the left side
    function: str              # left entry name (or "left/right" when the names differ)
    affected: Tuple[str, ...] = ()   # left op ids that differ only because of this one
    rule_hint: Optional[str] = None  # a rule that would absorb it if enabled
    # Added fields (all optional):
    affected_right: Tuple[str, ...] = ()  # right op ids that differ only because of this one
    context: Tuple[str, ...] = ()    # path of enclosing ops, e.g. ("entry @k", "for f0/o12", "reduce ...")
    detail: Dict[str, Any] = field(default_factory=dict, compare=False)  # machine-readable specifics (1.1)
    # an analysis.json entry covers it (1.3): {"what", "why", "file"}; None otherwise
    accepted: Optional[Dict[str, str]] = field(default=None, compare=False)

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown difference category {self.category!r}; expected one of {CATEGORIES}")

    def to_dict(self) -> dict:
        return {"category": self.category, "message": self.message,
                "left": self.left.to_dict() if self.left else None,
                "right": self.right.to_dict() if self.right else None,
                "function": self.function, "affected": list(self.affected),
                "affected_right": list(self.affected_right), "rule_hint": self.rule_hint,
                "context": list(self.context), "detail": _jsonable(self.detail), "accepted": self.accepted}

    @classmethod
    def from_dict(cls, d: dict) -> "Difference":
        return cls(d["category"], d["message"], OpRef.from_dict(d.get("left")), OpRef.from_dict(d.get("right")),
                   d.get("function", ""), tuple(d.get("affected", ())), d.get("rule_hint"),
                   tuple(d.get("affected_right", ())), tuple(d.get("context", ())), dict(d.get("detail") or {}),
                   d.get("accepted"))


@record
class FunctionPair:
    """One pair of entries the engine compared: names, verdict, the matcher's counts."""
    left: str
    right: str
    verdict: str                 # "same" or "different"
    matched: int                 # node pairs the matcher mapped
    unmatched_left: int          # nodes of each side without a partner
    unmatched_right: int
    arguments: Tuple[Tuple[int, int], ...] = ()    # (left, right) argument indices paired
    # arguments one side ties to another argument or to a value: side, argument, equals | static
    tied_arguments: Tuple[Dict[str, Any], ...] = ()

    def to_dict(self) -> dict:
        return {"left": self.left, "right": self.right, "verdict": self.verdict, "matched": self.matched,
                "unmatched_left": self.unmatched_left, "unmatched_right": self.unmatched_right,
                "arguments": [list(a) for a in self.arguments],
                "tied_arguments": [dict(t) for t in self.tied_arguments]}

    @classmethod
    def from_dict(cls, d: dict) -> "FunctionPair":
        return cls(d.get("left", ""), d.get("right", ""), d.get("verdict", ""), d.get("matched", 0),
                   d.get("unmatched_left", 0), d.get("unmatched_right", 0),
                   tuple(tuple(a) for a in d.get("arguments", ())),
                   tuple(dict(t) for t in d.get("tied_arguments", ())))


@record
class FunctionStats:
    """The matcher's figures for one entry pair: graph sizes, graph build time, and the counters
    the match stages report (pairs per stage, seconds, components skipped, ...)."""
    left: str
    right: str
    nodes_left: int
    nodes_right: int
    graph_s: float
    matcher: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"left": self.left, "right": self.right, "nodes_left": self.nodes_left,
                "nodes_right": self.nodes_right, "graph_s": self.graph_s, **self.matcher}

    @classmethod
    def from_dict(cls, d: dict) -> "FunctionStats":
        own = ("left", "right", "nodes_left", "nodes_right", "graph_s")
        return cls(d.get("left", ""), d.get("right", ""), d.get("nodes_left", 0), d.get("nodes_right", 0),
                   d.get("graph_s", 0.0), {k: v for k, v in d.items() if k not in own})


@record
class MatchStats:
    """How the diff went: sizes, times, limits hit, the rules run. A figure the run did not
    produce is None (an ``unknown`` verdict has no per-function figures; ``smt`` is set only when
    the proof step was skipped) and is left out of the JSON."""
    normalize_s: Optional[float] = None
    functions: Optional[Tuple[FunctionStats, ...]] = None
    smt: Optional[str] = None              # why the proof step was skipped
    smt_queries: Optional[int] = None
    smt_s: Optional[float] = None
    ops_left: Optional[int] = None
    ops_right: Optional[int] = None
    limits_hit: Optional[Tuple[str, ...]] = None
    seconds: Optional[float] = None
    rules_enabled: Optional[Tuple[str, ...]] = None
    rule_counts: Optional[Dict[str, int]] = None

    def to_dict(self) -> dict:
        """The JSON's ``stats`` object (the keys in this order, those that are None left out)."""
        out: Dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is None:
                continue
            if f.name == "functions":
                v = [x.to_dict() for x in v]
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, dict):
                v = dict(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, d: Optional[dict]) -> "MatchStats":
        d = dict(d or {})
        if d.get("functions") is not None:
            d["functions"] = tuple(FunctionStats.from_dict(x) for x in d["functions"])
        for name in ("limits_hit", "rules_enabled"):
            if d.get(name) is not None:
                d[name] = tuple(d[name])
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


@record
class PairSummary:
    """What each kernel does (tileir_diff.summary: one module summary per side) and where the two
    differ (``pair``)."""
    left: Dict[str, Any]
    right: Dict[str, Any]
    pair: Dict[str, Any]

    def to_dict(self) -> dict:
        return {"left": self.left, "right": self.right, "pair": self.pair}

    @classmethod
    def from_dict(cls, d: Optional[dict]) -> Optional["PairSummary"]:
        """None for a result made without summaries (``{}``)."""
        if not d:
            return None
        return cls(d.get("left") or {}, d.get("right") or {}, d.get("pair") or {})


@record
class Execution:
    """What differential execution (tileir_diff.execute) found, how it was asked for, and, when a
    divergence overruled a same verdict, the verdict the structural diff had given."""
    report: Dict[str, Any]                   # the check's own report (status, message, trials, ...)
    mode: Optional[str] = None               # "auto" or "always" (diff --execute MODE)
    structural_verdict: Optional[str] = None

    @property
    def status(self) -> Optional[str]:
        return self.report.get("status")

    def to_dict(self) -> dict:
        out = dict(self.report)
        if self.mode is not None:
            out["mode"] = self.mode
        if self.structural_verdict is not None:
            out["structural_verdict"] = self.structural_verdict
        return out

    @classmethod
    def from_dict(cls, d: Optional[dict]) -> Optional["Execution"]:
        if d is None:
            return None
        report = {k: v for k, v in d.items() if k not in ("mode", "structural_verdict")}
        return cls(report, d.get("mode"), d.get("structural_verdict"))


@record
class DiffResult:
    """Built once (frozen): a later step (execution, --accept) makes a new result with
    ``dataclasses.replace``."""
    verdict: str
    differences: List[Difference]
    rules_applied: Dict[str, int]          # rule name -> rewrites that mattered (both sides)
    summary: Optional[PairSummary]         # None: made without summaries (with_summary=False)
    left_source: str                       # path or "<bytes>"
    right_source: str
    functions: Tuple[FunctionPair, ...]    # per entry pair
    mapping: List[Tuple[str, str, str]]    # (left op id, right op id, matcher stage)
    stats: MatchStats                      # ops per side, per-stage counts, limits hit, seconds
    reason: Optional[str] = None           # why unknown
    left_lines: List[Tuple[Optional[str], str]] = field(default_factory=list)   # printed modules
    right_lines: List[Tuple[Optional[str], str]] = field(default_factory=list)
    # Added fields:
    rules_disabled: List[str] = field(default_factory=list)   # rule names switched off for this diff
    execution: Optional[Execution] = None  # differential execution (tileir_diff.execute), when asked for
    # the proof step's queries (smt-equivalence): function, left, right, of, status, seconds,
    # assumptions (equal), counterexample (different), note
    proofs: List[dict] = field(default_factory=list)
    accepted_from: Optional[str] = None  # the analysis.json whose accepted differences were applied (1.3)
    # side ("left"/"right") -> op id -> the normalization rule under which that op left the
    # module (folded, merged or rewritten); the reports name it on an op without a partner (1.4)
    absorbed_by: Dict[str, Dict[str, str]] = field(default_factory=lambda: {"left": {}, "right": {}})

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}; expected one of {VERDICTS}")

    @property
    def unaccepted(self) -> List["Difference"]:
        """The root differences no analysis.json entry accepts."""
        return [d for d in self.differences if d.accepted is None]

    @property
    def all_accepted(self) -> bool:
        """A different/specialized verdict whose every root difference is accepted (diff --accept):
        still not the same kernels, but nothing the port's author has not explained."""
        return self.verdict in ("different", "specialized") and bool(self.differences) and not self.unaccepted

    @property
    def exit_code(self) -> int:
        return EXIT_OK_ACCEPTED if self.all_accepted else EXIT_CODES[self.verdict]

    @property
    def is_equivalent(self) -> bool:
        return self.verdict in ("identical", "equivalent")

    @property
    def is_specialized(self) -> bool:
        """The same computation under other assumptions/hints (the differences list them)."""
        return self.verdict == "specialized"

    def to_dict(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "verdict": self.verdict,
            "reason": self.reason,
            "left_source": self.left_source,
            "right_source": self.right_source,
            "differences": [d.to_dict() for d in self.differences],
            "rules_applied": dict(sorted(self.rules_applied.items())),
            "rules_disabled": list(self.rules_disabled),
            "functions": [_jsonable(f.to_dict()) for f in self.functions],
            "mapping": [list(m) for m in self.mapping],
            "stats": _jsonable(self.stats.to_dict()),
            "summary": _jsonable(self.summary.to_dict()) if self.summary is not None else {},
            "left_lines": [list(x) for x in self.left_lines],
            "right_lines": [list(x) for x in self.right_lines],
            "execution": _jsonable(self.execution.to_dict()) if self.execution is not None else None,
            "proofs": _jsonable(self.proofs),
            "accepted_from": self.accepted_from,
            "absorbed_by": {side: dict(ops) for side, ops in self.absorbed_by.items()},
        }

    @classmethod
    def from_dict(cls, d: dict) -> "DiffResult":
        return cls(verdict=d["verdict"], differences=[Difference.from_dict(x) for x in d.get("differences", ())],
                   rules_applied=dict(d.get("rules_applied", {})), summary=PairSummary.from_dict(d.get("summary")),
                   left_source=d.get("left_source", ""), right_source=d.get("right_source", ""),
                   functions=tuple(FunctionPair.from_dict(f) for f in d.get("functions", ())),
                   mapping=[tuple(m) for m in d.get("mapping", ())],
                   stats=MatchStats.from_dict(d.get("stats")), reason=d.get("reason"),
                   left_lines=[tuple(x) for x in d.get("left_lines", ())],
                   right_lines=[tuple(x) for x in d.get("right_lines", ())],
                   rules_disabled=list(d.get("rules_disabled", ())), execution=Execution.from_dict(d.get("execution")),
                   proofs=list(d.get("proofs", ())),
                   accepted_from=d.get("accepted_from"),
                   absorbed_by={side: dict(ops) for side, ops in (d.get("absorbed_by") or {}).items()}
                   or {"left": {}, "right": {}})

    def replaced(self, **changes: Any) -> "DiffResult":
        """A new result with ``changes`` (results are never changed in place); the printed
        modules and the summary stay unmade until first used, as in this one."""
        for name in ("left_lines", "right_lines", "summary"):
            changes.setdefault(name, self.__dict__["_" + name])
        return dataclasses.replace(self, **changes)

    def to_json(self, indent: Optional[int] = 2) -> str:
        import json  # a text report does not need it (start-up time)
        return json.dumps(self.to_dict(), indent=indent)

    # The renderers are this package's (``render(result, fmt) -> str``); imported when used, as
    # each renderer imports this module.
    def _render(self, fmt: str) -> str:
        from . import render
        return render(self, fmt)

    def to_text(self) -> str:
        return self._render("text")

    def to_html(self) -> str:
        return self._render("html")

    def to_markdown(self) -> str:
        return self._render("markdown")

    def brief(self) -> str:
        """A few plain lines (verdict, then one line per root difference); no report package needed."""
        lines = [f"verdict: {self.verdict}" + (f" ({self.reason})" if self.reason else "")]
        if self.rules_applied:
            lines.append("rules: " + ", ".join(f"{k}={v}" for k, v in sorted(self.rules_applied.items())))
        for d in self.differences:
            where = d.left.op_id if d.left else (d.right.op_id if d.right else "-")
            lines.append(f"  [{d.category}] {where}: {d.message}")
        return "\n".join(lines)


class DeferredLines:
    """Printed lines not printed yet: ``make()`` prints them. ``DiffResult.left_lines`` /
    ``right_lines`` accept one and print on first access, so a diff whose report does not show
    the modules side by side (text, Markdown, the API's verdict and differences) never prints
    them. Copies and pickles carry the printed lines."""
    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make

    def value(self) -> list:
        return self.make()

    def __reduce__(self):
        return (list, (self.make(),))


class DeferredSummary:
    """A pair summary not made yet: ``make()`` returns its dict (``{}``: none), as
    ``tileir_diff.summary.summarize_pair`` gives it. ``DiffResult.summary`` accepts one and makes
    it on first access, so a diff whose report never reads the summary (the API's verdict and
    differences, the text report of an identical pair) never walks the kernels for it. Like the
    printed lines, it reads the two modules the diff was given, which nothing changes. Two
    threads reading it first both make it: the same value, either kept. Copies and pickles carry
    the made summary."""
    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make

    def value(self) -> Optional[PairSummary]:
        return PairSummary.from_dict(self.make())

    def __reduce__(self):
        return (PairSummary.from_dict, (self.make(),))


def _deferred_property(name: str, deferred: type, doc: str) -> property:
    slot = "_" + name

    def get(self):
        value = self.__dict__[slot]
        if isinstance(value, deferred):
            value = self.__dict__[slot] = value.value()
        return value

    def set(self, value):
        self.__dict__[slot] = value

    return property(get, set, doc=doc)


# Properties over three dataclass fields (the generated __init__ assigns through them).
DiffResult.left_lines = _deferred_property(  # type: ignore[assignment]
    "left_lines", DeferredLines, "left_lines: the printed module as (op id or None, line) pairs")
DiffResult.right_lines = _deferred_property(  # type: ignore[assignment]
    "right_lines", DeferredLines, "right_lines: the printed module as (op id or None, line) pairs")
DiffResult.summary = _deferred_property(  # type: ignore[assignment]
    "summary", DeferredSummary, "summary: the pair summary (a PairSummary), or None")


def _jsonable(x: Any) -> Any:
    """Tuples -> lists, dict keys -> str, recursively (so to_dict output is json.dumps-ready)."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)
