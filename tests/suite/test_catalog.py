"""Every reference/*/analysis.json is valid, and broken ones fail with the file and field named."""
from __future__ import annotations

import ast
import copy
import json
import shutil
from pathlib import Path

import pytest

from tileir_diff.suite.catalog import (CatalogError, constant_params, is_ragged, kernel_signatures, load_catalog,
                                       load_op)
from tileir_diff.suite.expr import ExprError, evaluate, names_in

REFERENCE = Path(__file__).resolve().parents[2] / "reference"
OPS = sorted(p.name for p in REFERENCE.iterdir() if (p / "analysis.json").is_file()) if REFERENCE.is_dir() else []


@pytest.mark.parametrize("op", OPS)
def test_reference_op_is_valid(op):
    spec = load_op(REFERENCE / op)
    sigs = kernel_signatures(spec.kernel_path)
    for v in spec.variants:
        # params in kernel order, constants given, at least one ragged test shape
        assert [p.name for p in v.params] == sigs[v.kernel]
        assert set(v.constants) == {p.name for p in v.params if p.kind == "constant"}
        assert any(is_ragged(s) for s in v.test_shapes), v.name
        for s in v.test_shapes + (v.bench_shape,):
            assert all(g >= 1 for g in v.grid_for(s))
            assert v.bytes_for(s) > 0


@pytest.mark.parametrize("op", OPS)
def test_ref_py_defines_the_contract(op):
    tree = ast.parse((REFERENCE / op / "ref.py").read_text())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    make = funcs["make_inputs"].args
    assert [a.arg for a in make.args] == ["variant", "shape"]
    assert {a.arg for a in make.kwonlyargs} >= {"seed", "device"}
    assert [a.arg for a in funcs["reference"].args.args] == ["variant", "inputs"]


def test_catalog_lists_every_folder():
    specs = load_catalog(REFERENCE)
    assert [s.op for s in specs] == OPS
    symbols = [v.symbol for s in specs for v in s.variants]
    assert len(symbols) == len(set(symbols))


# --- negative cases on a copy of vector_add -------------------------------------------------

@pytest.fixture
def op_copy(tmp_path):
    src = REFERENCE / "vector_add"
    dst = tmp_path / "vector_add"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    data = json.loads((dst / "analysis.json").read_text())

    def write(mutate):
        d = copy.deepcopy(data)
        mutate(d)
        (dst / "analysis.json").write_text(json.dumps(d))
        return dst

    return write


@pytest.mark.parametrize("mutate, field, words", [
    (lambda d: d["variants"][0]["params"][0].update(ndim=0), "variants[0].params[0].ndim", "1..8"),
    (lambda d: d["variants"][0]["params"][0].update(dtype="float17"), "variants[0].params[0].dtype", "unknown dtype"),
    (lambda d: d["variants"][0]["params"][0].update(index_dtype="int16"), "variants[0].params[0].index_dtype", "int32"),
    (lambda d: d["variants"][0]["params"][0].update(stride_constant=[1, 1]), "variants[0].params[0].stride_constant", "length"),
    (lambda d: d["variants"][0]["params"].pop(1), "variants[0]", "y"),
    (lambda d: d["variants"][0]["params"].reverse(), "variants[0].params", "kernel.py"),
    (lambda d: d["variants"][0].update(kernel="nope"), "variants[0].kernel", "nope"),
    (lambda d: d["variants"][0].update(constants={}), "variants[0].constants", "TILE"),
    (lambda d: d["variants"][0].update(grid=["cdiv(N, TILES)", 1, 1]), "variants[0].grid[0]", "TILES"),
    (lambda d: d["variants"][0].update(grid=["__import__('os')", 1, 1]), "variants[0].grid[0]", "unknown function"),
    (lambda d: d["variants"][0].update(bytes="N ** 2"), "variants[0].bytes", "unsupported syntax"),
    (lambda d: d["variants"][0].update(test_shapes=[{"N": 1024}]), "variants[0].test_shapes", "ragged"),
    (lambda d: d["variants"][0].update(test_shapes=[{"N": 17, "noncontiguous": ["z"]}]), "noncontiguous", "z"),
    (lambda d: d["variants"][0].update(test_shapes=[{"N": 17, "noncontiguous": ["x"]}]), "noncontiguous", "constant"),
    (lambda d: d["variants"][0].update(bench_shape={"M": 4}), "variants[0].bench_shape", "M"),
    (lambda d: d["variants"][0].update(bytess=1), "variants[0]", "bytess"),
    (lambda d: d["variants"][0].update(name="Bad-Name"), "variants[0].name", "Bad-Name"),
    (lambda d: d["variants"][1].update(name=d["variants"][0]["name"]), "variants", "duplicate"),
    (lambda d: d["variants"][0]["dtypes"].update(x="float32"), "variants[0].dtypes.x", "disagrees"),
    (lambda d: d["tolerances"].pop("float16"), "tolerances", "float16"),
    (lambda d: d.update(op="other"), "op", "folder"),
    (lambda d: d.update(family="misc"), "family", "elementwise"),
    (lambda d: d.update(tolerance_notes=3), "tolerance_notes", "string"),
    (lambda d: d.update(abi_checked_preconditions=[{"what": "x", "match": {}}]), "abi_checked_preconditions[0]",
     "checked_by"),
    (lambda d: d.update(abi_checked_preconditions=[{"what": "x", "match": [], "checked_by": "y"}]),
     "abi_checked_preconditions[0]", "match"),
])
def test_invalid_analysis_names_file_and_field(op_copy, mutate, field, words):
    folder = op_copy(mutate)
    with pytest.raises(CatalogError) as info:
        load_op(folder)
    err = info.value
    assert err.file.endswith("analysis.json")
    assert field in str(err), str(err)
    assert words in str(err), str(err)


def test_notes_fields_are_accepted(op_copy):
    folder = op_copy(lambda d: (d.update(tolerance_notes="why"), d["variants"][0].update(flops_note="none")))
    assert load_op(folder).op == "vector_add"


def test_missing_kernel_function_is_reported(op_copy):
    folder = op_copy(lambda d: None)
    (folder / "kernel.py").write_text((folder / "kernel.py").read_text().replace("def vector_add(", "def vadd("))
    with pytest.raises(CatalogError, match="no @ct.kernel function 'vector_add'"):
        load_op(folder)


def test_kernels_built_from_one_body_are_found(tmp_path):
    # `name = ct.kernel(body, **options)` names a kernel as `@ct.kernel def name` does; a call on a
    # name that is not a module-level function, or with two positional arguments, is not one.
    src = tmp_path / "kernel.py"
    src.write_text("import cuda.tile as ct\nC = ct.Constant[int]\n"
                   "def _body(x, y, N: C):\n    pass\n"
                   "plain = ct.kernel(_body)\nwide = ct.kernel(_body, num_worker_warps=8)\n"
                   "@ct.kernel(occupancy=2)\ndef decorated(a, B: ct.Constant[int]):\n    pass\n"
                   "unknown = ct.kernel(missing)\ntwo = ct.kernel(_body, _body)\n")
    assert kernel_signatures(src) == {"plain": ["x", "y", "N"], "wide": ["x", "y", "N"], "decorated": ["a", "B"]}
    assert constant_params(src) == {"plain": {"N"}, "wide": {"N"}, "decorated": {"B"}}


def test_broken_json_reports_line(op_copy):
    folder = op_copy(lambda d: None)
    (folder / "analysis.json").write_text('{"op": "vector_add",\n  "family": }')
    with pytest.raises(CatalogError, match="line 2"):
        load_op(folder)


def test_unknown_op_filter():
    with pytest.raises(CatalogError, match="no such op"):
        load_catalog(REFERENCE, ops=["does_not_exist"])


# --- expression language --------------------------------------------------------------------

def test_expressions():
    env = {"M": 13, "N": 1000, "TILE": 256}
    assert evaluate("cdiv(N, TILE)", env) == 4
    assert evaluate("max(1, M // 4) * 2 - 1", env) == 5
    assert evaluate("min(M, N) % 5", env) == 3
    assert evaluate(7, env) == 7
    assert evaluate("N * esize(x)", env, element_sizes={"x": 2}) == 2000
    assert evaluate("x.shape[1]", {}, shapes={"x": (3, 9)}) == 9
    assert names_in("cdiv(M, TILE) * esize(x) + x.shape[0]") == {"M", "TILE"}


@pytest.mark.parametrize("text", ["N ** 2", "N / 2", "open('f')", "N.real", "cdiv(N)", "M if N else 1",
                                  "cdiv(N, 0)", "N // 0", "lambda: 1", "x.shape[5]", "esize(q)"])
def test_expression_rejects(text):
    with pytest.raises(ExprError):
        evaluate(text, {"N": 4, "M": 2}, element_sizes={"x": 2}, shapes={"x": (1, 2)})
