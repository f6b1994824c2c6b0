"""Known false verdicts of today's checker, by class: THE list to empty as the fixes land.

Each key is an fnmatch pattern over a mutant's class (``kind:subclass``, as
scripts/mutation_engine.py and build/false_same/summary.txt print it). ``examples`` are pinned
mutants ``(kernel, key)`` that show the class; tests/mutation/test_mutation.py runs them as
``xfail(strict=True)``: once the checker gets them right the test XPASSes, which fails, and
the entry must be deleted (the sampled test then covers the class again). The sampled tests
skip mutants of a listed class.

Found by the full run of 2025 (docs/verification.md, "before the checker").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple


@dataclass(frozen=True)
class Known:
    reason: str
    examples: Tuple[Tuple[str, str], ...]


KNOWN_FALSE_SAME: Dict[str, Known] = {
    # empty since the trusted checker (tileir_diff/check/): the five classes found "before the
    # checker" (swap-chain, swap-regions, move-region to the other branch, swap-memory
    # store-load and atomic-atomic) are all different now
}

KNOWN_CRASHES: Dict[str, Known] = {
    # empty: the join_tokens operand comparison sorted None against op ids (fixed in classify)
}

KNOWN_FALSE_ALARMS: Dict[str, Known] = {
    # empty: cmpi/cmpf equal and not_equal are commutative now (keys.commutative_positions, and the
    # checker reads the same fact from the op's predicate)
}
