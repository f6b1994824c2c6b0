"""Known false verdicts of today's checker, by class: THE list to empty as the fixes land.

Each key is an fnmatch pattern over a mutant's class (``kind:subclass``, as
scripts/mutation_engine.py and build/false_same/summary.txt print it). ``examples`` are pinned
mutants ``(kernel, key)`` that show the class; tests/mutation/test_mutation.py runs them as
``xfail(strict=True)``: once the checker gets them right the test XPASSes, which fails, and
the entry must be deleted (the sampled test then covers the class again). The sampled tests
skip mutants of a listed class.

Found by the first full run (docs/verification.md, "before the checker"); the dumps of that
run: build/false_same/ (scripts/mutation_engine.py --dump-false-same).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple


@dataclass(frozen=True)
class Known:
    reason: str
    examples: Tuple[Tuple[str, str], ...]


KNOWN_FALSE_SAME: Dict[str, Known] = {
    "swap-chain:*": Known(
        "f(g(x)) vs g(f(x)) (rsqrt(ms + eps) vs rsqrt(ms) + eps, exp2(x - m) vs exp2(x) - m): the matcher "
        "pairs f with f and g with g (bottom-up, vf2) and no difference is reported: verdict identical. "
        "Likely: each pair's wiring change is blamed on the other, dirty, pair ('a wiring change is a root "
        "only when both producers are clean'), so neither becomes a root",
        (("synthetic/rms_chain", "swap-chain|f0/o23|rsqrt.0<->addf.0"),
         ("reference/softmax/f32_row_m4_n1024", "swap-chain|f0/o25|exp2.0<->subf.0"))),
    "swap-regions:*": Known(
        "then and else regions of an if swapped: verdict identical (the order of an op's regions is "
        "not compared)",
        (("synthetic/guarded_store", "swap-regions|f0/o12|then<->else"),
         ("corpus/if_else_runtime", "swap-regions|f0/o12|then<->else"))),
    "move-region:*/to-other-branch": Known(
        "a store moved from one branch of an if into the other: verdict equivalent",
        (("synthetic/guarded_store", "move-region|f0/o12/r0/o5|to-other-branch"),
         ("corpus/if_else_runtime", "move-region|f0/o25/r0/o1|to-other-branch"))),
    "swap-memory:store-load/*": Known(
        "a load of x moved above the store to x it was token-ordered after (tokens swapped too): "
        "verdict identical",
        (("synthetic/chain_load_store_store", "swap-memory|f0/o24|above:f0/o22"),)),
    "swap-memory:atomic-atomic/*": Known(
        "two atomic_cas on one array, token-ordered, swapped: verdict identical/equivalent",
        (("corpus/atomic_cas_int64", "swap-memory|f0/o53|above:f0/o40"),)),
}

KNOWN_CRASHES: Dict[str, Known] = {
    "drop-store:store_view_tko/loop": Known(
        "diff() raises TypeError ('<' between str and NoneType) when a store is dropped from a loop with "
        "loop-carried tokens",
        (("synthetic/chain_in_loop", "drop-store|f0/o21/r0/o5|drop"),)),
}

KNOWN_FALSE_ALARMS: Dict[str, Known] = {
    "commute:cmp-eq": Known(
        "cmpi/cmpf equal or not_equal with its operands swapped is the same compare; the "
        "commutative-operands rule does not list them: reported different (arith)",
        (("corpus/if_else_runtime", "commute|f0/o12/r1/o1|swap"),)),
    "duplicate:assume/*": Known(
        "an assume duplicated (same predicate, same operand) with one use moved to the copy is not "
        "merged: reported as an assume only on the right (specialization)",
        (("corpus/copy_divisibility", "duplicate|f0/o3|first-use"),)),
    "dead-code:unused-op-on/assume": Known(
        "an unused pure op on the result of an assume (removed by dead-code) still leaves the assume "
        "chain split: reported as an assume only on the right (specialization)",
        (("reference/argmax/bf16_a8_m4_n1024", "dead-code|f0/o2|unused-op"),)),
}
