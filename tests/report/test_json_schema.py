"""JSON report against the versioned schema (our validator, and jsonschema when installed)."""
from __future__ import annotations

import copy
import json

import pytest

from tileir_diff.compare.result import CATEGORIES, SCHEMA_VERSION, VERDICTS, DiffResult
from tileir_diff.report import json_schema


def test_report_validates(different_result):
    doc = json.loads(json_schema.render(different_result))
    assert json_schema.validate(doc) == []
    assert doc["schema_version"] == SCHEMA_VERSION and doc["verdict"] == "different"
    assert doc["execution"] is None  # reserved key, always present
    assert [d["category"] for d in doc["differences"]] == ["mma", "memory"]
    assert doc["summary"]["pair"]["functions"][0]["sections"]["mma"]["same"] is False


def test_schema_enums_match_the_result_module():
    schema = json_schema.load_schema()
    assert tuple(schema["properties"]["verdict"]["enum"]) == VERDICTS
    assert tuple(schema["$defs"]["difference"]["properties"]["category"]["enum"]) == CATEGORIES
    assert json_schema.validate({"schema_version": SCHEMA_VERSION}, schema)  # not a full report


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.pop("verdict"), "missing required key 'verdict'"),
    (lambda d: d.update(verdict="maybe"), "'maybe' is not one of"),
    (lambda d: d["differences"][0].update(category="vibes"), "$.differences[0].category"),
    (lambda d: d["differences"][0]["left"].update(op_id="op12"), "does not match"),
    (lambda d: d["rules_applied"].update(cse=-1), "minimum"),
    (lambda d: d.update(schema_version="2.0"), "$.schema_version"),
    (lambda d: d["left_lines"].append(["f0/o1"]), "fewer than 2"),
    (lambda d: d["summary"]["left"]["functions"][0].pop("memory"), "missing required key 'memory'"),
    (lambda d: d["differences"][1].update(left=7), "matches none of the allowed forms"),
])
def test_validator_catches_broken_reports(different_result, mutate, expected):
    doc = json.loads(json_schema.render(different_result))
    mutate(doc)
    errors = json_schema.validate(doc)
    assert any(expected in e for e in errors), errors


def test_without_lines_drops_only_the_printed_modules(different_result):
    doc = json_schema.to_dict(different_result, lines=False)
    assert "left_lines" not in doc and "right_lines" not in doc
    assert json_schema.validate(doc) == []


def test_third_party_validator_agrees(different_result):
    jsonschema = pytest.importorskip("jsonschema")
    doc = json.loads(json_schema.render(different_result))
    jsonschema.Draft202012Validator(json_schema.load_schema()).validate(doc)
    bad = copy.deepcopy(doc)
    bad["differences"][0]["category"] = "vibes"
    assert list(jsonschema.Draft202012Validator(json_schema.load_schema()).iter_errors(bad))


def test_minimal_result_validates():
    r = DiffResult("identical", [], {}, {}, "<bytes>", "<bytes>", [], [], {})
    assert json_schema.validate(json.loads(r.to_json())) == []
