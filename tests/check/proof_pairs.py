"""Kernel pairs whose verdict the proof step decides (smt-equivalence), for the thread and
determinism tests (tests/check/test_threads.py) and the long stress run
(scripts/stress_threads.py). Each pair is (name, left, right, launch facts): proven equal,
refuted with a counterexample (bit-vector and integer encodings, a float cone), a lemma split
under a launch fact, and an undecidable-by-construction one (a float multiply, ~1 s of z3)."""
from __future__ import annotations

import json
from typing import Any, Callable, List, Tuple

from ..normalize.kernels import kernel, load, store
from .test_smt import BOUND, CDIV_PY, CDIV_RS, F, GRID, SEL, _indexed, _swizzle

Pair = Tuple[str, Any, Any, Tuple[str, ...]]

#: (name, builder of (left, right), launch facts). Builders: every caller gets its own modules.
_PAIRS: List[Tuple[str, Callable[[], Tuple[Any, Any]], Tuple[str, ...]]] = [
    ("ceil-division", lambda: (_indexed(CDIV_PY), _indexed(CDIV_RS)), ()),
    ("ceil-division-off-by-one",
     lambda: (_indexed(CDIV_PY), _indexed(CDIV_RS.replace("<i32: 127>", "<i32: 128>"))), ()),
    ("ceil-division-wraps",
     lambda: tuple(_indexed(x.replace(BOUND, "  %n = assume bounded<0, ?>, %arg2 : tile<i32>\n"))
                   for x in (CDIV_PY, CDIV_RS)), ()),
    ("mask-vs-remainder",
     lambda: (_indexed("  %m = constant <i32: 7> : tile<i32>\n  %q = andi %bx, %m : tile<i32>\n"),
              _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = remi %bx, %m unsigned : tile<i32>\n")), ()),
    ("mask-too-wide",
     lambda: (_indexed("  %m = constant <i32: 15> : tile<i32>\n  %q = andi %bx, %m : tile<i32>\n"),
              _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = remi %bx, %m unsigned : tile<i32>\n")), ()),
    ("shift-vs-division-negative",
     lambda: (_indexed("  %m = constant <i32: 3> : tile<i32>\n  %q = shri %arg2, %m signed : tile<i32>\n"),
              _indexed("  %m = constant <i32: 8> : tile<i32>\n  %q = divi %arg2, %m signed : tile<i32>\n")), ()),
    ("signed-vs-unsigned-compare",
     lambda: (_indexed(SEL.format(n="%arg2", sign="signed")), _indexed(SEL.format(n="%arg2", sign="unsigned"))),
     ()),
    ("compare-off-by-one",
     lambda: (_indexed(BOUND + SEL.format(n="%n", sign="signed")),
              _indexed(BOUND + SEL.format(n="%n", sign="signed").replace("less_than", "less_than_or_equal"))), ()),
    ("min-under-launch-fact",
     lambda: (_indexed("  %c = constant <i32: 4> : tile<i32>\n  %q = mini %bx, %c signed : tile<i32>\n"),
              _indexed("", index="%bx")), ("grid.x <= 4",)),
    ("min-without-launch-fact",
     lambda: (_indexed("  %c = constant <i32: 4> : tile<i32>\n  %q = mini %bx, %c signed : tile<i32>\n"),
              _indexed("", index="%bx")), ()),
    ("float-x-plus-x-vs-three-x",
     lambda: (kernel(load("a") + f"  %s = addf %a, %a : {F}\n" + store("%s")),
              kernel(load("a") + f"  %t = constant <f32: 3.000000e+00> : {F}\n  %s = mulf %a, %t : {F}\n"
                     + store("%s"))), ()),
    ("swizzle-m-under-grid", lambda: (_swizzle(True, "m"), _swizzle(False, "m")), (GRID,)),
    ("swizzle-n-beyond-grid", lambda: (_swizzle(True, "n"), _swizzle(False, "n")), ()),
    ("swizzle-n-negative-divisor",
     lambda: (_swizzle(True, "n", divisor="%ragged"), _swizzle(False, "n", divisor="%ragged")), (GRID,)),
]


def proof_pairs() -> List[Pair]:
    """Fresh modules for every pair (a caller may give each thread its own)."""
    out = []
    for name, build, launch in _PAIRS:
        a, b = build()
        out.append((name, a, b, launch))
    return out


def _strip_timings(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: ("<time>" if k == "seconds" or k.endswith("_s") else _strip_timings(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [_strip_timings(v) for v in x]
    return x


def stable_json(result) -> str:
    """``result.to_json()`` with its wall-clock figures (``seconds``, ``*_s``) masked: what must be
    byte-identical between runs, threads and processes."""
    return json.dumps(_strip_timings(json.loads(result.to_json())), indent=2, sort_keys=False)
