"""The rules, imported in pipeline order (registration order is application order)."""
from . import (ssa_renaming, version_defaults, empty_target_hints, token_order, commutative_operands,  # noqa: F401
               constant_dedup, cse_pure_ops, dead_code)
