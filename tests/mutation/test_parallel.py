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
