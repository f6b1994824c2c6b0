"""tileir_diff: read CUDA Tile IR (bytecode 13.1-13.5 and text) and compare two kernels structurally.

Data path: bytecode | text -> ir -> normalize -> graph -> match -> diff -> report.
"""
from .errors import TileIRFormatError, UnsupportedVersionError
from .ir import Module
from .loader import load

__version__ = "0.1.0"


def __getattr__(name):
    # The diff API pulls in networkx; import it only when asked for.
    if name in ("diff", "assert_equivalent", "NotEquivalent", "NotDifferent", "ComparisonFailed", "summarize"):
        from . import api
        return getattr(api, name)
    if name in ("print_module", "parse_text"):
        from .text import printer, parser
        return {"print_module": printer.print_module, "parse_text": parser.parse_text}[name]
    if name == "read_bytecode":
        from .bytecode import read_bytecode
        return read_bytecode
    raise AttributeError(f"module 'tileir_diff' has no attribute {name!r}")


__all__ = ["load", "Module", "TileIRFormatError", "UnsupportedVersionError", "diff", "assert_equivalent",
           "NotEquivalent", "NotDifferent", "ComparisonFailed", "summarize", "print_module", "parse_text", "read_bytecode"]
