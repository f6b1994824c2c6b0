"""Tile IR text: the tileirdisasm syntax, printed and parsed from the op table's templates."""
from .parser import parse_text, DEFAULT_VERSION
from .printer import print_module, print_module_lines, print_function, print_op, print_type, print_attr

__all__ = ["parse_text", "DEFAULT_VERSION", "print_module", "print_module_lines", "print_function", "print_op",
           "print_type", "print_attr"]
