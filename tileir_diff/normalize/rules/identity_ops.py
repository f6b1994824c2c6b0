"""identity-ops: shape ops that return their operand unchanged."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import forward_operand, rewrite_ops


def is_identity(op) -> bool:
    if len(op.operands) != 1 or len(op.results) != 1 or op.regions:
        return False
    if op.operands[0].type != op.results[0].type:
        return False
    if op.name in ("broadcast", "reshape", "bitcast"):
        return True
    if op.name == "permute":
        perm = op.attributes.get("permutation")
        return perm is not None and list(perm) == list(range(len(perm)))
    return False


@register
class IdentityOps(Rule):
    """Absorbs: ``broadcast``, ``reshape`` and ``bitcast`` whose result type equals the operand
    type (a port that builds an i32 constant and bitcasts it to i32 to work around its frontend; cuTile
    Rust writes ``broadcast %x : tile<1x1xf32> -> tile<1x1xf32>`` where Python uses the value
    directly), and ``permute`` by the identity permutation. Uses of the result become uses of
    the operand.

    Why meaning is kept: a bitcast to its own type keeps every bit; a broadcast to the same shape repeats nothing; a reshape keeps the
    row-major element order, so to the same shape it is the identity; ``permute [0, 1, ...]``
    moves no dimension.

    Never touches: a broadcast or reshape that changes the shape (``tile<1x1xf32> ->
    tile<1x8xf32>``, ``tile<8xf32> -> tile<1x8xf32>``), a ``permute`` that moves dimensions even
    when the type stays the same (``[1, 0]`` of a square tile is a transpose), a ``bitcast``
    between two types (``f32 -> i32`` reinterprets the bits), and conversions (``ftof``,
    ``exti``).
    """
    name = "identity-ops"
    mutant = "broadcast tile<1x1xf32> -> tile<1x8xf32>, or permute [1, 0] of a square tile, stays"
    acts_on = frozenset({"broadcast", "reshape", "permute", "bitcast"})

    def apply(self, module):
        def drop_identity(op, subst):
            return forward_operand(op, subst) if is_identity(op) else None
        return rewrite_ops(module, lambda function, bypassed: drop_identity, only=self.acts_on)
