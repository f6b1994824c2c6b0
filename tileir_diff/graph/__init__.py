"""Graph stage: normalized IR -> one dataflow graph per function, with canonical labels and
stable Merkle hashes (see build.py)."""
from .build import FOLDED_REGION_OPS, FunctionGraph, Node, build_graphs, combiner_expression, input_op_id

__all__ = ["FunctionGraph", "Node", "build_graphs", "combiner_expression", "FOLDED_REGION_OPS", "input_op_id"]
