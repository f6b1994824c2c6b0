"""Bounded reads over a byte buffer: every read is checked, every error carries the offset."""
from __future__ import annotations

import struct

from ..errors import TileIRFormatError

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")


class Stream:
    """A cursor over ``data[start:end]``; offsets are absolute file offsets."""
    __slots__ = ("data", "pos", "end", "path")

    def __init__(self, data: bytes, start: int = 0, end: int | None = None, path: str = "<bytes>"):
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else end
        self.path = path

    def error(self, message: str, offset: int | None = None) -> TileIRFormatError:
        return TileIRFormatError(message, path=self.path, offset=self.pos if offset is None else offset)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def sub(self, length: int, what: str) -> "Stream":
        """A child stream over the next ``length`` bytes (consumed here)."""
        self.need(length, what)
        child = Stream(self.data, self.pos, self.pos + length, self.path)
        self.pos += length
        return child

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > self.end:
            raise self.error(f"{what}: needs {n} bytes, {self.end - self.pos} left")

    def u8(self, what: str = "byte") -> int:
        if self.pos >= self.end:
            raise self.error(f"unexpected end of data reading {what}")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self, what: str = "varint") -> int:
        data, pos, end = self.data, self.pos, self.end
        if pos + 1 < end:  # one or two bytes (most indices), else the loop below
            b = data[pos]
            if b < 0x80:
                self.pos = pos + 1
                return b
            high = data[pos + 1]
            if high < 0x80:
                self.pos = pos + 2
                return (b & 0x7F) | (high << 7)
        elif pos < end:
            b = data[pos]
            if b < 0x80:
                self.pos = pos + 1
                return b
        result = 0
        shift = 0
        start = pos
        while True:
            if pos >= end:
                raise TileIRFormatError(f"unexpected end of data reading {what}", path=self.path, offset=start)
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
            if shift > 63:
                raise TileIRFormatError(f"{what}: varint longer than 64 bits", path=self.path, offset=start)
        self.pos = pos
        return result

    def svarint(self, what: str = "signed varint") -> int:
        v = self.varint(what)
        return (v >> 1) ^ -(v & 1)

    def count(self, what: str, elem_size: int = 1) -> int:
        """A varint element count, checked against the bytes left (no allocation from a lie)."""
        at = self.pos
        n = self.varint(what)
        if n * max(elem_size, 1) > self.end - self.pos:
            raise TileIRFormatError(f"{what}: count {n} exceeds the {self.end - self.pos} bytes left",
                                    path=self.path, offset=at)
        return n

    def fixed(self, n: int, what: str) -> bytes:
        self.need(n, what)
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return bytes(b)

    def u32(self, what: str = "u32") -> int:
        self.need(4, what)
        v = _U32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return v

    def u64(self, what: str = "u64") -> int:
        self.need(8, what)
        v = _U64.unpack_from(self.data, self.pos)[0]
        self.pos += 8
        return v

    def int_list(self, width: int, what: str) -> tuple:
        n = self.count(what, width)
        fmt = {1: "b", 4: "i", 8: "q"}[width]
        vals = struct.unpack_from(f"<{n}{fmt}", self.data, self.pos)
        self.pos += n * width
        return vals

    def align(self, alignment: int, what: str, pad_byte: int | None = 0xCB) -> None:
        """Skip padding up to the next multiple of ``alignment`` (absolute offset)."""
        if alignment <= 1:
            return
        target = -(-self.pos // alignment) * alignment
        if target > self.end:
            raise self.error(f"{what}: alignment padding runs past the end")
        if pad_byte is not None:
            for i in range(self.pos, target):
                if self.data[i] != pad_byte:
                    raise self.error(f"{what}: expected padding byte 0x{pad_byte:02X}, found 0x{self.data[i]:02X}", i)
        self.pos = target
