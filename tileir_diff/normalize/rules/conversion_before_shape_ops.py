"""conversion-before-shape-ops: an elementwise conversion of a reshaped, broadcast or permuted
tile is the reshape (broadcast, permute) of the converted tile."""
from __future__ import annotations

from typing import List, Optional

from ...dialect import OPS_BY_NAME
from ...ir import Operation, Value
from ...ir.types import TileType
from ..rule import Rule, register
from ..util import FreshVids, rewrite_ops
from ._constants import producers

#: ops that only move or repeat elements: element e of the result is some element of the source,
#: chosen by shapes and attributes alone, never by the values
_SHAPE_ONLY = frozenset({"reshape", "broadcast", "permute"})


#: The elementwise conversions, as the op table states them: one operand ``from``, one result
#: ``to`` of the same shape, pure (ftof, itof, ftoi, exti, trunci).
_CONVERSIONS = frozenset(d.name for d in OPS_BY_NAME.values()
                         if [o.name for o in d.operands] == ["from"] and [r.name for r in d.results] == ["to"]
                         and "same_shape(from,to)" in d.constraints and "pure" in d.traits)


def _is_conversion(name: str) -> bool:
    return name in _CONVERSIONS


def _shape_chain(source: Value, prod, subst) -> List[Operation]:
    """The shape-only ops that produce ``source``, nearest first (one operand, one result each)."""
    chain: List[Operation] = []
    value = source
    while len(chain) < 64:  # bounded: a chain this long is left as written beyond its 64th op
        op = prod.get(value.vid)
        if op is None or op.name not in _SHAPE_ONLY or len(op.operands) != 1 or len(op.results) != 1:
            break
        chain.append(op)
        value = op.operands[0]
    return chain


@register
class ConversionBeforeShapeOps(Rule):
    """Absorbs: a conversion written after a reshape, broadcast or permute against the same
    conversion written before it (``ftof (reshape x)`` against ``reshape (ftof x)``, one author
    converting the loaded vector, another the reshaped row): every elementwise conversion (the op
    table's ops with one ``from`` operand and one ``to`` result of the same shape: ftof, itof,
    ftoi, exti, trunci) is moved to the source of the chain of shape-only ops it reads, which are
    then re-emitted on the converted tile; each keeps its own attributes, the conversion its
    rounding mode, signedness and flags.

    Why meaning is kept: a conversion maps each element on its own (the same function at every
    position), and reshape, broadcast and permute only choose, for each result position, a
    source position by the shapes and attributes alone; converting before or after the choice
    gives every position the same value.

    Never touches: a conversion to another type or with another rounding mode, signedness or
    flag (those stay as written on each side, so they differ); a reshape to another shape or a
    permute by another permutation (re-emitted as written); any op that computes from values
    (an add between the reshape and the conversion stops the chain).
    """
    name = "conversion-before-shape-ops"
    mutant = ("ftof f16->f32 after a reshape vs ftof f16->bf16 before it, or with another rounding mode, or "
              "a reshape to another shape, stays a difference")
    acts_on = frozenset({"reshape", "broadcast", "permute"})

    def apply(self, module):
        def rewrite_for(f, bypassed):
            prod = producers(f)
            fresh = FreshVids(f)  # the largest id found on the first new value

            def fn(op, subst):
                if not _is_conversion(op.name) or len(op.operands) != 1 or len(op.results) != 1:
                    return None
                chain = _shape_chain(op.operands[0], prod, subst)
                out = self._moved(op, chain, fresh, subst)
                if out is None:
                    return None
                bypassed.update(id(s) for s in chain)
                for new in out:  # a later conversion may read this chain (a conversion of a conversion)
                    prod[new.results[0].vid] = new
                return out
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=True, only=_CONVERSIONS)

    @staticmethod
    def _moved(conv: Operation, chain: List[Operation], fresh, subst) -> Optional[List[Operation]]:
        """The conversion of the chain's source, then the chain's ops on it (the last one taking
        the conversion's result value); None where there is no chain or the types do not fit."""
        result = conv.results[0]
        if not chain or not isinstance(result.type, TileType):
            return None
        element = result.type.element
        base = chain[-1].operands[0]
        base = subst.get(base.vid, base)
        if not isinstance(base.type, TileType):
            return None
        fresh[0] += 1
        converted = Value(fresh[0], TileType(base.type.shape, element))
        out = [conv.replace(operands=(base,), results=(converted,))]
        value = converted
        for k, s in enumerate(reversed(chain)):
            old = s.results[0].type
            if not isinstance(old, TileType):
                return None
            if k == len(chain) - 1:
                new_result = result
            else:
                fresh[0] += 1
                new_result = Value(fresh[0], TileType(old.shape, element))
            out.append(s.replace(operands=(value,), results=(new_result,)))
            value = new_result
        return out
