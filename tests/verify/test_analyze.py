"""`tileir-diff analyze`: structure groups from ct.Constant combinations, and the check against the
hand-written analysis.json (needs cuda.tile to export; skipped without it)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cuda.tile")

from tileir_diff.verify.analyze import analyze  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_vector_add_has_one_structure_per_layout_and_tile_is_a_value(tmp_path):
    result = analyze(ROOT / "reference" / "vector_add" / "kernel.py", cache_root=tmp_path)
    assert result.constants["vector_add"] == {"TILE": "value"}
    assert result.check["reproduced"] and not result.check["undeclared"]
    declared = {v for g in result.structural_variants for v in g["declared_variants"]}
    listed = {v["name"] for v in json.loads((ROOT / "reference" / "vector_add" / "analysis.json").read_text())["variants"]}
    assert declared == listed  # every declared variant lands in exactly the groups
    # the strided variant has dynamic strides: another structure than the contiguous f32 one
    group_of = {v: g["skeleton"] for g in result.structural_variants for v in g["declared_variants"]}
    assert group_of["f32_t1024"] != group_of["f32_strided_t1024"]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tileir_diff" / "commands" / "schemas" / "analyze.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(result.to_dict())), schema, cls=jsonschema.Draft202012Validator)


def test_an_undeclared_branch_is_reported_with_the_constant_that_reaches_it(tmp_path):
    """The mutant: matmul's analysis.json without its transposed-A variants. TRANS_A becomes a
    structural constant whose other value reaches a structure nothing declares."""
    op = tmp_path / "reference" / "matmul"
    shutil.copytree(ROOT / "reference" / "matmul", op)
    data = json.loads((op / "analysis.json").read_text())
    data["variants"] = [v for v in data["variants"] if v["kernel"] == "matmul" and not v["constants"]["TRANS_A"]
                        and v["dtypes"].get("a") == "float16"]
    (op / "analysis.json").write_text(json.dumps(data))
    result = analyze(op / "kernel.py", cache_root=tmp_path / "cache")
    assert result.constants["matmul"]["TRANS_A"] == "structure"
    assert not result.check["reproduced"]
    assert any(u["set"] == {"TRANS_A": True} for u in result.check["undeclared"]), result.check["undeclared"]


def test_cli_bad_input_is_an_error_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", "analyze", str(tmp_path / "kernel.py")],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    last = r.stderr.splitlines()[-1]
    assert r.returncode == 2 and last.startswith("tileir-diff analyze: error: ") and "analysis.json" in last
    assert "Traceback" not in r.stderr
