"""Errors raised for malformed input; every one names the file and where in it."""
from __future__ import annotations

import functools
import re

# C0 and C1 controls, DEL, and the Unicode characters that end a line or reorder text in a
# terminal or a viewer: none of them may reach a one-line message or a report as they are.
_UNSAFE_CHARS = "[\x00-\x1f\x7f-\x9f\u061c\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"


@functools.lru_cache(maxsize=None)
def _unsafe() -> "re.Pattern[str]":
    """The pattern of ``_UNSAFE_CHARS``, compiled on first need (about 2.6 M instructions; text
    that ``str.isprintable`` accepts never needs it)."""
    return re.compile(_UNSAFE_CHARS)


def _escape(m: "re.Match") -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: object) -> str:
    """``text`` with every control character (newlines, ANSI escapes, carriage returns, ...) and
    every line or direction separator written as a ``\\xNN`` / ``\\uNNNN`` escape: what comes
    from a file cannot split a one-line message, move the cursor or restyle a terminal."""
    s = text if isinstance(text, str) else str(text)
    if s.isprintable():  # every character of _UNSAFE_CHARS is a control, format or separator: none here
        return s
    unsafe = _unsafe()
    return unsafe.sub(_escape, s) if unsafe.search(s) else s


class TileIRFormatError(ValueError):
    """Malformed Tile IR input (bytecode or text).

    ``path`` is the file (or ``"<bytes>"``/``"<text>"``), ``offset`` is a byte offset for
    bytecode and ``"line:col"`` for text. ``str(err)`` is ``PATH: offset N: message``.
    """

    def __init__(self, message: str, *, path: str | None = None, offset: int | str | None = None):
        self.message = message
        self.path = path or "<input>"
        self.offset = offset
        super().__init__(self.__str__())

    def __str__(self) -> str:
        """``PATH: offset N: message`` on one line (names from the file are escaped)."""
        where = f"offset {self.offset}: " if self.offset is not None else ""
        return printable(f"{self.path}: {where}{self.message}")


class UnsupportedVersionError(TileIRFormatError):
    """A well-formed header announcing a bytecode version we refuse to guess at."""


class TimeLimitExceeded(Exception):
    """A wall-clock safety net ran out before the work budget it guards (a proof's z3 queries,
    the matcher's counted steps): the machine is too slow or overloaded for the work this input
    needs. Budgets are work, so that verdicts do not depend on load; this is raised only far past
    them, and the diff engine turns it into an ``unknown`` verdict, never a verdict of its own.
    The message starts ``time limit (machine too slow/overloaded)``."""
