"""Launch facts (analysis.json ``launch_facts``, tileir_diff/suite/launch_facts.py): each resolves to
the kernel's entry arguments, the Python reference launcher launches a grid that satisfies it over
a set of shapes (this file), and so does the Rust C ABI (tests/rust/test_launch_facts_rust.py,
through the fake driver). The suite's proof step uses them (docs/rules.md, smt-equivalence)."""
from __future__ import annotations

import json
import shutil

import pytest

from tileir_diff.launch.abi import ArrayArg, pack_arguments
from tileir_diff.launch.launcher import grid_for_inputs
from tileir_diff.suite import launch_facts as lf
from tileir_diff.suite.catalog import CatalogError, load_catalog, load_op

OPS_WITH_FACTS = ("matmul", "bmm")
ELEMENT = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3fn": 1}

#: (M, N, K) and a batch: ragged, one tile, many groups of GROUP_M row tiles; extents whose rows
#: keep 16-byte strides (the exports assume them)
SHAPES = [(1, 8, 8, 1), (128, 128, 64, 2), (333, 200, 328, 1), (1025, 136, 64, 3), (4096, 264, 32, 1),
          (8 * 128 * 3 + 5, 1024, 128, 1)]


def array_shapes(op: str, variant, m: int, n: int, k: int, batch: int) -> dict:
    """The operands of a well-formed call: the op's contract (kernel.py docstrings)."""
    ta, tb = variant.constants.get("TRANS_A", False), variant.constants.get("TRANS_B", False)
    if op == "matmul":
        return {"a": (k, m) if ta else (m, k), "b": (n, k) if tb else (k, n), "c": (m, n)}
    return {"a": (batch, m, k), "b": (batch, n, k) if tb else (batch, k, n), "c": (batch, m, n)}


def padded_rows(shape) -> tuple:
    """Row-major strides with each row padded to a multiple of 16 elements (16-byte rows for
    every dtype here, as the exports assume)."""
    strides, acc = [], 1
    for i, s in enumerate(reversed(shape)):
        strides.insert(0, acc)
        acc *= max(s, 1) if i else -(-max(s, 1) // 16) * 16
    return tuple(strides)


def python_launch(op: str, variant, shape) -> tuple:
    """(argument words, grid) of the Python reference launcher for one call (no GPU: the
    launcher's own packing and grid functions)."""
    m, n, k, batch = shape
    values = {}
    for p in variant.arrays:
        dims = array_shapes(op, variant, m, n, k, batch)[p.name]
        values[p.name] = ArrayArg(0x100000 * (1 + len(values)), dims, padded_rows(dims), p.dtype)
    for p in variant.params:
        if p.kind == "scalar":
            values[p.name] = 1.0
    words = [w for _, _, w in pack_arguments(variant, values).described]
    return words, grid_for_inputs(variant, values)


@pytest.mark.parametrize("op", OPS_WITH_FACTS)
def test_the_python_launcher_launches_the_declared_grid(op):
    spec = load_op(f"reference/{op}")
    assert spec.launch_facts, f"{op} declares no launch fact"
    checked = 0
    for v in spec.variants:
        for e in spec.launch_facts:
            if not lf.applies(e, v):
                continue
            text = lf.resolve(e["fact"], v)
            assert "shape" not in text and "BM" not in text, text
            for shape in SHAPES:
                words, grid = python_launch(op, v, shape)
                assert lf.holds(text, words, grid), (v.name, shape, text, grid)
                checked += 1
    assert checked >= sum(lf.applies(e, v) for v in spec.variants for e in spec.launch_facts) * len(SHAPES) > 0


def test_resolution_follows_the_calling_convention():
    spec = load_op("reference/matmul")
    v = next(x for x in spec.variants if x.name == "f16_nn_128x256x64")
    # a, b, c: base, 2 extents, 2 strides each; c.shape[0] is argument 11
    assert lf.resolve(spec.launch_facts[0]["fact"], v) == "grid.x <= cdiv(arg11, 128) * cdiv(arg12, 256)"
    fp8 = next(x for x in spec.variants if x.kernel == "matmul_fp8")
    assert lf.argument_layout(fp8)[("scale_a", "scalar", 0)] == 15


def test_holds_is_the_fact_evaluated():
    text = "grid.x == cdiv(arg0, 128) * cdiv(arg1, 128)"
    assert lf.holds(text, [129, 128], (2, 1, 1))
    assert not lf.holds(text, [129, 128], (3, 1, 1))  # one block too many
    assert not lf.holds("grid.x <= min(arg0, 4) - 1", [9], (4, 1, 1))


@pytest.mark.parametrize("op", OPS_WITH_FACTS)
def test_a_wrong_declared_grid_is_caught_by_the_launcher_check(op):
    # the check has teeth: a fact one tile column short fails for the launcher's real grid (a bound or an equality)
    spec = load_op(f"reference/{op}")
    v = spec.variants[0]
    wrong = spec.launch_facts[0]["fact"].replace("BN)", "BN) - 1")
    words, grid = python_launch(op, v, SHAPES[2])
    assert not lf.holds(lf.resolve(wrong, v), words, grid)


@pytest.mark.parametrize("bad, message", [
    ({"fact": "grid.x == cdiv(d.shape[0], BM)", "why": "x"}, "not an extent of an array"),
    ({"fact": "grid.x == cdiv(c.shape[0], TILE)", "why": "x"}, "neither an array extent"),
    ({"fact": "grid.x == ", "why": "x"}, "launch_facts[0]"),
    ({"fact": "grid.x == 1"}, "expected an object with fact and why"),
])
def test_a_bad_launch_fact_is_a_one_line_catalog_error(tmp_path, bad, message):
    src = tmp_path / "reference" / "matmul"
    shutil.copytree("reference/matmul", src)
    data = json.loads((src / "analysis.json").read_text())
    data["launch_facts"] = [bad]
    (src / "analysis.json").write_text(json.dumps(data))
    with pytest.raises(CatalogError) as err:
        load_op(src)
    text = str(err.value)
    assert message in text and "analysis.json" in text and "\n" not in text


def test_every_declared_fact_resolves_for_every_variant_it_is_stated_for():
    for spec in load_catalog():
        for v in spec.variants:
            for e in spec.launch_facts:
                if lf.applies(e, v):
                    lf.check_against([e], v)


def test_a_fact_scoped_to_kernels_holds_for_those_only():
    # bmm's fact bounds the one-tile kernels' grid by one batch's tiles; the persistent kernel's
    # 1-D grid over batch x tiles breaks it, so the fact is not stated for that kernel
    spec = load_op("reference/bmm")
    (fact,) = spec.launch_facts
    persistent = next(v for v in spec.variants if v.kernel == "bmm_w8_persistent")
    one_tile = next(v for v in spec.variants if v.kernel == "bmm_w8")
    assert lf.applies(fact, one_tile) and not lf.applies(fact, persistent)
    words, grid = python_launch("bmm", persistent, (1025, 520, 64, 3))  # 9 x 3 tiles x 3 batches: grid 81
    assert grid[:2] == (81, 1) and not lf.holds(lf.resolve(fact["fact"], persistent), words, grid)
    assert lf.facts_for(spec, persistent, "x") == [] and len(lf.facts_for(spec, one_tile, "x")) == 1


@pytest.mark.parametrize("kernels, message", [
    ([], "non-empty list"), (["bmm_w9"], "'bmm_w9' is not a kernel of the operator"), ("bmm", "non-empty list")])
def test_a_fact_scoped_to_an_unknown_kernel_is_a_catalog_error(tmp_path, kernels, message):
    src = tmp_path / "reference" / "bmm"
    shutil.copytree("reference/bmm", src)
    data = json.loads((src / "analysis.json").read_text())
    data["launch_facts"][0]["kernels"] = kernels
    (src / "analysis.json").write_text(json.dumps(data))
    with pytest.raises(CatalogError) as err:
        load_op(src)
    assert message in str(err.value) and "launch_facts[0]" in str(err.value)


def test_diff_accept_states_the_files_launch_facts(tmp_path):
    # `tileir-diff diff --accept reference/matmul/analysis.json` reaches the port table's verdict:
    # the file's launch facts go to the proof step; without them the grouped swizzle's floor vs
    # truncation stays a difference (a block beyond the grid would tell them apart)
    import subprocess
    import sys
    from pathlib import Path

    from tests.suite.test_ports import python_ir
    root = Path(__file__).resolve().parents[2]
    rust = root / "tests" / "corpus" / "rust" / "matmul.bf16_nn_128x128x64.tileirbc"
    if not rust.is_file():
        pytest.skip("no Rust snapshot of matmul")
    spec = load_op(root / "reference" / "matmul")
    py = python_ir(spec, "bf16_nn_128x128x64", tmp_path)
    accept = root / "reference" / "matmul" / "analysis.json"

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(py), str(rust), *map(str, args)],
                              capture_output=True, text=True, cwd=root)
    plain = cli()
    assert plain.returncode == 1, plain.stdout + plain.stderr
    stated = cli("--accept", accept, "--variant", "bf16_nn_128x128x64")
    assert stated.returncode == 0 and stated.stdout.startswith("EQUIVALENT"), stated.stdout + stated.stderr
    assert "launch fact declared as grid.x <= cdiv(c.shape[0], BM) * cdiv(c.shape[1], BN)" in stated.stdout
    assert cli("--accept", accept).returncode == 0  # the variant read from the file names
    # files whose names say no variant: without --variant, a usage error (not a silent different)
    a, b = tmp_path / "left.tileirbc", tmp_path / "right.tileirbc"
    shutil.copy(py, a)
    shutil.copy(rust, b)
    unnamed = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "diff", str(a), str(b), "--accept", str(accept)],
                             capture_output=True, text=True, cwd=root)
    assert unnamed.returncode == 2 and "declares launch_facts: say which variant" in unnamed.stderr
    assert "Traceback" not in unnamed.stderr
