"""The walks the rules share, against the slower forms they replaced: value ranges computed on
demand against one forward pass over the function, and ``drop_unused``'s work list against
sweeping until nothing changes, over every kernel of the corpus."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataclasses import replace

from tileir_diff.loader import load
from tileir_diff.normalize.rules._ranges import _NARROWING_OPS, Ranges, int_bounds
from tileir_diff.normalize.util import FreshVids, _drop_unused_sweeps, drop_unused, has_trait, max_vid, preorder, \
    use_counts
from tileir_diff.text.printer import print_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FILES = sorted(CORPUS.rglob("*.tir"))[::3] + sorted(CORPUS.rglob("*.tileirbc"))[::12]
ALL_FILES = sorted(CORPUS.rglob("*.tir")) + sorted(CORPUS.rglob("*.tileirbc"))


def _functions():
    for path in FILES:
        try:
            module = load(str(path))
        except Exception:  # a corpus file that is meant not to load
            continue
        for f in module.functions:
            yield path, module, f


def _forward(f, use_assumes: bool) -> Ranges:
    """Ranges as one forward pass computes them: every op in pre-order, definitions first."""
    r = Ranges(f, use_assumes=use_assumes)
    for op in preorder(f):
        r._visited.add(id(op))
        if op.name in _NARROWING_OPS:
            r._visit(op)
    return r


def _values(f):
    for op in preorder(f):
        yield from op.results
        for reg in op.regions:
            for b in reg.blocks:
                yield from b.arguments
    yield from f.arguments


def test_the_corpus_is_there():
    assert len(FILES) > 50


@pytest.mark.parametrize("use_assumes", [True, False])
def test_ranges_on_demand_are_the_forward_pass(use_assumes):
    narrowed = 0
    for path, _, f in _functions():
        values = list(_values(f))
        oracle = _forward(f, use_assumes)
        want = [oracle.of(v) for v in values]
        # on demand, asked in reverse (users before their definitions)
        lazy = Ranges(f, use_assumes=use_assumes)
        got = [lazy.of(v) for v in reversed(values)][::-1]
        assert got == want, path
        narrowed += sum(1 for v, r in zip(values, want) if r is not None and r != int_bounds(v))
    assert narrowed > 100  # the comparison saw intervals that facts narrowed


def _pure(op) -> bool:
    return has_trait(op, "pure") and op.name != "assume"


@pytest.mark.parametrize("droppable", [_pure, lambda op: op.name in ("constant", "reshape", "broadcast", "addi")],
                         ids=["pure", "by-name"])
def test_drop_unused_is_sweeping_until_nothing_changes(droppable):
    changed = 0
    for path, module, f in _functions():
        got = drop_unused(f, droppable)
        want = _drop_unused_sweeps(f, droppable, use_counts(f))
        assert print_module(replace(module, functions=(got,))) == print_module(replace(module, functions=(want,))), path
        changed += got is not f
    assert changed > 5  # some kernels had something to drop


def test_fresh_vids_start_above_the_largest_id():
    for _, _, f in list(_functions())[:20]:
        fresh = FreshVids(f)
        fresh[0] += 1
        assert fresh[0] == max_vid(f) + 1
        with pytest.raises(IndexError):
            fresh[1]



def _printed(module, f) -> str:
    return print_module(replace(module, functions=(f,)))


def test_dead_code_work_list_is_its_sweeps():
    from tileir_diff.normalize.rules.dead_code import _by_sweeps, _remove_dead
    removed = 0
    for path, module, f in _functions():
        got, n = _remove_dead(f)
        want, m = _by_sweeps(f, use_counts(f))
        assert (n, _printed(module, got)) == (m, _printed(module, want)), path
        assert (got is f) == (n == 0), path
        removed += n
    assert removed > 5  # some kernels had dead ops


@pytest.mark.parametrize("rule", ["constant-dedup", "cse-pure-ops"])
def test_dedup_without_a_repeated_key_leaves_the_function(rule, monkeypatch):
    """scoped_dedup's first pass (no two ops with one key or prekey: the function as it is)
    against the scoped walk it skips, forced by a prekey every op shares."""
    from tileir_diff.normalize import REGISTRY
    from tileir_diff.normalize.rules import _scoped
    merged = 0
    real = _scoped.scoped_dedup
    for path, module, f in _functions():
        one = replace(module, functions=(f,))
        got, n = REGISTRY[rule].apply(one)
        monkeypatch.setattr(_scoped, "scoped_dedup", lambda f, key, only=None, prekeys=None: real(
            f, key, only, lambda ops: [0] * len(ops)))
        want, m = REGISTRY[rule].apply(one)
        monkeypatch.setattr(_scoped, "scoped_dedup", real)
        assert (n, print_module(got)) == (m, print_module(want)), path
        merged += n
    assert merged > 5


#: rule -> (module, name, stand-in) that turns the rule's precheck off: every function then takes
#: the walk the precheck skips.
_PRECHECKS = {
    "neutral-operands": ("tileir_diff.normalize.rules.neutral_operands", "_may_be_neutral", lambda c: True),
    "splat-constants": ("tileir_diff.normalize.rules.splat_constants", "_one_element_stored", lambda op: False),
    "zero-minus-under-exp": ("tileir_diff.normalize.rules.zero_minus_under_exp", "names_in",
                             lambda f: {"exp", "exp2"}),
}


@pytest.mark.parametrize("rule", sorted(_PRECHECKS))
def test_a_precheck_only_skips_work(rule, monkeypatch):
    """A rule's cheap first look (no candidate: the function as it is) says what its full walk
    says, over the corpus, normalized up to the rule as the pipeline does."""
    import importlib
    from tileir_diff.normalize import REGISTRY, normalize
    names = list(REGISTRY)
    before = names[:names.index(rule)]
    module_name, attr, stand_in = _PRECHECKS[rule]
    target = importlib.import_module(module_name)
    rewritten = 0
    for path in ALL_FILES:
        try:
            module = load(str(path))
        except Exception:  # a corpus file that is meant not to load
            continue
        module, _ = normalize(module, rules=before)
        got, n = REGISTRY[rule].apply(module)
        with monkeypatch.context() as patch:
            patch.setattr(target, attr, stand_in)
            want, m = REGISTRY[rule].apply(module)
        assert (n, print_module(got)) == (m, print_module(want)), path
        rewritten += n
    assert rewritten > 0, rule  # the corpus has something for the full walk to do
