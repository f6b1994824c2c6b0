"""How the text format spells strings, symbols and dictionary keys (as MLIR and tileirdisasm print
them): what the printer needs of the lexer's rules, without the lexer (a bytecode diff never
tokenizes text, and the lexer's patterns cost more to compile than this module does to load)."""
from __future__ import annotations

import re


def escape_string(s: str) -> str:
    """LLVM's printEscapedString: ``\\`` doubled, printable ASCII but ``"`` kept, every other
    byte (``"`` too) as ``\\XX`` with upper-case hex."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif 0x20 <= b < 0x7F and c != '"':
            out.append(c)
        else:
            out.append("\\%02X" % b)
    return '"' + "".join(out) + '"'


_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def is_bare_identifier(name: str) -> bool:
    """MLIR's bare-identifier rule: a letter or ``_``, then letters, digits, ``_``, ``$``, ``.``."""
    return bool(_BARE.match(name))


def symbol_text(name: str) -> str:
    """``@name`` as MLIR prints a symbol: bare when it is a bare identifier, else quoted and
    escaped (``@"<img src=x onerror=1"``), as tileirdisasm does."""
    return "@" + (name if is_bare_identifier(name) else escape_string(name))


def key_text(name: str) -> str:
    """A dictionary key: bare when it is a bare identifier, else a quoted string."""
    return name if is_bare_identifier(name) else escape_string(name)
