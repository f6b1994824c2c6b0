"""docs/json-format.md lists what the program emits: the keys of the top level, a difference,
stats, execution and its counterexample inputs documented there are the keys real reports carry
(a different pair with --execute, one whose kernels take scalars, one with accepted differences),
and the schema version it names is the program's."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tileir_diff
from tileir_diff.compare.result import SCHEMA_VERSION
from tileir_diff.suite.accept import apply_accepted

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "json-format.md").read_text()
DATA = ROOT / "tests" / "corpus" / "data"


def documented_keys(heading: str) -> set:
    """The backticked keys of the first column of the first table under ``heading``."""
    at = DOC.index(f"\n{heading}\n")
    table = re.search(r"\n(\|.*\|\n)+", DOC[at:]).group(0)
    keys = set()
    for row in table.strip().splitlines()[2:]:
        keys |= set(re.findall(r"`([a-z_]+)`", row.split("|")[1]))
    return keys


def _mutant(tmp_path, kernel, old, new):
    text = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "dump", str(kernel)], capture_output=True,
                          text=True, check=True, cwd=ROOT).stdout
    assert old in text
    path = tmp_path / f"{kernel.stem}.mutant.tileir"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("json_docs")
    arith = DATA / "float_arith.v13_4.tileirbc"
    different = tileir_diff.diff(arith, _mutant(tmp, arith, "%3 = mulf %1, %2 ", "%3 = addf %1, %2 "),
                                 execute="auto")
    scalars = DATA / "scalar_params.v13_4.tileirbc"
    with_scalars = tileir_diff.diff(scalars, _mutant(tmp, scalars, "%4 = addf %2, %bcast_7 ",
                                                     "%4 = subf %2, %bcast_7 "), execute="auto")
    accepted, count = apply_accepted(different, [{"category": d.category, "what": d.message, "why": "test"}
                                                 for d in different.differences], None, "analysis.json")
    assert count == len(different.differences) > 0
    return [r.to_dict() for r in (different, with_scalars, accepted)]


def test_the_schema_version_is_the_programs(reports):
    assert f'currently `"{SCHEMA_VERSION}"`' in DOC
    assert all(r["schema_version"] == SCHEMA_VERSION for r in reports)
    shown = re.findall(r'"schema_version": "([0-9.]+)"', DOC)
    assert shown and set(shown) == {SCHEMA_VERSION}, "the example shows another version"


def test_top_level_keys(reports):
    emitted = set().union(*(r.keys() for r in reports))
    assert emitted == documented_keys("## Top level")


def test_difference_keys(reports):
    emitted = set().union(*(d.keys() for r in reports for d in r["differences"]))
    assert emitted == documented_keys("### Difference")
    accepted = reports[2]["differences"][0]["accepted"]
    assert set(accepted) == {"what", "why", "file"} and reports[2]["accepted_from"] == "analysis.json"


def test_stats_keys(reports):
    emitted = set().union(*(r["stats"].keys() for r in reports))
    assert emitted <= documented_keys("### Stats")
    assert documented_keys("### Stats") - emitted <= {"smt"}  # only when z3 is missing
    per_function = set().union(*(f.keys() for r in reports for f in r["stats"]["functions"]))
    stats_doc = DOC[DOC.index("### Stats"):DOC.index("### Execution")]
    assert all(f"`{k}`" in stats_doc for k in per_function), per_function


def test_execution_keys(reports):
    executions = [r["execution"] for r in reports if r["execution"]]
    assert len(executions) >= 2 and all(e["status"] == "diverged" for e in executions)
    emitted = set().union(*(e.keys() for e in executions))
    assert emitted <= documented_keys("### Execution")
    section = DOC[DOC.index("### Execution"):DOC.index("### Op ids")]
    for e in executions:
        cex = e["counterexample"]
        for key in set(cex) | set(cex["inputs"]):
            assert f"`{key}`" in section, key
    assert any("scalar_args" in e["counterexample"]["inputs"] for e in executions)


def _keys_by_path(obj, path, out):
    """Every dict key under ``path`` (lists as ``[]``); free-form maps (hints, attributes,
    op_histogram, the pair's named sections) are not walked into."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.setdefault(path, set()).add(key)
            if key not in ("hints", "attributes", "op_histogram"):
                _keys_by_path(value, f"{path}.{'<section>' if path.endswith('.sections') else key}", out)
    elif isinstance(obj, list):
        for item in obj:
            _keys_by_path(item, f"{path}[]", out)
    return out


def test_summary_keys_are_documented():
    """Every key a summary carries over the corpus (views of every kind, loops, mma, reductions,
    pointer accesses) and every key of the pair summary is named in json-format.md's Summary."""
    from tileir_diff.summary import summarize_pair
    section = DOC[DOC.index("\n## Summary\n"):DOC.index("\n## Example\n")]
    rows = {re.match(r"\| `([a-z_\[\]\.]+)`", line).group(1): line for line in section.splitlines()
            if re.match(r"\| `[a-z_]", line)}
    kernels = sorted(DATA.glob("*.v13_4.tileirbc"))
    keys: dict = {}
    for path in kernels:
        _keys_by_path(tileir_diff.summarize(path), "", keys)
    for nested, row in ((".functions[].memory[].accesses[]", "memory[].accesses[]"),
                        (".functions[].memory[]", "memory"), (".functions[].reductions[]", "reductions"),
                        (".functions[].mma[]", "mma"), (".functions[].loops[]", "loops"),
                        (".functions[].signature", "signature"), (".functions[].assumptions[]", "assumptions")):
        assert keys.get(nested), f"no kernel of the corpus has {nested}"
        undocumented = {k for k in keys[nested] if f"`{k}`" not in rows[row]} - {"op_id", "text"}
        assert not undocumented, (row, undocumented)   # op_id and text: "Every list item has ..."
    head = section[:section.index("| key |")]
    assert {k for k in keys[""] | keys.get(".globals[]", set()) if f"`{k}`" not in head} == set()
    assert {k for k in keys[".functions[]"] if not any(f"`{k}`" in r for r in rows.values())} == set()
    pair = summarize_pair(tileir_diff.load(kernels[0]), tileir_diff.load(DATA / "mma_f16_f32acc.v13_4.tileirbc"))
    pair_keys = _keys_by_path(pair["pair"], "", {})
    pair_text = section[section.index("`summary.pair`"):]
    named = set(re.findall(r'[`"]([a-z_]+)[`"\[.]', pair_text))
    sections = set(re.search(r"for the sections\s+`([a-z_ ]+)`", pair_text).group(1).split())
    assert set(pair["pair"]["functions"][0]["sections"]) == sections
    emitted = {k for path, ks in pair_keys.items() if not path.endswith((".left", ".right", ".sections"))
               for k in ks}
    assert emitted - named == set(), emitted - named
