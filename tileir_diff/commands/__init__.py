"""Subcommands of ``tileir-diff``; each module exposes ``register(subparsers)``, and shared
helpers for them live here (so ``python -m tileir_diff.cli`` and the console script agree on
the exception classes)."""
from __future__ import annotations

import sys
from typing import Any, List, Optional, Tuple

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


STDIN = "-"
STDIN_LABEL = "<stdin>"


def read_inputs(names: List[str]) -> Tuple[List[Any], List[str]]:
    """The command line's inputs as sources and labels: ``-`` reads standard input (bytecode or
    text; at most one input can be it), anything else is a path, left for ``load`` to read."""
    if names.count(STDIN) > 1:
        raise UsageError("only one input can be - (standard input)")
    sources: List[Any] = []
    for name in names:
        if name == STDIN:
            from ..loader import read_stream
            sources.append(read_stream(sys.stdin.buffer, STDIN_LABEL))
        else:
            sources.append(name)
    return sources, [STDIN_LABEL if n == STDIN else n for n in names]
