"""The IR model: the contract between readers, printer, normalization and graph."""
from .types import (SCALAR_TYPES, Type, ScalarType, TokenType, PointerType, TileType, TensorViewType,
                    PartitionViewType, StridedViewType, GatherScatterViewType, FunctionType, VIEW_TYPES,
                    element_type)
from .attributes import (EnumValue, IntegerAttr, FloatAttr, DictAttr, OptimizationHints, DivBy, Bounded,
                         SameElements, DenseElements, decode_elements, decode_float_bits, float_bits)
from .core import Location, Value, Block, Region, Operation, Function, Global, Module

__all__ = [n for n in dir() if not n.startswith("_")]
