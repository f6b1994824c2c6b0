"""The one spelling of a type: tileirdisasm's (what the printer writes and the parser reads).

``Type.__str__``, the printer, the summaries and the engine's keys all use ``type_text``; it
lives here, below the printer, so that the IR core does not import the text package.
"""
from __future__ import annotations

from typing import Dict

from ..dialect.enums import PTR_ATTRS
from . import types as T

#: Printed types by type (types are frozen, hashable values; a module uses a few dozen distinct
#: ones, printed thousands of times).
_TYPE_TEXT: Dict[T.Type, str] = {}


def type_text(t: T.Type) -> str:
    try:
        return _TYPE_TEXT[t]
    except KeyError:
        pass
    except TypeError:  # not hashable: not a type we print (the error comes below)
        return _type_text(t)
    text = _type_text(t)
    if len(_TYPE_TEXT) > 1 << 14:  # bound the memo in long-running processes
        _TYPE_TEXT.clear()
    _TYPE_TEXT[t] = text
    return text


def _type_text(t: T.Type) -> str:
    if isinstance(t, T.ScalarType):
        return t.name
    if isinstance(t, T.TokenType):
        return "token"
    if isinstance(t, T.PointerType):
        if t.ptr_attr is not None:
            return f"ptr<{type_text(t.pointee)}, <{PTR_ATTRS[t.ptr_attr]}>>"
        return f"ptr<{type_text(t.pointee)}>"
    if isinstance(t, T.TileType):
        dims = "".join(f"{d}x" for d in t.shape)
        return f"tile<{dims}{type_text(t.element)}>"
    if isinstance(t, T.TensorViewType):
        dims = "".join(("?" if d is None else str(d)) + "x" for d in t.shape)
        s = f"tensor_view<{dims}{type_text(t.element)}"
        if t.shape:
            s += ", strides=[" + ",".join("?" if d is None else str(d) for d in t.strides) + "]"
        if t.ptr_attr is not None:
            s += f", #cuda_tile.ptr_attr<{PTR_ATTRS[t.ptr_attr]}>"
        return s + ">"
    if isinstance(t, T.PartitionViewType):
        return (f"partition_view<{_tile_shape(t.tile_shape)}, {_padding(t.padding)}"
                f"{type_text(t.tensor_view)}{_dim_map(t.dim_map)}>")
    if isinstance(t, T.StridedViewType):
        return (f"strided_view<{_tile_shape(t.tile_shape)}, traversal_strides=["
                + ",".join(map(str, t.traversal_strides)) + f"], {_padding(t.padding)}"
                f"{type_text(t.tensor_view)}{_dim_map(t.dim_map)}>")
    if isinstance(t, T.GatherScatterViewType):
        return (f"gather_scatter_view<{_tile_shape(t.tile_shape)}, {_padding(t.padding)}"
                f"{type_text(t.tensor_view)}, sparse_dim={t.sparse_dim}>")
    if isinstance(t, T.FunctionType):
        ins = ", ".join(type_text(x) for x in t.inputs)
        outs = ", ".join(type_text(x) for x in t.results)
        return f"({ins}) -> ({outs})"
    raise TypeError(f"cannot print type {t!r}")


def _tile_shape(shape) -> str:
    return "tile=(" + "x".join(map(str, shape)) + ")"


def _padding(p) -> str:
    return f"padding_value = {p}, " if p is not None else ""


def _dim_map(dm) -> str:
    if tuple(dm) == tuple(range(len(dm))):
        return ""  # the identity map is not printed (MLIR printOptionalViewDimMap)
    return ", dim_map=[" + ", ".join(map(str, dm)) + "]"
