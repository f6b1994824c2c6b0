"""Corpus kernels, grouped by theme; see docs/corpus.md.

``all_cases()`` returns every Case of every theme module, in module then list order.
"""
from __future__ import annotations

import importlib

THEME_MODULES = (
    "elementwise", "math", "casts", "memory", "atomics", "reductions", "mma", "control_flow",
    "shapes", "misc", "large",
)


def all_cases():
    """[(module_name, Case)] for every case; duplicate names are an error (files would clash)."""
    out, seen = [], {}
    for mod_name in THEME_MODULES:
        mod = importlib.import_module(f"{__name__}.{mod_name}")
        for c in mod.CASES:
            if c.name in seen:
                raise ValueError(f"duplicate case name {c.name!r} in {mod_name} and {seen[c.name]}")
            seen[c.name] = mod_name
            out.append((mod_name, c))
    return out
