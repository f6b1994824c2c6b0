"""The diff result as plain data: verdict, root differences, provenance; serializes without graphs.

This is the contract between the engine (normalize -> graph -> match -> diff) and the reports
(summary, report, CLI, pytest plugin). Fields are only ever added, never renamed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass
class DiffResult:
    verdict: str
    differences: List[Difference]
    rules_applied: Dict[str, int]          # rule name -> rewrites that mattered (both sides)
    summary: dict                          # {"left": KernelSummary dict, "right": ..., "pair": ...}
    left_source: str                       # path or "<bytes>"
    right_source: str
    functions: List[dict]                  # per entry pair: left, right, verdict, matched, unmatched_left/right
    mapping: List[Tuple[str, str, str]]    # (left op id, right op id, matcher stage)
    stats: dict                            # ops per side, per-stage counts, limits hit, seconds
    reason: Optional[str] = None           # why unknown
    left_lines: List[Tuple[Optional[str], str]] = field(default_factory=list)   # printed modules
    right_lines: List[Tuple[Optional[str], str]] = field(default_factory=list)
    # Added fields:
    rules_disabled: List[str] = field(default_factory=list)   # rule names switched off for this diff
    execution: Optional[dict] = None  # differential execution (tileir_diff.execute), when asked for
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
            "functions": [_jsonable(f) for f in self.functions],
            "mapping": [list(m) for m in self.mapping],
            "stats": _jsonable(self.stats),
            "summary": _jsonable(self.summary),
            "left_lines": [list(x) for x in self.left_lines],
            "right_lines": [list(x) for x in self.right_lines],
            "execution": _jsonable(self.execution) if self.execution is not None else None,
            "proofs": _jsonable(self.proofs),
            "accepted_from": self.accepted_from,
            "absorbed_by": {side: dict(ops) for side, ops in self.absorbed_by.items()},
        }

    @classmethod
    def from_dict(cls, d: dict) -> "DiffResult":
        return cls(verdict=d["verdict"], differences=[Difference.from_dict(x) for x in d.get("differences", ())],
                   rules_applied=dict(d.get("rules_applied", {})), summary=dict(d.get("summary") or {}),
                   left_source=d.get("left_source", ""), right_source=d.get("right_source", ""),
                   functions=list(d.get("functions", ())), mapping=[tuple(m) for m in d.get("mapping", ())],
                   stats=dict(d.get("stats") or {}), reason=d.get("reason"),
                   left_lines=[tuple(x) for x in d.get("left_lines", ())],
                   right_lines=[tuple(x) for x in d.get("right_lines", ())],
                   rules_disabled=list(d.get("rules_disabled", ())), execution=d.get("execution"),
                   proofs=list(d.get("proofs", ())),
                   accepted_from=d.get("accepted_from"),
                   absorbed_by={side: dict(ops) for side, ops in (d.get("absorbed_by") or {}).items()}
                   or {"left": {}, "right": {}})

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    # Renderers live in tileir_diff.report (a later stage); imported lazily so this module stays
    # importable without it. The report package provides ``render(result, fmt) -> str``.
    def _render(self, fmt: str) -> str:
        from ..report import render
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

    def __reduce__(self):
        return (list, (self.make(),))


def _lines_property(name: str) -> property:
    slot = "_" + name

    def get(self):
        value = self.__dict__[slot]
        if isinstance(value, DeferredLines):
            value = self.__dict__[slot] = value.make()
        return value

    def set(self, value):
        self.__dict__[slot] = value

    return property(get, set, doc=f"{name}: the printed module as (op id or None, line) pairs")


# Properties over the two dataclass fields (the generated __init__ assigns through them).
DiffResult.left_lines = _lines_property("left_lines")
DiffResult.right_lines = _lines_property("right_lines")


def _jsonable(x: Any) -> Any:
    """Tuples -> lists, dict keys -> str, recursively (so to_dict output is json.dumps-ready)."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)
