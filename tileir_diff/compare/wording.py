"""The words of a root difference: every phrase the classifier and the folds put in a message.

The classifier decides what differs (compare/roots.py ``Finding``: kind, op, attribute, old and
new values) and calls one function here to say it; nothing reads a message back. A phrase that
later code must know was said is a named clause (``Root.clauses``), never a substring test.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from ..ir import DenseElements
from ..ir.numpy_text import one_element_text
from ..normalize.canon import attr_text
from ..normalize.util import enum_name
from .specialization import excluded_wraps, wraps_text

#: clause names (``Root.clauses``) and their words
ARGUMENT_UNUSED = "argument_unused"
FLOOR_DIVISION = "floor_division"
_CLAUSES = {ARGUMENT_UNUSED: "; the argument is then unused"}


def clause(name: str) -> str:
    """The words a fold appends for the named clause."""
    return _CLAUSES[name]


def values(old: str, new: str) -> str:
    """``<old> -> <new>``: two values (or descriptions) where the slot says the rest."""
    return f"{old} -> {new}"


def changed(what: str, old: object, new: object, note: Optional[str] = None) -> str:
    """``<what> <old> -> <new>`` (``(note)`` after it): the one shape of a change."""
    return f"{what} {old} -> {new}" + (f" ({note})" if note else "")


# --- at a pair --------------------------------------------------------------------------
def argument_type(index: int, name: Optional[str], old: str, new: str) -> str:
    return f"entry argument {index} ({name}): {old} -> {new}"


def region_argument(name: str) -> str:
    return f"region argument {name}"


def result_of(op: str, index: int, results: int) -> str:
    """What a result-type change is about: ``addf result`` (``... result 1`` of several)."""
    return f"{op} result" + (f" {index}" if results > 1 else "")


def tile(shape: Sequence[int]) -> str:
    return f"({'x'.join(map(str, shape))})"


def type_change(what: str, part: Optional[str], old: str, new: str, note: Optional[str] = None) -> str:
    """A type that changed in one part (``tile``, ``padding``, ``element type``) or as a whole."""
    return changed(f"{what} {part}" if part else what, old, new, note)


def static_side(left_fixes: bool, right_fixes: bool) -> str:
    """Which side fixes a size the other passes (a static vs dynamic extent)."""
    if left_fixes and right_fixes:
        return "static vs dynamic (both sides fix some)"
    return "static vs dynamic " + ("(the left fixes it)" if left_fixes else "(the right fixes it)")


def op_name(old: str, new: str) -> str:
    return changed("op", old, new)


def attribute(op: str, key: str, old: str, new: str) -> str:
    return changed(f"{op} {key}", old, new)


def flag(op: str, value: str, side: Optional[str], key: str, va, vb) -> str:
    """An overflow flag on one side (or another one): "trunci %3: the right assumes no signed
    wrap (overflow none -> no_signed_wrap)"."""
    if side == "neither":
        what = f"the left assumes {wraps_text(va)}, the right {wraps_text(vb)}"
    else:
        more, fewer = (va, vb) if side == "left" else (vb, va)
        what = f"the {side} assumes {wraps_text(more)}" + (
            f" (the {'right' if side == 'left' else 'left'} {wraps_text(fewer)})" if excluded_wraps(fewer) else "")
    return f"{op} {value}: {what} ({key} {flag_value(va)} -> {flag_value(vb)})"


def flag_value(value) -> str:
    return "none" if value is None else str(enum_name(value))


def combiner(op: str, old: Iterable[str], new: Iterable[str]) -> str:
    def pretty(exprs: Iterable[str]) -> str:
        return ";".join(exprs).replace("[]", "")
    return changed(f"{op} combiner", pretty(old), pretty(new))


def operand_groups(op: str, names: Sequence[str], old: Sequence[int], new: Sequence[int]) -> str:
    parts = [f"{names[i] if i < len(names) else i}: {x} -> {y} operand(s)"
             for i, (x, y) in enumerate(zip(old, new)) if x != y]
    return f"{op} operand groups " + ("; ".join(parts) or f"{old} -> {new}")


def count(op: str, what: str, old: int, new: int) -> str:
    """``<op> result count 1 -> 2``, ``<op> region count ...``."""
    return changed(f"{op} {what} count", old, new)


def where(parent_name: Optional[str], parent_id: Optional[str]) -> str:
    return "at top level" if parent_id is None else f"inside {parent_name} {parent_id}"


def placement(op: str, left_where: str, right_where: str) -> str:
    return f"{op} placed {left_where} on the left, {right_where} on the right"


def in_slot(slot: str, message: str) -> str:
    """A change said where it is used: ``for upperBound: constant 8 -> 16``."""
    return f"{slot}: {message}"


# --- operands ---------------------------------------------------------------------------
def swap(op: str, roles: Sequence[str], left: Sequence[str], right: Sequence[str]) -> str:
    return (f"{op} operands {roles[0]} and {roles[1]} swapped: ({left[0]}, {left[1]})"
            f" -> ({right[0]}, {right[1]})")


def operand(op: str, role: str, index: int, old: str, new: str) -> str:
    """One operand slot that takes another value."""
    return f"{op} {role} (operand {index}): {old} -> {new}"


def producer(name: str, what: str, op_id: str, result: int) -> str:
    """A value named with what produces it, when both sides' names are the same words."""
    return f"{name} ({what} {op_id}{'#' + str(result) if result else ''})"


def because(head: str, reasons: Iterable[str]) -> str:
    return f"{head} ({'; '.join(reasons)})"


def joined(messages: Iterable[str]) -> str:
    return "; ".join(messages)


def conversion(side: str, op: str, old: str, new: str, narrows: bool) -> str:
    """``precision: rounded to tf32 on the right (ftof f32 -> tf32)``."""
    verb = f"rounded to {new}" if narrows else f"converted to {new}"
    return f"precision: {verb} on the {side} ({op} {old} -> {new})"


# --- one side ---------------------------------------------------------------------------
def only_on(description: str, left: bool) -> str:
    return f"{description} only on the {'left' if left else 'right'}"


def entry_argument(index: int, name: str, type_text: str) -> str:
    return f"entry argument {index} {name} : {type_text}"


def region_argument_typed(name: str, type_text: str) -> str:
    return f"region argument {name} : {type_text}"


def assume(predicate: str, on: str) -> str:
    return f"assume {predicate} on {on}"


def op_at(op: str, op_id: str, of: Optional[str] = None) -> str:
    return f"{op}{f' of {of}' if of else ''} ({op_id})"


# --- constants --------------------------------------------------------------------------
def scalar_text(v) -> Optional[str]:
    """The one value of a splat constant, in its shortest spelling (``1.25``, ``1e-05``, ``8``)."""
    if not isinstance(v, DenseElements):
        return None
    if all(d > 0 for d in v.type.shape) and isinstance(name := getattr(v.element, "name", None), str):
        text = one_element_text(name, v.data)  # numpy's text of the one element, without numpy
        if text is not None:
            return text
    try:
        arr = v.to_numpy().reshape(-1)
    except (ValueError, TypeError):
        return None
    if not len(arr) or not (v.is_splat or len(arr) == 1 or bool((arr == arr[0]).all())):
        return None
    x = arr[0]
    if v.element.name == "i1":
        return "true" if x else "false"
    return str(x) if not isinstance(x, float) else repr(x)


def constant_change(va, vb) -> str:
    """``constant 1.25 -> 1.75 (f32, splat 4x1024)``: a changed constant by its values."""
    a, b = scalar_text(va), scalar_text(vb)
    if a is None or b is None:
        return changed("constant", attr_text(va), attr_text(vb))
    return changed("constant", a, b, va.element.name)


# --- folds of the proof step --------------------------------------------------------------
def floor_division(message: str) -> str:
    return f"floor division against truncation where the divisor may be negative: {message}"


def floor_modulo_follows(message: str, left_ids: Iterable[str]) -> str:
    return (message + "; the floor modulo by the same divisor against a truncating remainder follows from it ("
            + ", ".join(left_ids) + ")")


# --- entry arguments (compare/checker_roots.py, compare/argument_roots.py) ------------------
def argument_pair(left: str, right: str, role: str) -> str:
    return f"left {left} <-> right {right} ({role})"


def unused_arguments(side: str, names: Sequence[str]) -> str:
    return f"{side} " + ", ".join(names) + " unused"


def one_sided_arguments(side: str, names: Sequence[str], roles: Sequence[str]) -> str:
    return f"{side} " + ", ".join(names) + f" only on the {side} (" + ", ".join(roles) + ")"


def arguments_out_of_position(said: str) -> str:
    return "entry arguments paired out of position: " + said


def arguments_reordered_and_one_sided(reordered: bool, said: str) -> str:
    return ("arguments in another order and arrays on one side only: " if reordered else
            "arrays on one side only: ") + said


def calling_convention(reordered: bool, said: str) -> str:
    return "calling convention: " + ("the arguments are in another order: " if reordered else "") + said


def static_tie(kind: str, dim: int, more: str, side: str, array_index: int, static: object, tied_name: str,
               tied_index: int) -> str:
    """An extent or stride the other side fixes in its view type where this side passes it."""
    return (f"static vs dynamic {kind}: the {more} fixes {kind}[{dim}] of the array at {side} argument "
            f"{array_index} to {static} in its view type, where the {side} passes "
            f"{tied_name} (entry argument {tied_index}); the {side}'s view is read with it static")


def equal_tie(kind: str, dim: int, more: str, side: str, array_index: int, via_name: str, via_index: int,
              tied_name: str, kept_name: str, kept_index: int) -> str:
    """One scalar on one side where the other passes two, assumed equal."""
    return (f"{more} passes one scalar {via_name} (entry argument {via_index}) where the {side} has two: "
            f"{kind}[{dim}] of the array at {side} argument {array_index} ({tied_name}) is assumed equal to "
            f"{kept_name} (entry argument {kept_index})")
