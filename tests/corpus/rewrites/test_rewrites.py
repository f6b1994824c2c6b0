"""The equivalent-rewrite corpus (generate.py, measure.py): rewrites of one computation by
another author must not be flagged, and the controls (rewrites that change the result) must stay
``different``. The committed figure may only improve: a pair that passes today and is flagged
tomorrow fails here, and so does a control that passes as the same.

``python3 tests/corpus/rewrites/measure.py -v`` prints the table.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _load(name: str):
    """This folder's ``name``.py, by path: another corpus folder has a module of the same name,
    which may already be in sys.modules of this pytest worker."""
    spec = importlib.util.spec_from_file_location(f"tests_corpus_rewrites_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_measure = _load("measure")
manifest, measure = _measure.manifest, _measure.measure

#: The rewrites flagged on this commit, each with why (docs/verification.md, "Equivalent
#: rewrites"); the set may only shrink.
FLAGGED_NOW = {
    "transpose_twice": "a permute on both sides of an elementwise op; no rule moves a permute across one",
}
#: The committed figure: flagged rewrites over all rewrites, at most (the issue's goal: 10 %).
MAX_FLAGGED_RATIO = 0.10


@pytest.fixture(scope="module")
def measured():
    return measure()


def test_no_control_passes_as_the_same(measured):
    passed = [r["name"] for r in measured["rows"] if r["passed_control"]]
    assert not passed, passed
    controls = [r for r in measured["rows"] if r["control"]]
    assert all(r["verdict"] == "different" for r in controls), [(r["name"], r["verdict"]) for r in controls]


def test_flagged_rewrites_do_not_regress(measured):
    flagged = {r["name"] for r in measured["rows"] if r["flagged"]}
    assert flagged <= set(FLAGGED_NOW), f"newly flagged: {sorted(flagged - set(FLAGGED_NOW))}"
    assert measured["flagged"] <= MAX_FLAGGED_RATIO * measured["rewrites"], measured["flagged"]


def test_flagged_list_is_current(measured):
    """A pair fixed since leaves FLAGGED_NOW (the figure in the docs moves with it)."""
    flagged = {r["name"] for r in measured["rows"] if r["flagged"]}
    assert set(FLAGGED_NOW) <= flagged, f"no longer flagged: {sorted(set(FLAGGED_NOW) - flagged)}"


def test_corpus_covers_the_cases():
    entries = manifest()
    names = {e["name"] for e in entries}
    rewrites = [e for e in entries if not e["control"]]
    controls = [e for e in entries if e["control"]]
    assert len(rewrites) >= 35 and len(controls) >= 5
    assert all(e["why"] and e["expect"] in ("equivalent", "specialized") for e in rewrites)
    assert all(e["expect"] == "different" and e["why"].startswith("CONTROL") for e in controls)
    for needed in ("sub_across_broadcast", "eq_to_ne_swapped_int", "bid_floor_vs_trunc", "masked_floor_vs_trunc",
                   "max_plus_one_div64", "transpose_as_permute", "itof_iota_unsigned", "le_vs_lt_zero_int",
                   "commuted_index", "reassociated_index", "ssa_order", "loop_invariant_hoisted", "mask_mirrored",
                   "select_as_min", "float_reassociation", "mask_off_by_one", "exp_vs_exp2_scaled",
                   "rsqrt_vs_div_sqrt"):
        assert needed in names, needed


def test_pair_files_are_what_the_generator_writes():
    pytest.importorskip("cuda.tile")
    files = _load("generate").expected_files()
    assert {p.name for p in HERE.glob("*.tir")} | {"manifest.json"} == set(files)
    for name, text in files.items():
        assert (HERE / name).read_text() == text, name
