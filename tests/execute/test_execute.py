"""Differential execution against the mutation and invariance catalogs of tests/compare/transforms.py.

* invariances (renumbering, reordering, duplicated constants/pure ops, commuted operands, dead
  ops) never diverge;
* semantic mutations diverge: on every kernel of the sample for the kinds whose effect always
  reaches memory, and on named kernels for the kinds whose effect only shows on some kernels
  (a padding value only matters when padded elements reach an output, a 1-ulp change of a
  reduction identity or constant only through particular inputs);
* the mutations that do not change what a kernel computes on valid inputs (memory ordering of a
  single-threaded view access, a duplicated store, a stronger assumption, an unused extra
  argument, a wider integer argument) never diverge.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from tileir_diff import load
from tileir_diff.execute import check
from tileir_diff.suite.catalog import repo_root

from ..compare.transforms import INVARIANCES, MUTATIONS

ROOT = repo_root()
CORPUS = ROOT / "tests" / "corpus" / "data"
BUILD = ROOT / "build" / "reference"

CORPUS_SAMPLE = ["reduce_builtin_float", "reduce_custom", "scan_builtin", "mma_f32", "mma_bf16", "while_loop_break",
                 "nested_for_loops", "atomic_rmw_signed", "gather_scatter_masked", "load_every_padding_mode",
                 "float_int_casts", "printf_and_print", "if_else_runtime", "trig_family", "bitwise_signed",
                 "for_loop_break", "loop_continue", "extract_subtiles", "permute_transpose", "view_atomic_reduce",
                 "large_layernorm_gelu", "argmax_argmin"]
REFERENCE_SAMPLE = ["matmul/f16_nn_unaligned_64x64x32", "softmax/f32_row_m4_n1024", "layer_norm/fwd_f32_m4_n1024",
                    "cumsum/row_f32_m4_n1024", "argmax/f32_m4_n1024", "gelu/tanh_f32", "transpose/f32_tile_32x64"]

ALWAYS_OBSERVABLE = ("tile-shape", "view-index", "drop-store", "reduce-dim", "swap-noncommutative", "op-kind",
                     "loop-step")
NOT_SEMANTIC = ("ordering", "add-store", "assumption", "signature-extra-arg", "signature-arg-type")
# (mutation, kernel, rng seed): instances whose effect reaches memory
OBSERVABLE_INSTANCES = [
    ("padding", "softmax/f32_row_m4_n1024", None),
    ("constant", "softmax/f32_row_m4_n1024", 0),
    ("constant", "argmax/f32_m4_n1024", 0),
    ("reduce-identity", "cumsum/row_f32_m4_n1024", 0),
    ("reduce-combiner", "softmax/f32_row_m4_n1024", 0),
    ("reduce-combiner", "argmax/f32_m4_n1024", 0),
    ("mma-dtype", "matmul/f16_nn_unaligned_64x64x32", 0),
    ("loop-bound", "argmax/f32_m4_n1024", 0),
]
TRIALS = 16
# Instances of an "always observable" kind that this kernel hides, and why (checked by hand)
HIDDEN = {
    ("view-index", "view_atomic_reduce"): "its and/or/xor atomics end in t ^ t: memory ends at 0 whatever tile is read",
    ("view-index", "gather_scatter_masked"): "scatters a value that depends only on the index; tiles of random "
                                             "small ints cover the same indices",
    ("loop-step", "loop_continue"): "step 2 skips exactly the iterations the body `continue`s past",
}


def _path(name: str) -> Path:
    return BUILD / f"{name}.tileirbc" if "/" in name else CORPUS / f"{name}.v13_4.tileirbc"


def _available(names):
    return [n for n in names if _path(n).is_file()]


SAMPLE = _available(CORPUS_SAMPLE) + _available(REFERENCE_SAMPLE)


def test_sample_is_large_enough():
    assert len(_available(CORPUS_SAMPLE)) >= 10, "corpus files missing (tests/corpus/generate.py)"


@pytest.mark.parametrize("kernel", SAMPLE)
@pytest.mark.parametrize("invariance", sorted(INVARIANCES))
def test_invariance_never_diverges(kernel, invariance):
    m = load(str(_path(kernel)))
    r = check(m, INVARIANCES[invariance](m, random.Random(0)), trials=6, seed=0)
    assert r.status == "no_divergence", r.to_dict()


@pytest.mark.parametrize("kernel", SAMPLE)
@pytest.mark.parametrize("mutation", ALWAYS_OBSERVABLE)
def test_semantic_mutation_diverges(kernel, mutation):
    m = load(str(_path(kernel)))
    mutant = MUTATIONS[mutation][1](m, random.Random(0))
    if mutant is None:
        pytest.skip(f"{kernel} has no place for {mutation}")
    r = check(m, mutant, trials=TRIALS, seed=0)
    if (mutation, kernel) in HIDDEN:
        assert r.status == "no_divergence", HIDDEN[(mutation, kernel)]
        return
    assert r.status == "diverged", r.to_dict()
    assert r.counterexample["inputs"]["arrays"], r.to_dict()


def _padding_on_loaded_view(m):
    """The padding mutation applied to a partition view that some load reads."""
    for seed in range(32):
        mutant = MUTATIONS["padding"][1](m, random.Random(seed))
        changed = [b.results[0] for a, b in zip(m.walk(), mutant.walk())
                   if a.name == "make_partition_view" and a.results[0].type != b.results[0].type]
        loads = {o.operands[0].vid for o in mutant.walk() if o.name == "load_view_tko"}
        if changed and changed[0].vid in loads:
            return mutant
    return None


@pytest.mark.parametrize("mutation,kernel,seed", OBSERVABLE_INSTANCES)
def test_observable_mutation_diverges(mutation, kernel, seed):
    if not _path(kernel).is_file():
        pytest.skip(f"{_path(kernel)} not exported")
    m = load(str(_path(kernel)))
    mutant = _padding_on_loaded_view(m) if mutation == "padding" else MUTATIONS[mutation][1](m, random.Random(seed))
    assert mutant is not None
    r = check(m, mutant, trials=TRIALS, seed=0)
    assert r.status == "diverged", r.to_dict()


@pytest.mark.parametrize("kernel", SAMPLE[::2])
@pytest.mark.parametrize("mutation", NOT_SEMANTIC)
def test_non_semantic_mutation_does_not_diverge(kernel, mutation):
    m = load(str(_path(kernel)))
    mutant = MUTATIONS[mutation][1](m, random.Random(0))
    if mutant is None:
        pytest.skip(f"{kernel} has no place for {mutation}")
    r = check(m, mutant, trials=6, seed=0)
    assert r.status == "no_divergence", r.to_dict()
