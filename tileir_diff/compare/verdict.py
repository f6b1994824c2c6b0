"""The verdict policy: from what the engine's runs found to a verdict, as one pure function.

The engine runs the pipeline under the chosen rules (``first``, with pins applied when the first
look found some); ``follow_up`` names the one further run the policy needs, if any, and
``decide`` reads them all:

* a limit hit: ``unknown``, the limits as the reason;
* no difference and no rewrite: ``identical``;
* no difference after rewrites: ``identical`` if the renaming-only run (``raw``) finds no
  difference either (its run is then the result's), else ``equivalent`` under the rules that
  rewrote something;
* differences that are all specializations (assumptions, hints, the calling convention): the
  same computation under other assumptions? ``specialized`` when the run on the kernels without
  them (``bare``) leaves only the calling convention and arguments tied or pinned to one value,
  each root saying which side assumes more; but ``different`` when one of the assumptions can
  never hold (every launch of that kernel is undefined), its root saying why;
* any other difference: ``different``.

A ``different`` or ``specialized`` verdict asks for rule hints (which rule switched off would
absorb each root): the engine's last runs.
"""
from __future__ import annotations

from dataclasses import field, replace
from typing import Dict, Mapping, Optional, Tuple

from ..record import record
from ..report.result import Difference
from .specialization import assumes_more, is_specialization

#: per side (left, right): op id -> why that assumption can never hold
NeverHolding = Tuple[Mapping[str, str], Mapping[str, str]]


@record
class RunFacts:
    """What one run of the pipeline found, as the policy reads it."""
    differences: Tuple[Difference, ...] = ()
    limits_hit: Tuple[str, ...] = ()
    rewrites: Mapping[str, int] = field(default_factory=dict)  # rule -> rewrites (both sides)

    def applied(self) -> Dict[str, int]:
        """The rules that rewrote something, with their counts."""
        return {k: v for k, v in self.rewrites.items() if v}


@record
class VerdictInputs:
    """The runs the policy decides on. ``bare``: the run on the kernels without assumptions and
    hints (made when ``follow_up`` says "bare"), with ``never_holding``, the assumptions of the
    (pinned) kernels no input satisfies; ``raw``: the renaming-only run ("raw")."""
    first: RunFacts
    bare: Optional[RunFacts] = None
    never_holding: NeverHolding = ({}, {})
    raw: Optional[RunFacts] = None


@record
class Verdict:
    """The decision: ``differences`` are the result's (reworded where the policy says more);
    ``from_raw``: the renaming-only run is the result's run; ``rule_hints``: look for the rules
    that would absorb each root."""
    verdict: str
    reason: Optional[str] = None
    differences: Tuple[Difference, ...] = ()
    rules_applied: Mapping[str, int] = field(default_factory=dict)
    from_raw: bool = False
    rule_hints: bool = False


def follow_up(first: RunFacts) -> Optional[str]:
    """The further run ``decide`` needs after ``first``: "bare", "raw" or None."""
    if first.limits_hit:
        return None
    if first.differences:
        return "bare" if all(is_specialization(d) for d in first.differences) else None
    return "raw" if first.applied() else None


def decide(inputs: VerdictInputs) -> Verdict:
    """The verdict (module docstring) of the runs in ``inputs``."""
    first = inputs.first
    if first.limits_hit:
        return Verdict("unknown", "; ".join(first.limits_hit))
    if first.differences:
        return _with_differences(inputs)
    if not first.applied():
        return Verdict("identical")
    raw = inputs.raw
    if raw is not None and not raw.differences and not raw.limits_hit:
        return Verdict("identical", rules_applied={}, from_raw=True)
    return Verdict("equivalent", rules_applied=first.applied())


def _with_differences(inputs: VerdictInputs) -> Verdict:
    first, bare = inputs.first, inputs.bare
    differences = first.differences
    if bare is not None and all(is_specialization(d) for d in differences) and _only_stated_assumptions(bare):
        if any(_never_holding(d, inputs.never_holding) for d in differences):
            # an assumption no input satisfies: undefined for every launch, not a
            # specialization; the verdict stays different and the root says why
            differences = tuple(_never_holds(d, inputs.never_holding) for d in differences)
        else:
            return Verdict("specialized", differences=tuple(_with_assumption_side(d) for d in differences),
                           rules_applied=first.applied(), rule_hints=True)
    return Verdict("different", differences=differences, rules_applied=first.applied(), rule_hints=True)


def _only_stated_assumptions(bare: RunFacts) -> bool:
    """The run without assumptions leaves only the calling convention, and arguments tied to one
    scalar or pinned to a constant (a stated assumption, listed as a root of its own)."""
    return not bare.limits_hit and all(
        is_specialization(d) and (d.category == "signature" or "tie" in d.detail or "pin" in d.detail
                                  or "unordered_stores" in d.detail)
        for d in bare.differences)


def _never_holding(d: Difference, broken: NeverHolding) -> Optional[str]:
    """Why ``d``'s assumption can never hold (``broken``: per side, op id -> why), or None."""
    # op ids are per side: "f0/o5" on the left is not "f0/o5" on the right
    for ref, side in ((d.left, broken[0]), (d.right, broken[1])):
        if ref is not None and ref.op_id in side:
            return side[ref.op_id]
    return None


def _never_holds(d: Difference, broken: NeverHolding) -> Difference:
    """``d``, saying that its assumption can never hold."""
    why = _never_holding(d, broken)
    if why is None:
        return d
    return replace(d, message=f"{d.message}: it can never hold ({why}), so every launch of that kernel is "
                   "undefined", detail={**d.detail, "never_holds": why})


def _with_assumption_side(d: Difference) -> Difference:
    """A specialization root of a ``specialized`` pair, saying which side assumes more."""
    side = assumes_more(d)
    if side is None:
        return d
    note = {"left": "the left assumes more", "right": "the right assumes more: it is valid only for inputs that "
            "satisfy it", "same": "the same fact, spelled differently",
            "neither": "neither implies the other"}.get(side, side)
    detail = dict(d.detail)
    detail["assumes_more"] = side
    return replace(d, message=f"{d.message} ({note})", detail=detail)
