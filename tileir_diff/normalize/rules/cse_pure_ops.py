"""cse-pure-ops: identical pure ops with identical operands compute one value."""
from __future__ import annotations

from ...dialect import OPS_BY_NAME
from ..canon import attr_key, fmt_type
from ..rule import Rule, register
from ..util import has_trait, map_functions
from ._scoped import hoist_then_dedup


@register
class CsePureOps(Rule):
    """Absorbs: repeated pure ops with the same name, attributes, result types and the very same
    operand values, such as the second ``get_tile_block_id``, a second ``make_partition_view``
    of the same tensor view with the same type, a repeated ``reshape``/``broadcast``/``exti`` of
    the same value, or a repeated ``assume`` with the same predicate on the same value. First,
    such ops inside loop/if bodies whose operands are all defined outside are hoisted before the
    region's op (loop-invariant code motion; never an ``assume``, whose fact holds only where it
    stands); then the later op's results are replaced by the
    earlier dominating op's (scoped like constant-dedup). Counts hoists plus merges.

    Why meaning is kept: a pure op's results depend only on its operands and attributes.

    Never touches: ops with memory or other effects (loads are never merged, even identical ones),
    ops with regions, ``constant`` (that is constant-dedup's job, so each can be switched off
    alone), and ops that differ in any attribute, result type or operand, including operand order
    (commutative-operands sorts first when it is on).
    """
    name = "cse-pure-ops"
    mutant = "two make_partition_view of one tensor view with different tile shapes stay two ops"

    def apply(self, module):
        def key(op):
            # only _PURE_OPS come here (scoped_dedup's ``only``): _mergeable(op) is "no regions"
            if op.regions:
                return None
            attributes = op.attributes
            if not attributes:
                attrs: tuple = ()
            elif len(attributes) == 1:  # nothing to sort
                attrs = tuple([(k, attr_key(v)) for k, v in attributes.items() if k[:1] != "_"])
            else:
                attrs = tuple(sorted([(k, attr_key(v)) for k, v in attributes.items() if k[:1] != "_"]))  # public ones
            results = op.results
            types = (fmt_type(results[0].type),) if len(results) == 1 else tuple([fmt_type(r.type) for r in results])
            return (op.name, attrs, tuple([v.vid for v in op.operands]), op.segments, types)
        # an assume is a fact where it stands: one inside a branch says nothing on the other path
        return map_functions(module, lambda f: hoist_then_dedup(
            f, lambda op: op.name != "assume" and _mergeable(op), key, _PURE_OPS, _names_and_operands))


#: The pure ops of the op table other than ``constant``: the only ones with a key.
_PURE_OPS = frozenset(d.name for d in OPS_BY_NAME.values() if "pure" in d.traits and d.name != "constant")


def _names_and_operands(ops):
    """What two ops with one key share (``key`` above), per op that can have one, at no cost of
    text of types or attributes: ops of distinct ones are never merged."""
    return [(op.name, tuple([v.vid for v in op.operands])) for op in ops if not op.regions]


def _mergeable(op) -> bool:
    """Whether ``op`` has a key: a pure op without regions that is not a constant."""
    return op.name != "constant" and not op.regions and has_trait(op, "pure")
