"""scripts/mutation_engine.py --jobs N evaluates the same plan in forked workers: the outcomes
and their order must be those of one process. Only the time per outcome and the solver's
counterexample may differ: a worker's z3 has seen other queries, so it may pick another model."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from . import engine

pytestmark = pytest.mark.skipif(engine.find_tool("tileirdisasm") is None,
                                reason="tileirdisasm not installed (pip install nvidia-cuda-tileiras)")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mutation_engine.py"


def _script():
    spec = importlib.util.spec_from_file_location("mutation_engine_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # the workers' task function is pickled by module name
    spec.loader.exec_module(mod)
    return mod


def _outcomes(path: Path):
    doc = json.loads(path.read_text())
    def drop(rows):
        # the detail's first root up to its values ("load_view_tko index[0] (operand 1)")
        return [{**{k: v for k, v in r.items() if k not in ("seconds", "detail")},
                 "detail": r["detail"].split(":")[0]} for r in rows]
    return doc, drop(doc["mutations"]), drop(doc["invariances"])


def test_jobs_give_the_outcomes_of_one_process(tmp_path, capsys):
    script = _script()
    runs = {}
    for jobs in (1, 2):
        out = tmp_path / f"jobs{jobs}.json"
        assert script.main(["--no-reference", "--ops", "synthetic", "--budget", "16", "--inv-budget", "6",
                            "--quiet", "--jobs", str(jobs), "--json", str(out)]) == 0
        runs[jobs] = _outcomes(out)
    capsys.readouterr()
    (doc1, mut1, inv1), (doc2, mut2, inv2) = runs[1], runs[2]
    assert len(mut1) == 16 and len(inv1) == 6
    assert mut1 == mut2 and inv1 == inv2
    assert doc1["jobs"] == 1 and doc2["jobs"] == 2
    assert doc1["tables"] == doc2["tables"]
    assert any(m["detail"] for m in mut1)


class _Item:
    def __init__(self, n):
        self.kind, self.klass, self.key, self.desc = "fake", "fake", f"fake|{n}", f"item {n}"


class _Plan:
    def __init__(self, n):
        self.kernel = engine.Kernel(f"fake/{n}", "fake", Path("."))
        self.item = _Item(n)


def _fake_evaluate(plan):
    import os
    import time
    n = int(plan.item.key.split("|")[1])
    if n == 3:
        os._exit(9)  # dies as the OOM killer's victim would: no result, no exception
    if n == 5:
        ballast = bytearray(500 << 20)  # resident: written page by page
        for k in range(0, len(ballast), 4096):
            ballast[k] = 1
        time.sleep(5)
    if n == 7:
        time.sleep(30)
    return engine.Outcome(plan.kernel.name, "fake", "fake", "fake", plan.item.key, "", "caught", verdict="different")


def test_a_lost_worker_is_a_named_crash_and_the_run_goes_on(capsys):
    """A worker that dies (item 3), passes the memory limit (item 5) or the time limit (item 7)
    costs its item alone: that item's outcome is a crash naming why, every other item is
    evaluated, and the outcomes come back in plan order."""
    import os
    script = _script()
    plans = [_Plan(n) for n in range(10)]
    got = []
    # a forked worker starts with this process's memory (under pytest-xdist, 0.5 GB or more)
    limit = round(script._rss_mb(os.getpid())) + 250
    script.evaluate_all(plans, _fake_evaluate, 2, lambda i, n, o: got.append((i, o)),
                        mem_limit_mb=limit, time_limit_s=3)
    assert [i for i, _ in got] == list(range(10))
    status = {o.key: (o.status, o.detail) for _, o in got}
    assert status["fake|3"][0] == "crash" and "worker died (exit status 9" in status["fake|3"][1]
    assert status["fake|5"][0] == "crash" and f"over the {limit} MB limit" in status["fake|5"][1]
    assert status["fake|7"][0] == "crash" and "past the 3 s limit" in status["fake|7"][1]
    assert all(s == ("caught", "") for k, s in status.items() if k not in ("fake|3", "fake|5", "fake|7"))
    err = capsys.readouterr().err
    assert "item 3 (fake/3 fake|3)" in err and "item 5 (fake/5 fake|5)" in err


def test_invariances_lose_items_as_false_alarms():
    script = _script()
    got = []
    script.evaluate_all([_Plan(2), _Plan(3)], _fake_evaluate, 2, lambda i, n, o: got.append(o),
                        lost_status="false-alarm")
    assert [(o.status, o.verdict) for o in got] == [("caught", "different"), ("false-alarm", "crash")]
