"""Rules marked ``rewrites_in_place`` keep every op name and origin tag: the pipeline takes no
census of the module after them (normalize/__init__.py), so a rule that dropped, added or
renamed an op while marked would leave the absorbed-op record and the ``acts_on`` skips wrong."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tileir_diff.loader import load
from tileir_diff.normalize import REGISTRY, select_rules
from tileir_diff.normalize.util import names_and_origins, tag_origins

ROOT = Path(__file__).resolve().parents[2]
IN_PLACE = [name for name, rule in REGISTRY.items() if rule.rewrites_in_place]


def _kernels():
    found = sorted((ROOT / "tests" / "corpus").rglob("*.tileirbc")) + sorted((ROOT / "tests" / "corpus").rglob("*.tir"))
    ref = Path(os.environ.get("TILEIR_REFERENCE_BUILD", ROOT / "build" / "reference"))
    if ref.is_dir():
        found += sorted(ref.rglob("*.tileirbc"))[::15]
    return found


def _modules():
    for path in _kernels():
        try:
            yield path, tag_origins(load(str(path)))
        except Exception:  # a corpus file meant not to load
            continue


def test_the_marked_rules():
    assert set(IN_PLACE) == {"version-defaults", "mirrored-compares", "empty-target-hints", "commutative-operands"}


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_rule_keeps_names_and_origins(name):
    rule = REGISTRY[name]
    order = [r.name for r in select_rules(None, ())]
    before = [REGISTRY[n] for n in order[:order.index(name)]]
    rewrote = 0
    for path, module in _modules():
        for earlier in before:  # the module the rule sees in the pipeline
            module = earlier.apply(module)[0]
        out, n = rule.apply(module)
        rewrote += n
        if n:
            assert names_and_origins(out) == names_and_origins(module), f"{name} on {path}"
    assert rewrote, f"{name} rewrote nothing in the corpus: the check above checked nothing"
