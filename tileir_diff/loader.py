"""``load()``: bytecode or text, told apart by the magic bytes."""
from __future__ import annotations

import os
import stat
from typing import Any, Union

from .bytecode.container import MAGIC
from .errors import TileIRFormatError, printable
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
    except TileIRFormatError:
        raise
    except ValueError:  # open() of a path with a NUL byte: it names no file
        raise TileIRFormatError("cannot read: the path holds a NUL character", path=p) from None


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


#: JSON side files (analysis.json) are small: a few KB, nested a few levels.
MAX_JSON_BYTES = 16 * 1024 * 1024
MAX_JSON_DEPTH = 64


class JSONFileError(ValueError):
    """A JSON side file that cannot be read within the bounds; ``str()`` is one line,
    ``PATH: message``, names from the file escaped."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(printable(f"{path}: {message}"))


def read_regular_file(p: str, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit``, without ever blocking: opened non-blocking and
    refused unless ``fstat`` says it is a regular file (a FIFO with no writer would hang a plain
    open, ``/dev/zero`` never ends). Raises JSONFileError."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except OSError as e:
        raise JSONFileError(p, f"cannot read: {e.strerror or e}") from None
    except ValueError:  # a NUL byte in the path
        raise JSONFileError(p, "cannot read: the path holds a NUL character") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket"
                    if stat.S_ISSOCK(st.st_mode) else "not a file")
            raise JSONFileError(p, f"not a regular file ({kind})")
        if st.st_size > limit:
            raise JSONFileError(p, f"file is {st.st_size} bytes, larger than the {limit}-byte limit")
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            try:
                return read_stream(f, p, limit)  # /proc files say 0 bytes: the read is bounded too
            except TileIRFormatError as e:
                raise JSONFileError(p, e.message) from None
    except OSError as e:
        raise JSONFileError(p, f"cannot read: {e.strerror or e}") from None
    finally:
        if fd >= 0:
            os.close(fd)


def read_json_file(p: str, *, limit: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON document in the regular file ``p``: at most ``limit`` bytes, UTF-8, arrays and
    objects nested at most ``max_depth`` deep (so that whatever walks it recursively later
    cannot exhaust the stack), integers Python converts. JSONFileError (one line naming the
    file) otherwise. The one reader of analysis.json (``--accept``, the suite catalog) and of
    the launch facts in it."""
    import json  # only here: a diff without --accept reads no JSON (start-up time)
    raw = read_regular_file(p, limit)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JSONFileError(p, f"not UTF-8 text (byte {e.start}: {e.reason})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise JSONFileError(p, f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise JSONFileError(p, f"invalid JSON: nested too deeply (more than {max_depth} levels)") from None
    except ValueError as e:  # an integer of more than 4300 digits
        raise JSONFileError(p, f"invalid JSON: {e}") from None
    if json_depth(data, max_depth) > max_depth:
        raise JSONFileError(p, f"invalid JSON: nested too deeply (more than {max_depth} levels)")
    return data


def json_depth(data: Any, stop: int) -> int:
    """How deep arrays and objects nest in ``data`` (a scalar: 0), counted without recursion and
    given up past ``stop`` (then ``stop + 1``)."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > stop:
            return stop + 1
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return deepest
