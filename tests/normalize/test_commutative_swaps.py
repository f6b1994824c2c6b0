"""commutative-operands rewrites the ops its keys' walk swapped (KeyBuilder(record_swaps=True)),
not every commutative op in a second walk: over the corpus, the same module and the same count
as the second walk it replaced (the oracle below: every commutative op, its operands compared by
key), nested regions included."""
from __future__ import annotations

from pathlib import Path

import pytest

from tileir_diff.loader import load
from tileir_diff.normalize import normalize
from tileir_diff.normalize.keys import ORDER_FREE_OPS, KeyBuilder, commutative_positions
from tileir_diff.normalize.rules.commutative_operands import CommutativeOperands
from tileir_diff.normalize.util import map_functions, rewrite_function
from tileir_diff.text.printer import print_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FILES = sorted(CORPUS.rglob("*.tir"))[::4] + sorted(CORPUS.rglob("*.tileirbc"))[::10]


def _second_walk(module):
    """The rule as it was: keys first, then every commutative op visited and compared."""
    def per_function(f):
        keys = KeyBuilder(arg_positions=True).function(f).value
        count = 0

        def fn(op, subst):
            nonlocal count
            pos = commutative_positions(op)
            if pos is None:
                return None
            i, j = pos
            a, b = op.operands[i], op.operands[j]
            if keys.get(b.vid, "") < keys.get(a.vid, ""):
                ops = list(op.operands)
                ops[i], ops[j] = b, a
                count += 1
                return [op.replace(operands=tuple(ops))]
            return None
        return rewrite_function(f, fn, only=ORDER_FREE_OPS), count
    return map_functions(module, per_function)


def _inputs():
    for path in FILES:
        try:
            module = load(str(path))
        except Exception:  # a corpus file that is meant not to load
            continue
        yield module
        # as the pipeline hands it over: rules before it have run (operands in other orders)
        yield normalize(module, rules=["version-defaults", "neutral-operands"])[0]


def test_the_corpus_has_swaps_in_nested_regions():
    nested = 0
    for module in _inputs():
        for f in module.functions:
            keys = KeyBuilder(record_swaps=True).function(f)
            nested += sum(1 for b in keys.swapped_blocks if b != id(f.body))
    assert nested > 0


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_recorded_swaps_are_the_second_walks_rewrites(path):
    try:
        module = load(str(path))
    except Exception:
        pytest.skip("a corpus file that is meant not to load")
    for m in (module, normalize(module, rules=["version-defaults", "neutral-operands"])[0]):
        want, n_want = _second_walk(m)
        got, n_got = CommutativeOperands().apply(m)
        assert n_got == n_want
        assert print_module(got) == print_module(want)
        if not n_want:
            assert got is m  # nothing swapped: the module itself
