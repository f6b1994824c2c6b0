"""The reference suite: catalog of reference/<op>/analysis.json, bytecode/cubin export, CLI."""

from tileir_diff.suite.catalog import CatalogError, OpSpec, ParamSpec, VariantSpec, load_catalog, load_op

__all__ = ["CatalogError", "OpSpec", "ParamSpec", "VariantSpec", "load_catalog", "load_op"]
