"""Fuzzing in CI: mutated corpus files through both readers and every consumer (harness.py).

Each hypothesis example is a seed for one mutation of one corpus file (byte level, text level, or
through the IR so that it gets past the decoder). The outcome must be a clean refusal (one-line
TileIRFormatError with an offset) or a module on which the printer (and parsing back), JSON, the
summary, the writer (and reading back), diff against itself and against the original, and every
report format work and agree. The number of examples per test comes from TILEIR_FUZZ_EXAMPLES
(default 300: what CI runs, with hypothesis seeded by scripts/test.sh (--hypothesis-seed, default 0);
grammar mutants ~0.1 s each, the module ~2 minutes on a loaded 2-core machine); the CLI sample from
TILEIR_FUZZ_CLI_CASES (default 10 cases, 40 runs). scripts/test_full.sh runs 1500 examples and 40
CLI cases; scripts/fuzz_consumers.py runs the same for hours.
"""
from __future__ import annotations

import os
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.fuzz.harness import Corpus, make_case, run, unmutated_step_seconds, within_step_budget
from tileir_diff.compare.result import EXIT_CODES

EXAMPLES = int(os.environ.get("TILEIR_FUZZ_EXAMPLES", "300"))
PROP = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
#: CPU seconds for loading or one consumer; above it a step must also stay within STEP_RATIO times
#: the same step on the unmutated file, measured then (a loaded CI machine tripled CPU times).
STEP_LIMIT = 2.0
STEP_RATIO = 4.0

# every verdict's status, and 2 for bad input; 70 (internal error) is a failure
CLI_STATUSES = set(EXIT_CODES.values()) | {2}


@pytest.fixture(scope="module")
def corpus():
    return Corpus()


def _check(corpus, seed: int, kind: str):
    case = make_case(corpus, random.Random(seed), kind)
    out = run(corpus, case)
    detail = f"{case.kind}/{case.mutation} of {corpus.paths[case.source].name} (seed {seed}): " \
             f"{out.status} in {out.stage}: {out.error}\n{out.trace}"
    assert out.status in ("rejected", "accepted"), detail
    assert within_step_budget(out.worst, lambda: unmutated_step_seconds(corpus, case, out.worst_stage),
                              STEP_LIMIT, STEP_RATIO), f"{out.worst_stage} took {out.worst:.1f}s: {detail}"
    return out


@pytest.mark.slow
@PROP
@given(st.integers(0, 2 ** 32))
def test_byte_mutants(corpus, seed):
    _check(corpus, seed, "bytes")


@pytest.mark.slow
@PROP
@given(st.integers(0, 2 ** 32))
def test_text_mutants(corpus, seed):
    _check(corpus, seed, "text")


@pytest.mark.slow
@PROP
@given(st.integers(0, 2 ** 32))
def test_grammar_mutants(corpus, seed):
    _check(corpus, seed, "grammar")


def test_grammar_mutants_reach_the_consumers(corpus):
    """The grammar-aware mutations are worth having: many get past both readers."""
    rng = random.Random(7)
    outs = [run(corpus, make_case(corpus, rng, "grammar")) for _ in range(40)]
    assert all(o.status in ("rejected", "accepted") for o in outs)
    assert sum(o.status == "accepted" for o in outs) >= 8
    assert sum(o.status == "rejected" for o in outs) >= 8


@pytest.mark.slow  # ~40 child processes: ~45 s on a loaded 2-core machine
def test_the_cli_gives_a_status_and_at_most_one_stderr_line_on_every_input(corpus, tmp_path):
    """A sample of mutants through the command line in a child process under a 2 GiB address-space
    limit: a documented status (0, 1, 2 or 3, never 70), one stderr line when it fails, and under
    2 s of CPU per run (inputs are all under 1 MB)."""
    from tests.fuzz.test_issue13 import run_cli
    rng = random.Random(13)
    runs = 0
    for i in range(int(os.environ.get("TILEIR_FUZZ_CLI_CASES", "10"))):
        case = make_case(corpus, rng, ("bytes", "text", "grammar")[i % 3])
        f = tmp_path / f"case{i}{'.tileirbc' if case.form == 'bytecode' else '.tileir'}"
        f.write_bytes(case.data)
        assert len(case.data) < 1 << 20
        for args in (("dump", f), ("dump", "--format", "json", f), ("summary", f),
                     ("diff", corpus.paths[case.source], f, "-f", ("text", "json", "html", "markdown")[i % 4])):
            r, cpu = run_cli(*args, timeout=120)
            runs += 1
            err = r.stderr.decode("utf-8", "replace")
            where = f"{case.kind}/{case.mutation} {args[0]}: status {r.returncode}: {err[-1500:]}"
            assert r.returncode in CLI_STATUSES, where
            if r.returncode == 2:
                assert err.count("\n") == 1 and r.stdout == b"", where
            else:
                assert err == "", where
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", err), where
            original = (args[0], *args[1:-1], corpus.paths[case.source]) if args[0] != "diff" else \
                (args[0], corpus.paths[case.source], corpus.paths[case.source], *args[3:])
            assert within_step_budget(cpu, lambda original=original: run_cli(*original, timeout=120)[1], 2.0, STEP_RATIO), \
                f"{cpu:.2f}s of CPU: {where}"
    assert runs == 4 * int(os.environ.get("TILEIR_FUZZ_CLI_CASES", "10"))


def test_step_budget_judges_a_slow_step_against_the_unmutated_file():
    """Under the floor the reference is not measured; over it, only a step more than STEP_RATIO
    times its unmutated reference is slow."""
    def never():
        raise AssertionError("reference measured under the floor")
    assert within_step_budget(1.9, never, 2.0, 4.0)
    assert within_step_budget(3.0, lambda: 1.0, 2.0, 4.0)
    assert not within_step_budget(3.0, lambda: 0.5, 2.0, 4.0)
    assert not within_step_budget(50.0, lambda: 2.0, 2.0, 4.0)


def test_unmutated_step_seconds_measures_the_named_step(corpus):
    rng = random.Random(3)
    case = next(c for c in (make_case(corpus, rng, "grammar") for _ in range(50)) if c.form == "text")
    assert unmutated_step_seconds(corpus, case, "diff-ref") > 0
    assert unmutated_step_seconds(corpus, case, "load") > 0
