"""JSON report against the versioned schema (validated by the jsonschema library)."""
from __future__ import annotations

import copy
import json

import pytest

from tileir_diff.compare.result import CATEGORIES, SCHEMA_VERSION, VERDICTS, DiffResult, MatchStats
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
    assert SCHEMA_VERSION == "1.4" and schema["properties"]["schema_version"]["pattern"] == "^1\\.[0-9]+$"


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.pop("verdict"), "$: 'verdict' is a required property"),
    (lambda d: d.update(verdict="maybe"), "$.verdict: 'maybe' is not one of"),
    (lambda d: d["differences"][0].update(category="vibes"), "$.differences[0].category"),
    (lambda d: d["differences"][0]["left"].update(op_id="op12"), "$.differences[0].left.op_id: 'op12' does not match"),
    (lambda d: d["rules_applied"].update(cse=-1), "$.rules_applied.cse: -1 is less than the minimum"),
    (lambda d: d.update(schema_version="2.0"), "$.schema_version"),
    (lambda d: d["left_lines"].append(["f0/o1"]), "is too short"),
    (lambda d: d["summary"]["left"]["functions"][0].pop("memory"), "'memory' is a required property"),
    (lambda d: d["differences"][1].update(left=7), "$.differences[1].left: 7 is not valid under any"),
    (lambda d: d["differences"][0]["left"].update(source_location={"file": "k.py", "line": 3}),
     "$.differences[0].left.source_location"),
    (lambda d: d["differences"][0].update(detail={"swapped": ["index[0]"]}), "$.differences[0].detail.swapped"),
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


def test_schema_is_valid_draft_2020_12():
    import jsonschema
    jsonschema.Draft202012Validator.check_schema(json_schema.load_schema())
    bad = copy.deepcopy(json_schema.load_schema())
    bad["properties"]["verdict"] = {"enum": "not a list"}
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema(bad)


def test_minimal_result_validates():
    r = DiffResult("identical", [], {}, None, "<bytes>", "<bytes>", (), [], MatchStats())
    assert json_schema.validate(json.loads(r.to_json())) == []


def test_validate_without_jsonschema_names_the_small_extra(monkeypatch, different_result):
    import sys
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import jsonschema -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'tileir_diff\[schema\]'"):
        json_schema.validate(json_schema.to_dict(different_result))
