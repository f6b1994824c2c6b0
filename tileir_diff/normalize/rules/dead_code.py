"""dead-code: pure ops whose results nobody uses."""
from __future__ import annotations

from dataclasses import replace

from ...ir import Block, Region
from ..rule import Rule, register
from ..util import REMOVABLE_WHEN_UNUSED, map_functions, op_lists, unused_cascade, use_counts, without_ops


class _Uses:
    """Use counts during a sweep, and whether a removal left an op unused that the sweep had
    already kept (then one more sweep is due; in SSA order producers come after their users in
    a reverse pass, so this is rare)."""

    def __init__(self, counts):
        self.counts = counts
        self.kept: set = set()  # result vids of removable ops the sweep kept
        self.again = False

    def drop(self, op) -> None:
        """Remove ``op``'s operand uses, nested ops' included."""
        counts, kept = self.counts, self.kept
        for inner in (op.walk() if op.regions else (op,)):
            for v in inner.operands:
                counts[v.vid] -= 1
                if counts[v.vid] == 0 and v.vid in kept:
                    self.again = True


def _sweep(block: Block, uses: _Uses) -> tuple:
    removed = 0
    out = []
    changed = False
    counts, kept = uses.counts, uses.kept
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
        results = op.results
        if results and op.name in REMOVABLE_WHEN_UNUSED:
            if len(results) == 1:
                unused = counts[results[0].vid] == 0
            else:
                unused = all(counts[r.vid] == 0 for r in results)
            if unused:
                uses.drop(op)
                removed += 1
                changed = True
                continue
            if len(results) == 1:
                kept.add(results[0].vid)  # (one result: no list)
            else:
                kept.update([r.vid for r in results])
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
        return map_functions(module, _remove_dead)


def _remove_dead(f):
    lists = op_lists(f.body)
    counts = use_counts(f, lists)
    candidates = [op for ops in lists for op in ops if op.results and op.name in REMOVABLE_WHEN_UNUSED]
    if len(lists) > 1 and [op for op in candidates if op.regions]:  # (one list: no op has regions)
        return _by_sweeps(f, counts)
    # Without a removable op with regions, the sweeps remove the ops a work list finds (removing
    # an op can only leave its operands' producers unused), counted one each: the work list
    # finds them without a pass per sweep over every op (and most functions have none).
    gone = unused_cascade(candidates, counts)
    if not gone:
        return f, 0
    return without_ops(f, gone), len(gone)


def _by_sweeps(f, counts):
    """Reverse sweeps until one leaves no kept op unused (``counts``: ``use_counts(f)``; the
    counts carry over from one sweep to the next): (function, ops removed)."""
    total = 0
    while True:
        uses = _Uses(counts)
        body, n = _sweep(f.body, uses)
        if n:
            f = replace(f, body=body)
            total += n
        if not uses.again:
            return f, total
        counts = use_counts(f)
