"""Every JSON output has a schema, in the package (the wheel ships them: package-data), and what
the program prints validates against it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "tileir_diff" / "commands" / "schemas"
KERNELS = ["mma_f16_f32acc.v13_4.tileirbc", "reduce_custom.v13_4.tileirbc", "multi_entry_layouts.v13_4.tileirbc",
           "while_loop_break.v13_1.tileirbc"]


def _validate(doc, name):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("command", ["dump", "summary"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_output_validates(command, kernel):
    r = subprocess.run([sys.executable, "-m", "tileir_diff.cli", command, f"tests/corpus/data/{kernel}", "-f", "json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    _validate(json.loads(r.stdout), command)


def test_a_broken_document_does_not_validate():
    with pytest.raises(jsonschema.ValidationError):
        _validate({"format": "tileir_diff.ir", "format_version": 1, "bytecode_version": "13.4", "globals": [],
                   "functions": [{"name": "k", "entry": True, "arguments": [], "results": [],
                                  "body": [{"op": "addf", "operands": [1], "results": []}]}]}, "dump")
    with pytest.raises(jsonschema.ValidationError):
        _validate({"version": "13.4", "source": None, "globals": [], "functions": [{"name": "k"}]}, "summary")


def test_every_schema_is_package_data():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tileir_diff"]
    package = ROOT / "tileir_diff"
    shipped = {p for pattern in data for p in package.glob(pattern)}
    schemas = set(package.rglob("*.schema.json"))
    assert schemas and schemas <= shipped, schemas - shipped
    assert (package / "py.typed") in shipped
    assert (ROOT / "docs" / "verify.schema.json").resolve() == package / "verify" / "verify.schema.json"
    for path in schemas:
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
