"""The ``specialized`` verdict: the same computation under other assumptions and hints.

A port often computes what its reference computes but declares other facts: ``div_by<16>``
where the reference says ``div_by<8>``, a bound the reference leaves out, hints under another
scope, its arguments in another order. Such a pair is not ``equivalent`` (a port that assumes more is valid only for inputs that
satisfy it) and not plainly ``different`` (nothing is computed differently). The engine gives
``specialized`` only when (a) every root difference of the full comparison is a specialization,
hints or calling-convention difference, and (b) the trusted checker proves the two kernels the
same, up to that argument order, once every ``assume`` is replaced by its operand and every
optimization hint is dropped (``strip_assumptions``): the computation then provably agrees, and
what is left is exactly the listed assumptions, hints and argument order. Each assumption difference says which side assumes more.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..ir import Bounded, DenseElements, DivBy, Module
from ..normalize.util import map_functions, rewrite_function

#: Categories a specialized pair may differ in (and a signature root that only reorders the
#: arguments: the calling convention).
SPECIALIZATION_CATEGORIES = frozenset({"specialization", "hints"})


def is_specialization(difference) -> bool:
    """An assumption, a hint, or the calling convention (arguments in another order, or arguments
    nothing reads on one side only)."""
    return difference.category in SPECIALIZATION_CATEGORIES or (
        difference.category == "signature" and "calling_convention" in difference.detail)


def strip_assumptions(module: Module) -> Module:
    """``module`` with every ``assume`` replaced by its operand and every optimization hint
    (entry hints, per-op ``optimization_hints``) dropped."""

    def per_function(f):
        def fn(op, subst):
            if op.name == "assume" and len(op.operands) == 1 and len(op.results) == 1:
                subst[op.results[0].vid] = op.operands[0]
                return []
            if "optimization_hints" in op.attributes:
                attrs = {k: v for k, v in op.attributes.items() if k != "optimization_hints"}
                return [op.replace(attributes=attrs)]
            return None

        nf = rewrite_function(f, fn)
        if nf.hints is not None:
            nf = replace(nf, hints=None)
        return nf, 0

    return map_functions(module, per_function)[0]


def stronger(left, right) -> Optional[str]:
    """Which of two assume predicates assumes more: ``left``, ``right``, ``same`` or None when
    neither implies the other (or they are of different kinds)."""
    if isinstance(left, DivBy) and isinstance(right, DivBy):
        if (left.every, left.along) != (right.every, right.along):
            return None
        if left.divisor == right.divisor:
            return "same"
        if left.divisor % right.divisor == 0:
            return "left"
        if right.divisor % left.divisor == 0:
            return "right"
        return None
    if isinstance(left, Bounded) and isinstance(right, Bounded):
        def within(a, b):  # a's interval inside b's
            lo = b.lb is None or (a.lb is not None and a.lb >= b.lb)
            hi = b.ub is None or (a.ub is not None and a.ub <= b.ub)
            return lo and hi
        ab, ba = within(left, right), within(right, left)
        if ab and ba:
            return "same"
        return "left" if ab else ("right" if ba else None)
    return None


def assumes_more(difference) -> Optional[str]:
    """For a specialization root: ``left``/``right`` (that side assumes more), ``neither`` when
    the two are not comparable, None when not an assumption difference."""
    if difference.category != "specialization":
        return None
    if "tie" in difference.detail or "pin" in difference.detail:  # an argument the other side does not have
        return difference.detail.get("assumes_more")
    kind = difference.detail.get("kind")
    if kind == "only_right" or (difference.left is None and difference.right is not None):
        return "right"
    if kind == "only_left" or (difference.right is None and difference.left is not None):
        return "left"
    return difference.detail.get("assumes_more", "neither")


def never_holding_assumptions(module: Module) -> dict:
    """Op id -> why, for each ``assume`` whose operand is a constant that violates its predicate
    (``bounded<0, ?>`` on -1, ``div_by<8>`` on 12): every launch of that kernel breaks the
    assumption, so its behaviour is undefined for every input. Such a kernel is not a
    specialization of one without it (no input satisfies what it assumes): the pair stays
    ``different``. Only constants are decided here (through chains of assumes)."""
    out = {}
    for f in module.functions:
        producers = {}
        for op in f.walk():
            for r in op.results:
                producers[r.vid] = op
        for op in f.walk():
            if op.name != "assume" or len(op.operands) != 1 or op.origin is None:
                continue
            src = producers.get(op.operands[0].vid)
            while src is not None and src.name == "assume" and len(src.operands) == 1:
                src = producers.get(src.operands[0].vid)
            if src is None or src.name != "constant":
                continue
            why = _violation(op.attributes.get("predicate"), src.attributes.get("value"))
            if why:
                out[op.origin] = why
    return out


def _violation(predicate, value) -> Optional[str]:
    if not isinstance(value, DenseElements):
        return None
    try:
        elems = value.to_numpy()
    except (ValueError, TypeError):
        return None
    if elems.dtype.kind not in "iu" or elems.size == 0:
        return None
    lo, hi = int(elems.min()), int(elems.max())
    if isinstance(predicate, Bounded):
        if predicate.lb is not None and lo < predicate.lb:
            return f"the constant {lo} is below {predicate.lb}"
        if predicate.ub is not None and hi > predicate.ub:
            return f"the constant {hi} is above {predicate.ub}"
    elif isinstance(predicate, DivBy) and predicate.every is None and predicate.along is None \
            and predicate.divisor > 0 and elems.ndim == 0:
        v = int(elems)
        if v % predicate.divisor:
            return f"the constant {v} is not a multiple of {predicate.divisor}"
    return None
