"""A flat byte-addressed memory shared by every tile block of a launch.

Pointers are plain integers (byte addresses) so that ``offset``, ``ptr_to_int`` and
``int_to_ptr`` are ordinary integer arithmetic. Each allocation is a NumPy byte buffer at an
address aligned to 256 bytes with an unmapped gap after it, so an access that runs past an array
fails loudly instead of landing in the next array.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import dtypes as dt
from .errors import MemoryAccessError

_FIRST_ADDRESS = 1 << 20
_ALIGN = 256
_GAP = 1 << 16


@dataclass
class Allocation:
    base: int
    data: np.ndarray  # uint8
    label: str

    @property
    def end(self) -> int:
        return self.base + len(self.data)

    def typed(self, storage) -> np.ndarray:
        return self.data.view(storage)


class Memory:
    """All allocations of one launch (or several launches sharing arrays)."""

    def __init__(self):
        self.allocations: List[Allocation] = []
        self._bases = np.zeros(0, dtype=np.int64)
        self._next = _FIRST_ADDRESS
        self.written: List[Tuple[int, np.ndarray]] = []  # (allocation index, element byte offsets)

    # --- allocation ------------------------------------------------------------------------
    def allocate(self, nbytes: int, label: str = "", fill: int = 0, align: int = _ALIGN) -> int:
        nbytes = max(int(nbytes), 1)
        padded = -(-nbytes // 8) * 8  # whole 8-byte words, so every typed view fits
        base = self._next
        if align > _ALIGN:  # a kernel that assumes a stronger alignment (div_by on the pointer)
            base = -(-base // align) * align
        self.allocations.append(Allocation(base, np.full(padded, fill, dtype=np.uint8), label))
        self._bases = np.append(self._bases, base)
        self._next = -(-(base + padded + _GAP) // _ALIGN) * _ALIGN
        return base

    def allocation(self, address: int) -> Allocation:
        i = int(np.searchsorted(self._bases, address, side="right")) - 1
        if i < 0 or address >= self.allocations[i].end:
            raise MemoryAccessError(f"address {address:#x} is outside every allocation")
        return self.allocations[i]

    # --- element access by addresses (pointer tiles) ---------------------------------------
    def _locate(self, addresses: np.ndarray, elem: str, what: str):
        """Per element: allocation index and element index within that allocation's typed view."""
        size = dt.itemsize(elem)
        addr = np.asarray(addresses, dtype=np.int64)
        which = np.searchsorted(self._bases, addr, side="right") - 1
        if addr.size and (which.min() < 0):
            bad = addr[which < 0].flat[0]
            raise MemoryAccessError(f"{what}: address {int(bad):#x} is outside every allocation")
        bases = self._bases[which]
        ends = np.array([a.end for a in self.allocations], dtype=np.int64)[which] if addr.size else bases
        outside = addr + size > ends
        if outside.any():
            bad = addr[outside].flat[0]
            raise MemoryAccessError(f"{what}: {size}-byte access at {int(bad):#x} is outside every allocation")
        rel = addr - bases
        if (rel % size).any():
            bad = addr[(rel % size) != 0].flat[0]
            raise MemoryAccessError(f"{what}: address {int(bad):#x} is not aligned to {size} bytes")
        return which, rel // size

    def load(self, addresses: np.ndarray, elem: str, what: str = "load") -> np.ndarray:
        """Values (compute representation) at ``addresses`` (any shape)."""
        addresses = np.asarray(addresses, dtype=np.int64)
        which, index = self._locate(addresses, elem, what)
        storage = dt.storage_dtype(elem)
        out = np.empty(addresses.shape, dtype=storage)
        for a in np.unique(which):
            sel = which == a
            out[sel] = self.allocations[a].typed(storage)[index[sel]]
        return dt.decode(out, elem)

    def store(self, addresses: np.ndarray, values: np.ndarray, elem: str, what: str = "store") -> None:
        """Write values (compute representation) at ``addresses``. For duplicate addresses the
        last one in row-major order wins (the hardware leaves this unspecified)."""
        addresses = np.asarray(addresses, dtype=np.int64)
        if addresses.size == 0:
            return
        which, index = self._locate(addresses, elem, what)
        stored = dt.encode(np.broadcast_to(values, addresses.shape), elem)
        storage = dt.storage_dtype(elem)
        size = dt.itemsize(elem)
        for a in np.unique(which):
            sel = which == a
            self.allocations[a].typed(storage)[index[sel]] = stored[sel]
            self.written.append((int(a), index[sel].ravel() * size))

    # --- host arrays -----------------------------------------------------------------------
    def put_array(self, values: np.ndarray, elem: str, strides: Optional[Sequence[int]] = None,
                  label: str = "", poison: bool = True, align: int = _ALIGN) -> int:
        """Copy a host array in (element ``strides``, default: its own layout); returns its base.

        The allocation spans the strided extent; bytes between elements are poisoned (NaN for
        floats, 0x7F bytes for integers) so that a kernel reading them shows.
        """
        values = np.asarray(values)
        if strides is None:
            strides = element_strides(values)
        extent = 1 + sum((n - 1) * abs(s) for n, s in zip(values.shape, strides) if n > 0)
        if values.size == 0:
            extent = 1
        size = dt.itemsize(elem)
        base = self.allocate(extent * size, label, fill=0x7F if poison else 0, align=align)
        alloc = self.allocations[-1]
        if poison and dt.is_float(elem):
            alloc.typed(dt.storage_dtype(elem))[:extent] = dt.encode(np.full(extent, np.nan, np.float32), elem)
        offsets = strided_offsets(values.shape, strides)
        if values.size:
            alloc.typed(dt.storage_dtype(elem))[offsets] = dt.encode(_as_compute(values, elem), elem)
        return base

    def get_array(self, base: int, shape: Sequence[int], strides: Sequence[int], elem: str) -> np.ndarray:
        """The elements of a strided array at ``base`` (compute representation, a new array)."""
        alloc = self.allocation(base)
        offsets = strided_offsets(tuple(shape), tuple(strides)) + (base - alloc.base) // dt.itemsize(elem)
        return dt.decode(alloc.typed(dt.storage_dtype(elem))[offsets], elem)

    def snapshot(self) -> List[np.ndarray]:
        return [a.data.copy() for a in self.allocations]


def element_strides(a: np.ndarray) -> Tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def strided_offsets(shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """Element offsets of every index of ``shape`` (row-major), as an int64 array of that shape."""
    off = np.zeros(tuple(shape), dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        view = [1] * len(shape)
        view[d] = n
        off = off + (np.arange(n, dtype=np.int64) * s).reshape(view)
    return off


def _as_compute(values: np.ndarray, elem: str) -> np.ndarray:
    """Host values -> the compute representation of ``elem`` (rounding floats into the type)."""
    if dt.is_float(elem):
        return dt.round_to(np.asarray(values, dtype=np.float64) if values.dtype == np.float64 else values, elem)
    if elem == "i1":
        return values.astype(bool)
    return values.astype(dt.STORAGE[elem])
