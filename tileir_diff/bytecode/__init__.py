"""Tile IR bytecode -> ir.Module."""
from .reader import read_bytecode
from .container import MAGIC

__all__ = ["read_bytecode", "MAGIC"]
