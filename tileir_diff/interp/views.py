"""Tensor views and tile views (partition, strided, gather/scatter): element addressing with
bounds, padding on loads and masking on stores."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from tileir_diff.ir.types import GatherScatterViewType, PartitionViewType, StridedViewType

from . import dtypes as dt
from .errors import InterpreterError
from .memory import Memory

PADDING = {"zero": 0.0, "neg_zero": -0.0, "nan": np.nan, "pos_inf": np.inf, "neg_inf": -np.inf}


@dataclass(frozen=True)
class TensorView:
    base: int  # byte address
    elem: str
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements


@dataclass(frozen=True)
class TileView:
    tensor: TensorView
    type: Union[PartitionViewType, StridedViewType, GatherScatterViewType]

    @property
    def tile_shape(self) -> Tuple[int, ...]:
        return tuple(self.type.tile_shape)

    @property
    def dim_map(self) -> Tuple[int, ...]:
        dm = getattr(self.type, "dim_map", None)
        return tuple(dm) if dm else tuple(range(len(self.tile_shape)))

    @property
    def padding(self) -> Optional[str]:
        return self.type.padding

    def index_space_shape(self) -> Tuple[int, ...]:
        if isinstance(self.type, PartitionViewType):
            steps = self.tile_shape
        elif isinstance(self.type, StridedViewType):
            steps = tuple(self.type.traversal_strides)
        else:
            # gather/scatter: the sparse dim indexes elements, the others tile starts in elements
            return tuple(self.tensor.shape)
        return tuple(-(-self.tensor.shape[m] // s) for m, s in zip(self.dim_map, steps))

    def coordinates(self, index: Sequence[np.ndarray]):
        """Per tensor dim, the coordinate of every tile element (broadcastable to the tile shape),
        and the in-bounds mask (tile-shaped)."""
        tile = self.tile_shape
        rank = len(tile)
        tv = self.tensor
        if len(index) != rank:
            raise InterpreterError(f"view of rank {rank} indexed with {len(index)} indices")
        coords: List[Optional[np.ndarray]] = [None] * len(tv.shape)
        if isinstance(self.type, GatherScatterViewType):
            sparse = self.type.sparse_dim
            for d in range(rank):
                shape = [1] * rank
                shape[d] = tile[d]
                if d == sparse:
                    idx = np.asarray(index[d]).astype(np.int64).reshape(-1)
                    if idx.shape[0] != tile[d]:
                        raise InterpreterError(f"gather/scatter index tile has {idx.shape[0]} entries, "
                                               f"the view's tile has {tile[d]} along dim {d}")
                    coords[d] = idx.reshape(shape)
                else:
                    start = _unsigned_index(index[d])
                    coords[d] = (start + np.arange(tile[d], dtype=np.int64)).reshape(shape)
        else:
            steps = tile if isinstance(self.type, PartitionViewType) else tuple(self.type.traversal_strides)
            for d in range(rank):
                shape = [1] * rank
                shape[d] = tile[d]
                start = _unsigned_index(index[d]) * steps[d]
                coords[self.dim_map[d]] = (start + np.arange(tile[d], dtype=np.int64)).reshape(shape)
        mask = np.ones(tile, dtype=bool)
        offset = np.zeros(tile, dtype=np.int64)
        for m, c in enumerate(coords):
            assert c is not None  # dim_map is a permutation of the tensor dims (the verifier checks it)
            mask = mask & (c >= 0) & (c < tv.shape[m])
            offset = offset + c * tv.strides[m]
        return offset, mask

    def load(self, memory: Memory, index, result_elem: str) -> np.ndarray:
        offset, mask = self.coordinates(index)
        elem = self.tensor.elem
        pad = self.padding
        fill = PADDING[pad] if pad is not None else 0
        if not dt.is_float(elem) and pad not in (None, "zero", "neg_zero"):
            raise InterpreterError(f"padding {pad} on an integer view ({elem})")
        out = np.full(self.tile_shape, fill, dtype=dt.compute_dtype(elem))
        if mask.any():
            out[mask] = memory.load(self.tensor.base + offset[mask] * dt.itemsize(elem), elem, "load_view_tko")
        return out

    def store(self, memory: Memory, index, values: np.ndarray) -> None:
        offset, mask = self.coordinates(index)
        elem = self.tensor.elem
        values = np.broadcast_to(values, self.tile_shape)
        if mask.any():
            memory.store(self.tensor.base + offset[mask] * dt.itemsize(elem), values[mask], elem, "store_view_tko")

    def addresses(self, index):
        offset, mask = self.coordinates(index)
        return self.tensor.base + offset * dt.itemsize(self.tensor.elem), mask


def _unsigned_index(v) -> int:
    """View indices are read as unsigned integers of their width (a negative index is huge)."""
    a = np.asarray(v)
    if a.size != 1:
        raise InterpreterError(f"view index must be a scalar tile, got shape {a.shape}")
    x = a.reshape(()).item()
    if isinstance(x, bool):
        return int(x)
    if x < 0:
        x += 1 << (a.dtype.itemsize * 8)
    return int(x)
