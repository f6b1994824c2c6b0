"""The rules, imported in pipeline order (registration order is application order)."""
from . import (ssa_renaming, version_defaults, identity_ops, permuted_scan, permute_compose, conversion_before_shape_ops,
               splat_constants, masked_pointer_as_view,  # noqa: F401
               neutral_operands, hoist_pure_ops, if_pass_through, if_select, mirrored_compares, select_min_max, sub_as_add_neg,
               zero_minus_under_exp, implied_assumptions, assume_chains, nonnegative_division, nonnegative_casts,
               empty_target_hints, disjoint_loop_stores, token_order, commutative_operands,
               constant_dedup, cse_pure_ops, short_circuit_logic, dead_code, smt_equivalence)
