"""Tile IR types as immutable, hashable values (structural equality)."""
from __future__ import annotations

from .record import record
from typing import Optional, Tuple

#: Element types by their MLIR spelling. Width in bits, numpy dtype name (None: no numpy dtype).
SCALAR_TYPES = {
    "i1": (1, "bool"), "i4": (4, None), "i8": (8, "int8"), "i16": (16, "int16"),
    "i32": (32, "int32"), "i64": (64, "int64"),
    "f16": (16, "float16"), "bf16": (16, None), "f32": (32, "float32"), "tf32": (32, None),
    "f64": (64, "float64"), "f8E4M3FN": (8, None), "f8E5M2": (8, None),
    "f8E8M0FNU": (8, None), "f4E2M1FN": (4, None), "f8E5M3FNU": (8, None),
}

DYNAMIC = None  # a dynamic dimension / stride, printed as "?"


class Type:
    """Base class of all Tile IR types. Each prints in the one spelling, the printer's
    (``type_text``); the subclasses are dataclasses, which leave ``__str__`` to this."""
    __slots__ = ()

    def __str__(self) -> str:
        return type_text(self)


@record
class ScalarType(Type):
    name: str

    @property
    def width(self) -> int:
        return SCALAR_TYPES[self.name][0]

    @property
    def is_float(self) -> bool:
        return self.name[0] in "fbt"

    @property
    def is_int(self) -> bool:
        return self.name[0] == "i"


@record
class TokenType(Type):
    pass


@record
class PointerType(Type):
    pointee: Type
    ptr_attr: Optional[int] = None  # 13.4+ optional pointer attribute byte


@record
class TileType(Type):
    shape: Tuple[int, ...]
    element: Type

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@record
class TensorViewType(Type):
    element: Type
    shape: Tuple[Optional[int], ...]
    strides: Tuple[Optional[int], ...]
    ptr_attr: Optional[int] = None


@record
class PartitionViewType(Type):
    tile_shape: Tuple[int, ...]
    tensor_view: TensorViewType
    dim_map: Tuple[int, ...]
    padding: Optional[str] = None  # PaddingValue name or None


@record
class StridedViewType(Type):
    tile_shape: Tuple[int, ...]
    traversal_strides: Tuple[int, ...]
    tensor_view: TensorViewType
    dim_map: Tuple[int, ...]
    padding: Optional[str] = None


@record
class GatherScatterViewType(Type):
    tile_shape: Tuple[int, ...]
    tensor_view: TensorViewType
    sparse_dim: int
    padding: Optional[str] = None


@record
class FunctionType(Type):
    inputs: Tuple[Type, ...]
    results: Tuple[Type, ...]


VIEW_TYPES = (PartitionViewType, StridedViewType, GatherScatterViewType)


def element_type(t: Type) -> Type:
    """The scalar element type of a tile/view/pointer-tile, else the type itself."""
    if isinstance(t, TileType):
        return t.element
    if isinstance(t, TensorViewType):
        return t.element
    if isinstance(t, VIEW_TYPES):
        return t.tensor_view.element
    return t


# the one spelling of a type (ir/type_text.py); imported last, it reads the classes above
from .type_text import type_text  # noqa: E402
