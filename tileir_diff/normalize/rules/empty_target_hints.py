"""empty-target-hints: optimization hints that say nothing are the same as no hints."""
from __future__ import annotations

from dataclasses import replace

from ...dialect import OPS_BY_NAME
from ...ir import OptimizationHints
from ..rule import Rule, register
from ..util import map_functions, replace_ops

#: The ops the op table gives ``optimization_hints`` (the verifier rejects it on any other op).
_HINTED_OPS = frozenset(d.name for d in OPS_BY_NAME.values() if any(a.name == "optimization_hints" for a in d.attrs))


def _empty(h) -> bool:
    return isinstance(h, OptimizationHints) and all(len(d) == 0 for _, d in h.by_arch)


@register
class EmptyTargetHints(Rule):
    """Absorbs: ``optimization_hints=<sm_90 = {}>`` or ``<default = {}>`` (every per-target
    dictionary empty) against no hints at all, on entries and on memory ops.

    Why meaning is kept: an empty dictionary sets no hint for its target, which is what absent
    hints mean.

    Never touches: hints with at least one entry (``<sm_90 = {num_cta_in_cga = 2}>`` stays
    different from none), hint values, or which target a non-empty dictionary is for.
    """
    name = "empty-target-hints"
    mutant = "optimization_hints=<sm_90 = {num_cta_in_cga = 2}> vs no hints"
    rewrites_in_place = True  # (operands, attributes or hints of one op at a time)

    def apply(self, module):
        def per_function(f):
            count = 0

            def fn(op):
                nonlocal count
                if _empty(op.attributes.get("optimization_hints")):
                    count += 1
                    attrs = dict(op.attributes)
                    del attrs["optimization_hints"]
                    return op.replace(attributes=attrs)
                return None

            nf = replace_ops(f, fn, _HINTED_OPS)
            if _empty(nf.hints):
                nf = replace(nf, hints=None)
                count += 1
            return nf, count

        return map_functions(module, per_function)
