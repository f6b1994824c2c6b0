"""JSON report: ``DiffResult.to_dict()`` under the versioned schema in ``diff.schema.json``,
and ``validate`` (the jsonschema library against that file)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List

from .common import escape_json_text
from .result import DiffResult

SCHEMA_PATH = Path(__file__).with_name("diff.schema.json")


def to_dict(result: DiffResult, *, lines: bool = True) -> Dict[str, Any]:
    """The report as a dict; ``lines=False`` drops the printed modules (large, for HTML)."""
    d = result.to_dict()
    # Reserved for the execution (numeric) comparison of a later issue; present so agents can
    # rely on the key.
    d.setdefault("execution", None)
    if not lines:
        d.pop("left_lines", None)
        d.pop("right_lines", None)
    return d


def render(result: DiffResult, *, indent: int | None = 2, lines: bool = True) -> str:
    return escape_json_text(json.dumps(to_dict(result, lines=lines), indent=indent, ensure_ascii=False)) + "\n"


@lru_cache(maxsize=1)
def load_schema() -> Dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def validate(instance: Any, schema: Dict[str, Any] | None = None) -> List[str]:
    """Errors (``$.path: message``) of ``instance`` against the report schema, sorted by path;
    [] when valid. The jsonschema library checks it (Draft 2020-12, the schema's ``$schema``): a
    dependency of the ``schema`` extra (``pip install 'tileir_diff[schema]'``), not of the library."""
    try:
        import jsonschema
    except ImportError as e:
        raise ImportError("validating a report needs jsonschema: pip install 'tileir_diff[schema]' "
                          "(or pip install jsonschema)") from e
    root = schema if schema is not None else load_schema()
    validator = jsonschema.validators.validator_for(root)(root)
    errors = sorted((_deepest(e) for e in validator.iter_errors(instance)),
                    key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [f"{e.json_path}: {e.message}" for e in errors]


def _deepest(error):
    """For "not valid under any of the given schemas" (an op ref or null, ...): the error of the
    form the value was meant to be, the one a reader can act on (jsonschema's best_match), unless
    the value fits none of the forms' types at all."""
    from jsonschema.exceptions import best_match
    # a form whose type the value has fails by a keyword other than "type"
    fitting = [e for e in error.context or () if e.validator != "type"]
    return _deepest(best_match(fitting)) if fitting else error
