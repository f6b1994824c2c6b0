"""The diff result model (``result.py``: ``DiffResult`` and its parts, verdicts, exit codes, the
schema version) and its renderers: text, JSON, standalone HTML, Markdown.

Each ``<format>.render(result, **options) -> str`` sees only the ``DiffResult`` (and the summary
dicts it carries); none imports the engine, so reports can be re-rendered from saved JSON
(``DiffResult.from_dict``).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the result model's module defines its classes at import: not for `--color`'s choices)
    from .result import DiffResult

FORMATS = ("text", "json", "html", "markdown")
_MODULES = {"text": "text", "json": "json_schema", "html": "html", "markdown": "markdown", "md": "markdown"}


def render(result: DiffResult, fmt: str = "text", **options: Any) -> str:
    """Render ``result`` as ``fmt`` (one of ``FORMATS``)."""
    try:
        module = _MODULES[fmt]
    except KeyError:
        raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}") from None
    return importlib.import_module(f"{__name__}.{module}").render(result, **options)


__all__ = ["FORMATS", "render"]
