"""JSON report: ``DiffResult.to_dict()`` under the versioned schema in ``diff.schema.json``.

Also a small validator for the subset of JSON Schema that file uses (type, enum, required,
properties, additionalProperties, items, prefixItems, min/maxItems, minimum, pattern, anyOf,
local $ref), so checking a report needs no extra dependency.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List

SCHEMA_PATH = Path(__file__).with_name("diff.schema.json")


def to_dict(result: Any, *, lines: bool = True) -> Dict[str, Any]:
    """The report as a dict; ``lines=False`` drops the printed modules (large, for HTML)."""
    d = result.to_dict()
    # Reserved for the execution (numeric) comparison of a later issue; present so agents can
    # rely on the key.
    d.setdefault("execution", None)
    if not lines:
        d.pop("left_lines", None)
        d.pop("right_lines", None)
    return d


def render(result: Any, *, indent: int | None = 2, lines: bool = True) -> str:
    return json.dumps(to_dict(result, lines=lines), indent=indent, ensure_ascii=False) + "\n"


@lru_cache(maxsize=1)
def load_schema() -> Dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def validate(instance: Any, schema: Dict[str, Any] | None = None) -> List[str]:
    """Errors (``$.path: message``) of ``instance`` against the report schema; [] when valid."""
    root = schema if schema is not None else load_schema()
    errors: List[str] = []
    _check(instance, root, root, "$", errors)
    return errors


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _resolve(ref: str, root: Dict[str, Any]) -> Dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, not {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _check(v: Any, schema: Dict[str, Any], root: Dict[str, Any], path: str, errors: List[str]) -> None:
    if "$ref" in schema:
        _check(v, _resolve(schema["$ref"], root), root, path, errors)
    if "anyOf" in schema:
        results = [_collect(v, s, root, path) for s in schema["anyOf"]]
        if all(results):
            # Show the inner errors of the form whose type fits (e.g. a malformed op ref rather
            # than "not null"); when no type fits, say so.
            fitting = [errs for errs in results if not any(e.startswith(f"{path}: expected ") for e in errs)]
            errors.extend(fitting[0] if fitting else [f"{path}: matches none of the allowed forms"])
        return
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else types
        if not any(_TYPES[t](v) for t in names):
            errors.append(f"{path}: expected {' or '.join(names)}, got {type(v).__name__}")
            return
    if "enum" in schema and v not in schema["enum"]:
        errors.append(f"{path}: {v!r} is not one of {schema['enum']}")
    if "const" in schema and v != schema["const"]:
        errors.append(f"{path}: expected {schema['const']!r}")
    if isinstance(v, str) and "pattern" in schema and not re.search(schema["pattern"], v):
        errors.append(f"{path}: {v!r} does not match {schema['pattern']}")
    if isinstance(v, (int, float)) and not isinstance(v, bool) and "minimum" in schema and v < schema["minimum"]:
        errors.append(f"{path}: {v} < minimum {schema['minimum']}")
    if isinstance(v, dict):
        for key in schema.get("required", ()):
            if key not in v:
                errors.append(f"{path}: missing required key {key!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, value in v.items():
            if key in props:
                _check(value, props[key], root, f"{path}.{key}", errors)
            elif extra is False:
                errors.append(f"{path}: unexpected key {key!r}")
            elif isinstance(extra, dict):
                _check(value, extra, root, f"{path}.{key}", errors)
    if isinstance(v, list):
        if "minItems" in schema and len(v) < schema["minItems"]:
            errors.append(f"{path}: {len(v)} items, fewer than {schema['minItems']}")
        if "maxItems" in schema and len(v) > schema["maxItems"]:
            errors.append(f"{path}: {len(v)} items, more than {schema['maxItems']}")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(v):
            if i < len(prefix):
                _check(item, prefix[i], root, f"{path}[{i}]", errors)
            elif "items" in schema:
                _check(item, schema["items"], root, f"{path}[{i}]", errors)


def _collect(v: Any, schema: Dict[str, Any], root: Dict[str, Any], path: str) -> List[str]:
    errs: List[str] = []
    _check(v, schema, root, path, errs)
    return errs
