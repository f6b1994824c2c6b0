"""MLIR-style tokens of Tile IR text, each with its line and column.

Token kinds: ``value`` (``%name``, ``%1#2``), ``symbol`` (``@sym``), ``hash`` (``#loc3``,
``#cuda_tile.di_loc``), ``caret`` (``^bb0``), ``int``, ``float``, ``hex`` (``0xFF800000``),
``string`` (value unescaped: ``\\0A``, ``\\n``, ``\\"``, ``\\\\``), ``ident`` (bare identifiers,
keywords and dimension tails such as ``x64xf16``), ``punct`` (one character, or ``->``), ``eof``.
As in MLIR, ``128x64xf16`` lexes as ``int 128`` then ``ident x64xf16``; the type parser splits it.
Comments run from ``//`` to the end of the line.
"""
from __future__ import annotations

import re
from typing import List, Optional

from ..errors import TileIRFormatError
from ..ir import limits as L
from .spelling import escape_string, is_bare_identifier, key_text, symbol_text  # noqa: F401 - this module's names too

PUNCT = set("()[]{}<>,:=?*+|!")
_IDENT_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | set("0123456789$.")
_SUFFIX_CHARS = _IDENT_CHARS | set("-")  # %name / @name / #name bodies (MLIR suffix-id)
_DIGITS = set("0123456789")
_HEX = set("0123456789abcdefABCDEF")


class Token:
    """One token. A plain slotted class (not a dataclass): the parser makes one per word of the
    text, and a frozen dataclass's constructor costs several times more."""
    __slots__ = ("kind", "text", "line", "col", "value", "offset")

    def __init__(self, kind: str, text: str, line: int, col: int, value: object = None, offset: int = 0):
        self.kind = kind
        self.text = text
        self.line = line
        self.col = col
        self.value = value  # int / str payload where useful
        self.offset = offset  # character offset in the text

    @property
    def where(self) -> str:
        return f"{self.line}:{self.col}"

    def is_(self, kind: str, text: Optional[str] = None) -> bool:
        return self.kind == kind and (text is None or self.text == text)

    def __eq__(self, other) -> bool:
        return isinstance(other, Token) and (self.kind, self.text, self.line, self.col, self.value, self.offset) == (
            other.kind, other.text, other.line, other.col, other.value, other.offset)

    __hash__ = None  # mutable in principle

    def __repr__(self) -> str:
        return (f"Token(kind={self.kind!r}, text={self.text!r}, line={self.line}, col={self.col}, "
                f"value={self.value!r}, offset={self.offset})")

    def __str__(self) -> str:
        return "end of input" if self.kind == "eof" else repr(self.text)


_SPACE = re.compile(r"[ \t\r]*")
_SPACE_START = frozenset(" \t\r\n/")  # "" (end of text) is not in it
_SUFFIX = re.compile(r"[A-Za-z0-9_$.\-]*")
_RESULT_NO = re.compile(r"[0-9]*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_DEC = re.compile(r"-?[0-9]*")
_FRAC = re.compile(r"\.[0-9]*")
_EXP = re.compile(r"[eE][+-]?[0-9]+")
_HEXDIGITS = re.compile(r"[0-9a-fA-F]+")
_SIGILS = {"%": "value", "@": "symbol", "#": "hash", "^": "caret"}


class Lexer:
    """Turns text into tokens on demand; ``tokens()`` gives them all."""

    def __init__(self, text: str, path: str = "<text>"):
        self.text = text
        self.n = len(text)
        self.path = path
        self.pos = 0
        self.line = 1
        self.line_start = 0

    def error(self, msg: str, line: int, col: int) -> TileIRFormatError:
        return TileIRFormatError(msg, path=self.path, offset=f"{line}:{col}")

    def _skip_space(self) -> None:
        text, n = self.text, self.n
        pos = self.pos
        while pos < n:
            pos = _SPACE.match(text, pos).end()
            if pos >= n:
                break
            c = text[pos]
            if c == "\n":
                pos += 1
                self.line += 1
                self.line_start = pos
            elif c == "/" and text.startswith("//", pos):
                end = text.find("\n", pos)
                pos = n if end < 0 else end
            else:
                break
        self.pos = pos

    def next(self) -> Token:
        text, pos = self.text, self.pos
        if pos < self.n and text[pos] in " \t\r\n/":
            if text[pos] == " " and text[pos + 1:pos + 2] not in _SPACE_START:  # one space: the common case
                self.pos = pos + 1
            else:
                self._skip_space()
        return self._next()

    def reset(self, offset: int) -> None:
        """Continue lexing at ``offset`` (which must lie at or after the current line start)."""
        text = self.text
        self.line += text.count("\n", self.pos, offset) if offset >= self.pos else -text.count("\n", offset, self.pos)
        self.pos = offset
        self.line_start = text.rfind("\n", 0, offset) + 1

    def seek_line_start(self, offset: int, line: int) -> None:
        """Continue lexing at ``offset``, the start of line ``line`` (1-based), in constant time:
        the alias prescan jumps to every line that starts with ``#`` and must not count the
        newlines before each one again (that made a file of many such lines quadratic)."""
        self.pos = offset
        self.line = line
        self.line_start = offset

    def _next(self) -> Token:
        text, n = self.text, self.n
        start = self.pos
        line, col = self.line, start - self.line_start + 1
        if start >= n:
            return Token("eof", "", line, col, None, start)
        c = text[start]
        if c in _IDENT_START:
            p = _IDENT.match(text, start).end()
            self.pos = p
            return Token("ident", text[start:p], line, col, None, start)
        kind = _SIGILS.get(c)
        if kind is not None:
            if c == "@" and start + 1 < n and text[start + 1] == '"':
                self.pos += 1
                s = self._string(line, col + 1)
                return Token("symbol", "@" + s, line, col, s, start)
            p = _SUFFIX.match(text, start + 1).end()
            if c == "%" and p < n and text[p] == "#":  # %name#3: result number
                q = _RESULT_NO.match(text, p + 1).end()
                if q == p + 1:
                    raise self.error("expected a result number after '#'", line, col + (p - start) + 1)
                p = q
            if p == start + 1:
                raise self.error(f"expected a name after {c!r}", line, col)
            self.pos = p
            return Token(kind, text[start:p], line, col, text[start + 1:p] if c == "@" else None, start)
        if c == '"':
            s = self._string(line, col)
            return Token("string", text[start:self.pos], line, col, s, start)
        if c in _DIGITS or (c == "-" and start + 1 < n and text[start + 1] in _DIGITS):
            tok = self._number(line, col)
            tok.offset = start
            return tok
        if c == "-" and text.startswith("->", start):
            self.pos += 2
            return Token("punct", "->", line, col, None, start)
        if c in PUNCT:
            self.pos += 1
            return Token("punct", c, line, col, None, start)
        raise self.error(f"unexpected character {c!r}", line, col)

    def _number(self, line: int, col: int) -> Token:
        text, n = self.text, self.n
        start = p = self.pos
        if text[p] == "-":
            p += 1
        if text.startswith("0x", p) and p + 2 < n and text[p + 2] in _HEX:
            q = _HEXDIGITS.match(text, p + 2).end()
            if q - start > L.MAX_NUMBER_CHARS:
                raise self.error(f"number literal of {q - start} characters (at most {L.MAX_NUMBER_CHARS})", line, col)
            self.pos = q
            return Token("hex", text[start:q], line, col, int(text[p + 2:q], 16) * (-1 if p > start else 1))
        p = _DEC.match(text, p).end()
        is_float = False
        if p < n and text[p] == ".":
            is_float = True
            p = _FRAC.match(text, p).end()
            m = _EXP.match(text, p)
            if m:
                p = m.end()
        self.pos = p
        body = text[start:p]
        if len(body) > L.MAX_NUMBER_CHARS:
            raise self.error(f"number literal of {len(body)} characters (at most {L.MAX_NUMBER_CHARS})", line, col)
        if is_float:
            e = max(body.find("e"), body.find("E"))
            if e >= 0 and abs(int(body[e + 1:])) > L.MAX_FLOAT_EXPONENT:
                raise self.error(f"float exponent out of range (at most {L.MAX_FLOAT_EXPONENT} either way)", line, col)
            return Token("float", body, line, col, body)
        return Token("int", body, line, col, int(body))

    def _string(self, line: int, col: int) -> str:
        """Reads a quoted string at self.pos; returns its unescaped value."""
        text, n = self.text, self.n
        p = self.pos + 1
        out = bytearray()
        while True:
            if p >= n or text[p] == "\n":
                raise self.error("unterminated string", line, col)
            c = text[p]
            if c == '"':
                p += 1
                break
            if c == "\\":
                if p + 1 >= n:
                    raise self.error("unterminated string", line, col)
                e = text[p + 1]
                if e in '"\\':
                    out.append(ord(e))
                    p += 2
                elif e == "n":
                    out.append(10)
                    p += 2
                elif e == "t":
                    out.append(9)
                    p += 2
                elif p + 2 < n and e in _HEX and text[p + 2] in _HEX:
                    out.append(int(text[p + 1:p + 3], 16))
                    p += 3
                else:
                    raise self.error(f"unknown escape '\\{e}' in string", self.line, p - self.line_start + 1)
                continue
            out += c.encode("utf-8")
            p += 1
        self.pos = p
        try:
            return out.decode("utf-8")
        except UnicodeDecodeError:
            raise self.error("string is not valid UTF-8", line, col) from None

    def tokens(self) -> List[Token]:
        out = []
        while True:
            t = self.next()
            out.append(t)
            if t.kind == "eof":
                return out


def tokenize(text: str, path: str = "<text>") -> List[Token]:
    return Lexer(text, path).tokens()
