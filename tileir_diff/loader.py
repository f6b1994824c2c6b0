"""``load()``: bytecode or text, told apart by the magic bytes."""
from __future__ import annotations

import os
from typing import Union

from .bytecode.container import MAGIC
from .errors import TileIRFormatError
from .ir.core import Module

Source = Union[str, os.PathLike, bytes, bytearray, memoryview, Module]

#: Files larger than this are refused before reading (no kernel comes close).
MAX_INPUT_BYTES = 256 * 1024 * 1024


def load(source: Source, *, path: str | None = None, text_version=None) -> Module:
    """Read a Tile IR module from a path, raw bytes, or text (str holding IR text).

    Bytecode is recognised by its magic bytes ``\\x7fTileIR\\x00``; anything else is parsed
    as the text form (tileirdisasm syntax), at ``text_version`` when given (text carries no
    bytecode version; the parser's default is 13.4). A ``Module`` is returned unchanged.
    Raises ``TileIRFormatError`` (a ``ValueError``) naming the file and offset.
    """
    if isinstance(source, Module):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(source), path or "<bytes>", text_version)
    if _is_text_str(source):
        return _from_text(source, path or "<text>", text_version)
    p = os.fspath(source)
    try:
        size = os.path.getsize(p)
        if size > MAX_INPUT_BYTES:
            raise TileIRFormatError(f"file is {size} bytes, larger than the {MAX_INPUT_BYTES}-byte limit", path=p)
        with open(p, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TileIRFormatError(f"cannot read: {e.strerror or e}", path=p) from None
    return _from_bytes(data, p, text_version)


def _is_text_str(source) -> bool:
    return isinstance(source, str) and ("\n" in source or source.lstrip().startswith(("entry", "cuda_tile", "//")))


def is_text(source: Source) -> bool:
    """Whether ``source`` holds the text form (so its bytecode version is unknown)."""
    if isinstance(source, Module):
        return False
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:len(MAGIC)]) != MAGIC
    if _is_text_str(source):
        return True
    try:
        with open(os.fspath(source), "rb") as f:
            return f.read(len(MAGIC)) != MAGIC
    except (OSError, TypeError, ValueError):
        return False


def _from_bytes(data: bytes, path: str, text_version=None) -> Module:
    if not data:
        raise TileIRFormatError("empty input", path=path, offset=0)
    if data[:len(MAGIC)] == MAGIC or (len(data) < len(MAGIC) and MAGIC.startswith(data) and data):
        from .bytecode.reader import read_bytecode
        return read_bytecode(data, path)
    if data[:1] == b"\x7f":
        raise TileIRFormatError("not Tile IR bytecode: bad magic", path=path, offset=0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TileIRFormatError(f"neither Tile IR bytecode (bad magic) nor UTF-8 text ({e.reason})",
                                path=path, offset=e.start) from None
    return _from_text(text, path, text_version)


def _from_text(text: str, path: str, version=None) -> Module:
    from .text.parser import parse_text
    return parse_text(text, path=path, version=version)
