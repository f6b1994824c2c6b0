"""The Tile IR dialect as data: enums and the one op table that drives decoding, printing and parsing."""
from .enums import ENUMS, PADDING_VALUES
from .spec import (Version, V13_1, V13_2, V13_3, V13_4, V13_5, SUPPORTED_VERSIONS, parse_version,
                   OpDef, AttrDef, OperandDef, ResultDef)
from .ops import OPS, OPS_BY_NAME, OPS_BY_OPCODE, op_def, ops_for_version

__all__ = [n for n in dir() if not n.startswith("_")]
