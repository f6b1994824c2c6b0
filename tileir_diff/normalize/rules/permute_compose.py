"""permute-compose: a permute of a permute is one permute."""
from __future__ import annotations

from ..rule import Rule, register
from ..util import forward_operand, preorder, rewrite_ops


def composed(inner, outer):
    """The permutation of ``permute(permute(x, inner), outer)`` applied to x in one step: result
    dim i is dim outer[i] of the inner result, which is dim inner[outer[i]] of x."""
    return tuple(inner[k] for k in outer)


@register
class PermuteCompose(Rule):
    """Absorbs: a chain of ``permute`` ops against the single ``permute`` they compose to (one
    author writes ``permute(t, (2, 1, 0))``, another three transposes ``(0 1)``, ``(0 2)``,
    ``(1 2)``; ``transpose(transpose(t))`` is ``t``). ``permute(permute(x, p), q)`` becomes
    ``permute(x, r)`` with ``r[i] = p[q[i]]``; where ``r`` is the identity the result is ``x``
    itself. The inner permute is dropped when nothing else uses it.

    Why meaning is kept: ``permute`` only moves elements: element ``e`` of ``permute(y, q)`` is
    the element of ``y`` at ``e`` with its indices reordered by ``q``, and that one is the element
    of ``x`` reordered by ``p``; both steps together reorder by ``r``. The result type is the
    outer permute's (x's dims in the order ``r``).

    Never touches: permutations that compose to another one (``(1, 0, 2)`` then ``(0, 2, 1)`` is
    ``(1, 2, 0)``, not ``(2, 1, 0)``), a permute whose source is any other op (a reshape between
    two permutes moves elements differently), or a permute of a permute of different rank.
    """
    name = "permute-compose"
    mutant = "permute (1, 0, 2) then (0, 2, 1) vs permute (2, 1, 0) (they compose to (1, 2, 0)) stays a difference"
    acts_on = frozenset({"permute"})

    def apply(self, module):
        def rewrite_for(f, bypassed):
            producer = {r.vid: op for op in preorder(f) for r in op.results}

            def fn(op, subst):
                if op.name != "permute" or len(op.operands) != 1 or len(op.results) != 1:
                    return None
                inner = producer.get(op.operands[0].vid)
                if inner is None or inner.name != "permute" or len(inner.operands) != 1:
                    return None
                p, q = inner.attributes.get("permutation"), op.attributes.get("permutation")
                if p is None or q is None or sorted(p) != list(range(len(p))) or sorted(q) != list(range(len(p))):
                    return None
                r = composed(tuple(p), tuple(q))
                bypassed.add(id(inner))
                source = subst.get(inner.operands[0].vid, inner.operands[0])
                if r == tuple(range(len(r))) and source.type == op.results[0].type:
                    return forward_operand(op.replace(operands=(source,)), subst)
                new = op.replace(operands=(source,), attributes={**op.attributes, "permutation": r})
                producer[op.results[0].vid] = new
                return [new]
            return fn

        return rewrite_ops(module, rewrite_for, drop_bypassed=True, only=self.acts_on)
