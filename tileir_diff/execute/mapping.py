"""Which argument of one kernel is which argument of the other: the mapping a differential run uses.

The structural diff pairs entry arguments by role (``tileir_diff.match.arguments``: arrays by what
is read and written through them, extents and strides by the array and dimension they describe,
scalars by their uses), ties arguments one side passes once for several slots of the other, and
pins arguments that stand for a constant the other side compiled in (``tileir_diff.compare.pins``).
``ArgumentMapping`` carries exactly that, as plain data (execute/ sits below compare/ and reads no
result object): ``tileir_diff.api`` builds it from a ``DiffResult`` with ``from_result``.

A run on this mapping calls both kernels as one caller would: paired arrays share one buffer,
paired scalars one value, a pinned argument gets the constant the other side has, a tied one the
value of the argument (or the static extent) it is tied to. What the mapping leaves open (an
argument one kernel reads that has no counterpart, nor a pin or tie) is listed: a divergence that
may come from such a value is no counterexample for both kernels.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

Number = Union[int, float, bool]

#: where a mapping comes from: the structural diff's proof, or two entries with one signature
#: (one argument list for both); "positional" pairs by position and proves nothing
SOURCES = ("structural diff", "one signature", "positional")


@dataclass(frozen=True)
class ArgumentMapping:
    """The argument mapping of one entry pair (``entries``: left and right entry names)."""
    entries: Tuple[str, str]
    pairs: Tuple[Tuple[int, int], ...]          # (left argument, right argument)
    pins: Dict[Tuple[str, int], Number] = field(default_factory=dict)  # (side, argument) -> value
    # (side, argument) -> ("argument", index on that side) | ("static", value)
    ties: Dict[Tuple[str, int], Tuple[str, int]] = field(default_factory=dict)
    source: str = "structural diff"

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"unknown mapping source {self.source!r}")

    def right_of(self) -> Dict[int, int]:
        return {a: b for a, b in self.pairs}

    def left_of(self) -> Dict[int, int]:
        return {b: a for a, b in self.pairs}

    @property
    def proven(self) -> bool:
        return self.source != "positional"


def identity(entries: Tuple[str, str], count: int) -> ArgumentMapping:
    """Two entries with one signature, called with one argument list: argument k is argument k."""
    return ArgumentMapping(entries, tuple((k, k) for k in range(count)), source="one signature")


_NUMBER = re.compile(r":\s*([-+]?(?:0x[0-9a-fA-F]+|inf|nan|[0-9.]+(?:[eE][-+]?[0-9]+)?|true|false))\s*>")


def parse_value(text: str) -> Optional[Number]:
    """The number in a constant's text (``<f32: 1.442695e+00>``, ``<i32: 8>``), or None."""
    m = _NUMBER.search(str(text))
    if m is None:
        return None
    s = m.group(1)
    if s in ("true", "false"):
        return s == "true"
    try:
        if s.lower().startswith(("0x", "-0x", "+0x")):
            return int(s, 16)
        return int(s) if re.fullmatch(r"[-+]?[0-9]+", s) else float(s)
    except ValueError:
        return None


def from_result(result: Any) -> List[ArgumentMapping]:
    """One mapping per entry pair the structural diff compared (``result``: a ``DiffResult``, read
    duck-typed: ``functions[i].arguments``/``tied_arguments`` and the ``pin`` details of its
    differences)."""
    pins: Dict[str, Dict[Tuple[str, int], Number]] = {}
    for d in getattr(result, "differences", ()) or ():
        pin = (getattr(d, "detail", None) or {}).get("pin")
        if not pin:
            continue
        value = parse_value(pin.get("value", ""))
        if value is not None:
            pins.setdefault(d.function, {})[(pin["side"], int(pin["argument"]))] = value
    out = []
    for f in getattr(result, "functions", ()) or ():
        ties: Dict[Tuple[str, int], Tuple[str, int]] = {}
        for t in f.tied_arguments:
            key = (t["side"], int(t["argument"]))
            ties[key] = ("static", int(t["static"])) if "static" in t else ("argument", int(t["equals"]))
        fpins = pins.get(f.left, {}) or pins.get(f"{f.left}/{f.right}", {})
        out.append(ArgumentMapping((f.left, f.right), tuple((int(a), int(b)) for a, b in f.arguments), fpins, ties))
    return out


def for_entries(mappings: Optional[Sequence[ArgumentMapping]], entries: Tuple[str, str]) -> Optional[ArgumentMapping]:
    """The mapping of one entry pair, or None."""
    for m in mappings or ():
        if tuple(m.entries) == tuple(entries):
            return m
    return None
