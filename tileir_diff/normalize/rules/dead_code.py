"""dead-code: pure ops whose results nobody uses."""
from __future__ import annotations

from dataclasses import replace

from ...ir import Block, Region
from ..rule import Rule, register
from ..util import has_trait, map_functions, use_counts


def _sweep(block: Block, uses) -> tuple:
    removed = 0
    out = []
    changed = False
    for op in reversed(block.operations):  # users come after producers: one reverse pass per block
        if op.regions:
            regions = []
            for r in op.regions:
                blocks = []
                for b in r.blocks:
                    nb, n = _sweep(b, uses)
                    removed += n
                    blocks.append(nb)
                regions.append(Region(tuple(blocks)))
            if any(a is not c for r1, r2 in zip(regions, op.regions) for a, c in zip(r1.blocks, r2.blocks)):
                op = op.replace(regions=tuple(regions))
                changed = True
        if (has_trait(op, "pure") and op.name != "assume" and op.results
                and all(uses[r.vid] == 0 for r in op.results)):
            for v in op.operands:
                uses[v.vid] -= 1
            for inner in op.walk():
                if inner is not op:
                    for v in inner.operands:
                        uses[v.vid] -= 1
            removed += 1
            changed = True
            continue
        out.append(op)
    return (Block(block.arguments, tuple(reversed(out))) if changed else block), removed


@register
class DeadCode(Rule):
    """Absorbs: pure ops (constants, casts, views, block ids, arithmetic, reduce/scan, make_token,
    join_tokens, ...) none of whose results is used, transitively (removing one can make its
    operands dead). cuTile Python leaves e.g. a dead ``constant <i32: 1>`` per static stride.

    Why meaning is kept: a pure op has no effect besides its results.

    Never touches: memory ops (loads included: they may fault), effect ops (``print_tko``,
    ``assert``, ``alloca``, gdc), control flow (``for``/``if``/``loop``), terminators, and
    ``assume`` (assumptions are specialization facts, compared even when unused).
    """
    name = "dead-code"
    mutant = "an unused load_view_tko (or a store) on one side only stays a difference"

    def apply(self, module):
        def per_function(f):
            total = 0
            while True:  # a region op's operands become dead only after the outer sweep
                uses = use_counts(f)
                body, n = _sweep(f.body, uses)
                if n == 0:
                    return f, total
                f = replace(f, body=body)
                total += n
        return map_functions(module, per_function)
