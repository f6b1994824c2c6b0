"""``load()``: bytecode or text, told apart by the magic bytes."""
from __future__ import annotations

import os
from typing import Union

from .bytecode.container import MAGIC
from .errors import TileIRFormatError
from .ir.core import Module
from .ir.limits import MAX_INPUT_BYTES

Source = Union[str, os.PathLike, bytes, bytearray, memoryview, Module]

_CHUNK = 1 << 20


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
    if isinstance(source, str) and _is_text_str(source):
        return _from_text(source, path or "<text>", text_version)
    p = os.fspath(source)
    return _from_bytes(read_bounded(p), p, text_version)


def read_bounded(p: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The file's bytes, read a chunk at a time and refused past ``limit``: devices, FIFOs and
    /proc files report a size of 0 (``/dev/zero`` would be read forever), so the size the file
    system reports only short-cuts regular files that are plainly too large."""
    try:
        with open(p, "rb") as f:
            try:
                st = os.fstat(f.fileno())
            except OSError:
                st = None
            if st is not None and st.st_size > limit:
                raise TileIRFormatError(f"file is {st.st_size} bytes, larger than the {limit}-byte limit", path=p)
            return read_stream(f, p, limit)
    except OSError as e:
        raise TileIRFormatError(f"cannot read: {e.strerror or e}", path=p) from None


def read_stream(f, label: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """All of a binary stream (a file, ``sys.stdin.buffer``), refused past ``limit`` bytes."""
    chunks = []
    total = 0
    try:
        while True:
            chunk = f.read(min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise TileIRFormatError(f"input is larger than the {limit}-byte limit", path=label)
    except OSError as e:
        raise TileIRFormatError(f"cannot read: {e.strerror or e}", path=label) from None
    return b"".join(chunks)


def _is_text_str(source) -> bool:
    return isinstance(source, str) and ("\n" in source or source.lstrip().startswith(("entry", "cuda_tile", "//"))) \
        and not os.path.lexists(source)  # a file name may hold a newline too


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
        return False  # unreadable: load() says why


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
