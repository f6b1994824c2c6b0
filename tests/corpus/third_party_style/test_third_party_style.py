"""The third-party-style corpus (generate.py): every pair diffed against roots judged by hand.

``<name>.left.tir`` is a reference kernel printed as text, ``<name>.right.tir`` the same text
edited the way another author writes it (or gets it wrong); ``<name>.expect.json`` holds:

* ``verdict``; ``note``: what the edit is and how it was judged;
* ``roots``: every root difference, ``{"category", "message" (a substring), "count"}``; the
  diff must report exactly these (no root missing, none extra, none twice);
* ``cause`` (wrong variants): the index in ``roots`` of the real cause;
* ``open`` (optional): why the diff does not yet say this (a strict expected failure).

``python3 tests/corpus/third_party_style/measure.py`` prints the ratios (roots found, noise,
specialization verdicts) over this corpus and tests/corpus/independent.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import tileir_diff  # noqa: E402


def pairs() -> List[str]:
    return sorted(p.name[: -len(".expect.json")] for p in HERE.glob("*.expect.json"))


def expectation(name: str) -> dict:
    return json.loads((HERE / f"{name}.expect.json").read_text())


def evaluate_result(result, expect: dict) -> dict:
    """Problems of one diff result against its expectations, and the counts measure.py adds up."""
    problems = []
    if result.verdict != expect["verdict"]:
        problems.append(f"verdict {result.verdict}, expected {expect['verdict']}")
    diffs = list(result.differences)
    claimed = set()
    found = 0
    for k, root in enumerate(expect["roots"]):
        hits = [i for i, d in enumerate(diffs) if d.category == root["category"] and root["message"] in d.message]
        want = root.get("count", 1)
        found += min(len(hits), want)
        if len(hits) != want:
            problems.append(f"expected root {k} ({root['category']}: {root['message']!r}) x{want}, found {len(hits)}")
        claimed.update(hits[:want])  # one cause reported more often than it occurs: the rest is noise
    extra = [d for i, d in enumerate(diffs) if i not in claimed]
    problems.extend(f"unexpected root {d.category}: {d.message[:160]}" for d in extra)
    return {"expected_verdict": expect["verdict"], "verdict": result.verdict, "problems": problems,
            "true_roots": sum(r.get("count", 1) for r in expect["roots"]), "found": found,
            "reported": len(diffs), "extra": len(extra)}


def evaluate(name: str) -> dict:
    result = tileir_diff.diff(str(HERE / f"{name}.left.tir"), str(HERE / f"{name}.right.tir"))
    expect = expectation(name)
    return {"name": name, "held_out": bool(expect.get("held_out")), **evaluate_result(result, expect)}


@pytest.mark.parametrize("name", pairs())
def test_pair_meets_its_expectations(name, request):
    expect = expectation(name)
    if expect.get("open"):
        request.applymarker(pytest.mark.xfail(reason=expect["open"], strict=True))
    outcome = evaluate(name)
    assert not outcome["problems"], f"{name}:\n  " + "\n  ".join(outcome["problems"])


def test_pair_files_are_what_the_generator_writes():
    sys.path.insert(0, str(HERE))
    from generate import expected_texts
    texts = expected_texts()
    assert set(texts) == {p.name for p in HERE.glob("*.tir")}
    for fname, text in texts.items():
        assert (HERE / fname).read_text() == text, fname
    assert {f.rsplit(".", 2)[0] for f in texts} == set(pairs())


def test_corpus_covers_the_styles():
    """Other authors' styles and wrong ports, and every verdict a port can earn."""
    names = set(pairs())
    assert len(names) >= 20
    verdicts = {expectation(n)["verdict"] for n in names}
    assert {"different", "specialized", "equivalent"} <= verdicts
    for style in ("out_first", "gather_scatter", "constant", "argument", "exp", "rsqrt", "tf32", "static", "hints"):
        assert any(style in n for n in names), style
    for n in names:
        e = expectation(n)
        assert e.get("note"), n
        if "cause" in e:
            assert e["verdict"] == "different", n
