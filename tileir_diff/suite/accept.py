"""Accepted differences: an operator's ``analysis.json`` lists the root differences of its Rust
port that are intended (``accepted_differences``: category, what, why, optional ``match`` over the
difference's detail and ``variants``). The port table and ``tileir-diff diff --accept FILE``
apply them the same way: a covered difference stays in the report, marked accepted with its
reason; the exit status and a port's pass/fail count only the others. The verdict itself is
never changed: an accepted difference is still a difference."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple


def accepted_by(diff: Dict[str, Any], entries: Iterable[Dict[str, Any]], variant: Optional[str]) -> Optional[Dict[str, Any]]:
    """The accepted_differences entry that covers ``diff`` (a Difference as a dict): same
    category, ``variants`` (when given) listing this variant, and either ``match`` (when given)
    fitting the difference's ``detail`` (see detail_matches) or else ``what`` found in the
    message. ``match`` is the robust form: op names and roles, never value names or op ids that
    move when code changes. An entry limited to some variants covers nothing when the variant is
    not known."""
    message = diff.get("message", "").lower()
    detail = diff.get("detail") or {}
    for e in entries:
        if e.get("category") != diff.get("category"):
            continue
        if e.get("variants") and variant not in e["variants"]:
            continue
        if "match" in e:
            if detail_matches(e["match"], detail):
                return e
        elif str(e.get("what", "")).lower() in message:
            return e
    return None


def detail_matches(pattern: Any, value: Any) -> bool:
    """Whether ``value`` (a Difference.detail, or part of one) fits ``pattern``: a dict fits when
    every key of the pattern fits the value's entry; a list fits when each of its items fits some
    item of the value's list; anything else must be equal."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and detail_matches(v, value[k]) for k, v in pattern.items())
    if isinstance(pattern, list):
        return isinstance(value, list) and all(any(detail_matches(p, v) for v in value) for p in pattern)
    return pattern == value


class AcceptFileError(ValueError):
    """An --accept file that is not an analysis.json with a valid accepted_differences list."""


def load_accept_file(path: str, with_launch_facts: bool = False):
    """``(accepted_differences, variant names)`` of an analysis.json (and its ``launch_facts``
    list with ``with_launch_facts``); AcceptFileError (naming the file and the field) when it
    cannot be read or does not have that shape."""
    from ..loader import JSONFileError, read_json_file
    try:
        data = read_json_file(path)  # bounded: size, regular files only, nesting depth
    except JSONFileError as e:
        raise AcceptFileError(str(e)) from None
    if not isinstance(data, dict):
        raise AcceptFileError(f"{path}: expected an analysis.json object")
    entries = data.get("accepted_differences", [])
    if not isinstance(entries, list):
        raise AcceptFileError(f"{path}: accepted_differences: expected a list")
    for i, entry in enumerate(entries):
        problem = entry_problem(entry)
        if problem:
            raise AcceptFileError(f"{path}: accepted_differences[{i}]: {problem}")
    variants = [v.get("name") for v in data.get("variants", []) if isinstance(v, dict) and isinstance(v.get("name"), str)]
    if with_launch_facts:
        return entries, variants, data.get("launch_facts") or []
    return entries, variants


def entry_problem(entry: Any) -> Optional[str]:
    """Why ``entry`` is not a valid accepted_differences item (None when it is); shared with the
    catalog's validation of analysis.json."""
    if not isinstance(entry, dict) or not {"category", "what", "why"} <= set(entry):
        return "expected an object with category, what, why"
    if "match" in entry and not isinstance(entry["match"], dict):
        return "match: expected an object (fields of a difference's detail)"
    if "variants" in entry and not (isinstance(entry["variants"], list)
                                    and all(isinstance(v, str) for v in entry["variants"])):
        return "variants: expected a list of variant names"
    return None


def precondition_problem(entry: Any) -> Optional[str]:
    """Why ``entry`` is not a valid abi_checked_preconditions item (None when it is)."""
    if not isinstance(entry, dict) or not {"what", "match", "checked_by"} <= set(entry):
        return "expected an object with what, match, checked_by"
    if not isinstance(entry["match"], dict):
        return "match: expected an object (fields of a difference's detail)"
    if not all(isinstance(entry[k], str) for k in ("what", "checked_by")):
        return "what, checked_by: expected strings"
    if "variants" in entry and not (isinstance(entry["variants"], list)
                                    and all(isinstance(v, str) for v in entry["variants"])):
        return "variants: expected a list of variant names"
    return None


def checked_precondition(diff: Dict[str, Any], entries: Iterable[Dict[str, Any]],
                         variant: Optional[str]) -> Optional[Dict[str, Any]]:
    """The abi_checked_preconditions entry that covers ``diff`` (a Difference as a dict): a
    ``specialization`` root of a ``specialized`` pair where the port (the right side) assumes
    more, whose ``detail`` fits the entry's ``match``; the port's C ABI checks that assumption
    before every launch (the entry's ``checked_by`` says where)."""
    detail = diff.get("detail") or {}
    if diff.get("category") != "specialization" or detail.get("assumes_more") != "right":
        return None
    for e in entries:
        if e.get("variants") and variant not in e["variants"]:
            continue
        if detail_matches(e.get("match", {}), detail):
            return e
    return None


def abi_checked(result: Any, preconditions: Sequence[Dict[str, Any]], variant: Optional[str]):
    """([(difference, abi_checked_preconditions entry)], [other unaccepted differences]) of a
    port's diff whose accepted differences are marked (apply_accepted): which assumptions of a
    ``specialized`` port its C ABI checks before every launch, and what is left. Whether the port
    passes is ``port_passes``; this only says which of its assumptions are checked."""
    checked, rest = [], []
    for d in result.differences:
        if d.accepted is not None:
            continue
        entry = checked_precondition(d.to_dict(), preconditions, variant) if result.verdict == "specialized" else None
        if entry is not None:
            checked.append((d, entry))
        else:
            rest.append(d)
    return checked, rest


def guess_variant(paths: Sequence[str], variants: Sequence[str]) -> Optional[str]:
    """The variant two compared files are of, from their names (``build/rust/<op>/<variant>.tileirbc``):
    the first file stem that is one of ``variants``."""
    for p in paths:
        stem = Path(p).name.split(".")[0] if p else ""
        if stem in variants:
            return stem
    return None


def apply_accepted(result: Any, entries: Sequence[Dict[str, Any]], variant: Optional[str],
                   source: str) -> Tuple[Any, int]:
    """(``result`` with each difference an entry covers marked (``Difference.accepted``: what, why,
    file) and ``accepted_from`` recorded, how many were accepted); ``result`` itself is not changed."""
    marked = []
    count = 0
    for d in result.differences:
        entry = accepted_by(d.to_dict(), entries, variant)
        if entry is not None:
            count += 1
            d = dataclasses.replace(d, accepted={"what": str(entry.get("what", "")), "why": str(entry.get("why", "")),
                                                 "file": source})
        marked.append(d)
    return result.replaced(differences=marked, accepted_from=source), count


#: Verdicts with which a port passes the IR comparison whatever it differs in: the same
#: computation (``identical``, ``equivalent``), or the same computation under the assumptions
#: the result lists (``specialized``: the checker proved the kernels the same with every
#: assumption, hint and overflow flag removed; each listed difference says which side assumes
#: more). Anything else passes only when every difference is accepted.
PASSING_VERDICTS = ("identical", "equivalent", "specialized")


def port_passes(result: Any) -> bool:
    """Whether a port's diff result (accepted differences marked) passes the IR comparison."""
    return result.verdict in PASSING_VERDICTS or bool(result.all_accepted)


def assumed(result: Any) -> list:
    """The differences a ``specialized`` port passes with, unaccepted: what it (or the
    reference) assumes, as the slim dicts the port table keeps."""
    if result.verdict != "specialized":
        return []
    return [{"category": d.category, "message": d.message, "assumes_more": d.detail.get("assumes_more")}
            for d in result.differences if d.accepted is None]
