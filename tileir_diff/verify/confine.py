"""A workspace a server may read from: paths resolved against its root (symlinks followed) and
refused when they land outside it, and files opened so that nothing can block or flood the reader.

The MCP server (docs/agents.md, "Threat model") takes file paths from a client it does not trust.
Everything here decides from the path and the inode alone: a refused file is never read, so no
error can quote what it holds. Opening is non-blocking and only regular files pass: a FIFO with no
writer, a terminal or /dev/zero would otherwise pin a worker forever.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import List, Optional, Union

#: The most bytes a tool reads from one file unless the server says otherwise (bytecode and text
#: kernels of the reference suite are at most a few MiB; the 30k-op stress kernels ~10 MiB).
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024


class ConfinementError(Exception):
    """A path the workspace refuses. ``kind`` is the MCP error kind: ``outside_workspace`` or
    ``bad_input`` (not a regular file, too large, missing, malformed)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def _kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


class Workspace:
    """The folder tool paths are confined to. ``root`` is resolved once (symlinks followed) at
    construction; a relative path given to ``resolve`` is taken relative to it, never to the
    process's working directory."""

    def __init__(self, root: Union[str, os.PathLike], max_file_bytes: int = DEFAULT_MAX_FILE_BYTES):
        self.root = Path(os.path.realpath(os.fspath(root)))
        if not self.root.is_dir():
            raise ConfinementError("bad_input", f"workspace root {self.root} is not a directory")
        self.max_file_bytes = max_file_bytes

    def contains(self, real: Path) -> bool:
        """Whether the resolved ``real`` is the root or below it."""
        return real == self.root or self.root in real.parents

    def resolve(self, given: str, what: str = "path") -> Path:
        """``given`` (absolute, or relative to the root) with every symlink followed; refused when
        that lands outside the root. Nothing is opened or read."""
        if not isinstance(given, str) or not given:
            raise ConfinementError("bad_input", f"{what}: expected a non-empty path")
        if "\0" in given:
            raise ConfinementError("bad_input", f"{what}: a path cannot hold a NUL character")
        candidate = Path(given)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        try:
            real = Path(os.path.realpath(candidate))
        except (OSError, ValueError) as e:  # a symlink loop on some Pythons, an over-long name
            raise ConfinementError("bad_input", f"{given}: cannot resolve: {e}") from None
        if not self.contains(real):
            raise ConfinementError("outside_workspace",
                                   f"{given}: outside the workspace root {self.root} (resolved, symlinks followed); "
                                   "start the server with --root DIR to serve another folder")
        return real

    def open_regular(self, given: str, what: str = "path", limit: Optional[int] = None) -> "OpenedFile":
        """``given`` resolved, confined and opened read-only: refused (without reading) when it is
        not a regular file or is larger than ``limit`` (default: the workspace's cap)."""
        real = self.resolve(given, what)
        limit = self.max_file_bytes if limit is None else limit
        try:
            before = os.stat(real)
        except FileNotFoundError:
            raise ConfinementError("bad_input", f"{given}: no such file") from None
        except OSError as e:
            raise ConfinementError("bad_input", f"{given}: cannot read: {e.strerror or e}") from None
        _check_regular(given, before, limit)
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC
        try:
            fd = os.open(real, flags)
        except OSError as e:
            raise ConfinementError("bad_input", f"{given}: cannot open: {e.strerror or e}") from None
        try:
            after = os.fstat(fd)
            # the file opened must be the one checked: a swap between stat and open is refused
            if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
                raise ConfinementError("bad_input", f"{given}: changed while being opened")
            _check_regular(given, after, limit)
        except BaseException:
            os.close(fd)
            raise
        return OpenedFile(fd, given, real, after.st_size)

    def read_bytes(self, given: str, what: str = "path", limit: Optional[int] = None) -> bytes:
        """The whole file ``open_regular`` admits, read at most up to its limit."""
        opened = self.open_regular(given, what, limit)
        try:
            return opened.read(self.max_file_bytes if limit is None else limit)
        finally:
            opened.close()


def _check_regular(given: str, st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise ConfinementError("bad_input", f"{given}: {_kind_of(st.st_mode)}, not a regular file: refused")
    if st.st_size > limit:
        raise ConfinementError("bad_input", f"{given}: {st.st_size} bytes, larger than the {limit}-byte limit")


class OpenedFile:
    """A confined regular file, open: ``fd`` can be handed to a worker process."""

    def __init__(self, fd: int, given: str, real: Path, size: int):
        self.fd, self.given, self.real, self.size = fd, given, real, size

    def read(self, limit: int) -> bytes:
        return read_fd(self.fd, self.given, limit)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def read_fd(fd: int, label: str, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd`` (from its start); refused past the limit (a file that grew)."""
    chunks: List[bytes] = []
    total = 0
    offset = 0
    while True:
        chunk = os.pread(fd, min(1 << 20, limit + 1 - total), offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        offset += len(chunk)
        if total > limit:
            raise ConfinementError("bad_input", f"{label}: larger than the {limit}-byte limit")
