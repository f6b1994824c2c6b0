"""Colour for terminal output: ``--color=auto|always|never`` and the NO_COLOR convention
(https://no-color.org: set and not empty means no colour unless asked for with ``always``).

Colour is added after rendering, to text that ``errors.printable`` already made safe, so an
escape sequence from a file can never reach the terminal through here."""
from __future__ import annotations

import functools
import os
import re
from typing import IO, List, Optional, Pattern, Tuple

COLOR_MODES = ("auto", "always", "never")

_RESET = "\x1b[0m"
_STYLE = {"red": "\x1b[31m", "green": "\x1b[32m", "yellow": "\x1b[33m", "bold": "\x1b[1m", "dim": "\x1b[2m",
          "cyan": "\x1b[36m"}
VERDICT_STYLE = {"IDENTICAL": "green", "EQUIVALENT": "green", "SPECIALIZED": "yellow", "DIFFERENT": "red",
                 "UNKNOWN": "yellow"}


def use_color(mode: Optional[str], stream: IO) -> bool:
    """Whether to colour what goes to ``stream``: ``always``/``never`` as said; ``auto`` (the
    default) only for a terminal, and not with NO_COLOR set or TERM=dumb."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


def paint(text: str, style: str) -> str:
    return f"{_STYLE[style]}{text}{_RESET}"


@functools.lru_cache(maxsize=None)
def _patterns() -> Tuple[Pattern[str], Pattern[str], Pattern[str]]:
    """The verdict line, a root difference's first line, one of its sides: compiled on the first
    coloured report, not at import (the diff imports this module for ``use_color``; output that
    is not a terminal is never coloured)."""
    return (re.compile(r"^(IDENTICAL|EQUIVALENT|SPECIALIZED|DIFFERENT|UNKNOWN)(:)"),
            re.compile(r"^(\[\d+\] )([a-z_]+)(:)"), re.compile(r"^(    )([-+]) "))


_LOCATION = "    @ "  # text.py's separator before a side's source location
_MARK_ON, _MARK_OFF = "\x1b[7m", "\x1b[27m"  # reverse video: the changed tokens, inside the line's colour


def _word_diff(minus: str, plus: str) -> Tuple[str, str]:
    """A root difference's ``-``/``+`` pair with the tokens that differ in reverse video (git
    --word-diff style), the rest in the side's colour; the locations are not compared."""
    from .tokens import token_diff

    def split(line: str) -> Tuple[str, str, str]:
        head, body = line[:6], line[6:]  # "    - "
        at = body.find(_LOCATION)
        return (head, body, "") if at < 0 else (head, body[:at], body[at:])
    (mh, mb, ml), (ph, pb, pl) = split(minus), split(plus)
    lo, ro = token_diff(mb, pb)

    def show(head: str, spans, tail: str, style: str) -> str:
        body = "".join(f"{_MARK_ON}{t}{_MARK_OFF}" if changed else t for t, changed in spans)
        return paint(head + body + tail, style)
    return show(mh, lo, ml, "red"), show(ph, ro, pl, "green")


def colorize_report(text: str) -> str:
    """The text report (report/text.py) with the verdict, the categories and the two sides of each
    difference coloured the way diff tools do (- red, + green), and in a ``-``/``+`` pair the
    tokens that differ marked (reverse video)."""
    headline, root, side = _patterns()
    out: List[str] = []
    lines = text.split("\n")
    skip = False
    for i, line in enumerate(lines):
        if skip:
            skip = False
            continue
        m = side.match(line)
        after = side.match(lines[i + 1]) if i + 1 < len(lines) else None
        if m and m.group(2) == "-" and after and after.group(2) == "+" and "(absent on this side)" not in \
                line + lines[i + 1]:
            out.extend(_word_diff(line, lines[i + 1]))
            skip = True
            continue
        if m := headline.match(line):
            line = paint(m.group(1), VERDICT_STYLE[m.group(1)]) + line[m.end(1):]
        elif m := root.match(line):
            line = m.group(1) + paint(m.group(2), "bold") + line[m.end(2):]
        elif m := side.match(line):
            line = paint(line, "red" if m.group(2) == "-" else "green")
        elif line.startswith(("rules applied:", "rules disabled:", "  verdict means:")):
            line = paint(line, "dim")
        out.append(line)
    return "\n".join(out)
