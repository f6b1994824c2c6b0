"""Subcommands of ``tileir-diff``; each module exposes ``register(subparsers)``, and shared
helpers for them live here (so ``python -m tileir_diff.cli`` and the console script agree on
the exception classes)."""
from __future__ import annotations

import sys
from typing import Any, List, Optional, Tuple

from ..options import split_names  # noqa: F401 - re-exported for the subcommands


class UsageError(Exception):
    """Bad arguments found after parsing (unknown rule name, unknown op, ...): the subcommand's
    usage, then the error line."""


class OutputError(UsageError):
    """The output cannot be written (``-o PATH``): one line, no usage (the arguments were fine)."""


def add_format_option(p, choices=("text", "json"), *, json_alias: bool = False) -> None:
    """``-f/--format`` (the same spelling on every command), ``--compact`` (JSON on one line, for
    agents and logs) and, where it was the old spelling, ``--json`` as an alias of ``-f json``."""
    p.add_argument("-f", "--format", choices=choices, default="text", help="output format (default: text)")
    if json_alias:
        p.add_argument("--json", dest="format", action="store_const", const="json",
                       help="the same as -f json (kept for scripts that use it)")
    p.add_argument("--compact", action="store_true", help="json: on one line, no indentation")


def json_indent(args, default: int = 1):
    """The indentation of a command's JSON: None (one line) with --compact."""
    return None if getattr(args, "compact", False) else default


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
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None



def check_rule_names(names: List[str]) -> None:
    """UsageError for a rule name the registry does not know, with the close ones (difflib), as
    unknown ops and stages get them; the normalizer's own check still refuses non-optional rules."""
    if not names:  # (the registry imports every rule: not for a dump or a diff that names none)
        return
    from ..normalize import REGISTRY
    for name in names:
        if name not in REGISTRY:
            import difflib
            close = difflib.get_close_matches(name, list(REGISTRY), n=2, cutoff=0.6)
            hint = (f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close
                    else f"; known rules: {', '.join(REGISTRY)}")
            raise UsageError(f"unknown normalization rule {name!r}{hint}")


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
