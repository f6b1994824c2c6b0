"""ssa-renaming: value names never take part in a comparison."""
from __future__ import annotations

from ..rule import Rule, register


@register
class SsaRenaming(Rule):
    """Absorbs: SSA value names and numbering (``%5`` vs ``%tile_3``), and the order in which ops
    with no data, token or region dependency between them are written.

    Why meaning is kept: names are not part of Tile IR semantics; values are identified by their
    defining op. The graph stage builds a dataflow graph whose nodes are ops and whose edges carry
    operand indices, so this rule has nothing to rewrite: it names what the graph already does
    (the IR model holds no names at all, only value ids).

    Never touches: which value an operand refers to; operand positions; op order among
    token-ordered or effect ops (kept through token edges and region placement).
    Always on (cannot be switched off): ``identical`` is defined as equal after renaming only.
    """
    name = "ssa-renaming"
    mutant = "an operand that refers to a different value (e.g. subf %a, %b -> subf %a, %c)"
    optional = False

    def apply(self, module):
        return module, 0
