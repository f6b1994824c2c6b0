"""Tile IR text: the tileirdisasm syntax, printed and parsed from the op table's templates."""
from .printer import print_module, print_module_lines, print_function, print_op, print_type, print_attr


def __getattr__(name):
    # The parser is imported on first use: printing (``tileir-diff dump``) does not need it.
    if name in ("parse_text", "DEFAULT_VERSION"):
        from . import parser
        return getattr(parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["parse_text", "DEFAULT_VERSION", "print_module", "print_module_lines", "print_function", "print_op",
           "print_type", "print_attr"]
