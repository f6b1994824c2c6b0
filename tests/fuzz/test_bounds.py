"""Issue 27's bounded-work classes, a small seeded sample of tests/fuzz/bounds_harness.py per
class (the long runs: scripts/stress_bounds.py, figures in docs/robustness.md).

Sample: 40 cases per class in the library (parser inputs capped at 3,000 lines, matcher kernels
at 300 identical ops), 200 cases in all, plus 12 ``--execute`` cases (loops capped at 3,000 trips,
times up to 1,000 nested, under budgets of 20,000 steps a trial and 60,000 a call), and 2 cases per
class through the command line (12 subprocesses; the execute ones under the default budgets and a
3 GiB address space); about 12 s of CPU (45 s wall on the shared 2-core machine). Every case must be ``ok``: a correct answer or a clear
one-line error, no crash, no status 70, no raw control character, nothing over 10 s.
"""
from __future__ import annotations

import random

import pytest

from tests.fuzz.bounds_harness import CLASSES, make_case, run_case

LIBRARY_CASES = 40
EXECUTE_CASES = 12
CLI_CASES = 2
# the sample's bounds: small inputs, and for --execute small budgets, so that a budget is hit fast
SAMPLE = {"max_lines": 3000, "max_ops": 300, "max_trips": 3000,
          "execute_options": {"max_steps_per_trial": 20_000, "max_steps_per_call": 60_000}}


@pytest.mark.parametrize("cls", CLASSES)
def test_library_sample(cls):
    rng = random.Random(f"issue27-{cls}")
    bad = []
    for _ in range(EXECUTE_CASES if cls == "execute" else LIBRARY_CASES):
        outcome = run_case(make_case(cls, rng, **SAMPLE))
        if outcome.status != "ok":
            bad.append(f"{outcome.kind}: {outcome.status}: {outcome.detail}")
    assert not bad, "\n".join(bad[:5])


@pytest.mark.parametrize("cls", CLASSES)
def test_command_line_sample(cls):
    rng = random.Random(f"issue27-cli-{cls}")
    for _ in range(CLI_CASES):
        outcome = run_case(make_case(cls, rng, **{**SAMPLE, "execute_options": None}), cli=True)
        assert outcome.status == "ok", f"{outcome.kind}: {outcome.status}: {outcome.detail}"
