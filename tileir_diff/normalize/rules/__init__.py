"""The rules, imported in pipeline order (registration order is application order)."""
from . import (ssa_renaming, version_defaults, identity_ops, implied_assumptions, assume_chains,  # noqa: F401
               nonnegative_division, empty_target_hints, token_order, commutative_operands, constant_dedup,
               cse_pure_ops, dead_code)
