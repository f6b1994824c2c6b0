"""Errors raised for malformed input; every one names the file and where in it."""
from __future__ import annotations


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
        where = f"offset {self.offset}: " if self.offset is not None else ""
        return f"{self.path}: {where}{self.message}"

    def with_path(self, path: str) -> "TileIRFormatError":
        return TileIRFormatError(self.message, path=path, offset=self.offset)


class UnsupportedVersionError(TileIRFormatError):
    """A well-formed header announcing a bytecode version we refuse to guess at."""
