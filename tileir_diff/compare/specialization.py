"""The ``specialized`` verdict: the same computation under other assumptions and hints.

A port often computes what its reference computes but declares other facts: ``div_by<16>``
where the reference says ``div_by<8>``, a bound the reference leaves out, hints under another
scope, its arguments in another order, an overflow flag (``trunci ... overflow<no_signed_wrap>``)
where the reference has none. Such a pair is not ``equivalent`` (a port that assumes more is valid only for inputs that
satisfy it) and not plainly ``different`` (nothing is computed differently). The engine gives
``specialized`` only when (a) every root difference of the full comparison is a specialization,
hints or calling-convention difference, and (b) the trusted checker proves the two kernels the
same, up to that argument order, once every ``assume`` is replaced by its operand, every
optimization hint is dropped and every overflow flag cleared (``strip_assumptions``): the
computation then provably agrees, and what is left is exactly the listed assumptions, hints and
argument order. Each assumption difference says which side assumes more.

An overflow flag is an assumption: ``no_signed_wrap`` on ``addi``/``subi``/``muli``/``shli``/
``negi``/``trunci`` makes the op undefined (its result poison) for every input where the exact
result does not fit the result type read as signed (``no_unsigned_wrap``: as unsigned;
``no_wrap``: both). Wherever no such wrap happens the flagged op computes exactly what the
unflagged one computes, so the side carrying a flag the other lacks assumes more; ``nsw`` against
``nuw`` excludes different inputs on each side: neither implies the other (``neither``, still a
specialization: both compute the same wherever both are defined). Which attributes are
overflow flags comes from the op table (attributes of the ``IntegerOverflow`` enum).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, FrozenSet, Optional, Tuple

from ..dialect import OPS_BY_NAME
from ..ir import Bounded, DenseElements, DivBy, Module
from ..normalize.util import enum_name, map_functions, rewrite_function

#: Categories a specialized pair may differ in (and a signature root that only reorders the
#: arguments: the calling convention).
SPECIALIZATION_CATEGORIES = frozenset({"specialization", "hints"})


def is_specialization(difference) -> bool:
    """An assumption, a hint, or the calling convention (arguments in another order, or arguments
    nothing reads on one side only)."""
    return difference.category in SPECIALIZATION_CATEGORIES or (
        difference.category == "signature" and "calling_convention" in difference.detail)


#: The wraps each ``IntegerOverflow`` value excludes (the op is undefined where its exact
#: result wraps that way).
_EXCLUDED_WRAPS: Dict[str, FrozenSet[str]] = {
    "none": frozenset(), "no_signed_wrap": frozenset({"signed"}), "no_unsigned_wrap": frozenset({"unsigned"}),
    "no_wrap": frozenset({"signed", "unsigned"})}
_OVERFLOW_KEYS: Dict[str, Tuple[str, ...]] = {}


def overflow_keys(op_name: str) -> Tuple[str, ...]:
    """The attributes of ``op_name`` that are overflow flags (the op table's ``IntegerOverflow``
    enum attributes): ``("overflow",)`` for addi, subi, muli, shli, negi, trunci."""
    keys = _OVERFLOW_KEYS.get(op_name)
    if keys is None:
        d = OPS_BY_NAME.get(op_name)
        keys = () if d is None else tuple(a.name for a in d.attrs if a.enum == "IntegerOverflow")
        _OVERFLOW_KEYS[op_name] = keys  # bounded: the op table's names
    return keys


def excluded_wraps(value) -> Optional[FrozenSet[str]]:
    """What an overflow flag's value excludes (absent: nothing); None for a value the table
    does not know."""
    return frozenset() if value is None else _EXCLUDED_WRAPS.get(str(enum_name(value)))


def flag_side(left, right) -> Optional[str]:
    """Which of two overflow-flag values assumes more: ``left``, ``right``, ``same`` (they
    exclude the same wraps), ``neither`` (each excludes a wrap the other does not), or None when
    either value is unknown."""
    a, b = excluded_wraps(left), excluded_wraps(right)
    if a is None or b is None:
        return None
    if a == b:
        return "same"
    if a > b:
        return "left"
    return "right" if b > a else "neither"


def wraps_text(value) -> str:
    """``no signed wrap``, ``no unsigned wrap``, ``no signed or unsigned wrap``, ``no flag``."""
    wraps = excluded_wraps(value) or frozenset()
    return "no " + " or ".join(sorted(wraps)) + " wrap" if wraps else "no flag"


def strip_assumptions(module: Module) -> Module:
    """``module`` with every ``assume`` replaced by its operand, every optimization hint
    (entry hints, per-op ``optimization_hints``) dropped and every overflow flag cleared (the
    attribute removed: absent is the op table's default, ``none``)."""

    def per_function(f):
        def fn(op, subst):
            if op.name == "assume" and len(op.operands) == 1 and len(op.results) == 1:
                subst[op.results[0].vid] = op.operands[0]
                return []
            flags = [k for k in overflow_keys(op.name) if k in op.attributes]
            if "optimization_hints" in op.attributes or flags:
                attrs = {k: v for k, v in op.attributes.items() if k != "optimization_hints" and k not in flags}
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
    ``different``. Only constants are decided here (through chains of assumes). The same for an
    overflow flag on an op whose operands are all constants and whose exact result wraps the way
    the flag excludes (``trunci overflow<no_signed_wrap>`` of the i64 constant 2^31 to i32)."""
    out = {}
    for f in module.functions:
        producers = {}
        for op in f.walk():
            for r in op.results:
                producers[r.vid] = op

        def constant_of(v, producers=producers):
            src = producers.get(v.vid)
            while src is not None and src.name == "assume" and len(src.operands) == 1:
                src = producers.get(src.operands[0].vid)
            return src if src is not None and src.name == "constant" else None

        for op in f.walk():
            if op.origin is None:
                continue
            if op.name != "assume" or len(op.operands) != 1:
                why = _flag_violation(op, constant_of) if overflow_keys(op.name) else None
            else:
                src = constant_of(op.operands[0])
                why = None if src is None else _violation(op.attributes.get("predicate"), src.attributes.get("value"))
            if why:
                out[op.origin] = why
    return out


#: The exact result of each flagged integer op's semantics (dialect/spec.py) on operands read
#: as mathematical integers; None where the op is undefined for another reason (a shift by the
#: width or more), which is not what the flag decides.
_EXACT: Dict[str, Callable[..., Optional[int]]] = {"int.add": lambda a, b, w: a + b, "int.sub": lambda a, b, w: a - b, "int.mul": lambda a, b, w: a * b,
          "int.shl": lambda a, b, w: a * (1 << b) if 0 <= b < w else None, "int.neg": lambda a, w: -a,
          "int.trunc": lambda a, w: a}


def _flag_violation(op, constant_of) -> Optional[str]:
    """Why ``op``'s overflow flag fails on every launch (every operand a constant whose exact
    result wraps the excluded way in some element), or None."""
    key = overflow_keys(op.name)[0]
    wraps = excluded_wraps(op.attributes.get(key))
    sem = OPS_BY_NAME[op.name].semantics
    exact = _EXACT.get(sem or "")
    if not wraps or exact is None or not op.results or not op.operands:
        return None
    columns = []
    for v in op.operands:
        src = constant_of(v)
        elems = _int_elements(src.attributes.get("value")) if src is not None else None
        if elems is None:
            return None
        columns.append(elems)
    if len({len(c) for c in columns if len(c) != 1}) > 1:
        return None
    n = max(len(c) for c in columns)
    in_width, out_width = _width(op.operands[0].type), _width(op.results[0].type)
    if in_width is None or out_width is None:
        return None
    for how in sorted(wraps):
        for i in range(n):
            args = [_read(c[i if len(c) > 1 else 0], in_width, how) for c in columns]
            if sem == "int.shl":  # the shift amount is read unsigned
                args[1] = _read(columns[1][i if len(columns[1]) > 1 else 0], in_width, "unsigned")
            r = exact(*args, in_width)
            if r is not None and not _fits(r, out_width, how):
                return (f"{op.name} of the constant{'s' if len(args) > 1 else ''} {', '.join(map(str, args))} is "
                        f"{r}, which wraps as {how} i{out_width}: its flag {_flag_name(op.attributes.get(key))} "
                        f"excludes that")
    return None


def _int_array(value):
    """A constant's elements as a non-empty integer numpy array, or None."""
    if not isinstance(value, DenseElements):
        return None
    try:
        elems = value.to_numpy()
    except (ValueError, TypeError):
        return None
    return elems if elems.dtype.kind in "iu" and elems.size else None


def _int_elements(value) -> Optional[list]:
    elems = _int_array(value)
    if elems is None or elems.size > 4096:
        return None
    return [int(x) for x in elems.ravel()]


def _width(t) -> Optional[int]:
    width = getattr(getattr(t, "element", None), "width", None)
    return width if isinstance(width, int) and width > 1 else None


def _read(x: int, width: int, how: str) -> int:
    u = x % (1 << width)
    return u - (1 << width) if how == "signed" and u >= 1 << (width - 1) else u


def _fits(r: int, width: int, how: str) -> bool:
    if how == "signed":
        return -(1 << (width - 1)) <= r < 1 << (width - 1)
    return 0 <= r < 1 << width


def _flag_name(value) -> str:
    return str(enum_name(value))


def _violation(predicate, value) -> Optional[str]:
    elems = _int_array(value)
    if elems is None:
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
