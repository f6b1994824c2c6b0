"""The independent-style port corpus (docs/corpus.md): every pair diffed against its expectations.

Each ``<port>.tileirbc`` here was emitted by ``emit-ir --corpus independent`` from
rust_kernels/src/independent/ (a second cuTile Rust port written in another team's style, or a
deliberately wrong one); ``<port>.json`` names the reference variant it pairs with, whose IR is
``reference/<op>.<variant>.tileirbc``; ``<port>.expect.json`` holds what the diff must say:

* ``verdict``;
* ``roots``: every root difference, as ``{"category", "message" (a substring), "count"}``; the
  diff must report exactly these (no root missing, none extra, none twice);
* ``cause`` (wrong variants): the index in ``roots`` of the real cause;
* ``arguments``: every used entry argument's pairing, ``[left index, right index]``;
* ``open`` (optional): why the diff does not yet say this; the test is then an expected failure
  that fails loudly once the diff gets it right (``strict``), so the note cannot go stale.

``python3 tests/corpus/independent/test_independent.py`` prints the corpus table.
No cargo is needed; rust_kernels/tests/independent_corpus.rs checks these files are what the
current sources emit.
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


def ports() -> List[str]:
    return sorted(p.name[: -len(".expect.json")] for p in HERE.glob("*.expect.json"))


def load_pair(name: str):
    side = json.loads((HERE / f"{name}.json").read_text())
    ref = side["reference"]
    expect = json.loads((HERE / f"{name}.expect.json").read_text())
    return HERE / "reference" / f"{ref['op']}.{ref['variant']}.tileirbc", HERE / f"{name}.tileirbc", expect


def evaluate(name: str) -> dict:
    """What the diff says on one pair, against its expectations: a list of problems (empty when met)."""
    left, right, expect = load_pair(name)
    result = tileir_diff.diff(str(left), str(right))
    problems = []
    if result.verdict != expect["verdict"]:
        problems.append(f"verdict {result.verdict}, expected {expect['verdict']}")
    got_args = {tuple(p) for f in result.functions for p in f.arguments}
    want_args = {tuple(p) for p in expect["arguments"]}
    mispaired = sorted(want_args ^ got_args)
    if mispaired:
        problems.append(f"{len(mispaired)} argument pairs differ from the expected: {mispaired}")
    diffs = list(result.differences)
    claimed = set()
    for k, root in enumerate(expect["roots"]):
        hits = [i for i, d in enumerate(diffs) if d.category == root["category"] and root["message"] in d.message]
        if len(hits) != root.get("count", 1):
            problems.append(f"expected root {k} ({root['category']}: {root['message']!r}) x{root.get('count', 1)}, "
                            f"found {len(hits)}")
        claimed.update(hits)
    for i, d in enumerate(diffs):
        if i not in claimed:
            problems.append(f"unexpected root {d.category}: {d.message[:160]}")
    if "cause" in expect:
        cause = expect["roots"][expect["cause"]]
        if not any(d.category == cause["category"] and cause["message"] in d.message for d in diffs):
            problems.append(f"the cause ({cause['category']}: {cause['message']!r}) is not among the roots")
    return {"name": name, "expected": expect["verdict"], "got": result.verdict, "roots": len(diffs),
            "mispaired": len(mispaired) // 2 + len(mispaired) % 2, "problems": problems, "open": expect.get("open")}


@pytest.mark.parametrize("name", ports())
def test_pair_meets_its_expectations(name, request):
    expect = load_pair(name)[2]
    if expect.get("open"):
        request.applymarker(pytest.mark.xfail(reason=expect["open"], strict=True))
    outcome = evaluate(name)
    assert not outcome["problems"], f"{name}:\n  " + "\n  ".join(outcome["problems"])


def test_corpus_covers_the_brief():
    """At least 8 operators, the five kinds the brief names, and the four kinds of wrong port."""
    refs = {json.loads((HERE / f"{n}.json").read_text())["reference"]["op"] for n in ports()}
    assert len(refs) >= 8
    assert {"matmul", "rms_norm", "silu_and_mul", "flash_decode"} <= refs and refs & {"bmm", "group_gemm"}
    wrong = {n for n in ports() if "cause" in load_pair(n)[2]}
    assert len(wrong) >= 4
    for n in wrong:
        assert load_pair(n)[2]["verdict"] == "different"


def test_every_emitted_port_has_expectations():
    emitted = {p.stem for p in HERE.glob("*.tileirbc")}
    assert emitted == set(ports())


def table() -> str:
    rows = ["| pair | expected | got | roots | mispaired args | met |", "|---|---|---|---|---|---|"]
    for name in ports():
        o = evaluate(name)
        rows.append(f"| {name} | {o['expected']} | {o['got']} | {o['roots']} | {o['mispaired']} | "
                    f"{'yes' if not o['problems'] else 'no'} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
    if "-v" in sys.argv:
        for name in ports():
            o = evaluate(name)
            if o["problems"]:
                print(f"\n{name}:\n  " + "\n  ".join(o["problems"]))
