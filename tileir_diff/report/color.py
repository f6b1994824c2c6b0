"""Colour for terminal output: ``--color=auto|always|never`` and the NO_COLOR convention
(https://no-color.org: set and not empty means no colour unless asked for with ``always``).

Colour is added after rendering, to text that ``errors.printable`` already made safe, so an
escape sequence from a file can never reach the terminal through here."""
from __future__ import annotations

import os
import re
from typing import IO, Optional

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


_HEADLINE = re.compile(r"^(IDENTICAL|EQUIVALENT|SPECIALIZED|DIFFERENT|UNKNOWN)(:)")
_ROOT = re.compile(r"^(\[\d+\] )([a-z_]+)(:)")
_SIDE = re.compile(r"^(    )([-+]) ")


def colorize_report(text: str) -> str:
    """The text report (report/text.py) with the verdict, the categories and the two sides of each
    difference coloured the way diff tools do (- red, + green)."""
    out = []
    for line in text.split("\n"):
        if m := _HEADLINE.match(line):
            line = paint(m.group(1), VERDICT_STYLE[m.group(1)]) + line[m.end(1):]
        elif m := _ROOT.match(line):
            line = m.group(1) + paint(m.group(2), "bold") + line[m.end(2):]
        elif m := _SIDE.match(line):
            line = paint(line, "red" if m.group(2) == "-" else "green")
        elif line.startswith(("rules applied:", "rules disabled:", "  verdict means:")):
            line = paint(line, "dim")
        out.append(line)
    return "\n".join(out)
