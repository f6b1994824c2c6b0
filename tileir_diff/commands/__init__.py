"""Subcommands of ``tileir-diff``; each module exposes ``register(subparsers)``, and shared
helpers for them live here (so ``python -m tileir_diff.cli`` and the console script agree on
the exception classes)."""
from __future__ import annotations

import sys
from typing import Optional

from ..options import split_names  # noqa: F401 - re-exported for the subcommands


class UsageError(Exception):
    """Bad arguments found after parsing (unknown rule name, unwritable output, ...)."""


def write_output(text: str, path: Optional[str]) -> None:
    """Write to ``path`` (``-`` or None: stdout)."""
    if path in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
